package com.example.xml;

import javax.xml.parsers.DocumentBuilderFactory;

public final class XmlConfig {
    public static DocumentBuilderFactory factory() throws Exception {
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        dbf.setXIncludeAware(false);
        return dbf;
    }
}
