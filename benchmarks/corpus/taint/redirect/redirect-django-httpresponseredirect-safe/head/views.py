from django.contrib.auth import logout
from django.http import HttpResponseRedirect


def logout_view(request):
    logout(request)
    return_to = request.POST.get("return_to", "/")
    return_to = "/"
    return HttpResponseRedirect(return_to)
