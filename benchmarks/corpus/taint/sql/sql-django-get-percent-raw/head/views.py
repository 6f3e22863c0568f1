from django.http import JsonResponse

from .models import Book


def search_books(request):
    author = request.GET.get("author", "")
    sql = "SELECT * FROM library_book WHERE author = '%s'" % author
    books = Book.objects.raw(sql)
    return JsonResponse({"titles": [b.title for b in books]})
