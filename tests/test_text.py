"""The one vocabulary (`memlane.text`): how a fact's text becomes its terms."""

from __future__ import annotations

from memlane import text
from memlane.text import FACT_WORD, fact_terms


def test_fact_terms_are_content_words_lower_cased_and_stemmed() -> None:
    assert fact_terms("I'm painting the dogs' kennels on Sunday") == {
        "paint", "dog", "kennel", "sunday"}
    assert fact_terms("Anna\u2019s dog") == {"anna", "dog"}  # a typographic possessive goes
    assert fact_terms("nine o\u2019clock") == {"nine", "o'clock"}
    assert fact_terms("The code is 2024-05-01, at 9:30.") == {"code", "2024-05-01", "9:30"}
    assert fact_terms("yeah thanks, really") == frozenset()
    assert fact_terms("'''-.") == frozenset()


def test_fact_terms_keeps_nothing_between_calls() -> None:
    """No module-level memo: after a call, no container of the module holds the words."""
    word = "Zqvorblax"
    for pattern in (FACT_WORD, text.SEARCH_TOKEN, text.CODE_WORD, text.ALNUM_WORD):
        assert word.lower() in pattern.findall(f"my word is {word.lower()}.")  # one token
    assert fact_terms(f"My word is {word}") == {"word", word.lower()}
    held = [name for name, value in vars(text).items()
            if isinstance(value, (dict, list, set)) and
            any(word.lower() in str(x).lower() for x in value)]
    assert held == []
