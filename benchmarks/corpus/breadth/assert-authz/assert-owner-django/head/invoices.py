from django.core.exceptions import PermissionDenied
from django.http import JsonResponse

from .models import Invoice


def void_invoice(request, invoice_id):
    invoice = Invoice.objects.get(pk=invoice_id)
    assert invoice.owner_id == request.user.id, PermissionDenied
    invoice.void()
    return JsonResponse({"voided": invoice_id})
