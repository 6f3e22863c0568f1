from django.contrib.auth.decorators import login_required
from django.http import JsonResponse

from .models import Account


@login_required
def profile(request):
    return JsonResponse({"user": request.user.username})


@login_required
def export_accounts(request):
    rows = list(Account.objects.values("id", "email", "plan"))
    return JsonResponse({"accounts": rows})
