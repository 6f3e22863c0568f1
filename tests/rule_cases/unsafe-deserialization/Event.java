package com.example.events;

import com.fasterxml.jackson.annotation.JsonTypeInfo;

// ruleid: unsafe-deserialization
@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS, property = "@class")
public abstract class Event {
}

// ok: unsafe-deserialization
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
abstract class NamedEvent {
}
