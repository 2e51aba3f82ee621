"""What a search word means, once, for every search: the catalog, the catalog's task search and the task list
of an environment page.

A search is split into words: runs of letters and digits, lowercased, accents removed ("Café-2" -> "cafe",
"2"); everything else separates words and means nothing, so no query syntax exists. A text matches when each
search word begins one of the text's words ("gra" matches "grading"); a single letter or digit must be a whole
word ("c" matches "C++", not "csv"), since as a prefix it would match almost everything.

The task index (SQLite FTS5, unicode61 tokenizer with diacritics removed, prefix queries) splits text the same
way; the catalog keeps each environment's text as `blob(...)` so a plain `instr` checks the same rule.
"""

from __future__ import annotations

import re
import unicodedata

MAX_WORDS = 16
MAX_WORD_CHARS = 100
_WORD = re.compile(r"[^\W_]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# The same rule for plain ASCII, where a word character is a letter or a digit: every other character becomes a
# space and str.split cuts there, three times faster than the regex (a build cuts every environment's text).
_ASCII_SEPARATORS = str.maketrans({code: chr(code) if chr(code).isalnum() else " " for code in range(128)})


class WordsError(ValueError):
    """A search too long to answer; the message is one sentence for the visitor."""


def words_of(text: str) -> list[str]:
    """The words of any text, as searches see them."""
    folded = str(text or "").lower()
    if not folded.isascii():  # plain ASCII has nothing to decompose or strip (most texts: the fast path)
        folded = unicodedata.normalize("NFKD", folded)
        if not folded.isascii():
            folded = _NON_ASCII.sub(_without_marks, folded)
            if not folded.isascii():  # letters beyond ASCII's (a Greek or CJK word)
                return _WORD.findall(folded)
    return folded.translate(_ASCII_SEPARATORS).split()


def _without_marks(match: re.Match) -> str:
    """Accents left apart by NFKD go, so "naïve" stays one word."""
    return "" if unicodedata.combining(match.group()) else match.group()


def search_words(q: str, strict: bool = True) -> list[str]:
    """The words of a search. Strict: more than MAX_WORDS words, or a longer word, is a WordsError; otherwise
    (a page's own filter box) the extra words are dropped and long words cut."""
    words = words_of(q)
    if strict and len(words) > MAX_WORDS:
        raise WordsError(f"a search may have at most {MAX_WORDS} words.")
    if strict and any(len(word) > MAX_WORD_CHARS for word in words):
        raise WordsError(f"a search word may have at most {MAX_WORD_CHARS} characters.")
    return [word[:MAX_WORD_CHARS] for word in words[:MAX_WORDS]]


def blob(*texts: str) -> str:
    """Texts as one searchable string: their words between single spaces, with a space at each end."""
    return " " + " ".join(words_of(" ".join(str(text or "") for text in texts))) + " "


def needle(word: str) -> str:
    """What `word` must be found as inside a blob: the start of a word, or a whole word for one character."""
    return f" {word} " if len(word) == 1 else f" {word}"


def matches(words: list[str], text_blob: str) -> bool:
    return all(needle(word) in text_blob for word in words)
