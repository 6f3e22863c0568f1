from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme


def logout_done(request):
    target = request.GET.get("next", "/")
    # ruleid: open-redirect
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = "/"
    return redirect(target)
