from django.http import HttpResponseBadRequest, HttpResponseRedirect

PUBLIC_HOSTS = ("www.example.com", "shop.example.com")


def to_login(request):
    host = request.GET.get("site_host", "www.example.com")
    if host not in PUBLIC_HOSTS:
        return HttpResponseBadRequest("unknown host")
    return HttpResponseRedirect("https://" + host + "/login")
