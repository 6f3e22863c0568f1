from lxml import etree


def parse_upload(data: bytes):
    # ruleid: xxe
    parser = etree.XMLParser(resolve_entities=True)
    # ruleid: xxe
    parser = etree.XMLParser(no_network=False, load_dtd=True)
    # ruleid: xxe
    big = etree.XMLParser(huge_tree=True)
    # ok: xxe
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    return etree.fromstring(data, parser), big
