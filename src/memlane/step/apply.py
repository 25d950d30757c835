"""Applying a validated memory step: one transaction, idempotent per `(thread, end)`.

Written once against `StoreTx`, so SQLite and PostgreSQL apply steps identically.

- A retry of the same stretch (same `end`) first removes the records the earlier attempt added,
  then overwrites the episode: retries never duplicate.
- The stretch is checked against the thread inside the transaction, under the write lock: all its
  seqs must exist (`StepError` otherwise: an end past the thread would leave later turns
  unfiled), and it must not overlap another filed stretch (`StepConflict`: two workers that read
  the same unfiled turns file them once). A retry has the same start and end: 5..8 after 1..8
  is a conflict, not a retry (it would leave 1..4 covered by nothing). This is the claim
  `step/runner.py` relies on.
- The episode points only at ids this step wrote; ids the model invented are dropped and reported.
- update/delete of an id that does not exist in this namespace is dropped and reported (the
  other namespace's ids are indistinguishable from missing ones: nothing leaks).
- Text is scanned for injected instructions and flagged, never silently discarded.
- A replace (an `update`, an `add` with `replaces`) is vetted by the supersede rule
  (`step/supersede.py`) before anything is written: one across holders or attributes is
  refused, reported in the warnings, and its text added as a new record marked newer.
- A correction of a standing record stays standing (`carried_kind`): the record it updates, or
  the one it is marked newer than, keeps or lends its kind unless the writer gives the
  correction a standing kind of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..errors import StepConflict, StepError, UsageError
from ..safety import SCANNER, admit, clean_tag, is_suspect, prompt_like, tainted
from ..store.protocol import Store, StoreTx
from ..text import mark_newer, newer_than
from ..types import Episode, Record, StepResult
from ..validate import STANDING_KINDS
from .parse import RecordOp, StepOutput
from .supersede import RELATED, decide


def past_the_end(thread_id: str, start: int, end: int, last: int) -> StepError:
    """The error for a stretch that ends past the thread's last message: filing it would mark
    turns not yet said as filed, and they would never be filed when they are."""
    return StepError(f"stretch {start}..{end} is not in thread {thread_id!r}", [
        f"end: the thread's messages from {start} end at {last}; a stretch covers messages "
        "that exist (file the rest once it is written)"])


def _with(from_: list[str], seqs: Sequence[int], suspects: Mapping[int, str]) -> list[str]:
    """The flagged messages a version is checked against: the op's (`from_`) and those its own
    `seqs` name."""
    return [*from_, *(suspects[s] for s in seqs if s in suspects and suspects[s] not in from_)]


def flagged(text: str, scans: dict[str, tuple[str, ...]] | None = None,
            likes: dict[str, bool] | None = None) -> bool:
    """A step's reading of one text of its stretch (a message, or a record it writes): the scan,
    or the stricter reading of model-written text (`safety.prompt_like`, a statement is never a
    task for a model), with the classifier at its turn threshold: a step's records carry the
    words of the turns (the heuristic copies them), and a user may say anything to the
    assistant. `scans` and `likes` are one filing's memos: a record that is a whole message is
    read once."""
    if is_suspect(text, scans):
        return True
    if likes is None:
        return bool(prompt_like(text, turn=True))
    hit = likes.get(text)
    if hit is None:
        hit = likes[text] = bool(prompt_like(text, turn=True))
    return hit


def _suspect(text: str, sources: list[str],
             scans: dict[str, tuple[str, ...]] | None = None,
             admits: dict[str, tuple[str, ...]] | None = None) -> bool:
    """Whether a text the step writes (a record, a version, its line) is quarantined: the rule
    of every path into memory (`safety.admit`: a stretch's messages are data, not the user's
    words of a turn asking to store them), or it carries the words of a flagged message of its
    stretch (`tainted`)."""
    return admit(text, scans=scans, likes=admits).quarantined or tainted(text, sources)


def carried_kind(kind: str, older: str | None) -> str:
    """The kind a correction files under when it updates, or is marked newer than, a record
    of kind `older`: its own when the writer gives it a standing kind, else the older record's
    when that is standing ("I eat fish now" after the need "I'm vegetarian" is that need now:
    left out of the standing layer, the stale value would stand alone), else its own."""
    if older is None or kind in STANDING_KINDS or older not in STANDING_KINDS:
        return kind
    return older


def _lent(op: RecordOp, held: Mapping[int, Record]) -> RecordOp:
    """An add as written, its kind carried from a held record its text is marked newer than."""
    older = next((held[i].kind for i in newer_than(op.text or "") if i in held), None)
    return replace(op, replaces=None, kind=carried_kind(op.kind, older))


def vet_replaces(store: Store, namespace: str, output: StepOutput) -> StepOutput:
    """The step's replaces (an `update` of an id, an `add` with `replaces`) vetted by the
    supersede rule (`supersede.decide`, as the heuristic's own are): one about another holder
    or attribute than the record it names is refused, reported, and added as a new record
    marked newer than it (both kept: a wrong supersede is data loss). An accepted `replaces`
    becomes an `update` of that id. An add marked newer than a held record (the heuristic's
    own refusals) takes its kind as a refused replace does (`carried_kind`). Read before the
    transaction (the rule is pure Python)."""
    ids = [op.id if op.op == "update" else op.replaces for op in output.records
           if op.op == "update" or op.replaces is not None]
    ids += [i for op in output.records if op.op == "add" and op.text
            for i in newer_than(op.text)]
    if not ids:
        return output
    held = {r.id: r for r in store.records(namespace, [i for i in ids if i is not None])}
    warnings = list(output.warnings)
    ops: list[RecordOp] = []
    for i, op in enumerate(output.records):
        target = op.id if op.op == "update" else op.replaces
        if target is None or target not in held or op.text is None:
            ops.append(_lent(op, held) if op.op == "add" else op)
            if op.op == "add" and op.replaces is not None:
                warnings.append(f"records[{i}]: replaces #{op.replaces}: no such record; "
                                "added as a new record")
            continue
        d = decide(op.text, [held[target].text], claimed=0)
        if d.verdict == RELATED:
            warnings.append(f"records[{i}]: replacing #{target} refused ({'; '.join(d.reasons)})"
                            f": both kept, the new one marked newer")
            ops.append(RecordOp(op="add", text=mark_newer(op.text, target),
                                kind=carried_kind(op.kind, held[target].kind),
                                source=op.source))
        elif op.op == "add":
            ops.append(RecordOp(op="update", text=op.text, id=target, kind=op.kind,
                                source=op.source))
        else:
            ops.append(op)
    return replace(output, records=tuple(ops), warnings=tuple(warnings))


@dataclass
class _Filing:
    """One step's application in progress: what it was given and what it wrote so far."""

    namespace: str
    thread_id: str
    start: int
    end: int
    id_by_seq: dict[int, int]
    previous: list[int]
    suspects: dict[int, str]
    scans: dict[str, tuple[str, ...]]
    admits: dict[str, tuple[str, ...]]
    now: float
    warnings: list[str]
    dropped: list[str] = field(default_factory=list)
    wrote: dict[int, str] = field(default_factory=dict)
    """Record id -> its text now, for `mark_scanned`."""
    added: list[int] = field(default_factory=list)
    updated: list[int] = field(default_factory=list)
    deleted: list[int] = field(default_factory=list)

    @property
    def stretch_ids(self) -> list[int]:
        return [self.id_by_seq[s] for s in sorted(self.id_by_seq)]

    def suspect(self, text: str, from_: list[str], seqs: Sequence[int] = ()) -> bool:
        return _suspect(text, _with(from_, seqs, self.suspects), self.scans, self.admits)


def apply_step(
    store: Store,
    namespace: str,
    thread_id: str,
    start: int,
    end: int,
    output: StepOutput,
    date: float,
    now: float,
    read: Mapping[int, int] | None = None,
    suspect_messages: Mapping[int, str] | None = None,
    scans: dict[str, tuple[str, ...]] | None = None,
    likes: dict[str, bool] | None = None,
    texts: Mapping[int, str] | None = None,
    refile: bool = True,
) -> StepResult:
    """`read`: seq -> message id of the stretch as the caller read it; when the thread holds
    other messages at those seqs now (the log was cut and written again meanwhile, e.g. a
    regenerated answer through the proxy), nothing is applied (`StepConflict`).

    `suspect_messages`: seq -> text of the stretch's messages the injection scan flags. A record
    or line that carries their words is flagged too (`safety.tainted`), whatever its own scan
    says. `scans`: the scan results of this stretch's texts so far (the caller's memo for one
    filing: a text repeated in the stretch, e.g. a record that is a whole message, is scanned
    once); `likes` the same for `flagged` (the caller's reading of the stretch's messages).
    What the step writes is read by `safety.admit`, the rule of every path into memory.

    `texts`: seq -> text of the stretch's messages as read. The step keeps its clean scan
    verdicts with what it scanned (`safety.scan_stored`): these messages, the records it
    writes and its line, so a turn that shows them does not scan them again.

    `refile`: whether filing a stretch filed already replaces that filing (an explicit retry of
    the same stretch). False for a caller that read the stretch as unfiled (the background
    worker, `flush`, "the next pending stretch"): another worker that filed it since wins, and
    this step is a `StepConflict` that changes nothing, so the records stay with their ids and
    pins (a re-filing would replace them with new ids).

    Every replace the step asks for is vetted first (`vet_replaces`)."""
    if start > end:
        raise UsageError(f"stretch start {start} is after its end {end}")
    output = vet_replaces(store, namespace, output)
    # Every text the step writes is read (scanned, and by `prompt_like`) before the transaction
    # opens: pure Python that reads nothing the transaction guards, and the lock is the store's
    # (SQLite: the one connection every request thread reads through), so a proxied turn would
    # wait out a whole stretch's scanning. Inside, the verdicts come from these memos.
    scans = {} if scans is None else scans
    admits: dict[str, tuple[str, ...]] = {}
    for op in output.records:
        for text in (*(t for t, _ in op.supersedes), op.text):
            if text is not None:
                admit(text, scans=scans, likes=admits)
    admit(output.episode, scans=scans, likes=admits)
    said = dict(texts or {})
    clean = {t: clean_tag(t, scans) for t in (
        *(op.text for op in output.records if op.text is not None), output.episode,
        *said.values())}
    with store.transaction() as tx:
        id_by_seq, previous, replaced = _claim(tx, namespace, thread_id, start, end, read,
                                               refile)
        f = _Filing(namespace, thread_id, start, end, id_by_seq, previous,
                    dict(suspect_messages or {}), scans, admits, now, list(output.warnings))
        for rid in previous:
            tx.delete_record(namespace, rid, now)
        for i, op in enumerate(output.records):
            _apply_op(tx, f, i, op)
        episode = _finish(tx, f, output, date, clean, said)
    return StepResult(
        thread_id=thread_id, start=start, end=end, added=tuple(f.added),
        updated=tuple(f.updated), deleted=tuple(f.deleted), episode=episode,
        dropped_ids=tuple(dict.fromkeys(f.dropped)), warnings=tuple(f.warnings),
        replaced=replaced,
    )


def _claim(tx: StoreTx, namespace: str, thread_id: str, start: int, end: int,
           read: Mapping[int, int] | None, refile: bool
           ) -> tuple[dict[int, int], list[int], bool]:
    """The stretch checked against the thread under the write lock (see the module docstring):
    (seq -> message id, the records an earlier filing of it wrote, whether one did)."""
    id_by_seq = {seq: mid for mid, seq in
                 tx.message_ids(namespace, thread_id, start, end).items()}
    if not id_by_seq:
        raise UsageError(
            f"thread {thread_id!r} has no messages {start}..{end} in namespace "
            f"{namespace!r}: append the messages before filing them"
        )
    if len(id_by_seq) != end - start + 1:  # seqs have no gaps: it runs past the thread
        raise past_the_end(thread_id, start, end, max(id_by_seq))
    if read and any(id_by_seq.get(seq) != mid for seq, mid in read.items()):
        raise StepConflict(
            f"messages {start}..{end} of thread {thread_id!r} changed since the stretch was "
            "read (the log was cut and written again): nothing applied; file them again")
    clash = tx.overlapping_episodes(namespace, thread_id, start, end)
    if clash:
        s, e = clash[0]
        raise StepConflict(
            f"stretch {start}..{end} of thread {thread_id!r} overlaps {s}..{e}, filed "
            f"already (by another worker, or an earlier step): nothing applied, so no fact "
            f"is stored twice. File from {e + 1}, or re-file {s}..{e} itself")
    previous = tx.records_of_step(namespace, thread_id, end)
    replaced = bool(previous) or tx.get_episode(namespace, thread_id, end) is not None
    if replaced and not refile:
        raise StepConflict(
            f"stretch {start}..{end} of thread {thread_id!r} was filed by another worker "
            "since it was read as unfiled: nothing applied, its records keep their ids")
    return id_by_seq, previous, replaced


def _apply_op(tx: StoreTx, f: _Filing, i: int, op: RecordOp) -> None:
    """One record operation of the step."""
    src = [f.id_by_seq[s] for s in op.source if s in f.id_by_seq]
    outside = [s for s in op.source if s not in f.id_by_seq]
    if outside:
        f.warnings.append(f"records[{i}]: source seqs {outside} are outside the stretch "
                          f"{f.start}..{f.end}; ignored")
    from_ = [f.suspects[s] for s in (op.source or f.suspects) if s in f.suspects]
    if op.op == "add":
        _add(tx, f, op, src, from_)
        return
    assert op.id is not None
    ns = f.namespace
    gone = op.id not in f.previous and bool(src) and tx.record_owner(ns, op.id) != ns
    if op.op == "update" and (op.id in f.previous or gone):
        # A retry removed this record above (an earlier attempt at this very stretch wrote
        # it, and the extractor saw it as an existing fact), or another worker's retry of this
        # stretch removed it after the extractor read it (`gone`): the update's text is the
        # fact the stretch states (its sources are in it), so it is written anew, never lost
        # with the attempt it replaces (two or three workers racing on one stretch lost facts
        # both ways).
        assert op.text is not None
        if gone:
            f.warnings.append(f"records[{i}]: update of #{op.id}: no such record (removed "
                              "since the step read it?); its text, stated in this stretch, "
                              "is added as a new record")
        rid = tx.add_record(ns, op.text, op.kind, src or f.stretch_ids, f.thread_id, f.now,
                            f.end, f.suspect(op.text, from_))
        f.added.append(rid)
        f.wrote[rid] = op.text
        return
    if tx.record_owner(ns, op.id) != ns or op.id in f.previous:
        f.dropped.append(str(op.id))
        f.warnings.append(f"records[{i}]: {op.op} of #{op.id}: no such record; dropped")
        return
    if op.op == "update":
        assert op.text is not None
        # The record keeps its kind unless the writer gives the correction a standing one.
        tx.update_record(ns, op.id, op.text, f.now, f.suspect(op.text, from_), src,
                         op.kind if op.kind in STANDING_KINDS else None)
        f.updated.append(op.id)
        f.wrote[op.id] = op.text
    else:
        tx.delete_record(ns, op.id, f.now)
        f.deleted.append(op.id)


def _add(tx: StoreTx, f: _Filing, op: RecordOp, src: list[int], from_: list[str]) -> None:
    """An added record. Versions said and corrected within this stretch: the record starts as
    the first and is superseded by each later one, so its history has them all."""
    assert op.text is not None
    versions = [*op.supersedes, (op.text, op.source)]
    first_text, first_src = versions[0]
    first_ids = [f.id_by_seq[s] for s in first_src if s in f.id_by_seq]
    rid = tx.add_record(
        f.namespace, first_text, op.kind,
        first_ids or (src if len(versions) == 1 else []) or f.stretch_ids,
        f.thread_id, f.now, f.end, f.suspect(first_text, from_, first_src),
    )
    for v_text, v_src in versions[1:]:
        # A later version is checked as the first is (it was checked against no message, so
        # one copied from an attack was shown plain).
        tx.update_record(f.namespace, rid, v_text, f.now, f.suspect(v_text, from_, v_src),
                         [f.id_by_seq[s] for s in v_src if s in f.id_by_seq])
    f.added.append(rid)
    f.wrote[rid] = op.text


def _finish(tx: StoreTx, f: _Filing, output: StepOutput, date: float, clean: dict[str, int],
            said: dict[int, str]) -> Episode:
    """The episode (pointing only at ids this step wrote), the scan verdicts and relevance."""
    written = list(dict.fromkeys(f.added + [u for u in f.updated if u not in f.deleted]))
    if output.episode_record_ids is None:
        line_ids = written
    else:
        line_ids = [r for r in dict.fromkeys(output.episode_record_ids) if r in written]
        for r in output.episode_record_ids:
            if r not in written:
                f.dropped.append(str(r))
                f.warnings.append(f"episode.record_ids: #{r} was not written by this step; "
                                  "dropped")
    episode = Episode(
        thread_id=f.thread_id, start=f.start, end=f.end, line=output.episode,
        record_ids=tuple(line_ids), date=date,
        suspect=_suspect(output.episode, list(f.suspects.values()), f.scans, f.admits),
        scanned=clean[output.episode],
    )
    ns = f.namespace
    tx.upsert_episode(ns, episode, f.now)
    tx.mark_scanned(ns, "records", [(rid, text) for rid, text in f.wrote.items()
                                    if rid not in f.deleted and clean[text]], SCANNER)
    tx.mark_scanned(ns, "messages", [
        (f.id_by_seq[seq], text) for seq, text in said.items()
        if seq in f.id_by_seq and clean[text]], SCANNER)
    rel = {s: v for s, v in output.relevance.items() if s in f.id_by_seq}
    if len(rel) < len(output.relevance):
        f.warnings.append("relevance: scores for seqs outside the stretch ignored")
    tx.set_relevance(ns, f.thread_id, rel)
    return episode
