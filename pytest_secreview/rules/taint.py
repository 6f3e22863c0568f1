"""The ``taint:`` section of a rule's frontmatter (pydantic, the trust boundary) and its
compilation into the engine's :class:`~pytest_secreview.analysis.spec.TaintSpec`."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..analysis.spec import Condition, PropagatorSpec, SinkSpec, SourceSpec, TaintSpec
from ..core.severity import Severity, severity_text

_PATTERN = r"^[A-Za-z0-9_*.\[\]()]+$"

#: The highest severity of a flow from a ``local`` source: the operator's command line,
#: environment or stdin is not an attacker's input unless the program serves it to others.
LOCAL_CAP = Severity.MEDIUM


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TaintSource(_Strict):
    """A source of the rule's own, beyond the ``web`` / ``local`` presets."""

    pattern: str = Field(pattern=_PATTERN, description="Glob over the dotted name read or called.")
    kind: Literal["web", "local"] = Field(default="web", description="Severity class.")
    inside: str | None = Field(default=None, pattern=_PATTERN,
                               description="Only in methods of classes with a matching base.")


class TaintCondition(_Strict):
    """An argument whose constant value or dotted name equals one of ``equals``."""

    arg: str = Field(description="Keyword name of the argument ('receiver': the object the "
                                 "method is called on, with its configuration calls).")
    position: int | None = Field(default=None, ge=0, description="Its position, if positional.")
    equals: list[bool | int | str] = Field(
        min_length=1, description="Constants (true, 1) or name globs (\"*SafeLoader\").")
    header: str | None = Field(
        default=None, pattern=r"^[A-Za-z0-9-]+$",
        description="The argument is a headers dict or list of pairs: compare this header's "
                    "value (named case-insensitively).")
    computed: bool = Field(
        default=False, description="A value the code computes (not a constant, not read "
                                   "from request data in the argument itself) holds too.")

    @field_validator("equals", mode="before")
    @classmethod
    def _listify(cls, value: object) -> object:
        return value if isinstance(value, list) else [value]


class TaintSink(_Strict):
    """A dangerous call (``call``) or store (``store``), and which arguments are dangerous."""

    call: str | None = Field(default=None, pattern=_PATTERN, description="Callee glob.")
    store: str | None = Field(default=None, pattern=_PATTERN,
                              description="Assignment target glob, e.g. *.headers[Location].")
    args: list[int] = Field(default_factory=list,
                            description="Dangerous positions (0-based; -1 is the receiver).")
    kwargs: list[str] = Field(default_factory=list, description="Dangerous keyword names.")
    element: int | None = Field(default=None, ge=0,
                                description="Only this element of a list argument (argv[0]).")
    when: list[TaintCondition] = Field(default_factory=list, description="All must hold.")
    unless: list[TaintCondition] = Field(default_factory=list,
                                         description="Any holding makes the call safe.")
    harmless: list[Literal["query", "segment"]] = Field(
        default_factory=list,
        description="Input shapes that cannot misuse the sink: 'query' (only in a URL's query "
                    "or fragment, after a constant or app-route prefix: not reported), "
                    "'segment' (a URL path segment, no '/', as the path's last component "
                    "only: reported at LOW, contained on POSIX).")
    message: str = ""

    @model_validator(mode="after")
    def _one_target(self) -> TaintSink:
        if (self.call is None) == (self.store is None):
            raise ValueError("a sink needs exactly one of 'call' (a callee glob) or 'store' "
                             "(an assignment target glob)")
        return self


class TaintPropagator(_Strict):
    """A call that moves taint differently from the default (inputs to result)."""

    call: str = Field(pattern=_PATTERN)
    from_: list[int] = Field(default_factory=lambda: [0], alias="from",
                             description="Argument positions; -1 is the receiver.")
    to: Literal["return", "receiver"] = "return"


def _default_sources() -> list[Literal["web", "local"] | TaintSource]:
    return ["web", "local"]


class TaintSection(_Strict):
    """The ``taint:`` frontmatter key: sources, sinks, sanitizers and propagators."""

    sources: list[Literal["web", "local"] | TaintSource] = Field(
        default_factory=_default_sources,
        description="Presets (web: request data; local: argv, stdin, environment) and entries.")
    sinks: list[TaintSink] = Field(min_length=1)
    sanitizers: list[str] = Field(default_factory=list,
                                  description="Callee globs (or 'containment') that end a flow.")
    propagators: list[TaintPropagator] = Field(default_factory=list)
    view_return: bool = Field(default=False,
                              description="A web view's returned body is a sink (XSS).")
    severity: Severity | None = Field(default=None,
                                      description="Severity of a flow from a web source "
                                                  "(default: the rule's); local: at most "
                                                  "MEDIUM.")

    _severity = field_validator("severity", mode="before")(staticmethod(severity_text))


def _condition(c: TaintCondition) -> Condition:
    return Condition(c.arg, c.position, tuple(c.equals), c.header, c.computed)


def compile_taint(rule_id: str, cwe: str | None, rule_severity: Severity,
                  section: TaintSection) -> TaintSpec:
    """The engine's spec for ``section`` of rule ``rule_id``."""
    kinds: set[str] = set()
    own: list[SourceSpec] = []
    for source in section.sources:
        if isinstance(source, str):
            kinds.add(source)
        else:
            kinds.add(source.kind)
            own.append(SourceSpec(source.pattern, source.kind, source.inside))
    web = section.severity or rule_severity
    # CRITICAL needs input from the network reaching the sink; the operator's own input
    # (command line, environment, stdin) caps at MEDIUM (see LOCAL_CAP).
    local = LOCAL_CAP if web.rank > LOCAL_CAP.rank else web
    sinks = tuple(
        SinkSpec(pattern=(s.call or s.store or ""), store=s.store is not None,
                 args=tuple(s.args), kwargs=tuple(s.kwargs), element=s.element,
                 when=tuple(_condition(c) for c in s.when),
                 unless=tuple(_condition(c) for c in s.unless), message=s.message,
                 harmless=frozenset(s.harmless))
        for s in section.sinks
    )
    return TaintSpec(
        rule_id=rule_id, cwe=cwe, sinks=sinks, source_kinds=frozenset(kinds), sources=tuple(own),
        sanitizers=tuple(section.sanitizers),
        propagators=tuple(PropagatorSpec(p.call, tuple(p.from_), p.to)
                          for p in section.propagators),
        view_return=section.view_return, severity_web=web.value, severity_local=local.value,
    )

