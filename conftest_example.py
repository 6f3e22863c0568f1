"""A documented ``conftest.py`` showing every extension point of pytest-secreview.

Copy what you need into the ``conftest.py`` at the root of the repository that runs the
review. Everything here is optional; the plugin works with none of it.
"""

from __future__ import annotations

import os

import pytest

from pytest_secreview.core.findings import Finding
from pytest_secreview.core.severity import Severity
from pytest_secreview.llm.base import ChatModel

# 1. Settings. Every --secreview-* flag is also an ini key (secreview_*) and an environment
#    variable (SECREVIEW_*); the command line wins over ini, ini over the environment. The
#    secreview_* ini keys are read as they are at the base revision: a pull request that
#    changes them is reported and its values are not used.
#
#    [pytest]
#    secreview_fail_on = high
#    secreview_model = google/gemini-2.5-pro
#    secreview_rules =
#        :bundled
#        secreview/rules
#
# 2. Your own rules: markdown files in secreview/rules/ (read from the base revision, so a
#    pull request cannot weaken them). See docs/rules.md, "Writing rules".

ACCEPTED_RISKS = {
    # (rule id, path): why the risk is accepted - reviewed and signed off.
    ("tls-verification-disabled", "tools/local_dev_proxy.py"): "local development proxy only",
}


@pytest.hookimpl
def pytest_secreview_filter_finding(finding: Finding, item: pytest.Item) -> bool | None:
    """3. Drop findings your team has accepted. Return False to drop, None to keep.

    Keep this list short and reviewed: a dropped finding fails nothing and is kept in every
    report as suppressed ("filtered"). For a baseline that survives edits, the baseline
    file is the better tool (docs/configuration.md).
    """
    if (finding.rule, finding.path) in ACCEPTED_RISKS:
        return False
    # Generated code is rebuilt from its source; review the source instead.
    if finding.path.startswith("gen/") and not finding.severity.at_least(Severity.CRITICAL):
        return False
    return None


@pytest.hookimpl
def pytest_secreview_make_model(config: pytest.Config, model: str) -> ChatModel | None:
    """4. Your own provider or gateway: return a ChatModel for the model strings you own,
    None for the built-in routes. A ChatModel has ``model_id`` and ``complete(system,
    messages, tools, *, max_output_tokens, temperature) -> ModelResponse``; subclassing
    HttpChatModel gives retries, the shared rate limits' retry policy and secret scrubbing.
    """
    if model.startswith("internal:"):
        # An in-house gateway that speaks the OpenAI chat-completions wire format.
        from pytest_secreview.llm.auth import StaticBearerToken
        from pytest_secreview.llm.openai import OpenAIChatModel

        return OpenAIChatModel(
            model_id=model,
            url="https://llm-gateway.example.internal/v1/chat/completions",
            credential=StaticBearerToken(os.environ["LLM_GATEWAY_TOKEN"], "LLM_GATEWAY_TOKEN"),
            provider="in-house LLM gateway",
            wire_model=model.removeprefix("internal:"),
        )
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """5. Items are ordinary pytest items marked ``secreview``: select them with
    ``-m secreview`` or ``-k <rule-or-path>``, or mark them further as here."""
    for item in items:
        if item.get_closest_marker("secreview") and "workflows" in item.nodeid:
            item.add_marker(pytest.mark.ci_config)
