"""Explicit checks: nothing for the rule to report."""

from django.core.exceptions import PermissionDenied


def require_admin(user):
    if not user.is_superuser:
        raise PermissionDenied("administrators only")
    assert user.pk is not None
