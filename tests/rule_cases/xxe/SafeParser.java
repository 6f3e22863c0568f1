package com.example.xml;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;

public final class SafeParser {
    public static DocumentBuilderFactory hardened() throws Exception {
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        dbf.setFeature("http://xml.org/sax/features/external-general-entities", false);
        dbf.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
        dbf.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        dbf.setExpandEntityReferences(false);
        return dbf;
    }
}
