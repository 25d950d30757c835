"""Exact pre-checks: the literal strings every match of a pattern must contain, read from the
pattern itself, so a search that cannot match is skipped (never guessed).

Here for speed only: it stands in for searching every pattern in every view of every text.
Tested against that: tests/test_safety_fast.py (the reading of each pattern, and the scan with
and without the pre-checks on the corpora), benchmarks/scan_trees.py (the whole scan against
another tree, verdict for verdict). Deleting it (and gates.py) leaves the verdicts as they are
and costs the scan, run on every text a turn shows for the first time, about 1.7x its CPU (the
602 texts of tests/data's injection and benign corpora, every pre-check passed against none)."""

from __future__ import annotations

import codecs
import importlib
import re
from collections.abc import Iterable
from typing import Any

# --- exact pre-checks ----------------------------------------------------------------------------
# Most texts hold none of the words a pattern needs, and `str.__contains__` is much cheaper than a
# regex search. `_needs(rx)` reads, from the parsed pattern, literal strings a match must contain:
# groups of strings, every match of `rx` containing one string of each group. `_may(view, needs)`
# is False only when some group has no string in `view`, so `rx` cannot match `view` and skipping
# its search changes nothing. The reading is sound by construction (a literal character matches
# itself only; a sequence's match is its items' matches end to end, so its items' strings joined
# in order are in it; an alternation needs one of its branches'; an optional item or anything
# else the reading does not know, such as `[^.!?]`, `\s` or `\w`, needs nothing; a lookaround
# consumes nothing) and errs only towards needing less. A pattern with IGNORECASE needs nothing,
# and so does every pattern when the parser (a private module of `re`) is missing: no pre-check.

_Needs = tuple[tuple[str, ...], ...]
_NEED_LIMIT = 64  # strings a group may hold while items are joined (more: the group is cut)
try:  # the parser behind `re.compile`: `re._parser` from Python 3.11, `sre_parse` before
    _PARSER: Any = importlib.import_module("re._parser")
    _CODES: Any = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - Python 3.10
    try:
        _PARSER = importlib.import_module("sre_parse")
        _CODES = importlib.import_module("sre_constants")
    except ImportError:
        _PARSER = _CODES = None


def _best(exact: set[str] | None, needs: list[frozenset[str]]) -> frozenset[str] | None:
    """The one group of an item's that narrows most (its longest shortest string)."""
    groups = list(needs)
    if exact is not None and "" not in exact:
        groups.append(frozenset(exact))
    return max(groups, key=lambda g: (min(map(len, g)), -len(g))) if groups else None


def _item_needs(op: Any, av: Any) -> tuple[set[str] | None, list[frozenset[str]]]:
    """(every string the item matches when that is a small known set, else None; its groups)."""
    c = _CODES
    if op is c.LITERAL:
        return {chr(av)}, []
    if op is c.AT or op is c.ASSERT or op is c.ASSERT_NOT:
        return {""}, []  # zero width
    if op is c.IN:
        chars: set[str] = set()
        for iop, iav in av:
            if iop is c.LITERAL:
                chars.add(chr(iav))
            elif iop is c.RANGE and iav[1] - iav[0] < 16:
                chars.update(chr(x) for x in range(iav[0], iav[1] + 1))
            else:  # a negated class, a category (\s, \w, \d), a wide range
                return None, []
        return chars, []
    if op is c.SUBPATTERN:
        if av[1] & (c.SRE_FLAG_IGNORECASE | c.SRE_FLAG_LOCALE):
            return None, []
        return _seq_needs(av[3])
    if op is c.BRANCH:
        branches = [_seq_needs(p) for p in av[1]]
        exact: set[str] | None = None
        if all(e is not None for e, _ in branches):
            exact = set().union(*(e for e, _ in branches if e is not None))
            if len(exact) > _NEED_LIMIT:
                exact = None
        best = [_best(e, n) for e, n in branches]
        return exact, ([frozenset().union(*best)]  # type: ignore[arg-type]
                       if all(b is not None for b in best) else [])
    if op is c.MAX_REPEAT or op is c.MIN_REPEAT:
        low, high, p = av
        e, n = _seq_needs(p)
        if low == 0:  # may match nothing
            return (e | {""} if high == 1 and e is not None else None), []
        b = _best(e, n)  # at least once
        return (e if low == high == 1 else None), ([b] if b is not None else [])
    return None, []  # anything else (back-references, atomic groups, ...): needs nothing


