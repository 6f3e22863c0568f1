from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt


# ruleid: csrf-protection-disabled
@csrf_exempt
def update_email(request):
    request.user.email = request.POST["email"]
    request.user.save()
    return JsonResponse({"ok": True})
