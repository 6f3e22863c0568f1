from django.contrib.auth.decorators import login_required
from django.http import JsonResponse

from .models import Account


@login_required
def profile(request):
    return JsonResponse({"user": request.user.username})


@login_required
def plan(request):
    account = Account.objects.get(user=request.user)
    return JsonResponse({"plan": account.plan})
