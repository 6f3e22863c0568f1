from decimal import Decimal

VAT = Decimal("0.20")


def _with_vat(amount: Decimal) -> Decimal:
    return (amount * (1 + VAT)).quantize(Decimal("0.01"))


def price(net: Decimal, quantity: int) -> Decimal:
    """Gross price of ``quantity`` items."""
    return _with_vat(net * quantity)
