"""The supersede rule's verdicts for a message, as the supersede tests read them: each clause of
`new` (the sentence its context when it is one clause of several) decided against the clauses of
the held facts. Shared by test_supersede_everyday, test_supersede_generality,
test_supersede_mechanisms, test_supersede_ended and test_supersede_anchored."""

from __future__ import annotations

from dataclasses import replace

from memlane.step.clauses import clauses
from memlane.step.sentences import split_sentences
from memlane.step.supersede import SAME, SUPERSEDES, decide, read_claim


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


def message_verdicts(new: str, held: list[str]) -> list[tuple[str, str | None]]:
    """(verdict, the held clause it is about or None) for each clause of each sentence of the
    message `new`, as the heuristic writer files them: a supersede replaces the held clause,
    anything else but a repeat is added, and later clauses are decided against both."""
    facts = [c for h in held for c in clauses(h)]
    claims = [read_claim(f) for f in facts]
    out = []
    for sentence in split_sentences(new):
        for clause in clauses(sentence):
            said = read_claim(clause)
            if clause.strip() != sentence.strip():
                said = replace(said, context=sentence)
            d = decide(said, claims)
            out.append((d.verdict, facts[d.target] if d.target is not None else None))
            if d.verdict == SUPERSEDES and d.target is not None:
                facts[d.target], claims[d.target] = clause, read_claim(clause)
            elif d.verdict != SAME:
                facts.append(clause)
                claims.append(read_claim(clause))
    return out
