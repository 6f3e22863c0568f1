import io
import xml.sax
from xml.sax.handler import feature_external_ges

from django.http import JsonResponse


class Counter(xml.sax.ContentHandler):
    def __init__(self):
        super().__init__()
        self.items = 0

    def startElement(self, name, attrs):
        self.items += name == "item"


def ingest(request):
    handler = Counter()
    parser = xml.sax.make_parser()
    parser.setFeature(feature_external_ges, False)
    parser.setContentHandler(handler)
    parser.parse(io.BytesIO(request.body))
    return JsonResponse({"items": handler.items})
