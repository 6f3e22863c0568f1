import json
import pickle

from django.http import JsonResponse


class Loader[T]:
    def __init__(self, data: bytes):
        self.data = data

    def load(self) -> T:
        return json.loads(self.data)


def import_view(request):
    upload = request.FILES["dump"]
    records = Loader[list](upload.read()).load()
    return JsonResponse({"records": len(records)})
