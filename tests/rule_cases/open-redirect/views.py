from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme


def login_done(request):
    # ruleid: open-redirect
    return redirect(request.GET["next"])


def login_done_safe(request):
    nxt = request.GET.get("next", "/")
    if not url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()}):
        nxt = "/"
    # ok: open-redirect
    return redirect(nxt)
