"""The model review of one process: a team's ``pytest_secreview_make_model`` hook or the
built-in routes, behind the session's shared throttle, cache and budget; one reviewer per
model, combined by ``--secreview-consensus``. Nothing is sent and no credential is loaded
here. Imported only when a model is configured."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from .agent.guidance import Guidance, load_guidance
from .budget import Budget
from .cache import EvaluationCache
from .diff.model import Diff
from .errors import ConfigError
from .evaluation.consensus import consensus_review
from .evaluation.evaluate import Reviewer
from .evaluation.review import ModelReviewer
from .github.context import pull_request_from_env
from .llm.base import ChatModel, LLMSettings
from .llm.http import RetryPolicy
from .llm.pricing import lookup_price
from .llm.routing import resolve_model
from .options import Settings
from .ratelimit import Throttle
from .trust import tracked_under


def _cache_dir(config: pytest.Config, settings: Settings, repo: Path, head_sha: str,
               notes: list[str]) -> Path | None:
    if settings.no_cache:
        return None
    if settings.cache_dir is not None:
        directory = config.invocation_params.dir / settings.cache_dir
    else:
        cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
        if cache is None:
            return None
        directory = Path(cache.mkdir("secreview"))
    if tracked_under(repo, head_sha, directory):
        # Entries committed by the pull request could be forged "no findings" reviews.
        notes.append(f"evaluation cache {directory} holds files committed in this pull "
                     "request's head; the cache was not used")
        return None
    return directory


def build_reviewer(
    config: pytest.Config, settings: Settings, repo: Path, diff: Diff, session_dir: Path,
    notes: list[str], guidance: Guidance | None = None,
) -> tuple[Reviewer, Guidance]:
    """The model review for this process: a team's ``pytest_secreview_make_model`` hook, or
    the built-in routes behind the session's shared throttle; and the team's guidance it
    reads (``guidance`` when the controller already read it, else read here). Nothing is
    sent and no credential is loaded here."""
    llm = LLMSettings(
        model=settings.model,
        fallback_model=settings.fallback_model,
        api_base=settings.api_base,
        project=settings.project,
        location=settings.location,
        timeout=settings.timeout,
        max_output_tokens=settings.max_output_tokens,
        temperature=settings.temperature,
        prices=dict(settings.prices),
    )

    throttle = Throttle(session_dir, max_concurrency=settings.max_concurrency, rpm=settings.rpm)
    retry = RetryPolicy(max_attempts=llm.max_attempts, throttle=throttle)

    def make(name: str) -> ChatModel:
        custom = config.hook.pytest_secreview_make_model(config=config, model=name)
        model: ChatModel = custom if custom is not None else resolve_model(
            name, llm, os.environ, retry=retry)
        # A budget that cannot price a model's calls would never be spent: refuse it.
        if settings.max_cost is not None and lookup_price(model.model_id, llm.prices) is None:
            short = model.model_id.split(":")[-1].split("/")[-1]
            raise ConfigError(
                f"--secreview-max-cost needs a price for {model.model_id}, and none is known; "
                f"add one with --secreview-prices '{short} input=N output=N' (USD per million "
                "tokens)"
            )
        return model

    cache_dir = _cache_dir(config, settings, repo, diff.head_sha, notes)
    if guidance is None:
        # The team's instructions and precedents, from the base revision like the rules.
        guidance = load_guidance(repo, diff.base_sha, config.invocation_params.dir,
                                 settings.instructions, settings.rules_from, notes)
    # One reviewer per model, each with its own cache entries (keyed by its model id).
    agent = consensus_review([_reviewer(settings, repo, diff, session_dir, cache_dir, make, name,
                                        guidance)
                              for name in settings.models], settings.consensus)
    return agent, guidance


def _reviewer(settings: Settings, repo: Path, diff: Diff, session_dir: Path,
              cache_dir: Path | None, make: Callable[[str], ChatModel],
              name: str, guidance: Guidance) -> ModelReviewer:
    return ModelReviewer(
        repo=repo,
        diff=diff,
        model=make(name),
        fallback=make(settings.fallback_model) if settings.fallback_model else None,
        pull_request=pull_request_from_env(os.environ, number=settings.pr,
                                           repository=settings.repo),
        max_turns=settings.max_turns,
        max_output_tokens=settings.max_output_tokens,
        max_tool_calls=settings.max_tool_calls,
        max_tokens=settings.max_tokens,
        temperature=settings.temperature,
        prices=dict(settings.prices),
        cache=EvaluationCache(cache_dir, replay=settings.cache_replay,
                              fail_on=settings.fail_on) if cache_dir is not None else None,
        budget=Budget(session_dir, settings.max_cost) if settings.max_cost is not None else None,
        session_dir=session_dir,
        make_model=make,
        guidance=guidance,
        verify=settings.verify is not False,  # default on when a model is set
        verify_at=settings.fail_on,
        max_context_chars=settings.max_context_chars,
    )
