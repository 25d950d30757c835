"""The shared SQL's column lists and statements, and the decoding of their rows (both engines)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import UsageError
from ...types import Episode, Message, ThreadInfo, make_message, public_dict
from ..protocol import (
    Snapshot,
)

MSG_COLS = "id, thread_id, seq, role, content, ts, tokens, relevance, name, scanned"
EP_COLS = 'thread_id, start, "end", line, record_ids, date, suspect, scanned'
SNAP_COLS = "id, thread_id, tool, args, result, created, tokens, namespace"
_THREAD_COLS = "thread_id, created, last_active, next_seq, filed_to"


# The filing claim's check (`StoreTx.overlapping_episodes`): the same SQL on both engines (each
# transaction maps the placeholders: `tx.sql`). Uses the episodes_start index; a thread has few
# episodes anyway.
OVERLAPPING_EPISODES = (
    'SELECT start, "end" FROM episodes WHERE namespace = ? AND thread_id = ?'
    ' AND start <= ? AND "end" >= ? AND NOT (start = ? AND "end" = ?) ORDER BY start'
)


CORRECTED_IDS = (
    "WITH RECURSIVE ids(id, n) AS (SELECT (SELECT max(record_id) FROM record_history"
    " WHERE namespace = ? AND op = 'update'), 1 UNION ALL SELECT (SELECT max(record_id)"
    " FROM record_history WHERE namespace = ? AND op = 'update' AND record_id < ids.id),"
    " n + 1 FROM ids WHERE ids.id IS NOT NULL AND n < ?)")
"""`Store.corrected_records`' ids, both engines: the newest distinct ids of corrected records
(an `update` in the history), one seek of `record_history_op` each (parameters: namespace,
namespace, limit); a record corrected a thousand times is one."""


def pg_params(sql: str) -> str:
    """`sql` with `?` placeholders as psycopg's `%s` (no SQL here has a literal `?` or `%`)."""
    return sql.replace("?", "%s")


def message_row(row: Sequence[Any]) -> Message:
    """A `MSG_COLS` row."""
    return make_message(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                        row[9])


def thread_row(ns: str, row: Sequence[Any]) -> ThreadInfo:
    """A `_THREAD_COLS` row."""
    return ThreadInfo(namespace=ns, thread_id=row[0], created=row[1], last_active=row[2],
                      messages=row[3] - 1, filed_to=row[4])


def snapshot_row(row: Sequence[Any]) -> Snapshot:
    """A `SNAP_COLS` row."""
    return Snapshot(id=row[0], namespace=row[7], thread_id=row[1], tool=row[2],
                    args=json.loads(row[3]), result=row[4], created=row[5], tokens=row[6])


def episode_dict(e: Episode) -> dict[str, Any]:
    return public_dict(e) | {"record_ids": list(e.record_ids)}


def args_json(args: Mapping[str, Any]) -> str:
    """A snapshot's arguments as stored (sorted keys: equal calls store equal text)."""
    return json.dumps(dict(args), sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class VecTable:
    """Where the vectors of one kind of row live."""

    table: str
    """The vector table."""
    id: str
    """Its column naming the owner row."""
    owner: str
    """The table of the rows embedded."""
    kind_col: str
    """The owner's column a `kinds` filter matches."""


VEC_TABLES = {
    "records": VecTable("record_vectors", "record_id", "records", "kind"),
    "snapshots": VecTable("snapshot_vectors", "snapshot_id", "snapshots", "tool"),
}


def vec_table(target: str) -> VecTable:
    try:
        return VEC_TABLES[target]
    except KeyError:
        raise UsageError(f"vector target {target!r}: use 'records' or 'snapshots'") from None



def history_rows(rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """A record's history rows (text, op, changed, stated, sources; oldest first) as dicts with
    each version's validity: a version (an `add` or an `update`) was `superseded` when the next
    version was stated, by the statement in that version's sources (`superseded_by`: message
    ids); the current version has neither. A `delete` row closes the last version."""
    out: list[dict[str, Any]] = []
    last: dict[str, Any] | None = None
    for text, op, changed, stated, sources in rows:
        entry: dict[str, Any] = {"text": text, "op": op, "changed": changed,
                                 "stated": stated or changed,
                                 "sources": json.loads(sources or "[]"),
                                 "superseded": None, "superseded_by": []}
        if last is not None and last["superseded"] is None:
            last["superseded"] = entry["stated"]
            last["superseded_by"] = entry["sources"] if op != "delete" else []
        out.append(entry)
        if op != "delete":
            last = entry
    return out
