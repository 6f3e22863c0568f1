import json

from django.http import JsonResponse

from .models import Customer


def lookup(request):
    data = json.loads(request.body)
    if (name := data.get("name")):
        people = Customer.objects.raw("SELECT * FROM crm_customer WHERE name = '%s'" % name)
        return JsonResponse({"ids": [p.id for p in people]})
    return JsonResponse({"ids": []})
