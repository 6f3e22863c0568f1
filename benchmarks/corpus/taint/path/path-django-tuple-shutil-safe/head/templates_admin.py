import os
import shutil

from django.http import HttpResponseBadRequest, JsonResponse

TEMPLATE_DIR = "/srv/templates"
KNOWN = ("invoice.html", "receipt.html", "welcome.html")


def duplicate_template(request):
    src, dst = request.POST["src"], request.POST["dst"]
    if src not in KNOWN or dst not in KNOWN:
        return HttpResponseBadRequest("unknown template")
    shutil.copy(os.path.join(TEMPLATE_DIR, src), os.path.join(TEMPLATE_DIR, dst))
    return JsonResponse({"copied": dst})
