"""The record columns PostgreSQL reads (sources as an array) and the decoding of its rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...types import Episode, Record, make_record


def rec_cols(sources: int | None = None) -> str:
    """The record columns, each record's sources as an array, ascending; `sources`: at most that
    many of them, the lowest."""
    cap = "" if sources is None else f" LIMIT {max(int(sources), 0)}"
    return ("r.id, r.namespace, r.text, r.kind, r.thread_id, r.created, r.updated, r.pinned,"
            " r.suspect, ARRAY(SELECT s.message_id FROM record_sources s WHERE s.namespace ="
            f" r.namespace AND s.record_id = r.id ORDER BY s.message_id{cap}), r.stated,"
            " r.scanned")


_REC_COLS = rec_cols()


def _episode(row: Sequence[Any]) -> Episode:
    return Episode(
        thread_id=row[0], start=row[1], end=row[2], line=row[3],
        record_ids=tuple(row[4]), date=row[5], suspect=bool(row[6]), scanned=row[7],
    )


def _record(row: Sequence[Any]) -> Record:
    return make_record(row[0], row[1], row[2], row[3], tuple(row[9]), row[4], row[5], row[6],
                       bool(row[7]), bool(row[8]), float(row[10]), row[11])
