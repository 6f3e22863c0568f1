from django.http import HttpResponse

from .cards import card


def share_card(request):
    title = request.GET.get("title", "Untitled")
    return HttpResponse(card(title))
