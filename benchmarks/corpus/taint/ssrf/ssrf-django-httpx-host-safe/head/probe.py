import httpx
from django.http import HttpResponseBadRequest, JsonResponse

SERVICES = ("billing.internal", "search.internal")


def probe(request):
    host = request.POST.get("host", "")
    if host not in SERVICES:
        return HttpResponseBadRequest("unknown service")
    reply = httpx.get(f"http://{host}/healthz", timeout=3.0)
    return JsonResponse({"healthy": reply.status_code == 200})
