"""The supersede rule's verdicts for a message, as the supersede tests read them: each clause of
`new` (the sentence its context when it is one clause of several) decided against the clauses of
the held facts. Shared by test_supersede_everyday, test_supersede_generality and
test_supersede_mechanisms."""

from __future__ import annotations

from dataclasses import replace

from memlane.step.clauses import clauses
from memlane.step.supersede import decide, read_claim


def verdicts(new: str, held: list[str]) -> list[tuple[str, str | None]]:
    """(verdict, the held clause it is about or None) for each clause of `new`."""
    facts = [c for h in held for c in clauses(h)]
    out = []
    for clause in clauses(new):
        said = read_claim(clause)
        if clause.strip() != new.strip():
            said = replace(said, context=new)
        d = decide(said, facts)
        out.append((d.verdict, facts[d.target] if d.target is not None else None))
    return out
