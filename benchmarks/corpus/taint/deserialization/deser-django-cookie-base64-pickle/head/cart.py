import base64
import pickle

from django.http import JsonResponse

LEGACY_CARTS = True


def cart(request):
    items = []
    raw = request.COOKIES.get("cart", "")
    if LEGACY_CARTS and raw:
        items = pickle.loads(base64.b64decode(raw))
    return JsonResponse({"items": items})
