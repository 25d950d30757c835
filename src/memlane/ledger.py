"""The quality ledger: one append-only row per answer, mined offline between releases.

It is kept apart from conversation memory on purpose. Memory is the user's (it expires, it is
forgotten on request, it is rewritten by memory steps); the ledger is the engineers' record of how
the agent did, and it only grows. So it lives in its own SQLite file (default `<db>.ledger.db`
next to the memory database, or `$MEMLANE_LEDGER`) with its own numbered migrations, and triggers
refuse UPDATE and DELETE: a later judgement of an answer (the memory step's `quality`, a correction
the user made in the next turn, explicit feedback) is a new row that points at the answer by
`(namespace, thread_id, seq)`. The report folds those rows per answer.

Row kinds:
- `answer`: written when the answer is given; signals detectable then (`asked_again`,
  `tool_errors`), the agent and prompt versions, the model, the answer's token count;
- `signal`: a later signal about an earlier answer (`user_correction` in the next user message);
- `quality`: the memory step's assessment of the last answer of its stretch;
- `feedback`: explicit feedback through `Ledger.feedback`;
- `step_fallback`: a model-written memory step was invalid and the heuristic filed the stretch.

The detectors here are heuristics, named as such: patterns for corrections, and for "asked
again" a question for something whose key words the user already stated with a value.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .errors import StoreError, UsageError
from .store.migrations import Migration, apply_sqlite
from .store.sqlite.checkpoint import BACKSTOP_PAGES, Checkpointer, wal_mode
from .text import ALNUM_WORD, ASK_STOPWORDS, singular
from .types import Message, Record

LEDGER_ENV = "MEMLANE_LEDGER"
KINDS = ("answer", "signal", "quality", "feedback", "step_fallback")

# Penalty scores for answers judged only by detected signals (no feedback, no step quality).
SIGNAL_SCORES: dict[str, float] = {
    "user_correction": 0.2,
    "asked_again": 0.3,
    "tool_errors": 0.6,
    "tool_rounds_exhausted": 0.5,
}

MIGRATIONS: list[Migration] = [
    Migration(
        1,
        "ledger",
        """
CREATE TABLE ledger (
    id             INTEGER PRIMARY KEY,
    ts             REAL NOT NULL,
    kind           TEXT NOT NULL,
    namespace      TEXT NOT NULL,
    thread_id      TEXT NOT NULL,
    seq            INTEGER,
    agent_version  TEXT,
    prompt_version TEXT,
    model          TEXT,
    answer_tokens  INTEGER,
    signals        TEXT NOT NULL DEFAULT '{}',
    score          REAL,
    note           TEXT
);
CREATE INDEX ledger_answer ON ledger (namespace, thread_id, seq);
CREATE INDEX ledger_ts ON ledger (ts);
-- Append-only, enforced by the database, not by convention.
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'the quality ledger is append-only: add a row instead'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'the quality ledger is append-only: rows are never deleted'); END;
""",
    ),
    Migration(
        2,
        "notes apart, so forgetting reaches them",
        """
