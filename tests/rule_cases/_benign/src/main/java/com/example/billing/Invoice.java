package com.example.billing;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/** A plain value class: no rule may create an item for this change. */
public final class Invoice {
    private final String number;
    private final LocalDate issued;
    private final List<BigDecimal> lines;

    public Invoice(String number, LocalDate issued, List<BigDecimal> lines) {
        this.number = Objects.requireNonNull(number);
        this.issued = Objects.requireNonNull(issued);
        this.lines = List.copyOf(lines);
    }

    public BigDecimal total() {
        return lines.stream().reduce(BigDecimal.ZERO, BigDecimal::add);
    }

    public boolean isOverdue(LocalDate today) {
        return issued.plusDays(30).isBefore(today);
    }

    @Override
    public String toString() {
        return "Invoice " + number + " (" + issued + "): " + total();
    }
}
