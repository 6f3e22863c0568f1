package com.example.xml;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.stream.XMLInputFactory;

public class XmlService {
    public void configure() throws ParserConfigurationException {
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        // ruleid: xxe
        dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
        // ruleid: xxe
        dbf.setFeature("http://xml.org/sax/features/external-general-entities", true);
        XMLInputFactory xif = XMLInputFactory.newInstance();
        // ruleid: xxe
        xif.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, true);
        // ok: xxe
        xif.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    }
}
