from decimal import Decimal

VAT = Decimal("0.20")


def price(net, quantity):
    return (net * quantity * (1 + VAT)).quantize(Decimal("0.01"))
