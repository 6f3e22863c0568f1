from django.contrib.auth.decorators import login_required
from django.http import JsonResponse


@login_required
def profile(request):
    return JsonResponse({"user": request.user.username})
