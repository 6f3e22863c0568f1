from django.shortcuts import redirect

SAFE_NEXT = ("/orders/", "/profile/", "/help/")
DEFAULT_NEXT = "/orders/"


def after_signup(request):
    nxt = request.GET.get("next", DEFAULT_NEXT)
    return redirect(nxt)