def _seq_needs(items: Any) -> tuple[set[str] | None, list[frozenset[str]]]:
    joined: set[str] = {""}  # every string the items since the last cut match, end to end
    needs: list[frozenset[str]] = []
    whole = True
    for op, av in items:
        e, n = _item_needs(op, av)
        needs += n
        if e is not None and len(joined) * len(e) <= _NEED_LIMIT:
            joined = {a + b for a in joined for b in e}
            continue
        if "" not in joined:
            needs.append(frozenset(joined))
        whole = False
        joined = e if e is not None else {""}
    if whole:
        return joined, needs
    if "" not in joined:
        needs.append(frozenset(joined))
    return None, needs


def _needs(rx: re.Pattern[str]) -> _Needs:
    """Groups of strings, each group with one string in any text `rx` matches (see above); the
    narrowest groups first. Empty: no pre-check."""
    if _PARSER is None or rx.flags & (re.IGNORECASE | re.LOCALE):
        return ()
    try:
        exact, needs = _seq_needs(_PARSER.parse(rx.pattern, rx.flags))
    except Exception:  # pragma: no cover - a parser that changed shape: no pre-check
        return ()
    if exact is not None and "" not in exact:
        needs.append(frozenset(exact))
    out = [_pruned(group) for group in needs]
    return tuple(dict.fromkeys(sorted(out, key=lambda g: (-min(map(len, g)), len(g)))))


def _pruned(group: Iterable[str]) -> tuple[str, ...]:
    """`group` without the strings that hold another of its strings (where one is, the shorter
    one is too: it adds nothing), sorted."""
    kept: set[str] = set()
    for s in sorted(set(group), key=len):
        if not any(map(s.__contains__, kept)):
            kept.add(s)
    return tuple(sorted(kept))


def _may(view: str, needs: _Needs) -> bool:
    """False when `view` lacks every string of one of `needs`' groups: no match possible."""
    for group in needs:
        if not any(map(view.__contains__, group)):
            return False
    return True


def _trie(strings: Iterable[str]) -> str:
    """A regex for the alternation of `strings` as a trie of characters (at most one branch
    fits the next character, so a failed branch costs one comparison) that matches, where
    several fit, the longest (an optional tail is greedy)."""
    root: dict[str, Any] = {}
    for s in strings:
        node = root
        for ch in s:
            node = node.setdefault(ch, {})
        node[""] = {}  # a string ends here

    def build(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body
    return build(root)


class _Literals:
    """Which of many groups of strings have a string in a text, in one regex pass.

    The pass finds, at every position of the text (a lookahead: matches may overlap), the
    longest string of any group that starts there; every string that starts there is a prefix of
    that one, so the groups satisfied at that position are those of the found string's prefixes
    (`_closure`). A group has a string in the text iff one of its strings starts at some
    position: `present` is exact."""

    def __init__(self, groups: list[tuple[str, ...]]) -> None:
        owners: dict[str, set[int]] = {}
        for gid, group in enumerate(groups):
            for s in group:
                owners.setdefault(s, set()).add(gid)
        self._rx = re.compile(f"(?=({_trie(owners)}))")
        self._closure = {s: frozenset().union(*(owners.get(s[:k], ())
                                                 for k in range(1, len(s) + 1)))
                         for s in owners}

    def present(self, view: str) -> frozenset[int]:
        """The ids of the groups one of whose strings is in `view`."""
        found = set(self._rx.findall(view))
        found.discard("")
        return frozenset().union(*map(self._closure.__getitem__, found))


_CUT = 12  # strings are cut to their first 12 characters: a substring of a needed string is
# needed too, and a smaller trie is quicker to build and to run


def _gate(groups: list[tuple[str, ...]], rx: re.Pattern[str],
          rot13: bool = False) -> frozenset[int] | None:
    """The ids (in `groups`, where they are added) of up to two of `_needs(rx)`'s narrowest
    groups, for the literal pass; `rot13`: the groups of a pattern run on the ROT13 of the text,
    read on the text itself (ROT13 maps character to character: `s in rot13(t)` iff
    `rot13(s) in t`). None: no pre-check (a view passes when every id is present)."""
    ids = []
    for group in _needs(rx)[:2]:
        cut = _pruned(s[:_CUT] for s in group)
        groups.append(tuple(codecs.encode(s, "rot13") for s in cut) if rot13 else cut)
        ids.append(len(groups) - 1)
    return frozenset(ids) if ids else None
