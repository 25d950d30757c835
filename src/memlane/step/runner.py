"""The memory step as one path: every surface that files a stretch goes through `StepRunner`.

The agent (its background worker and inline mode), `Thread.step` / `Thread.maybe_step`, the
service's background worker after proxied turns, REST `POST /threads/{id}/step` and
`POST .../messages` with `step: true`, `memlane ingest`, and `memlane chat` when it leaves. One
filing, in this order:

1. **Read** the thread's unfiled part once (its row, then the messages after `filed_to`). A turn
   is a run of user messages and the replies after it (a double text is one turn); it is
   **closed** once the next turn begins. The next stretch is the first closed turns up to the
   one that brings it to `Cadence.every_user_turns` turns or `Cadence.unfiled_tokens` tokens;
   it is due once it gets there (`cut`: where a stretch ends depends on the messages alone,
   never on when the step runs).
2. **Turn-boundary guard**: the last turn is never filed while it is open (its answer, a second
   answer or a tool result may still come), or it would be split across two stretches; the
   next user message closes it. Every stretch ends where a turn ends, whatever the order of
   roles, so no sequence can wedge filing. A caller that has just recorded the whole turn (the
   agent after its answer, the proxy after an answer that calls no client tool) says so with
   `turn_done=True`, and it is filed without waiting. `force=True` (a session that ends) files
   the open turn too: no reply is coming.
3. **Extract**: the output given (inline mode, REST), or the extractor's, shown the records
   related to the stretch (`related.related_records`: each user message searched for with
   `Memory.related`, the hits ranked the same way on every engine), the heuristic's too: it
   folds repeats and corrections into them.
4. **Validate once** (`parse_step`). A model step that fails (`ModelError`, output that fails
   validation, any other error of the extractor) has the stretch filed by the offline heuristic
   instead, shown the same related records, through the one fallback (`FallbackExtractor`),
   and a `step_fallback` row goes to the quality ledger. Output the caller gave is not
   replaced: its `StepError` is the caller's answer (REST 422), except in inline mode
   (`fallback=True`), where it goes through the same fallback (`given_step`).
5. **Apply once** (`apply_step`, one transaction). Inside it, under the store's write lock, the
   stretch is checked against the thread: every seq in it must exist, and no filed stretch other
   than this one (a retry: same start and end) may overlap it. That check is the claim: two
   workers that read the same unfiled messages (one before a turn's answer landed, one after)
   both write a step, and the second to apply gets `StepConflict` and files nothing; its loop
   reads the thread again (and leaves it to the other worker after `MAX_CONFLICTS`). The same
   messages refused twice mean no worker is filing them: `StepStalled` is raised (and logged),
   so filing never stops in silence; surfaces that must not raise report it
   (`file_reporting`).
6. **After**: the `quality` ledger row when the step graded the answer, and the embeddings of what
   the step wrote (after the transaction, so a slow embedder never holds the write lock).

`StepWorker` is the one background worker (the agent's and the service's): steps run one at a
time in submission order, a key already queued is not queued twice, and a job that filed its
batch re-queues itself, so a burst is caught up without another request.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import re
import threading
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..errors import MemlaneError, NotFound, StepConflict, StepStalled, UsageError
from ..safety import carried
from ..telemetry import traced
from ..types import Message, Record, StepResult
from ..validate import in_range
from .apply import apply_step, flagged, past_the_end
from .extractor import Extractor, HeuristicExtractor, ValidatingExtractor, parse_output
from .heuristic import fact_readings
from .model import FallbackExtractor, given_step
from .parse import StepOutput
from .quality import note_fallback, note_quality
from .related import related_records

if TYPE_CHECKING:
    from ..ledger import Ledger
    from ..store.protocol import Store

log = logging.getLogger("memlane.step")

MAX_CONFLICTS = 3
"""Conflicts one `file_due` call takes (another worker filing the same thread) before it leaves
the thread to that worker."""
BATCH = 20
"""Stretches one background job files before it yields the worker to other threads (it queues
itself again if more is due)."""

STEP_VIEW_CHARS = 8_000
"""The most of one message a memory step reads (extractor, scans, related records): a longer
message is read as its head and tail, half each, around an ellipsis (`step_view`). A step's
work per message is bounded by it, so one tenant's huge message (a 60,000-character base64
blob, a 1,000,000-character dump) costs milliseconds and cannot hold the server that others
share; the log keeps the message whole, and `open_memory` shows it. What the step misses is
the middle of such a message: facts are rarely there, and a model step would not read it all
either."""


_RUNS = re.compile(r"[^\S\n]{2,}|([^\w\s])\1{3,}")


def _squeezed(text: str) -> str:
    """`text` with each run of spaces or tabs as one space and each run of one punctuation
    mark cut to three ("....." -> "..."): what a sentence says is unchanged, and no reading
    of the step pays for a run's length (a patterns' cost on 10,000 spaces was seconds)."""
    return _RUNS.sub(lambda m: m.group(1) * 3 if m.group(1) else " ", text)


def step_view(stretch: Sequence[Message]) -> list[Message]:
    """`stretch` as a memory step reads it: runs of spaces or of one punctuation mark
    squeezed (`_squeezed`), then each message over `STEP_VIEW_CHARS` as its head and tail
    (ids, seqs and times unchanged)."""
    half = STEP_VIEW_CHARS // 2
    out = []
    for m in stretch:
        text = _squeezed(m.content)
        if len(text) > STEP_VIEW_CHARS:
            text = f"{text[:half]}\n\u2026\n{text[-half:]}"
        out.append(m if text == m.content else dataclasses.replace(m, content=text, scanned=0))
    return out


@dataclass(frozen=True)
class Cadence:
    """When a stretch is due for a memory step."""

    every_user_turns: int = 4
    """A step per this many user turns."""
    unfiled_tokens: int = 3000
    """...or sooner: a stretch ends at the turn that brings it to this many tokens."""


def _no_related(messages: Sequence[Message], limit: int = 10) -> list[Record]:
    return []


def _no_embedding(ids: Sequence[int]) -> str | None:
    return None


def turn_starts(messages: Sequence[Message]) -> list[int]:
    """Indexes of the messages that begin a turn: a user message that does not follow another
    user message. Whatever comes before the first is part of the first stretch."""
    return [i for i, m in enumerate(messages)
            if m.role == "user" and (i == 0 or messages[i - 1].role != "user")]


class StepRunner:
    """Files the stretches of one namespace's threads (see the module docstring for the order).

    `related(messages, limit)` searches for the existing records a step should update rather
    than duplicate (`related.related_records` asks it once per user message);
    `embed` embeds written records after the transaction (returns a warning on failure);
    `ledger` (optional) hears of fallbacks and of the quality a step gave the answer, attributed
    to `model`."""

    def __init__(
        self,
        store: Store,
        namespace: str,
        *,
        cadence: Cadence | None = None,
        extractor: Extractor | None = None,
        related: Callable[[Sequence[Message], int], list[Record]] = _no_related,
        embed: Callable[[Sequence[int]], str | None] = _no_embedding,
        ledger: Ledger | None = None,
        model: str | None = None,
        scans: dict[str, tuple[str, ...]] | None = None,
        facts: dict[str, tuple[Any, ...]] | None = None,
    ) -> None:
        """`scans`: the memory's scan memo (`Caches.scans`), which the filing's scans then
        fill: the context that first shows a record or quotes a message this step read finds
        its scan there (the same pure function), instead of scanning it again mid-turn.
        `facts`: the memory's memo of texts read as facts (`Caches.facts`), which the heuristic
        step reads its related records through (`heuristic.fact_readings`)."""
        self.scans = scans
        self.facts = facts
        self.store = store
        self.ns = namespace
        self.cadence = cadence or Cadence()
        self.extractor: Extractor = extractor or HeuristicExtractor()
        self.related = related
        self.embed = embed
        self.ledger = ledger
        self.model = model

    # reading -----------------------------------------------------------------------------------
    def unfiled(self, thread_id: str) -> list[Message]:
        """Messages no episode covers yet (one read; the cadence and the stretch come from it)."""
        info = self.store.thread(self.ns, thread_id)
        if info is None:
            return []
        return self.store.messages(self.ns, thread_id, start=info.filed_to + 1)

    def next_stretch(self, unfiled: Sequence[Message]) -> list[Message]:
        """The first turns of `unfiled` (with whatever precedes the first) up to the one that
        brings the stretch to `every_user_turns` turns or `unfiled_tokens` tokens; all of it
        when it reaches neither (`cut`).

        A turn is a run of user messages and the replies after it (`turn_starts`): two user
        messages in a row (a double text) are one turn, never a stretch boundary."""
        return self.cut(unfiled)[0]

    def cut(self, msgs: Sequence[Message]) -> tuple[list[Message], bool]:
        """The first stretch of `msgs` and whether it is full: its turns, from the first, up to
        the one where it holds `every_user_turns` turns or `unfiled_tokens` tokens (full), else
        all of `msgs` (not full). Where a stretch ends depends on the messages alone, never on
        how many came after them: a worker that runs late cuts the same stretches as one that
        files after every turn (the tokens used to be counted over the whole unfiled part, so
        a late worker cut a long conversation elsewhere, and filed other facts)."""
        starts = turn_starts(msgs)
        ends = [*starts[1:], len(msgs)] if starts else []
        tokens, j = 0, 0
        for k, end in enumerate(ends, 1):
            tokens += sum(m.tokens for m in msgs[j:end])
            j = end
            if k >= self.cadence.every_user_turns or tokens >= self.cadence.unfiled_tokens:
                return list(msgs[:end]), True
        return list(msgs), False

    def is_due(self, unfiled: Sequence[Message], *, turn_done: bool = False) -> bool:
        """Whether a stretch can be filed now: `due_part(unfiled)` is not empty."""
        return bool(self.due_part(unfiled, turn_done=turn_done))

    def due_part(self, unfiled: Sequence[Message], *, force: bool = False,
                 inline: bool = False, turn_done: bool = False) -> list[Message]:
        """The stretch to file now out of `unfiled` (pure; `due_stretch` reads the thread).

        Only **closed** turns are filed: a turn closes when the next one begins (a user message
        after a reply). The last turn may still get replies (a second answer, a tool result
        the client sends with its next request), so filing it would split it across two
        stretches. Of the closed part, the first turns are due once they hold
        `every_user_turns` turns or `unfiled_tokens` tokens (`cut`). Whatever the roles, a
        stretch always ends where a turn does, so filing can never wedge: every new turn
        closes the one before it.

        `turn_done`: the caller has just recorded the whole of the last turn (the agent after
        its answer; the proxy after an answer that calls no client tool), so it is closed too,
        unless it ends on a user message. `force` (a session that ends: no reply is coming)
        closes the last turn whatever it ends on, and files it however short. `inline` (the
        agent's inline mode, which files inside the call that answers the last user message)
        closes it as well, keeping the cadence: the answer is then the first message of the
        next stretch."""
        if not unfiled:
            return []
        if force:
            return self.next_stretch(unfiled)
        starts = turn_starts(unfiled)
        if inline or (turn_done and unfiled[-1].role != "user"):
            closed = list(unfiled)
        else:
            closed = list(unfiled[:starts[-1]] if starts else [])
        stretch, full = self.cut(closed)
        return stretch if full else []

    def due_stretch(self, thread_id: str, *, force: bool = False, inline: bool = False,
                    turn_done: bool = False) -> list[Message]:
        """The stretch to file now (`due_part` of the thread's unfiled messages); `[]` when
        there is none."""
        return self.due_part(self.unfiled(thread_id), force=force, inline=inline,
                             turn_done=turn_done)

    # filing ------------------------------------------------------------------------------------
    def file_due(
        self, thread_id: str, *, max_steps: int = 1000, force: bool = False,
        turn_done: bool = False,
    ) -> list[StepResult]:
        """File every stretch of `thread_id` that is due, oldest first (at most `max_steps`).
        `force` files whatever is unfiled, however short (a session that ends); `turn_done`
        says the last turn is complete (see `due_part`). A due stretch that cannot be filed
        raises `StepStalled` (with the steps filed before it), never returns nothing."""
        done: list[StepResult] = []
        conflicts = 0
        refused: tuple[int, ...] | None = None
        while len(done) < max_steps and conflicts < MAX_CONFLICTS:
            stretch = self.due_stretch(thread_id, force=force, turn_done=turn_done)
            if not stretch:
                break
            try:
                done.append(self.file_stretch(thread_id, stretch, refile=False))
            except StepConflict as e:
                # Another worker filed these turns between our read and our apply. Read again:
                # what is unfiled now starts after its stretch (a conflict means progress).
                # The very same messages refused again mean no one filed them: filing of the
                # thread cannot go on, and saying nothing would stop it for good, silently.
                ids = tuple(m.id for m in stretch)
                if ids == refused:
                    raise stalled(thread_id, stretch, e, done) from e
                refused = ids
                conflicts += 1
                log.info("memory step for thread %r not applied: %s", thread_id, e)
        return done

    def file(
        self,
        thread_id: str,
        output: Mapping[str, Any] | str | None = None,
        *,
        start: int | None = None,
        end: int | None = None,
        extractor: Extractor | None = None,
        fallback: bool = False,
    ) -> StepResult | None:
        """File one stretch: `start..end`, or the next pending one (unfiled, up to
        `every_user_turns` user turns) when a bound is missing. With `output` it is validated
        and applied; without it the extractor writes the step. None when nothing is pending
        and no output was given; with an output and nothing pending, `StepConflict` (after the
        output is validated: a malformed one is a `StepError` first)."""
        for name, v in (("start", start), ("end", end)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                                  or not in_range(v)):
                raise UsageError(f"{name} must be a message seq (a positive integer), got {v!r}")
        if start is not None and end is not None and start > end:
            raise UsageError(f"stretch start {start} is after its end {end}")
        if start is None or end is None:
            pending = self.next_stretch(self.unfiled(thread_id))
            if not pending:
                if output is None:
                    return None
                parse_output(output)  # a malformed step is reported as such first
                info = self.store.thread(self.ns, thread_id)
                raise StepConflict(
                    f"nothing to file in thread {thread_id!r}: every message is filed (to seq "
                    f"{info.filed_to if info else 0}); give start and end to file a stretch "
                    "again, or add messages first")
            if start is None and end is None:
                return self.file_stretch(thread_id, pending, output, extractor=extractor,
                                         fallback=fallback, refile=False)
            start = pending[0].seq if start is None else start
            end = pending[-1].seq if end is None else end
            if start > end:
                raise UsageError(f"stretch start {start} is after its end {end}")
        stretch = self.store.messages(self.ns, thread_id, start, end)
        if not stretch:
            raise NotFound(f"thread {thread_id!r} has no messages {start}..{end}")
        if stretch[-1].seq != end:  # before any model call; `apply_step` checks it again
            raise past_the_end(thread_id, start, end, stretch[-1].seq)
        return self.file_stretch(thread_id, stretch, output, extractor=extractor,
                                 fallback=fallback, start=start, end=end)

    @traced("step")
    def file_stretch(
        self,
        thread_id: str,
        stretch: Sequence[Message],
        output: Mapping[str, Any] | str | None = None,
        *,
        extractor: Extractor | None = None,
        fallback: bool = True,
        start: int | None = None,
        end: int | None = None,
        refile: bool = True,
    ) -> StepResult:
        """Extract (unless `output` is given), validate, apply and report one stretch that was
        read already. `start`/`end` are the bounds asked for when they may differ from the
        messages read (a stretch past the thread's end is refused by `apply_step`). `refile`:
        False when the stretch was read as unfiled, so one another worker filed since is left
        as it is (`apply_step`)."""
        start = stretch[0].seq if start is None else start
        end = stretch[-1].seq if end is None else end
        stretch = step_view(stretch)
        if output is None:
            parsed = self._extract(stretch, extractor or self.extractor)
        elif not fallback:
            parsed = parse_output(output)
        else:
            parsed = self._extract(stretch, given_step(output, self._name(extractor)))
        # Each text of the filing is scanned once (a chat repeats "thanks", a record may be a
        # whole message): in the memory's memo when the runner has one (emptied on every
        # forget, with the memory's other memos), else in one for this filing only.
        scans: dict[str, tuple[str, ...]] = self.scans if self.scans is not None else {}
        likes: dict[str, bool] = {}
        # A flagged message matters only through the texts that carry its words (`tainted`):
        # the ones no record or line of this step carries are not read for instructions
        # (the classifier was a quarter of a step). The same verdicts, for less, as long as
        # reading the written texts' words costs less than the classifier would on the
        # messages: not when they are far longer (a step writing dozens of long records).
        written = [t for op in parsed.records for t in (*(v for v, _ in op.supersedes), op.text)
                   if t is not None] + [parsed.episode]
        said = [m.content for m in stretch]
        near = (carried(written, said) if sum(map(len, written)) <= 4 * sum(map(len, said))
                else [True] * len(said))
        result = apply_step(self.store, self.ns, thread_id, start, end, parsed, refile=refile,
                            date=stretch[-1].ts, now=time.time(),
                            read={m.seq: m.id for m in stretch},
                            texts={m.seq: m.content for m in stretch},
                            # prompt_like too: a record or line that copies a stretch of
                            # text asking a model for something is not a fact about anyone.
                            suspect_messages={m.seq: m.content for m, c in zip(stretch, near,
                                                                               strict=True)
                                              if c and flagged(m.content, scans, likes)},
                            scans=scans, likes=likes)
        note_quality(self.ledger, self.ns, self.model, thread_id, stretch, parsed)
        # Embeddings are computed after the step's transaction, in one batch: a slow or failed
        # embedder never holds the write lock nor loses the step (lexical search still finds
        # the records, and `Memory.reindex()` embeds what is missing).
        problem = self.embed([*result.added, *result.updated])
        if problem:
            result = dataclasses.replace(result, warnings=(*result.warnings, problem))
        return result

    # the steps of a filing ---------------------------------------------------------------------
    def _name(self, extractor: Extractor | None) -> str:
        return (extractor or self.extractor).name

    def _newest(self, n: int) -> list[Record]:
        """The namespace's `n` newest records, for a held thing of a kind a stretch names
        (`related.held_marked`: "I use a TCL 40" shares no word with "My phone's an Alcatel
        now")."""
        return self.store.records(self.ns, limit=n, newest=True)

    def _extract(self, stretch: Sequence[Message], ex: Extractor) -> StepOutput:
        """The extractor's step, validated by itself if it can (`ValidatingExtractor`: the
        heuristic, a `FallbackExtractor`), else through the one fallback: a failed step is
        filed by the heuristic, and the ledger hears of it."""
        # Every extractor, the heuristic included, is shown the related records, so a step
        # updates a fact instead of duplicating it. Not the records an earlier filing of this
        # same stretch wrote (all their sources are in it): filing again replaces those, so an
        # update of one would be dropped and the fact lost.
        own = {m.id for m in stretch}
        existing = [r for r in related_records(stretch, self.related, newest=self._newest)
                    if not (r.source_ids and set(r.source_ids) <= own)]
        validating = ex if isinstance(ex, ValidatingExtractor) else FallbackExtractor(ex)
        with fact_readings(self.facts):
            got = validating.extract(stretch, existing)
        if got.error is not None:
            note_fallback(self.ledger, self.ns, self.model, got.error, list(got.problems),
                          stretch)
        return got.parsed


def stalled(thread_id: str, stretch: Sequence[Message], cause: StepConflict,
            done: Sequence[StepResult]) -> StepStalled:
    """The error for a stretch refused twice with nothing filed between (`file_due`), logged
    as a warning too: a background worker's caller may see nothing else."""
    start, end = stretch[0].seq, stretch[-1].seq
    message = (f"filing of thread {thread_id!r} cannot go on: stretch {start}..{end} is due "
               f"and was refused twice with no other worker filing it ({cause}). Nothing of "
               "it was applied and its messages are kept; steps filed before it stand. "
               "Export the namespace (`memlane export`) and report it")
    log.warning("%s", message)
    return StepStalled(message, thread_id=thread_id, start=start, end=end, results=done)


def file_reporting(file: Callable[[], list[StepResult]], problems: list[str]
                   ) -> list[StepResult]:
    """`file()` (a `file_due` call) for a caller that must not raise (an agent's turn, a
    background worker, a framework's run): a stalled thread's message goes to `problems`, and
    the steps filed before it are returned."""
    try:
        return file()
    except StepStalled as e:
        problems.append(str(e))
        return e.results


K = TypeVar("K", bound=Hashable)


class StepWorker(Generic[K]):
    """One background thread that runs memory steps, one at a time, in submission order.

    A key (a thread) already waiting in the queue is not queued twice: the job files whatever is
    due when it runs, so one queued job covers every turn that arrived meanwhile. `run(key,
    batch)` files at most `batch` stretches; a job that filed that many queues its key again
    (behind the others), so a burst is caught up without another request and one busy thread
    cannot hold the worker."""

    def __init__(self, run: Callable[[K, int], list[StepResult]], *, batch: int = BATCH,
                 keep: bool = True, name: str = "memlane-step") -> None:
        """`keep`: hold the results for `wait` (a long-running service that never asks passes
        False, so they do not pile up)."""
        self._run = run
        self._batch = batch
        self._keep = keep
        self._name = name
        self._q: queue.Queue[tuple[K] | None] = queue.Queue()
        self._queued: set[K] = set()
        self._lock = threading.Lock()
        self._results: list[StepResult] = []
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def submit(self, key: K) -> None:
        with self._lock:
            if self._closed:
                raise UsageError("the step worker is closed; create a new one to continue")
            self._enqueue(key)

    def _enqueue(self, key: K) -> None:
        # Under self._lock.
        if key in self._queued:
            return
        self._queued.add(key)
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
            self._thread.start()
        self._q.put((key,))

    def _loop(self) -> None:
        while True:
            item = self._q.get()
            try:
                if item is None:
                    return
                (key,) = item
                with self._lock:
                    self._queued.discard(key)
                try:
                    done = self._run(key, self._batch)
                except StepStalled as e:  # logged as a warning where it was raised
                    done = e.results
                except Exception:  # noqa: BLE001 - a failed step must not kill the worker
                    log.exception("background memory step for %r failed", key)
                    done = []
                with self._lock:
                    if self._keep:
                        self._results.extend(done)
                    if len(done) >= self._batch:
                        self._enqueue(key)  # more may be due: after the others
            finally:
                self._q.task_done()

    def wait(self, timeout: float | None = None) -> list[StepResult]:
        """Block until every submitted step has run (raises `MemlaneError` after `timeout`
        seconds); the results that landed since last time."""
        if timeout is None:
            self._q.join()
        else:  # Queue.join with a deadline (join itself has none)
            deadline = time.monotonic() + timeout
            with self._q.all_tasks_done:
                while self._q.unfinished_tasks:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise MemlaneError(f"memory steps still running after {timeout:g} s")
                    self._q.all_tasks_done.wait(left)
        with self._lock:
            out, self._results = self._results, []
        return out

    def wait_quietly(self) -> None:
        """Like `wait`, keeping the results for the next `wait`."""
        self._q.join()

    def close(self) -> list[StepResult]:
        """Run what is queued, then stop the thread; later `submit`s raise."""
        out = self.wait()
        with self._lock:
            self._closed = True
            # Taken, so a second close() has no thread to stop (its None would stay queued and
            # keep every later wait() waiting).
            t, self._thread = self._thread, None
        if t is not None:
            self._q.put(None)
            t.join()
        return out


__all__ = ["BATCH", "Cadence", "StepRunner", "StepWorker", "file_reporting", "stalled",
           "turn_starts"]
