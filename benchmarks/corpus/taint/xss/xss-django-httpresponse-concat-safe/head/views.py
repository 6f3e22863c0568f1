import html

from django.http import HttpResponse


def search(request):
    query = request.GET.get("q", "")
    heading = "<h1>Results for " + html.escape(query) + "</h1>"
    return HttpResponse(heading + "<ul></ul>")
