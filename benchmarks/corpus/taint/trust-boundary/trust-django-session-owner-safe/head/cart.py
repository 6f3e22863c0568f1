from django.http import JsonResponse


def claim_cart(request):
    owner = request.POST.get("owner_id", "")
    matches = owner == str(request.user.pk)
    owner = str(request.user.pk)
    request.session["cart_owner"] = owner
    return JsonResponse({"claimed": matches})