-- Free text (a feedback note) is the user's, not a signal: it lives here, keyed by its row, and
-- `Ledger.forget` deletes it with the namespace or thread. The signal rows stay append-only.
CREATE TABLE ledger_notes (
    row_id     INTEGER PRIMARY KEY,
    namespace  TEXT NOT NULL,
    thread_id  TEXT NOT NULL,
    note       TEXT NOT NULL
);
CREATE INDEX ledger_notes_thread ON ledger_notes (namespace, thread_id);
""",
    ),
]

# Keys of signal details that would hold conversation text: never stored (see `Ledger.append`).
TEXT_KEYS = frozenset({"user_said", "note", "text", "content", "said", "message"})


def _without_text(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_text(v) for k, v in value.items() if k not in TEXT_KEYS}
    if isinstance(value, (list, tuple)):
        return [_without_text(v) for v in value]
    return value


@dataclass(frozen=True)
class LedgerRow:
    """One ledger row, as stored."""

    id: int
    ts: float
    """When the row was written (epoch seconds)."""
    kind: str
    """`answer`, `signal`, `quality`, `feedback` or `step_fallback`."""
    namespace: str
    thread_id: str
    seq: int | None
    """Seq of the answer (assistant message) the row is about."""
    agent_version: str | None = None
    prompt_version: str | None = None
    model: str | None = None
    answer_tokens: int | None = None
    signals: dict[str, Any] = field(default_factory=dict)
    """Signal name to detail (JSON)."""
    score: float | None = None
    """0..1; None when the row carries no judgement."""
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def default_ledger_path(db: str | os.PathLike[str] | None) -> str:
    """`$MEMLANE_LEDGER`, else `<db>.ledger.db` beside a SQLite memory file, else
    `~/.memlane/ledger.db` (a PostgreSQL memory), or `:memory:` for an in-memory store."""
    env = os.environ.get(LEDGER_ENV)
    if env:
        return env
    if db is None:
        from .store.sqlite import default_path

        db = default_path()
    s = str(db)
    if s.startswith("sqlite:///"):
        s = s[len("sqlite:///"):] or ":memory:"
    if s == ":memory:":
        return ":memory:"
    if "://" in s:
        return str(Path.home() / ".memlane" / "ledger.db")
    return s + ".ledger.db"


class Ledger:
    """The quality ledger on its own SQLite file. Safe to share between threads."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        path = default_ledger_path(None) if path is None else str(path)
        if path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            path = str(Path(path).expanduser())
        self.path = path
        self._lock = threading.RLock()
        self._checkpointer: Checkpointer | None = None
        try:
            self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                        timeout=30.0)
            if path != ":memory:":
                wal_mode(self.conn, 30.0)
                # As the store's own file: in WAL mode, NORMAL syncs at checkpoints, not on every
                # commit. The proxy appends a row per turn, and FULL's fsync per row was the
                # largest part of its own time (a power cut may lose the last rows; a crash of
                # the process loses nothing).
                self.conn.execute("PRAGMA synchronous = NORMAL")
                # Checkpoints (and their fsyncs) on a background thread, as the store's: the
                # commit that filled the log waited for them, in the proxy's turn.
                self.conn.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")
                self._checkpointer = Checkpointer(path)
            self._migrate()
        except (sqlite3.Error, StoreError) as e:
            raise StoreError(f"cannot open the quality ledger {path!r}: {e}; set "
                             f"${LEDGER_ENV} to a writable path") from e

    @classmethod
    def for_memory(cls, memory: Any) -> Ledger:
        """The ledger that belongs beside `memory`'s store (see `default_ledger_path`)."""
        return cls(default_ledger_path(memory.store.capabilities.path or memory.store.url))

    def _migrate(self) -> None:
        # The store's runner (one transaction per migration with its bookkeeping row); the
        # ledger keeps its own table and records epoch seconds.
        apply_sqlite(self.conn, MIGRATIONS, "_ledger_migrations", self._lock, now=time.time)

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
        with self._lock:
            self.conn.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # writing -----------------------------------------------------------------------------------
    def append(
        self,
        kind: str,
        *,
        namespace: str,
        thread_id: str,
        seq: int | None,
        signals: Mapping[str, Any] | None = None,
        score: float | None = None,
        note: str | None = None,
        agent_version: str | None = None,
        prompt_version: str | None = None,
        model: str | None = None,
        answer_tokens: int | None = None,
        ts: float | None = None,
    ) -> int:
        """Append one row; returns its id.

        The ledger holds signals, never the conversation's words: detail keys that carry text
        (`TEXT_KEYS`: what the user said, a step's note) are dropped here, whoever writes the row,
        and detectors point at the message instead (`at_seq`). The one free text kept is the
        `note` of explicit feedback, stored apart (`ledger_notes`) so `forget` can erase it."""
        if kind not in KINDS:
            raise UsageError(f"ledger row kind must be one of {', '.join(KINDS)}, got {kind!r}")
        if score is not None:
            if isinstance(score, bool) or not isinstance(score, (int, float)) \
                    or not 0.0 <= float(score) <= 1.0:
                raise UsageError(f"score must be a number from 0 to 1, got {score!r}")
            score = float(score)
        clean = _without_text(dict(signals or {}))
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                cur = self.conn.execute(
                    "INSERT INTO ledger (ts, kind, namespace, thread_id, seq, agent_version,"
                    " prompt_version, model, answer_tokens, signals, score, note)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                    (time.time() if ts is None else ts, kind, namespace, thread_id, seq,
                     agent_version, prompt_version, model, answer_tokens,
                     json.dumps(clean, ensure_ascii=False, default=str), score),
                )
                rid = int(cur.lastrowid or 0)
                if note and kind == "feedback":
                    self.conn.execute("INSERT INTO ledger_notes (row_id, namespace, thread_id,"
                                      " note) VALUES (?, ?, ?, ?)",
                                      (rid, namespace, thread_id, note))
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            if self._checkpointer is not None:
                self._checkpointer.wrote()
            return rid

    def forget(self, namespace: str, thread_id: str | None = None) -> int:
        """Erase the free text (feedback notes) of a namespace, or of one of its threads, and
        compact the file so it is gone from disk; the signal rows stay. Returns notes erased."""
        with self._lock:
            self.conn.execute("PRAGMA secure_delete = ON")
            if thread_id is None:
                n = self.conn.execute("DELETE FROM ledger_notes WHERE namespace = ?",
                                      (namespace,)).rowcount
            else:
                n = self.conn.execute("DELETE FROM ledger_notes WHERE namespace = ? AND"
                                      " thread_id = ?", (namespace, thread_id)).rowcount
            if n and self.path != ":memory:":
                self.conn.execute("VACUUM")
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return n

    def record_answer(
        self,
        *,
        namespace: str,
        thread_id: str,
        seq: int,
        agent_version: str,
        prompt_version: str,
        model: str,
        answer_tokens: int,
        signals: Mapping[str, Any] | None = None,
        ts: float | None = None,
    ) -> int:
        """The row for one answer. Its score is set only when a signal judges it."""
        sig = dict(signals or {})
        return self.append(
            "answer", namespace=namespace, thread_id=thread_id, seq=seq, signals=sig,
            score=signal_score(sig), agent_version=agent_version,
            prompt_version=prompt_version, model=model, answer_tokens=answer_tokens, ts=ts,
        )

    def feedback(
        self, thread_id: str, seq: int, score: float, note: str | None = None, *,
        namespace: str = "default",
    ) -> int:
        """Explicit feedback on the answer at `seq` (0 bad .. 1 good): a new row, never an edit."""
        if not isinstance(seq, int) or seq < 1:
            raise UsageError(f"seq must be the answer's message seq (a positive integer), "
                             f"got {seq!r}")
        return self.append("feedback", namespace=namespace, thread_id=thread_id, seq=seq,
                           signals={"feedback": score}, score=score, note=note)

    # reading -----------------------------------------------------------------------------------
    def rows(
        self,
        *,
        namespace: str | None = None,
        thread_id: str | None = None,
        kind: str | None = None,
        since: float | None = None,
    ) -> list[LedgerRow]:
        where: list[str] = []
        args: list[Any] = []
        for col, val in (("namespace", namespace), ("thread_id", thread_id), ("kind", kind)):
            if val is not None:
                where.append(f"{col} = ?")
                args.append(val)
        if since is not None:
            where.append("ts >= ?")
            args.append(since)
        where = [f"l.{w}" for w in where]
        sql = ("SELECT id, ts, kind, l.namespace, l.thread_id, seq, agent_version,"
               " prompt_version, model, answer_tokens, signals, score, COALESCE(n.note, l.note)"
               " FROM ledger l LEFT JOIN ledger_notes n ON n.row_id = l.id")
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._lock:
            out = self.conn.execute(sql + " ORDER BY id", args).fetchall()
        return [
            LedgerRow(id=r[0], ts=r[1], kind=r[2], namespace=r[3], thread_id=r[4], seq=r[5],
                      agent_version=r[6], prompt_version=r[7], model=r[8], answer_tokens=r[9],
                      signals=json.loads(r[10] or "{}"), score=r[11], note=r[12])
            for r in out
        ]

    def export(self, out: IO[str], **filters: Any) -> int:
        """Write every row as JSONL, oldest first; returns how many."""
        n = 0
        for r in self.rows(**filters):
            out.write(json.dumps(r.to_dict(), ensure_ascii=False, default=str) + "\n")
            n += 1
        return n

    def report(self, by: str = "signal", **filters: Any) -> dict[str, Any]:
        return build_report(self.rows(**filters), by)


