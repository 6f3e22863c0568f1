"""Redirects to named routes only: nothing for the rule to report."""

from django.shortcuts import redirect


def after_signup(request):
    return redirect("dashboard")
