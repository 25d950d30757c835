"""The proxy's adapters of the one turn core (`memlane.tools.turn.TurnLoop`): the JSON path
(`complete`) and the SSE path (`relay`) feed it the upstream's text and tool calls and act on
its decisions (run memlane's calls and call the upstream again, or hand the answer to the
client); `finish` records the answer (`memlane.tools.answer.record_answer`, the ledger row of
every surface) and queues the memory step.

What the two paths add to the core is wire format only: the JSON path rewrites the upstream's
body (memlane's calls taken out, earlier rounds' text joined in); the SSE path forwards the
upstream's chunks as they come, leaving out memlane's calls and a round that only calls them,
and holds the finishing chunk back until the answer is recorded (its ledger row is written
after the last chunk).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .._version import __version__
from ..errors import MemlaneError, ModelError
from ..models.base import ToolCall, parse_arguments
from ..models.transport import error_message
from ..tools.answer import prompt_version, record_answer
from ..tools.handlers import MemoryTools
from ..tools.rounds import ToolCallRecord, run_memory_call
from ..tools.turn import RunTools, TurnLoop
from ..types import Message
from .align import call_name, log_form, message_text
from .base import Service
from .prepare import Turn
from .sse import DONE, error_event, sse
from .upstream import HttpUpstream, ModelUpstream, NotAStream, UpstreamRefused

log = logging.getLogger("memlane.proxy")

PROXY_VERSION = f"memlane-proxy/{__version__}"
TOOL_RESULT_TOKENS = 800
"""A memory tool's result is cut (head + tail) to this many tokens before the model sees it."""

Upstream = HttpUpstream | ModelUpstream


def turn_loop(svc: Service, turn: Turn) -> TurnLoop:
    """The core for one proxied turn: memlane's tools run here, the client's go back."""
    tools: list[MemoryTools] = []

    def execute(call: ToolCall, rnd: int) -> ToolCallRecord:
        if not tools:  # made on the first memory call: most turns make none
            tools.append(MemoryTools(turn.mem, thread_id=turn.thread.id))
            tools[0].user_turn = turn.user_text  # writes and forgets need the user's words
        return run_memory_call(tools[0], call, rnd)

    return TurnLoop(max(0, svc.config.max_tool_rounds), execute, turn.mem.tokenizer,
                    TOOL_RESULT_TOKENS, is_memory=turn.is_memory_tool,
                    offered=bool(turn.memory_tools))


def request_body(turn: Turn, messages: list[dict[str, Any]], last: bool,
                 stream: bool) -> dict[str, Any]:
    """The upstream request of one round (no memory tools on the last). Tool-call arguments
    stay parsed: an in-process model takes them so; `HttpUpstream` writes them as JSON text."""
    body = dict(turn.base)
    body["messages"] = list(messages)
    if turn.model:
        body["model"] = turn.model
    tools = ([] if last else turn.memory_tools) + turn.client_tools
    if tools:
        body["tools"] = tools
    else:
        body.pop("tool_choice", None)
        body.pop("parallel_tool_calls", None)
    if stream:
        body["stream"] = True
        if turn.stream_options is not None:
            body["stream_options"] = turn.stream_options
    return body


def _tool_calls(calls: Sequence[Mapping[str, Any]]) -> list[ToolCall]:
    return [ToolCall(str(c.get("id") or f"call_{i}"), call_name(c),
                     parse_arguments((c.get("function") or {}).get("arguments")))
            for i, c in enumerate(calls)]


