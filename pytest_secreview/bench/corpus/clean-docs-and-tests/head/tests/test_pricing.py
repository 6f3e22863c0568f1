from decimal import Decimal

from app.pricing import price


def test_price_adds_vat():
    assert price(Decimal("10"), 2) == Decimal("24.00")
