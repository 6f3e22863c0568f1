from django.http import HttpResponse
from django.utils.html import format_html
from django.utils.safestring import mark_safe


def greeting(request):
    name = request.GET.get("name", "")
    # ruleid: xss
    return HttpResponse(mark_safe("<b>Hello " + name + "</b>"))


def greeting_safe(request):
    name = request.GET.get("name", "")
    # ok: xss
    banner = mark_safe("<hr>")
    # ok: xss
    return HttpResponse(format_html("<b>Hello {}</b>{}", name, banner))