# --- folding rows into answers, and the report ---------------------------------------------------

@dataclass
class AnswerView:
    """Everything the ledger knows about one answer, folded from its rows."""

    namespace: str
    thread_id: str
    seq: int
    ts: float | None = None
    agent_version: str | None = None
    prompt_version: str | None = None
    model: str | None = None
    answer_tokens: int | None = None
    signals: dict[str, Any] = field(default_factory=dict)
    feedback: float | None = None
    quality: float | None = None
    penalty: float | None = None

    @property
    def score(self) -> float | None:
        """Explicit feedback first, then the memory step's quality, then the signal penalty."""
        for s in (self.feedback, self.quality, self.penalty):
            if s is not None:
                return s
        return None


def write_quietly(ledger: Ledger | None, write: Callable[[Ledger], Any]) -> None:
    """Write to the ledger, if there is one; an error is logged, never raised. The ledger is
    for engineers: a full disk or a locked file must not fail a user's turn or a memory step
    (every writer goes through here)."""
    if ledger is None:
        return
    try:
        write(ledger)
    except Exception:  # noqa: BLE001
        logging.getLogger("memlane.ledger").warning("could not write to the quality ledger",
                                                    exc_info=True)


def fold(rows: Iterable[LedgerRow]) -> list[AnswerView]:
    """Rows grouped per answer, in the order answers were given. Rows about an answer whose own
    row is missing (written by another process, or before the ledger existed) still count."""
    views: dict[tuple[str, str, int], AnswerView] = {}
    for r in rows:
        if r.kind == "step_fallback" or r.seq is None:
            continue
        key = (r.namespace, r.thread_id, r.seq)
        v = views.get(key)
        if v is None:
            v = views[key] = AnswerView(r.namespace, r.thread_id, r.seq)
        if r.kind == "answer":
            v.ts, v.agent_version, v.prompt_version = r.ts, r.agent_version, r.prompt_version
            v.model, v.answer_tokens = r.model, r.answer_tokens
        elif v.ts is None:
            v.ts = r.ts
        for name, detail in r.signals.items():
            if name == "feedback":
                v.signals["feedback"] = {"score": r.score, "note": r.note}  # the latest
            else:
                v.signals.setdefault(name, detail)
        if r.kind == "feedback":
            v.feedback = r.score  # the latest feedback wins
        elif r.kind == "quality" and r.score is not None:
            v.quality = r.score
        elif r.score is not None:
            v.penalty = r.score if v.penalty is None else min(v.penalty, r.score)
    return list(views.values())


