"""How a text is cut into search words (rlx/catalog/words.py): the environment search's stored words, the task
search's and the words a visitor types must all be cut by one rule, whichever path the text takes through it."""

from __future__ import annotations

import random
import re
import unicodedata

import pytest

from rlx.catalog.words import blob, words_of


@pytest.mark.parametrize(("text", "expected"), [
    ("Café-2", ["cafe", "2"]),
    ("naïve SQL_agent", ["naive", "sql", "agent"]),
    ("C++ / Rust\tand\x1cGo", ["c", "rust", "and", "go"]),
    ("terminal-bench@2.0", ["terminal", "bench", "2", "0"]),
    ("ＡＢＣ x²", ["abc", "x2"]),  # fullwidth letters and a superscript decompose to ASCII
    ("\u212a-means", ["k", "means"]),  # the Kelvin sign lowercases to an ASCII k
    ("Ελληνικά και 日本語", ["ελληνικα", "και", "日本語"]),
    ("", []),
    (None, []),
])
def test_a_text_is_cut_into_lowercase_words_without_accents_or_separators(text, expected):
    assert words_of(text) == expected


def _reference(text: str) -> list[str]:
    """The rule as the module's docstring states it, one character at a time and with nothing fast."""
    decomposed = unicodedata.normalize("NFKD", str(text).lower())
    kept = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.findall(r"[^\W_]+", kept)


def test_every_path_through_the_cutting_gives_the_rule_s_words():
    draw = random.Random(31)
    alphabet = ("abcXYZ019 _-.,;:!?'\"\t\n\x0b\x1c\x1f/()[]+*@#$%^&|~`"
                "éÉüÖñçÅøßæœ\u0301\u0308ＡＢｃ²½ﬁ\u212aİıΣσςΩдЖ日本語한국어\u00a0\u2003\u200b")
    for _ in range(3000):
        text = "".join(draw.choice(alphabet) for _ in range(draw.randint(0, 40)))
        assert words_of(text) == _reference(text), repr(text)


def test_a_blob_is_its_words_between_single_spaces():
    assert blob("Grading  Café", None, "org/Name_2") == " grading cafe org name 2 "
