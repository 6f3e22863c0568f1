package com.example.xml;

import javax.xml.parsers.DocumentBuilderFactory;

public final class XmlConfig {
    public static DocumentBuilderFactory factory() throws Exception {
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        // ruleid: xxe
        dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        dbf.setXIncludeAware(false);
        return dbf;
    }
}
