"""Tallies, the terminal table, the JSON shape, the plot, and the progress bar.

The JSON for one budget is `{"policies": {NAME: {"reach", "in_view", "via_notes", "via_summary",
"via_pointer", "via_search", "tokens_per_question", "model_calls_per_turn", ...}}}`; for a grid it
is `{"budgets": [{"budget": N, "policies": {...}}, ...]}`. Fractions are of the questions counted
(those with usable evidence); the `via_*` classes and `in_view` are exclusive and add up to
`reach`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import MissingExtra
from ..progress import Progress
from .reader import CLASSES, Reading

__all__ = ["Progress", "Tally", "format_table", "plot_reach"]


@dataclass
class Tally:
    """Counts for one policy at one budget."""

    model_calls_per_turn: float = 0.0
    n: int = 0
    classes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    context_tokens: int = 0
    opened_tokens: int = 0
    by_group: dict[str, list[int]] = field(default_factory=dict)
    """group name -> [reached, n] (LoCoMo category, needle depth)."""
    listed: int = 0
    """Questions whose evidence a visible buffer line pointed at (opened or not)."""
    answered: int = 0
    """Questions a model answered (model mode only)."""
    f1: float = 0.0
    """Sum of token F1 over the answered questions."""
    judged: int = 0
    correct: int = 0
    answer_calls: int = 0
    """Model calls spent answering (1 + one per tool round, per question)."""
    temporal: list[int] = field(default_factory=lambda: [0, 0, 0])
    """Questions about when: [reached, reached with the evidence's date in view, n]."""

    def add_answer(self, f1: float, calls: int, verdict: bool | None = None) -> None:
        self.answered += 1
        self.f1 += f1
        self.answer_calls += calls
        if verdict is not None:
            self.judged += 1
            self.correct += verdict

    def add(self, cls: str | None, reading: Reading, group: str | None = None,
            listed: bool = False, dated: bool | None = None) -> None:
        """`dated`: for a question about when, whether the reach was strict (`reader.dated`);
        None for other questions."""
        self.n += 1
        if dated is not None:
            self.temporal[0] += cls is not None
            self.temporal[1] += dated
            self.temporal[2] += 1
        self.listed += listed
        if cls is not None:
            self.classes[cls] += 1
        self.context_tokens += reading.context_tokens
        self.opened_tokens += reading.opened_tokens
        if group is not None:
            g = self.by_group.setdefault(group, [0, 0])
            g[0] += cls is not None
            g[1] += 1

    def to_dict(self, group_key: str = "by_group") -> dict[str, Any]:
        n = self.n or 1
        out: dict[str, Any] = {"reach": round(sum(self.classes.values()) / n, 4)}
        out.update({c: round(v / n, 4) for c, v in self.classes.items()})
        out["tokens_per_question"] = round((self.context_tokens + self.opened_tokens) / n, 1)
        out["context_tokens"] = round(self.context_tokens / n, 1)
        out["opened_tokens"] = round(self.opened_tokens / n, 1)
        out["model_calls_per_turn"] = round(self.model_calls_per_turn, 4)
        out["evidence_listed"] = round(self.listed / n, 4)
        out["questions"] = self.n
        if self.answered:
            out["f1"] = round(self.f1 / self.answered, 4)
            out["answer_calls_per_question"] = round(self.answer_calls / self.answered, 3)
        if self.judged:
            out["judge"] = round(self.correct / self.judged, 4)
        if self.temporal[2]:
            t = self.temporal
            out["temporal_lenient"] = round(t[0] / t[2], 4)
            out["temporal_strict"] = round(t[1] / t[2], 4)
        if self.by_group:
            out[group_key] = {g: round(r / max(t, 1), 4) for g, (r, t) in self.by_group.items()}
        return out


_COLUMNS = (
    ("reach", "reach", "{:>6.1%}"),
    ("in_view", "in view", "{:>7.1%}"),
    ("via_notes", "notes", "{:>6.1%}"),
    ("via_summary", "summ.", "{:>6.1%}"),
    ("via_pointer", "pointer", "{:>7.1%}"),
    ("via_search", "search", "{:>6.1%}"),
    ("tokens_per_question", "tok/q", "{:>7.0f}"),
    ("context_tokens", "ctx tok", "{:>7.0f}"),
    ("model_calls_per_turn", "calls/turn", "{:>10.3f}"),
)
_ANSWER_COLUMNS = (
    ("temporal_lenient", "when", "{:>6.1%}"),
    ("temporal_strict", "when+date", "{:>9.1%}"),
    ("f1", "F1", "{:>6.3f}"),
    ("judge", "judge", "{:>6.1%}"),
)


def format_table(policies: Mapping[str, Mapping[str, Any]], title: str = "") -> str:
    """A fixed-width table, one row per policy."""
    width = max([len(n) for n in policies] + [6])
    rows = list(policies.values())
    columns = list(_COLUMNS) + [c for c in _ANSWER_COLUMNS
                                if any(c[0] in row for row in rows)]
    head = f"{'policy':<{width}}  " + "  ".join(
        f"{label:>{len(fmt.format(0.0))}}" for _, label, fmt in columns
    )
    lines = [title] if title else []
    lines += [head, "-" * len(head)]
    for name, row in policies.items():
        cells = "  ".join(fmt.format(row.get(key, 0.0)) for key, _, fmt in columns)
        lines.append(f"{name:<{width}}  {cells}")
    return "\n".join(lines)


def plot_reach(grid: Iterable[Mapping[str, Any]], path: str, title: str) -> None:
    """Reach against budget, one line per policy, to a PNG at `path`."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise MissingExtra("--plot", "plot", "matplotlib") from e
    rows = sorted(grid, key=lambda r: r["budget"])
    budgets = [r["budget"] for r in rows]
    names = list(rows[0]["policies"]) if rows else []
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    markers = "osD^vP*X"
    for i, name in enumerate(names):
        ys = [100 * r["policies"][name]["reach"] for r in rows]
        # Distinct markers and dashes: several policies can sit on the same points.
        ax.plot(budgets, ys, marker=markers[i % len(markers)], label=name,
                linestyle="-" if i % 2 == 0 else "--",
                linewidth=2.6 if name == "memlane" else 1.4, markersize=6, alpha=0.9)
    ax.set_xlabel("token budget")
    ax.set_ylabel("questions reached (%)")
    ax.set_xticks(budgets)
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=9)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
