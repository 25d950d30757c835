"""The line index carried on from the one before (a memory step filed more stretches, the oldest
left the newest `INDEXED_LINES`) is the index built afresh: the same lines, terms and matches."""

from __future__ import annotations


def _terms(line: str) -> frozenset[str]:
    return frozenset(w for w in line.lower().split() if len(w) > 2)


def _normal(index: tuple) -> tuple:  # positions counted from the first line kept
    lines, bags, where, offset = index
    return lines, bags, {t: [p - offset for p in ps] for t, ps in where.items()}




def test_line_terms_answers_from_the_index_and_else_splits() -> None:
    from memlane.context.line_index import build_index, line_terms
    from memlane.text import fact_terms

    calls: list[str] = []

    def counting(text: str) -> frozenset[str]:
        calls.append(text)
        return fact_terms(text)

    index = build_index([(5, "first stretch"), (9, "talked about the gym"),
                         (14, "planned the trip")], counting)
    made = len(calls)
    terms = line_terms(index, counting)
    assert terms("talked about the gym") == fact_terms("talked about the gym")
    assert terms("planned the trip") == fact_terms("planned the trip")
    assert len(calls) == made  # the index's own terms, not split again
    assert terms("first stretch") == fact_terms("first stretch")  # not indexed: split
    assert len(calls) == made + 1
