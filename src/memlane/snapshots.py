"""Tool results kept for recall in later conversations, and the vectors of records and
snapshots, as `Memory` does them (a mixin of the facade)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import validate
from .context.tokens import Tokenizer
from .errors import MemlaneError, UsageError
from .search.embed import Embedder
from .search.hybrid import SnapshotHit
from .store.protocol import Snapshot, Store, snapshot_text
from .validate import clean_json, clean_text

MAX_SNAPSHOT_CHARS = 1_000_000


class SnapshotsAndVectors:
    """`save_snapshot` / `recall` over past tool results, `reindex` and the embedding of new
    records (after their transaction: a failed embedder never loses a write)."""

    store: Store
    ns: str
    tokenizer: Tokenizer
    embedder: Embedder | None

    def save_snapshot(
        self, tool: str, args: Mapping[str, Any], result: str, *, thread_id: str | None = None
    ) -> tuple[Snapshot, bool]:
        """Keep a tool result for `recall` in later conversations. An identical result already
        kept is returned instead; the bool says whether this call stored a new one."""
        if not isinstance(tool, str) or not tool.strip():
            raise UsageError("tool must be the non-empty name of the tool that produced the result")
        if not isinstance(args, Mapping):
            raise UsageError(f"args must be a mapping of the call's arguments, got "
                             f"{type(args).__name__}")
        if not isinstance(result, str):
            try:
                result = json.dumps(result, ensure_ascii=False, default=str)
            except (ValueError, RecursionError):
                raise UsageError("result cannot be encoded as JSON (nested too deeply, or "
                                 "circular): pass it as a string") from None
        result, args = clean_text(result), clean_json(args)
        if thread_id is not None:
            thread_id = validate.identifier(thread_id, "thread id")
        if len(result) > MAX_SNAPSHOT_CHARS:
            raise UsageError(f"result is {len(result):,} characters; the limit is "
                             f"{MAX_SNAPSHOT_CHARS:,}: store a summary or a reference")
        tokens = self.tokenizer.count([result])[0]
        snap, new = self.store.save_snapshot(self.ns, clean_text(tool.strip()), args, result,
                                             tokens, thread_id)
        if new and self.embedder is not None:
            text = snapshot_text(snap.tool, snap.args, snap.result)
            try:
                vec = self.embedder.embed([text])
                self.store.put_vectors(self.ns, [(snap.id, vec[0])], self.embedder.name,
                                       target="snapshots")
            except MemlaneError:
                pass  # found lexically until `reindex()`
        return snap, new

    def recall(self, query: str, k: int = 3) -> list[SnapshotHit]:
        """Past tool results of this namespace that match `query`."""
        from .search.hybrid import search_snapshots

        return search_snapshots(self.store, self.ns, clean_text(query), k,
                                embedder=self.embedder)

    def reindex(self, batch: int = 256,
                progress: Callable[[int, int | None], None] | None = None) -> int:
        """Embed the records and snapshots that have no vector from the current embedder (after
        switching embedders, or after an embedding failure). Returns how many were embedded.
        `progress(done, None)`: called after each batch (the total is not counted first)."""
        if self.embedder is None:
            return 0
        done = 0
        for target in ("records", "snapshots"):
            while True:
                todo = self.store.missing_vectors(self.ns, self.embedder.name, target, batch)
                if not todo:
                    break
                vecs = self.embedder.embed([t for _, t in todo])
                n = self.store.put_vectors(self.ns, [(i, v) for (i, _), v in zip(todo, vecs,
                                                                                 strict=True)],
                                           self.embedder.name, target=target)
                done += n
                if progress is not None:
                    progress(done, None)
                if n < len(todo):
                    break
        return done

    def _embed_records(self, ids: Sequence[int]) -> str | None:
        """Embed records by id (after their transaction). Returns a warning on failure."""
        if self.embedder is None or not ids:
            return None
        recs = self.store.records(self.ns, list(dict.fromkeys(ids)))
        if not recs:
            return None
        try:
            vecs = self.embedder.embed([r.text for r in recs])
            self.store.put_vectors(self.ns, [(r.id, v) for r, v in zip(recs, vecs, strict=True)],
                                   self.embedder.name)
        except MemlaneError as e:
            return f"embedding failed ({e}); records are searchable lexically until reindex()"
        return None

