"""A memory tool's result cut to a token budget (`MemoryTools.max_tokens`): long texts shortened,
then trailing items dropped, and a `note` saying so, so the model can narrow its request."""

from __future__ import annotations

import json
from typing import Any

from ..context.tokens import Tokenizer


def bound(out: dict[str, Any], max_tokens: int, tk: Tokenizer) -> dict[str, Any]:
    """Cut `out` to `max_tokens`: shorten long strings, then drop trailing items."""

    def tokens(obj: Any) -> int:
        return tk.count([json.dumps(obj, ensure_ascii=False)])[0]

    if tokens(out) <= max_tokens:
        return out
    key = next((k for k in ("results", "records") if isinstance(out.get(k), list)), None)
    budget = max(max_tokens - 60, 1)  # room for the note
    items: list[Any] = out.get(key, []) if key else []
    total = len(items)
    frame = tokens({**out, key: []}) if key else 0
    share = max((budget - frame) // max(total, 1), 40)

    def cut(v: Any, n: int) -> Any:
        if isinstance(v, str):
            return v if tk.count([v])[0] <= n else tk.head(v, n) + " [...cut]"
        if isinstance(v, list):
            return [cut(x, max(n // max(len(v), 1), 20)) for x in v]
        if isinstance(v, dict):
            # The short fields kept whole, the rest of `n` shared by the long ones: each
            # long one cut to `n` alone overran it, and the whole item was dropped (a
            # quarantined recall result, datamarked, came back as nothing).
            fair = n // max(len(v), 1)
            long = [k for k, x in v.items() if tokens(x) > fair]
            frame = tokens({k: "" if k in long else x for k, x in v.items()})
            each = max((n - frame) // max(len(long), 1) - 8, 20)  # 8: " [...cut]"
            return {k: cut(x, each) if k in long else x for k, x in v.items()}
        return v

    if key:
        out[key] = items = [cut(x, share) for x in items]
        while items and tokens(out) > budget:
            items.pop()
    else:
        for k, v in list(out.items()):
            out[k] = cut(v, budget // max(len(out), 1))
    shown = len(items)
    out["note"] = (f"result cut to fit {max_tokens} tokens: long texts shortened"
                   + (f", {total - shown} of {total} items not shown" if shown < total else "")
                   + "; ask for fewer results or open ids one at a time")
    return out
