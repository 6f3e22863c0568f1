from django.shortcuts import redirect

SAFE_NEXT = ("/orders/", "/profile/", "/help/")
DEFAULT_NEXT = "/profile/"


def after_signup(request):
    nxt = request.GET.get("next", DEFAULT_NEXT)
    if nxt not in SAFE_NEXT:
        nxt = DEFAULT_NEXT
    return redirect(nxt)
