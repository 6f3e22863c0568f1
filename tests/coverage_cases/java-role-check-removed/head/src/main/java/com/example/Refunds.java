package com.example;

public class Refunds {
    public void refund(Account caller, Order order) {
        order.refund();
    }
}
