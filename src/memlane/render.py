"""People's view of an assembled context (the CLI's `context`, the demo and chat's `/context`)."""

from __future__ import annotations

from .types import Context


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


# Shown whole by default: the layers that hold facts and record ids (the answer is often in them).
# The system prompt and the turns are clipped to `width` unless `full`.
WHOLE_LAYERS = ("core", "notes", "buffer")


# What `Trace.dropped` names, said for people ("3 turns (over the budget)", not "turn/budget x3").
_NOUNS: dict[str, tuple[str, str | None]] = {
    "turn": ("turn", None), "line": ("buffer line", None), "record": ("record", None),
    "block": ("buffer block", None),
    "truncated": ("message cut to head + tail", "messages cut to head + tail"),
}
_REASONS = {"budget": "over the budget", "core_budget": "over the core layer's share",
            "oversize": "over the size cap", "low_relevance": "below the relevance floor"}


def render_context(ctx: Context, width: int = 100, *, full: bool = False) -> str:
    """People's view of a context: each layer with its tokens, then the messages (`full`: every
    message whole, not only the notes, core and buffer)."""
    tr = ctx.trace
    lines = [f"context: {tr.tokens_total} of {tr.budget} tokens"]
    scale = max(tr.tokens_by_layer.values() or [1])
    for layer, n in tr.tokens_by_layer.items():
        bar = "#" * max(1, round(30 * n / scale))
        lines.append(f"  {layer:<11} {n:>6}  {bar}")
    if tr.gap:
        lines.append(f"  buffer gap: {_plural(tr.gap, 'stretch', 'stretches')} not listed")
    if tr.withheld:
        lines.append(f"  withheld by the injection scan: {tr.withheld}")
    dropped: dict[tuple[str, str], int] = {}
    for d in tr.dropped:
        dropped[d.what, d.reason] = dropped.get((d.what, d.reason), 0) + 1
    if dropped:
        lines.append("  dropped: " + "; ".join(
            f"{_plural(n, *_NOUNS.get(what, (what, None)))} ({_REASONS.get(why, why)})"
            for (what, why), n in sorted(dropped.items())))
    lines.append("")
    for m in ctx.messages:
        body = m.content if full or m.layer in WHOLE_LAYERS else clip(m.content, width)
        lines.append(f"[{m.layer} · {m.role}] {body}")
    return "\n".join(lines)


def clip(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"
