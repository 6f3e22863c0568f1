from django.db import connection
from django.http import JsonResponse
from django.views import View


class ArticleStats(View):
    def get(self, request, *args, **kwargs):
        slug = self.kwargs["slug"]
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT views, likes FROM stats WHERE slug = '{slug}'")
            row = cursor.fetchone()
        return JsonResponse({"views": row[0], "likes": row[1]} if row else {})
