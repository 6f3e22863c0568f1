import os

from django.http import HttpResponse, HttpResponseBadRequest

KNOWN = {"daily", "weekly", "monthly"}


def list_archive(request):
    name = request.POST.get("archive", "daily")
    cmd = "tar -tzf /srv/backups/%s.tar.gz" % name
    listing = os.popen(cmd).read()
    return HttpResponse(listing, content_type="text/plain")
