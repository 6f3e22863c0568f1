"""The agentic review: one provider-agnostic tool-use loop.

Modes degrade in steps: native function calling; prompt-based tool calls when
the API rejects tool declarations or the model answers in text on its first turn; a
single-shot review with the context gathered up front when that fails too. The review ends
only when the model calls ``report_findings`` with valid arguments; no verdict within the
turn limit is an error, never a pass. Usage is recorded on every path.

Three caps bound what one item may spend, enforced here for every provider: the
turn limit (model round-trips), the tool-call cap (repository tool calls; past it the model is
told to report, and an item that keeps calling tools ends) and the token cap (input plus
output tokens over the whole review, checked before every model call). A cap that ends the run
is an error with the usage spent so far, never a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..activity import tool_call_finished
from ..core.findings import Finding
from ..errors import EvaluationError
from ..llm import messages as msg
from ..llm.base import ChatModel
from ..llm.errors import (
    EmptyResponseError,
    LLMError,
    ProviderUnavailableError,
    ToolsUnsupportedError,
)
from ..tools.registry import ToolRegistry
from ..usage import ReviewUsage
from .prompt import prompt_tools_instructions, single_shot_prompt
from .report_tool import REPORT_FINDINGS
from .text_calls import parse_findings_answer, parse_text_calls

NUDGE = (
    "You have not called report_findings. Finish your investigation and call "
    "report_findings now (an empty list if nothing qualifies)."
)
CUT_OFF = (
    "Your answer was cut off at the output limit. Be brief: call report_findings now with "
    "concise explanations."
)


class NoVerdictError(EvaluationError):
    """The model did not call ``report_findings`` validly within the turn limit."""


class CapReachedError(NoVerdictError):
    """A per-item cap (tool calls or tokens) ended the review before a verdict."""


TOOL_CAP_REACHED = (
    "error: the tool-call budget of this review is spent (--secreview-max-tool-calls {cap}); "
    "no more tools will run. Call {final} now with what you have found."
)


@dataclass(frozen=True)
class FinalTool:
    """The tool that ends a review: its declaration, the example arguments shown in the text
    protocols (prompt-based and single-shot), and how a single-shot answer's call is found.

    ``outcome`` names what the run produces in its errors ("no verdict", "no answer").
    ``text_answer``, when set, turns a plain-text reply that calls no tool into the tool's
    arguments (None: not an answer): a question is answered in prose as often as through the
    tool, and the prose is the answer.
    """

    spec: msg.ToolSpec
    example_args: str
    single_shot_args: str
    parse_answer: Callable[[str], dict[str, Any] | None]
    outcome: str = "verdict"
    text_answer: Callable[[str], dict[str, Any] | None] | None = None


def final_tool(spec: msg.ToolSpec, example_args: str) -> FinalTool:
    """A :class:`FinalTool` for ``spec`` whose single-shot answer is a ``<tool_call>`` block
    naming it (the model triage and the finding check end their runs this way)."""

    def parse(text: str) -> dict[str, Any] | None:
        for call in parse_text_calls(text):
            if call.name == spec.name and call.error is None:
                return call.args
        return None

    return FinalTool(spec, example_args, example_args, parse)


#: The security review's verdict tool (the intent audit brings its own ``report_verdict``).
FINDINGS_TOOL = FinalTool(
    REPORT_FINDINGS, '{"findings": []}', '{"findings": [...]}', parse_findings_answer
)


@dataclass
class ReviewRequest:
    """Everything one review needs: prompts, tools, and how to validate the verdict."""

    system: str
    task: str
    registry: ToolRegistry
    validate: Callable[[dict[str, Any]], list[Finding]]  # raises ValueError for the model
    single_shot_context: Callable[[], str]
    boundary: str
    max_turns: int
    max_output_tokens: int
    temperature: float | None
    transcript: list[dict[str, Any]] = field(default_factory=list)
    final: FinalTool = FINDINGS_TOOL
    max_tool_calls: int | None = None  # repository tool calls over the whole review
    max_tokens: int | None = None  # input + output tokens over the whole review


@dataclass
class _Verdict:
    findings: list[Finding] | None = None


class AgentLoop:
    """Runs reviews against a model (and a fallback model when the first is unavailable)."""

    def __init__(self, model: ChatModel, fallback: ChatModel | None = None) -> None:
        self.model = model
        self.fallback = fallback

    def review(self, request: ReviewRequest, usage: ReviewUsage) -> list[Finding]:
        """Run the review; return the model's findings or raise :class:`EvaluationError`."""
        state = _Run(self, request, usage)
        try:
            return state.run()
        finally:
            usage.tools = request.registry.usage().to_dict()


