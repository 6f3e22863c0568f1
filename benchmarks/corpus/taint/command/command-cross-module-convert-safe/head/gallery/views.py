import shlex

from django.http import JsonResponse

from .media import convert_to_webp


def upload_image(request):
    image = request.FILES["image"]
    name = shlex.quote(image.name)
    convert_to_webp(name)
    return JsonResponse({"queued": True})
