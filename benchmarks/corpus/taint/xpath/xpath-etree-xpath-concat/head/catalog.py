from django.http import JsonResponse
from lxml import etree

CATALOG = etree.parse("/srv/catalog.xml")


def by_author(request):
    author = request.GET.get("author", "")
    find = etree.XPath("//book[author='" + author + "']/title/text()")
    titles = find(CATALOG)
    return JsonResponse({"titles": list(titles)})