class _Run:
    """One review's mutable state: the conversation, the turn count, the mode."""

    def __init__(self, loop: AgentLoop, request: ReviewRequest, usage: ReviewUsage) -> None:
        self.loop = loop
        self.request = request
        self.usage = usage
        self.model = loop.model
        self.turns = 0
        self.tool_calls = 0
        self.refused_after_cap = False
        self.tool_specs = [
            msg.ToolSpec(s["name"], s["description"], s["parameters"])
            for s in request.registry.specs()
        ] + [request.final.spec]

    # -- model calls ----------------------------------------------------------------------

    def _complete(
        self, system: str, messages: Sequence[msg.Message], tools: Sequence[msg.ToolSpec] | None
    ) -> msg.ModelResponse:
        if self.turns >= self.request.max_turns:
            raise NoVerdictError(
                f"no {self.request.final.outcome} within {self.request.max_turns} turns "
                "(--secreview-max-turns): "
                f"the model never called {self.request.final.spec.name} with valid arguments"
            )
        cap = self.request.max_tokens
        spent = self.usage.tokens.input_tokens + self.usage.tokens.output_tokens
        if cap is not None and spent >= cap:
            raise CapReachedError(
                f"no {self.request.final.outcome} within the token cap: {spent:,} tokens "
                f"spent of {cap:,} "
                f"(--secreview-max-tokens) after {self.turns} turn(s)"
            )
        self.turns += 1
        retried_empty = False
        while True:
            try:
                response = self.model.complete(msg.ChatRequest(
                    system, messages, tools,
                    max_output_tokens=self.request.max_output_tokens,
                    temperature=self.request.temperature,
                ))
            except ProviderUnavailableError as exc:
                # No HTTP status: the last attempt never got an answer (refused, timed out).
                self.usage.add_model_call(self.model.model_id, exc.usage,
                                          reached=exc.status is not None)
                if self.loop.fallback is None or self.model is self.loop.fallback:
                    raise
                self._log("fallback", f"{self.model.model_id} unavailable: {exc}")
                self.model = self.loop.fallback
                continue
            except EmptyResponseError as exc:
                self.usage.add_model_call(self.model.model_id, exc.usage)
                if retried_empty:
                    raise
                retried_empty = True
                continue
            except LLMError as exc:
                self.usage.add_model_call(self.model.model_id, exc.usage)  # billed all the same
                raise
            self.usage.add_model_call(self.model.model_id, response.usage)
            break
        if response.finish_reason in (msg.FinishReason.SAFETY, msg.FinishReason.RECITATION):
            raise EvaluationError(
                f"{self.model.model_id} blocked the review ({response.finish_reason.value}, "
                f"provider reason {response.raw_finish_reason!r}); the change was not reviewed"
            )
        return response

    # -- modes ----------------------------------------------------------------------------

    def run(self) -> list[Finding]:
        try:
            result = self._native()
        except ToolsUnsupportedError as exc:
            self._log("mode", f"native tools rejected: {exc}; switching to prompt-based calls")
            result = None
        if result is not None:
            return result
        result = self._prompt_based()
        if result is not None:
            return result
        return self._single_shot()

    def _native(self) -> list[Finding] | None:
        self.usage.mode = "native"
        messages: list[msg.Message] = [msg.Message.user(self.request.task)]
        first = True
        while True:
            response = self._complete(self.request.system, messages, self.tool_specs)
            calls = response.tool_calls
            self._log_response(response)
            if not calls:
                answered = self._text_answer(response)
                if isinstance(answered, list):
                    return answered
                if first and answered is None:
                    self._log("mode", "answered in text without a tool call; switching to "
                              "prompt-based calls")
                    return None
                messages += [msg.Message("assistant", response.parts or (msg.TextPart("..."),)),
                             msg.Message.user(answered or self._nudge(response))]
                continue
            first = False
            messages.append(msg.Message("assistant", response.parts))
            verdict = _Verdict()
            results = self._execute(calls, verdict)
            if verdict.findings is not None:
                return verdict.findings
            messages.append(msg.Message.tool_results(results))

    def _prompt_based(self) -> list[Finding] | None:
        self.usage.mode = "prompt"
        specs = [{"name": s.name, "description": s.description, "parameters": s.parameters}
                 for s in self.tool_specs]
        final = self.request.final
        system = self.request.system + "\n\n" + prompt_tools_instructions(
            specs, final.spec.name, final.example_args)
        messages: list[msg.Message] = [msg.Message.user(self.request.task)]
        first = True
        while True:
            response = self._complete(system, messages, None)
            self._log_response(response)
            parsed = parse_text_calls(response.text)
            if not parsed:
                answered = self._text_answer(response)
                if isinstance(answered, list):
                    return answered
                if first and answered is None:
                    self._log("mode", "no <tool_call> in the answer; switching to single-shot")
                    return None
                messages += [msg.Message("assistant", (msg.TextPart(response.text or "..."),)),
                             msg.Message.user(answered or self._nudge(response))]
                continue
            first = False
            calls = [
                msg.ToolCallPart(id=f"text-{self.turns}-{i}", name=c.name, args=c.args,
                             arguments_error=c.error)
                for i, c in enumerate(parsed)
            ]
            verdict = _Verdict()
            results = self._execute(calls, verdict)
            if verdict.findings is not None:
                return verdict.findings
            blocks = "\n\n".join(
                f'<tool_result name="{r.name}" error="{str(r.is_error).lower()}">\n'
                f"{r.content}\n</tool_result>"
                for r in results
            )
            messages += [msg.Message("assistant", (msg.TextPart(response.text),)),
                         msg.Message.user(blocks)]

    def _single_shot(self) -> list[Finding]:
        self.usage.mode = "single-shot"
        context = self.request.single_shot_context()
        final = self.request.final
        prompt = self.request.task + "\n\n" + single_shot_prompt(
            context, self.request.boundary, final.spec.name, final.single_shot_args)
        messages: list[msg.Message] = [msg.Message.user(prompt)]
        for _attempt in range(2):
            response = self._complete(self.request.system, messages, None)
            self._log_response(response)
            args = final.parse_answer(response.text)
            if args is None and final.text_answer is not None:
                args = final.text_answer(response.text)
            if args is None:
                problem = f"no {final.spec.name} call found in the answer"
            else:
                try:
                    return self.request.validate(args)
                except ValueError as exc:
                    problem = str(exc)
            messages += [msg.Message("assistant", (msg.TextPart(response.text or "..."),)),
                         msg.Message.user(f"{problem}. Answer again with exactly one "
                                      f"<tool_call> block calling {final.spec.name}.")]
        raise NoVerdictError(
            f"no valid {final.outcome} from the single-shot review (the last fallback after "
            "native and prompt-based tool calls)"
        )

    # -- tools ----------------------------------------------------------------------------

    def _execute(self, calls: Sequence[msg.ToolCallPart], verdict: _Verdict
                 ) -> list[msg.ToolResultPart]:
        """Run every call of the turn concurrently; results keep the calls' order."""

        def report(call: msg.ToolCallPart) -> msg.ToolResultPart:
            try:
                findings = self.request.validate(call.args)
            except ValueError as exc:
                return msg.ToolResultPart(call.id, call.name, f"error: {exc}", is_error=True)
            if verdict.findings is None:  # the first valid verdict of the turn is the one
                verdict.findings = findings
            return msg.ToolResultPart(call.id, call.name, f"accepted {len(findings)} finding(s)")

        allowed = self._within_tool_cap(calls)

        def one(call: msg.ToolCallPart) -> msg.ToolResultPart | None:
            if call.arguments_error:
                return msg.ToolResultPart(call.id, call.name or "unknown",
                                      f"error: arguments not understood: {call.arguments_error}",
                                      is_error=True)
            if call.name == self.request.final.spec.name:
                return None  # judged after the pool, in the order the model wrote the calls
            if call.id not in allowed:
                return msg.ToolResultPart(call.id, call.name, TOOL_CAP_REACHED.format(
                    cap=self.request.max_tool_calls, final=self.request.final.spec.name),
                    is_error=True)
            result = self.request.registry.call(call.name, call.args)
            tool_call_finished()  # the progress comment follows the calls
            content = (
                f"<<<UNTRUSTED {self.request.boundary}\n{result.text}\n"
                f"UNTRUSTED {self.request.boundary}>>>"
            )
            return msg.ToolResultPart(call.id, call.name, content, is_error=result.is_error)

        with ThreadPoolExecutor(max_workers=min(8, len(calls))) as pool:
            ran = list(pool.map(one, calls))
        results = [r if r is not None else report(c) for c, r in zip(calls, ran, strict=True)]
        for call, result in zip(calls, results, strict=True):
            self.request.transcript.append({
                "turn": self.turns, "tool": call.name,
                "args": call.args if call.name != self.request.final.spec.name else "(verdict)",
                "error": result.is_error, "chars": len(result.content),
            })
        return results

    def _within_tool_cap(self, calls: Sequence[msg.ToolCallPart]) -> set[str]:
        """Ids of the repository tool calls of this turn that the tool-call cap allows.

        Calls past the cap are refused with a message telling the model to report; a model
        that asks for tools again after that ends the review (:class:`CapReachedError`)."""
        final = self.request.final.spec.name
        wanted = [c for c in calls if c.name != final and not c.arguments_error]
        cap = self.request.max_tool_calls
        if cap is None:
            return {c.id for c in wanted}
        if wanted and self.refused_after_cap and not any(c.name == final for c in calls):
            raise CapReachedError(
                f"no {self.request.final.outcome} within the tool-call cap ({cap}, "
                "--secreview-max-tool-calls): "
                "the model kept calling tools after it was told to report"
            )
        room = max(cap - self.tool_calls, 0)
        allowed = wanted[:room]
        self.tool_calls += len(allowed)
        if len(allowed) < len(wanted):
            self.refused_after_cap = True
            self._log("cap", f"tool-call cap {cap} reached; {len(wanted) - len(allowed)} "
                      "call(s) refused")
        return {c.id for c in allowed}

    def _text_answer(self, response: msg.ModelResponse) -> list[Finding] | str | None:
        """A complete plain-text reply taken as the final tool's answer (when the final tool
        accepts text): its result, or the problem to send back (a string), or None when the
        reply is not an answer."""
        parse = self.request.final.text_answer
        if parse is None or response.finish_reason is not msg.FinishReason.STOP:
            return None
        args = parse(response.text)
        if args is None:
            return None
        try:
            result = self.request.validate(args)
        except ValueError as exc:
            return f"{exc}. Answer again."
        self._log("answer", f"a plain-text reply taken as the {self.request.final.outcome}")
        return result

    def _nudge(self, response: msg.ModelResponse) -> str:
        text = CUT_OFF if response.finish_reason is msg.FinishReason.MAX_TOKENS else NUDGE
        return text.replace("report_findings", self.request.final.spec.name)

    def _log(self, event: str, detail: str) -> None:
        self.request.transcript.append({"turn": self.turns, "event": event, "detail": detail})

    def _log_response(self, response: msg.ModelResponse) -> None:
        self.request.transcript.append({
            "turn": self.turns, "model": response.model,
            "finish": response.finish_reason.value,
            "text_chars": len(response.text),
            "tool_calls": [c.name for c in response.tool_calls],
        })
