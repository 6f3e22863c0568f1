from xml.etree.ElementTree import fromstring


def parse_feed(body: bytes):
    return fromstring(body)
