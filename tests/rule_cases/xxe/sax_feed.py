import xml.sax
from xml.sax.handler import feature_external_ges, feature_external_pes


def parse_feed(stream, handler):
    parser = xml.sax.make_parser()
    # ruleid: xxe
    parser.setFeature(feature_external_ges, True)
    # ruleid: xxe
    parser.setFeature(xml.sax.handler.feature_external_pes, True)
    # ok: xxe
    parser.setFeature(feature_external_pes, False)
    parser.setContentHandler(handler)
    parser.parse(stream)
