import os

from django.http import HttpResponseBadRequest, JsonResponse

CACHE_DIR = "/var/cache/app/"
CACHE_FILES = ("pages.db", "thumbs.db", "search.idx")


def clear_cache(request):
    name = request.GET.get("name", "")
    if name not in CACHE_FILES:
        return HttpResponseBadRequest("unknown cache file")
    os.remove(CACHE_DIR + name)
    return JsonResponse({"cleared": name})