# the JSON path -------------------------------------------------------------------------------
def complete(svc: Service, upstream: Upstream, turn: Turn) -> tuple[dict[str, Any], float]:
    """The turn over JSON bodies: the upstream's last body, rewritten; and the seconds spent
    waiting for the upstream."""
    loop = turn_loop(svc, turn)
    messages = list(turn.messages)
    upstream_s = 0.0
    while True:
        t1 = time.perf_counter()
        with svc.foreground.waiting():
            data = upstream.post_json(request_body(turn, messages, loop.last, False),
                                      turn.auth)
        upstream_s += time.perf_counter() - t1
        choices = data.get("choices") if isinstance(data, dict) else None
        if not choices or not isinstance(choices[0], dict):
            raise ModelError(f"the upstream answered without choices: {str(data)[:200]}")
        choice = choices[0]
        msg = choice.get("message") or {}
        calls = [c for c in msg.get("tool_calls") or [] if isinstance(c, dict)]
        said = message_text(msg.get("content"))
        loop.text(said)
        decision = loop.end_round(_tool_calls(calls), msg.get("content"))
        if isinstance(decision, RunTools):
            messages += decision.messages
            continue
        if decision.dropped:
            # memlane's calls are not the client's business (nor executable by it).
            if decision.keep:
                msg["tool_calls"] = [calls[i] for i in decision.keep]
            else:
                msg.pop("tool_calls", None)
                if choice.get("finish_reason") == "tool_calls":
                    choice["finish_reason"] = "stop"
        if decision.text != said:
            msg["content"] = decision.text  # earlier rounds' text, joined in
        finish(svc, turn, msg, loop)
        return data, upstream_s


# the SSE path --------------------------------------------------------------------------------
class _Round:
    """One streamed round: the chunks forwarded, the calls gathered, the finish held back."""

    def __init__(self, turn: Turn, loop: TurnLoop, role_sent: bool) -> None:
        self.turn, self.loop, self.role_sent = turn, loop, role_sent
        self.calls: dict[int, dict[str, Any]] = {}
        self.theirs: dict[int, int] = {}  # stream index -> index the client sees
        self.mine: set[int] = set()
        self.held: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.opening: dict[str, Any] | None = None
        self.finished = False
        self.failed = False

    def forward(self, chunks: Iterator[dict[str, Any]]) -> Iterator[bytes]:
        for chunk in chunks:
            if "error" in chunk:
                self.failed = True
                yield sse(chunk)
                return
            choices = chunk.get("choices") or []
            if not choices or not isinstance(choices[0], dict):
                self.held.append(chunk)  # the usage chunk: sent at the very end
                continue
            ch = dict(choices[0])
            delta = dict(ch.get("delta") or {})
            self._calls(delta)
            if delta.get("content"):
                self.raw.append(delta["content"])
                delta["content"] = self.loop.text(delta["content"])
            if self.role_sent:
                delta.pop("role", None)
            out = {**chunk, "choices": [{**ch, "delta": delta}]}
            if ch.get("finish_reason"):
                self.finished = True
                self.held.append(out)
                continue
            if not any(v for k, v in delta.items() if k != "role") and not ch.get("logprobs"):
                # The opening role chunk waits for the round's first real delta: a round that
                # only calls memlane's tools never reaches the client.
                if "role" in delta:
                    self.opening = out
                continue
            if self.opening is not None and "role" not in delta:
                yield sse(self.opening)
            self.opening = None
            self.role_sent = True
            yield sse(out)

    def _calls(self, delta: dict[str, Any]) -> None:
        """Gather the calls' pieces; keep the client's in the delta (renumbered), take out
        memlane's."""
        keep = []
        for tc in delta.get("tool_calls") or []:
            i = tc.get("index", 0)
            fn = tc.get("function") or {}
            c = self.calls.setdefault(i, {"id": None, "name": "", "arguments": ""})
            c["id"] = tc.get("id") or c["id"]
            c["name"] += fn.get("name") or ""
            c["arguments"] += fn.get("arguments") or ""
            if i not in self.theirs and i not in self.mine:
                if self.turn.is_memory_tool(c["name"]):
                    self.mine.add(i)
                else:
                    self.theirs[i] = len(self.theirs)
            if i in self.theirs:
                keep.append({**tc, "index": self.theirs[i]})
        if keep:
            delta["tool_calls"] = keep
        else:
            delta.pop("tool_calls", None)

    def tool_calls(self) -> list[dict[str, Any]]:
        return [{"id": self.calls[i]["id"] or f"call_{i}", "type": "function",
                 "function": {"name": self.calls[i]["name"],
                              "arguments": self.calls[i]["arguments"]}}
                for i in sorted(self.calls)]

    def tail(self) -> Iterator[bytes]:
        """What was held back: the opening (a round of text-less deltas), the finish, usage."""
        if self.opening is not None:
            yield sse(self.opening)
        for c in self.held:
            for ch in c.get("choices") or []:
                if ch.get("finish_reason") == "tool_calls" and not self.theirs:
                    ch["finish_reason"] = "stop"
            yield sse(c)
        yield DONE


