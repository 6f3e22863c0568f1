"""The option table (``options.SPECS``) is the one declaration of every setting: the
``--secreview-*`` flag, the ini key, the environment variable, the ``Settings`` field and the
subcommands' flags are derived from it and agree."""

from __future__ import annotations

import argparse
import dataclasses
import re
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.cli import comment, report
from pytest_secreview.cli.phases import stored_settings
from pytest_secreview.llm.pricing import Price
from pytest_secreview.options import BY_NAME, SPECS, OptionSpec, Settings, load_settings

#: Names the type hints of ``Settings`` and the parsers use under ``TYPE_CHECKING`` only.
HINT_NAMES = {"Price": Price}


def _value(spec: OptionSpec) -> str:
    """A valid value of ``spec`` that is not its default, so a source that is ignored shows."""
    if spec.flag:
        return "true"
    for choice in spec.choices:
        if spec.parse(choice) != spec.default:
            return choice
    if isinstance(spec.default, int):
        return str(spec.default + 1)
    if isinstance(spec.default, float):
        return str(spec.default + 1.5)
    return spec.example_value()


def _expected(spec: OptionSpec, value: str) -> Any:
    parsed = spec.parse(value)
    return (parsed,) if spec.multiple else parsed


@pytest.fixture
def semgrep_example(pytester: pytest.Pytester) -> None:
    # The settings whose value must name something that exists.
    for name in ("semgrep-config", "advisories"):
        (pytester.path / _value(BY_NAME[name])).mkdir(parents=True)


def test_each_settings_field_is_an_option_of_the_table_with_its_type_and_default() -> None:
    fields = {f.name: f for f in dataclasses.fields(Settings)}
    hints = typing.get_type_hints(Settings, localns=HINT_NAMES)
    defaults = Settings(enabled=True)
    for spec in SPECS:
        name = spec.setting_field
        assert name in fields, spec.cli
        parse = spec.parse
        returned = parse if isinstance(parse, type) else typing.get_type_hints(
            parse, localns=HINT_NAMES)["return"]
        if spec.flag:
            expected: Any = bool
        elif spec.multiple:
            expected = tuple[returned, ...]  # type: ignore[valid-type]
        elif spec.default is None:
            expected = returned | None
        else:
            expected = returned
        assert hints[name] == expected, f"Settings.{name} for {spec.cli}"
        assert getattr(defaults, name) == spec.value_default, f"Settings.{name} default"
        if spec.default is not None:
            assert isinstance(spec.default, returned), spec.cli
    options = {spec.setting_field for spec in SPECS}
    # The only fields that are no option: whether the review runs and the first model.
    assert set(fields) - options == {"enabled", "model"}


def test_every_value_parses_alike_from_flag_ini_key_and_environment(
    pytester: pytest.Pytester, semgrep_example: None,
) -> None:
    args: list[str] = []
    ini = ["[pytest]"]
    env: dict[str, str] = {}
    for spec in SPECS:
        value = _value(spec)
        args.append(spec.cli if spec.flag else f"{spec.cli}={value}")
        env[spec.env] = value
        if spec.from_ini:
            ini.append(f"{spec.dest} =\n    {value}" if spec.multiple else
                       f"{spec.dest} = {value}")
    from_flags = load_settings(pytester.parseconfig(*args), env={})
    from_env = load_settings(pytester.parseconfig(), env=env)
    pytester.makeini("\n".join(ini))
    from_ini = load_settings(pytester.parseconfig(), env={})
    for spec in SPECS:
        expected = _expected(spec, _value(spec))
        field = spec.setting_field
        assert getattr(from_flags, field) == expected, spec.cli
        assert getattr(from_env, field) == expected, spec.env
        if spec.from_ini:
            assert getattr(from_ini, field) == expected, spec.dest
        else:
            assert getattr(from_ini, field) == spec.value_default, spec.dest


@pytest.mark.parametrize("spec", [s for s in SPECS if not s.from_ini], ids=lambda s: s.name)
def test_an_ini_key_kept_out_of_ini_files_is_refused_naming_flag_and_variable(
    pytester: pytest.Pytester, spec: OptionSpec,
) -> None:
    pytester.makeini(f"[pytest]\n{spec.dest} = {_value(spec)}\n")
    with pytest.raises(pytest.UsageError, match=f"ini key {spec.dest} is not used") as info:
        load_settings(pytester.parseconfig(), env={})
    assert spec.cli in str(info.value) and spec.env in str(info.value)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_the_example_in_an_error_message_is_a_valid_value(
    spec: OptionSpec, pytester: pytest.Pytester, semgrep_example: None,
) -> None:
    spec.parse(spec.example_value())


def test_a_bad_environment_value_names_the_variable_value_and_an_example(
    pytester: pytest.Pytester,
) -> None:
    with pytest.raises(pytest.UsageError) as info:
        load_settings(pytester.parseconfig(), env={"SECREVIEW_PRICES": "gpt input=x"})
    assert str(info.value).startswith("environment variable SECREVIEW_PRICES: invalid value")
    assert str(info.value).endswith(
        "Example: --secreview-prices='gemini-2.5-pro input=1.25 output=10'")