def _mean(xs: Sequence[float]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


def _example(v: AnswerView, detail: Any) -> dict[str, Any]:
    return {"namespace": v.namespace, "thread_id": v.thread_id, "seq": v.seq, "detail": detail}


def build_report(rows: Sequence[LedgerRow], by: str = "signal") -> dict[str, Any]:
    """Aggregate the ledger: `by` is `signal`, `version` or `day`."""
    if by not in ("signal", "version", "day"):
        raise UsageError(f"--by must be signal, version or day, got {by!r}")
    views = fold(rows)
    scored = [v.score for v in views if v.score is not None]
    groups: dict[str, list[AnswerView]] = {}
    examples: dict[str, list[dict[str, Any]]] = {}
    for v in views:
        if by == "signal":
            keys = sorted(v.signals) or ["(none)"]
            for k in keys:
                groups.setdefault(k, []).append(v)
                if k != "(none)" and len(examples.setdefault(k, [])) < 5:
                    examples[k].append(_example(v, v.signals[k]))
        elif by == "version":
            k = f"{v.agent_version or '?'} prompt={v.prompt_version or '?'} model={v.model or '?'}"
            groups.setdefault(k, []).append(v)
        else:
            day = time.strftime("%Y-%m-%d", time.gmtime(v.ts or 0))
            groups.setdefault(day, []).append(v)
    out_groups = []
    for k, vs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        g_scores = [v.score for v in vs if v.score is not None]
        g: dict[str, Any] = {
            "key": k,
            "answers": len(vs),
            "share": round(len(vs) / len(views), 4) if views else 0.0,
            "scored": len(g_scores),
            "mean_score": _mean(g_scores),
        }
        if by != "signal":
            flagged = [v for v in vs if v.signals]
            g["with_signals"] = len(flagged)
            sig: dict[str, int] = {}
            for v in vs:
                for s in v.signals:
                    sig[s] = sig.get(s, 0) + 1
            g["signals"] = dict(sorted(sig.items()))
        else:
            g["examples"] = examples.get(k, [])
        out_groups.append(g)
    return {
        "by": by,
        "answers": len(views),
        "scored": len(scored),
        "mean_score": _mean(scored),
        "step_fallbacks": sum(1 for r in rows if r.kind == "step_fallback"),
        "groups": out_groups,
    }


def render_report(rep: dict[str, Any]) -> str:
    """People's view of `build_report`'s output."""
    ms = rep["mean_score"]
    lines = [f"quality ledger: {_n(rep['answers'], 'answer')}, {rep['scored']} scored"
             + (f", mean score {ms:.2f}" if ms is not None else "")
             + (f"; {rep['step_fallbacks']} memory steps fell back to the heuristic"
                if rep["step_fallbacks"] else "")]
    if not rep["groups"]:
        lines.append("  (no answers recorded yet)")
    for g in rep["groups"]:
        mean = f"{g['mean_score']:.2f}" if g["mean_score"] is not None else "  - "
        lines.append(f"  {g['key']:<28} {_n(g['answers'], 'answer'):>12} "
                     f"({100 * g['share']:.0f}%)  "
                     f"mean score {mean}")
        for ex in g.get("examples", []):
            lines.append(f"      {ex['thread_id']} #{ex['seq']}: {_describe(ex['detail'])}")
        if g.get("signals"):
            lines.append("      signals: " + ", ".join(f"{k} x{n}" for k, n in
                                                      g["signals"].items()))
    return "\n".join(lines)


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _describe(detail: Any) -> str:
    if isinstance(detail, dict):
        parts = [f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in detail.items()]
        return "; ".join(parts)
    return json.dumps(detail, ensure_ascii=False, default=str)


def signal_score(signals: Mapping[str, Any]) -> float | None:
    """The penalty score of answer-time signals (None: nothing judged the answer)."""
    scores = [SIGNAL_SCORES[s] for s in signals if s in SIGNAL_SCORES]
    return min(scores) if scores else None


# --- detectors -------------------------------------------------------------------------------

_CORRECTION = re.compile(
    r"\bno,?\s+(?:i|we)\s+(?:said|told you|meant|asked)\b"
    r"|\bthat(?:'s| is|s)\s+(?:wrong|not (?:right|correct|true|what i (?:said|asked|meant)))\b"
    r"|\b(?:you(?:'re| are)|you got (?:it|that))\s+wrong\b"
    r"|\bwrong,\s"
    r"|\bactually,?\s+(?:it'?s|it is|it was|i said|my|the|i'm|i am)\b"
    r"|\bnot what i (?:said|asked|meant)\b"
    r"|\bi (?:already|just) (?:told|said|gave|mentioned)\b"
    r"|\bthat(?:'s| is) incorrect\b|\bincorrect\b",
    re.IGNORECASE,
)


def detect_correction(user_text: str) -> str | None:
    """The correction phrase in a user message, or None."""
    m = _CORRECTION.search(user_text)
    return m.group(0) if m else None


_SENTENCE = re.compile(r"[^.!?\n]*\?")
_ASK = re.compile(
    r"\b(?:what(?:'s| is| are| was)?|which|could you|can you|would you|please|may i have)\b"
    r"[^?]*?\b(?:your|the)\s+(?P<np>[a-z][a-z0-9' \-]{1,60}?)\s*"
    r"(?:\?|,|$|\b(?:again|please|so|to|that|on|for|of|in|at|with|from|you|we|i)\b)",
    re.IGNORECASE,
)
_VALUE = re.compile(r"\d|\b(?:is|are|was|'s|:|=|called|named)\b|@", re.IGNORECASE)


def _key_words(phrase: str) -> list[str]:
    words = [singular(w) for w in ALNUM_WORD.findall(phrase.lower())]
    keep = [w for w in words if w not in ASK_STOPWORDS]
    # "your name" is a fair question to ask again only if the user gave it: keep "name" alone.
    return keep or [w for w in words if w in ("name",)]


def question_keys(answer: str) -> list[tuple[str, list[str]]]:
    """(question, key words) for each question in `answer` that asks the user for something."""
    out = []
    for q in _SENTENCE.findall(answer):
        m = _ASK.search(q + ("" if q.endswith("?") else "?"))
        if not m:
            continue
        keys = _key_words(m.group("np"))
        if keys:
            out.append((" ".join(q.split()), keys))
    return out


# Generic head nouns a user often leaves out ("my email: ..." answers "your email address").
_OPTIONAL_HEADS = frozenset({"address", "id", "detail"})


def _states(text: str, keys: Sequence[str]) -> str | None:
    """The sentence of `text` that states `keys` with a value, or None."""
    needed = [k for k in keys if k not in _OPTIONAL_HEADS] or list(keys)
    for sent in re.split(r"(?<=[.!?])\s+|\n+", text):
        if sent.rstrip().endswith("?"):
            continue
        words = {singular(w) for w in ALNUM_WORD.findall(sent.lower())}
        if all(k in words for k in needed) and _VALUE.search(sent):
            return " ".join(sent.split())
    return None


def detect_asked_again(
    answer: str, user_messages: Sequence[Message], records: Sequence[Record] = ()
) -> dict[str, Any] | None:
    """The agent asking for something the user already said: a question in `answer` whose key
    noun phrase ("order number" in "What's your order number?") the user stated earlier with a
    value (a sentence holding those words and a digit, `is`, `:`...), in the thread or in a stored
    record. Returns the evidence, or None."""
    for question, keys in question_keys(answer):
        for m in reversed(user_messages):
            said = _states(m.content, keys)
            if said:
                return {"question": question, "asked_for": " ".join(keys), "at_seq": m.seq}
        for r in records:
            said = _states(r.text, keys)
            if said:
                return {"question": question, "asked_for": " ".join(keys), "record": r.id}
    return None
