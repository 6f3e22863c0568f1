package com.example.imports;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.beans.XMLDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

public class Import {
    public Object read(InputStream body, InputStream upload) throws IOException, ClassNotFoundException {
        // ruleid: unsafe-deserialization
        ObjectInputStream in = new ObjectInputStream(body);
        // ruleid: unsafe-deserialization
        XMLDecoder decoder = new XMLDecoder(upload);
        ObjectMapper mapper = new ObjectMapper();
        // ruleid: unsafe-deserialization
        mapper.enableDefaultTyping();
        // ruleid: unsafe-deserialization
        Yaml yaml = new Yaml();
        // ok: unsafe-deserialization
        Yaml safeYaml = new Yaml(new SafeConstructor(new LoaderOptions()));
        return in.readObject() + decoder.readObject().toString() + yaml + safeYaml;
    }
}
