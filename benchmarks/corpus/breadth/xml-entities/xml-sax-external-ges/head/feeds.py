import xml.sax
from xml.sax.handler import feature_external_ges


class Titles(xml.sax.ContentHandler):
    def __init__(self):
        super().__init__()
        self.titles = []

    def characters(self, content):
        self.titles.append(content)


def read_feed(stream):
    handler = Titles()
    parser = xml.sax.make_parser()
    parser.setFeature(feature_external_ges, True)
    parser.setContentHandler(handler)
    parser.parse(stream)
    return handler.titles
