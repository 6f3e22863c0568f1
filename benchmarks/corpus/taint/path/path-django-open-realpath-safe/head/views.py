import os

from django.http import Http404, HttpResponse

REPORTS = "/var/app/reports"


def report(request, name):
    full = os.path.realpath(os.path.join(REPORTS, name))
    if os.path.commonpath([full, REPORTS]) != REPORTS:
        raise Http404("no such report")
    with open(full, encoding="utf-8") as fh:
        return HttpResponse(fh.read(), content_type="text/plain")
