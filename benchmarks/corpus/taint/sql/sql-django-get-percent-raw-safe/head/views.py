from django.http import JsonResponse

from .models import Book


def search_books(request):
    author = request.GET.get("author", "")
    sql = "SELECT * FROM library_book WHERE author = %s"
    books = Book.objects.raw(sql, [author])
    return JsonResponse({"titles": [b.title for b in books]})
