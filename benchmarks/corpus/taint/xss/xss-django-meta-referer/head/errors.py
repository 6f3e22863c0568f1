from django.http import HttpResponseNotFound


def not_found(request, exception=None):
    back = request.META.get("HTTP_REFERER", "/")
    page = "<p>Page not found. <a href='%s'>Go back</a></p>" % back
    return HttpResponseNotFound(page)
