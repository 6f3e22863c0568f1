from django.http import JsonResponse


def apply_markup(request):
    factor = float(request.POST.get("factor", "1.0"))
    namespace = {"base": 100.0}
    source = f"price = base * {factor}"
    exec(source, namespace)
    return JsonResponse({"price": namespace["price"]})
