from django.db import connection
from django.http import JsonResponse


def report(request):
    region = request.GET["region"]
    with connection.cursor() as cur:
        cur.execute("SELECT total FROM sales WHERE region = '%s'" % region)
        rows = cur.fetchall()
    return JsonResponse({"rows": rows})
