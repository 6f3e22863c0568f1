from django.db.models.expressions import RawSQL
from django.http import JsonResponse

from .models import Product


def discounted(request, region):
    expr = RawSQL("SELECT rate FROM discounts WHERE region = '" + region + "'", [])
    products = Product.objects.annotate(rate=expr)
    return JsonResponse({"products": [p.name for p in products]})