def relay(svc: Service, upstream: Upstream, turn: Turn, first: Any) -> Iterator[bytes]:
    """The turn over SSE: the upstream's chunks as they come, round after round.

    Recorded only when the upstream finished its answer (a `finish_reason`): a stream that
    breaks off, or a body that is not a stream, ends with an error event and no `[DONE]`, and
    nothing is recorded as the answer."""
    loop = turn_loop(svc, turn)
    messages = list(turn.messages)
    stream, role_sent = first, False
    while True:
        rnd = _Round(turn, loop, role_sent)
        try:
            if stream is None:
                stream = upstream.open_stream(request_body(turn, messages, loop.last, True),
                                              turn.auth)
            with stream:
                yield from rnd.forward(stream.chunks())
        except UpstreamRefused as e:
            yield error_event(f"the upstream refused a tool round (HTTP {e.status}): "
                              f"{error_message(e.body)}")
            return
        except NotAStream as e:
            yield error_event(str(e))
            return
        except (MemlaneError, OSError, ValueError) as e:
            yield error_event(f"upstream failed mid-answer: {e}")
            return
        if rnd.failed:
            return
        if not rnd.finished:
            yield error_event("the upstream's stream ended before its answer did (no "
                              "finish_reason); nothing was recorded: send the request again")
            return
        stream, role_sent = None, rnd.role_sent
        calls = rnd.tool_calls()
        # memlane's calls as decided while they streamed (what the client was not sent).
        mine = [n for n, i in enumerate(sorted(rnd.calls)) if i in rnd.mine]
        decision = loop.end_round(_tool_calls(calls), "".join(rnd.raw) or None, mine)
        if isinstance(decision, RunTools):
            messages += decision.messages
            continue
        answer: dict[str, Any] = {"role": "assistant", "content": decision.text}
        if rnd.theirs:
            by_index = dict(zip(sorted(rnd.calls), calls, strict=True))
            answer["tool_calls"] = [by_index[i] for i in sorted(rnd.theirs,
                                                                 key=rnd.theirs.__getitem__)]
        # The answer is in the log before the client sees the finish (its next request is
        # aligned against the log); the ledger row, which may search memory for asked_again,
        # waits until the client has it, and is written even if the client leaves then.
        added = record(turn, answer)
        try:
            yield from rnd.tail()
        finally:
            if added is not None:
                settle(svc, turn, added, loop)
        return


# recording -----------------------------------------------------------------------------------
def finish(svc: Service, turn: Turn, answer: Mapping[str, Any], loop: TurnLoop) -> None:
    """Record the answer, then its ledger row and the memory step (`record`, `settle`)."""
    added = record(turn, answer)
    if added is not None:
        settle(svc, turn, added, loop)


def record(turn: Turn, answer: Mapping[str, Any]) -> Message | None:
    """The answer appended to the log (with the turn's messages not recorded yet), or None when
    it is not recorded. An answer that calls the client's tools is not recorded yet: it comes
    back, with the tools' results, as part of the client's next request, and is recorded with
    the answer that ends the turn."""
    if answer.get("tool_calls"):
        return None
    try:
        return turn.thread.extend(turn.pending + [log_form(answer)])[-1]
    except MemlaneError:
        log.exception("could not record the answer of thread %r", turn.thread.id)
        return None


def settle(svc: Service, turn: Turn, added: Message, loop: TurnLoop) -> None:
    """After a recorded answer: its ledger row, and due stretches filed in the background."""
    if svc.ledger is not None:
        record_answer(
            svc.ledger, turn.mem, turn.thread, added, signals=loop.signals,
            agent_version=PROXY_VERSION, model=turn.model,
            prompt_version=prompt_version(turn.system_prompt, turn.memory_instructions,
                                          turn.memory_tools + turn.client_tools))
    if svc.config.background_steps:
        # The turn is whole: an answer that calls the client's tools never gets here.
        svc.submit_step(turn.mem.ns, turn.thread.id, turn_done=True)


__all__ = ["PROXY_VERSION", "TOOL_RESULT_TOKENS", "complete", "finish", "record", "relay",
           "request_body", "settle", "turn_loop"]
