from django.shortcuts import redirect


def logout_done(request):
    target = request.GET.get("next", "/")
    return redirect(target)
