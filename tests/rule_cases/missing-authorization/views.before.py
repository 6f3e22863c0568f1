from django.contrib.auth.decorators import login_required, permission_required
from django.http import JsonResponse

from .billing import issue_refund, list_invoices


# ruleid: missing-authorization
@login_required
def invoices(request):
    return JsonResponse({"invoices": list_invoices(request.user)})


# ruleid: missing-authorization
@permission_required("billing.refund")
def refund(request, invoice_id):
    return JsonResponse(issue_refund(invoice_id))
