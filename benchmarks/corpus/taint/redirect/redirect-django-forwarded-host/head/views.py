from django.http import HttpResponseBadRequest, HttpResponseRedirect

PUBLIC_HOSTS = ("www.example.com", "shop.example.com")


def to_login(request):
    host = request.META.get("HTTP_X_FORWARDED_HOST", "www.example.com")
    return HttpResponseRedirect("https://" + host + "/login")
