from django.http import JsonResponse
from django.views.decorators.http import require_POST

from .models import Ticket


@require_POST
def tickets_by_tag(request):
    tag = request.POST["tag"]
    where = "tags LIKE %s"
    qs = Ticket.objects.extra(where=[where], params=["%" + tag + "%"])
    return JsonResponse({"ids": list(qs.values_list("id", flat=True))})
