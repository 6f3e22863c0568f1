from django.core.exceptions import PermissionDenied
from django.http import JsonResponse

from .models import Invoice


def void_invoice(request, invoice_id):
    invoice = Invoice.objects.get(pk=invoice_id)
    if invoice.owner_id != request.user.id: raise PermissionDenied
    invoice.void()
    return JsonResponse({"voided": invoice_id})
