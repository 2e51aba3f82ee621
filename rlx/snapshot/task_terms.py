"""The words of the task word index, listed (task_terms), so a task search can turn a typed prefix into the whole
words it begins.

FTS5 answers a prefix from its own prefix index only at three characters (schema.TASK_WORDS). A longer prefix,
'"agent"*', walks the term list and merges every matching word's entries before the first row comes out: at ten
times today's catalog (514,980 tasks) 45 ms for a page and 75 ms for its count. The same tasks, asked for as
'("agent" OR "agents" OR "agentic")', come out one by one as they are read: 0.05 ms for the page, 3 ms to count
20,000. This table holds the words so they are found by a range of its key, not by scanning the index's terms.

A build from nothing lists every word of tasks_fts (write_all, an fts5vocab scan: 0.11 s at 1x, 1.7 s at 10x). An
hourly build keeps the table (rlx/snapshot/task_keys.py) and reads only the tasks it changes: the words of the
tasks it adds go in, and those of the tasks it removes go out once no task is left with them (update_words), so
the words of a dataset that left the catalog leave the file with it.
"""

from __future__ import annotations

import sqlite3

from rlx.snapshot.schema import TASK_TOKENIZER

# More words than this to a prefix and the search asks FTS5 for the prefix itself: each OR-ed word is one more
# cursor over the index for every match, and so many words mean the prefix is short for its catalog anyway.
MAX_TERMS = 64
# Prefixes of fewer letters are FTS5's own (three letters: its prefix index) or too broad to spell out.
MIN_PREFIX = 4


def write_all(db: sqlite3.Connection) -> None:
    """Every word of tasks_fts into task_terms (inside a transaction, after the word index is complete)."""
    db.execute("CREATE VIRTUAL TABLE temp.every_task_term USING fts5vocab(main, tasks_fts, row)")
    db.execute("INSERT INTO task_terms (term) SELECT term FROM temp.every_task_term")
    db.execute("DROP TABLE temp.every_task_term")


def words_of_rows(db: sqlite3.Connection, select: str, params: tuple = ()) -> set[str]:
    """The words of the (title, brief, words) rows `select` reads, cut exactly as tasks_fts cuts them: the rows go
    into a word index of their own for as long as it takes to list its words."""
    db.execute(f"CREATE VIRTUAL TABLE temp.some_tasks USING fts5(title, brief, words, content='', {TASK_TOKENIZER}, "
               "detail=none)")
    try:
        db.execute(f"INSERT INTO temp.some_tasks (title, brief, words) {select}", params)
        db.execute("CREATE VIRTUAL TABLE temp.some_task_terms USING fts5vocab(temp, some_tasks, row)")
        try:
            return {row[0] for row in db.execute("SELECT term FROM temp.some_task_terms")}
        finally:
            db.execute("DROP TABLE temp.some_task_terms")
    finally:
        db.execute("DROP TABLE temp.some_tasks")


def update_words(db: sqlite3.Connection, added: set[str], removed: set[str]) -> None:
    """After an hourly build's tasks are in and out of tasks_fts: `added`, the words of the tasks it inserted, are
    listed; each of `removed` (the words of the tasks it deleted) that no task has any more is not."""
    db.executemany("INSERT OR IGNORE INTO task_terms (term) VALUES (?)", ((term,) for term in sorted(added)))
    gone = [term for term in sorted(removed - added) if not _indexed(db, term)]
    db.executemany("DELETE FROM task_terms WHERE term = ?", ((term,) for term in gone))


def _indexed(db: sqlite3.Connection, term: str) -> bool:
    quoted = '"' + term.replace('"', '""') + '"'
    return db.execute("SELECT 1 FROM tasks_fts WHERE tasks_fts MATCH ? LIMIT 1", (quoted,)).fetchone() is not None


def words_beginning(db: sqlite3.Connection, prefix: str) -> list[str] | None:
    """The indexed words that begin with `prefix` (MIN_PREFIX or more ASCII letters and digits, lowercased), in
    order; None when there are more than MAX_TERMS, or `prefix` is not such a prefix."""
    if len(prefix) < MIN_PREFIX or not (prefix.isascii() and prefix.isalnum()):
        return None
    # Every string that begins with an ASCII prefix sorts from the prefix up to, not including, the prefix with its
    # last character raised by one: a range of the table's key.
    after = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    rows = db.execute("SELECT term FROM task_terms WHERE term >= ? AND term < ? ORDER BY term LIMIT ?",
                      (prefix, after, MAX_TERMS + 1)).fetchall()
    return [row[0] for row in rows] if len(rows) <= MAX_TERMS else None
