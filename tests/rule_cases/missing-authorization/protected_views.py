"""Every view is protected: nothing deterministic to report (the model still checks)."""

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse


@login_required
def account(request):
    return JsonResponse({"user": request.user.get_username()})
