"""People's view of an assembled context (the CLI's `context`, the demo and chat's `/context`)."""

from __future__ import annotations

from .types import Context


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


# Shown whole by default: the layers that hold facts and record ids (the answer is often in them).
# The system prompt and the turns are clipped to `width` unless `full`.
WHOLE_LAYERS = ("core", "notes", "buffer")


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
    reasons: dict[str, int] = {}
    for d in tr.dropped:
        reasons[f"{d.what}/{d.reason}"] = reasons.get(f"{d.what}/{d.reason}", 0) + 1
    if reasons:
        lines.append("  dropped: " + ", ".join(f"{k} x{v}" for k, v in sorted(reasons.items())))
    lines.append("")
    for m in ctx.messages:
        body = m.content if full or m.layer in WHOLE_LAYERS else clip(m.content, width)
        lines.append(f"[{m.layer} · {m.role}] {body}")
    return "\n".join(lines)


def clip(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"
