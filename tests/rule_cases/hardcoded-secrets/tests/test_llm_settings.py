"""Placeholders a test passes where a key goes: nothing for the rule to report, except a
value that looks generated."""


def test_key_is_kept(client, configure):
    # ok: hardcoded-secrets
    configure(api_key="sk-should-be-kept")
    # ok: hardcoded-secrets
    settings = {"model": "gpt-4o-mini", "api_key": "sk-test-fake"}
    # ok: hardcoded-secrets
    form = {"llm-llm_api_key": "sk-different-key"}
    # ruleid: hardcoded-secrets
    configure(api_key="{{GENERIC_SECRET}}")
    return settings, form