#: (command, its parser, flag, the setting it takes): the flags the subcommands share with
#: the pytest run.
SHARED_FLAGS: tuple[tuple[str, Callable[[], argparse.ArgumentParser], str, str], ...] = (
    ("comment", comment.parser, "--artifacts", "artifacts"),
    ("comment", comment.parser, "--comment", "comment"),
    ("comment", comment.parser, "--pr", "pr"),
    ("comment", comment.parser, "--repo", "repo"),
    ("comment", comment.parser, "--dry-run", "dry-run"),
    ("report", report.parser, "--artifacts", "artifacts"),
    ("report", report.parser, "--sarif", "sarif"),
    ("report", report.parser, "--comment", "comment"),
    ("report", report.parser, "--pr", "pr"),
    ("report", report.parser, "--repo", "repo"),
    ("report", report.parser, "--dry-run", "dry-run"),
    ("report", report.parser, "--unreviewed", "unreviewed"),
)


def _table_accepts(spec: OptionSpec, value: str) -> bool:
    try:
        spec.parse(value)
    except ValueError:
        return False
    return True


def _flag_accepts(parser: argparse.ArgumentParser, flag: str, value: str) -> bool:
    try:
        parser.parse_args([flag, value])
    except SystemExit:
        return False
    return True


@pytest.mark.parametrize(("command", "make_parser", "flag", "name"), SHARED_FLAGS,
                         ids=[f"{c} {f}" for c, _, f, _ in SHARED_FLAGS])
def test_subcommand_flags_take_the_tables_values_and_default(
    command: str, make_parser: Callable[[], argparse.ArgumentParser], flag: str, name: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = BY_NAME[name]
    parser = make_parser()
    dest = flag[2:].replace("-", "_")
    if spec.flag:
        assert getattr(parser.parse_args([flag]), dest) is True
        assert getattr(parser.parse_args([]), dest) is False
        return
    probes = [*spec.choices, "off", "none", "summary", "0", "-1", "7", "x", "owner/name",
              spec.example_value()]
    for value in probes:
        # A value is valid for the subcommand exactly when the table takes it, as the same value.
        assert _flag_accepts(parser, flag, value) == _table_accepts(spec, value), (
            f"secreview {command} {flag} {value}")
        if _table_accepts(spec, value):
            assert getattr(parser.parse_args([flag, value]), dest) == spec.parse(value)
    capsys.readouterr()
    if spec.choices:
        assert f"{flag} {{{','.join(spec.choices)}}}" in parser.format_help()
    if name == "unreviewed":
        # The merge's own policy for a shard that sent no report (see cli/report.py).
        assert parser.parse_args([]).unreviewed == "fail"
    else:
        # Not given: the environment variable, then the table's default decide.
        assert getattr(parser.parse_args([]), dest) is None


def test_subcommands_read_the_environment_as_the_pytest_run_does(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    names = ("pr", "repo", "base", "head")
    env = {BY_NAME[name].env: _value(BY_NAME[name]) for name in names}
    for given in ({}, env):
        review = load_settings(pytester.parseconfig(), env=given)
        stored = stored_settings(given, root=tmp_path, pr=None, repo=None)
        for name in names:
            assert getattr(stored, name) == getattr(review, name), (name, given)


@pytest.mark.parametrize(("args", "env", "named"), [
    (["--comment", "off"], {}, "--comment off"),
    ([], {"SECREVIEW_COMMENT": "off"}, "SECREVIEW_COMMENT=off"),
])
def test_secreview_comment_refuses_off_as_the_step_that_posts(
    args: list[str], env: dict[str, str], named: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert comment.main(["--artifacts", str(tmp_path), *args], env=env) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"secreview comment: {named} posts nothing")
    assert "choose summary, inline or all" in err


def test_secreview_comment_names_a_bad_environment_value_and_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert comment.main(["--artifacts", str(tmp_path)], env={"SECREVIEW_PR": "0"}) == 2
    err = capsys.readouterr().err
    assert "environment variable SECREVIEW_PR: invalid value '0'" in err
    assert err.rstrip().endswith("Example: --pr=7")


def _shown(default: Any) -> str:
    if isinstance(default, float) and default.is_integer():
        return str(int(default))
    return str(default).lower()


@pytest.mark.parametrize("spec", [s for s in SPECS if s.default is not None and
                                  "default" in s.help], ids=lambda s: s.name)
def test_the_default_a_help_text_states_is_the_tables(spec: OptionSpec) -> None:
    # "error (default) or skip", "warn (default: skipped ...)", "(default: 60000)", "default 5"
    before = re.search(r"(\S+) \(default\b", spec.help)
    after = re.search(r"\bdefault:? ([^\s,;)]+)", spec.help)
    # The default is the word before "(default" or the one after "default".
    stated = {match.group(1) for match in (before, after) if match}
    assert _shown(spec.default) in stated, spec.help


def test_every_consensus_policy_the_table_offers_decides_its_own_vote_count() -> None:
    # The policies are declared once (options.CONSENSUS_POLICIES); each one the table offers
    # must mean something different to the consensus, not fall through to a default.
    from pytest_secreview.agent.output import required_votes

    votes = {policy: required_votes(policy, 3) for policy in BY_NAME["consensus"].choices}
    assert votes == {"any": 1, "majority": 2, "all": 3}
