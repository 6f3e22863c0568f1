from django.http import JsonResponse

from .billing import issue_refund, list_invoices


def invoices(request):
    return JsonResponse({"invoices": list_invoices(request.user)})


def refund(request, invoice_id):
    return JsonResponse(issue_refund(invoice_id))
