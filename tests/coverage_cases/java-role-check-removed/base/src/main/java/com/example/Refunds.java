package com.example;

public class Refunds {
    public void refund(Account caller, Order order) {
        if (!caller.hasRole("FINANCE")) {
            throw new IllegalStateException("forbidden");
        }
        order.refund();
    }
}
