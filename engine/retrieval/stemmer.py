"""Words as the index's tokenizer reads them, from a private in-memory database.

The FTS5 tokenizer the index uses (porter over unicode61, engine/schema.py) is the one exact
definition of a stem, so a scratch FTS5 table gives it. It lives on its own connection: a
search connection that wrote to a temp table would count the write in ``total_changes`` and
drop its cached document frequencies (engine/retrieval/keyword_arm.py) after every chat query. Results
are cached for the process; the lock serialises the threads that search in parallel.
"""

from __future__ import annotations

import threading

import sqlean as sqlite3

from engine.schema_migrations import TOKENIZER

_CACHE_MAX = 200_000

_lock = threading.Lock()
_conn: sqlite3.Connection | None = None
_tokens: dict[str, tuple[str, ...]] = {}  # word -> its tokens (() when it holds none)


def _scratch() -> sqlite3.Connection:
    global _conn
    if _conn is None:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.execute(f"CREATE VIRTUAL TABLE words USING fts5(w, tokenize='{TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE tokens USING fts5vocab(words, 'instance')")
        _conn = conn
    return _conn


def tokens(words: set[str] | list[str]) -> dict[str, tuple[str, ...]]:
    """Each word -> the tokens the index's tokenizer makes of it, in order."""
    with _lock:
        new = sorted({w for w in words if w not in _tokens})
        if new:
            if len(_tokens) + len(new) > _CACHE_MAX:
                _tokens.clear()
            conn = _scratch()
            with conn:  # one transaction: row-by-row autocommit into FTS5 costs ~0.2 ms a row
                conn.execute("DELETE FROM words")
                conn.executemany("INSERT INTO words(rowid, w) VALUES (?, ?)",
                                 list(enumerate(new)))
                found: dict[int, list[tuple[int, str]]] = {}
                for doc, offset, term in conn.execute("SELECT doc, offset, term FROM tokens"):
                    found.setdefault(doc, []).append((offset, term))
            for i, word in enumerate(new):
                _tokens[word] = tuple(t for _, t in sorted(found.get(i, [])))
        return {w: _tokens[w] for w in words}


def stem(words: set[str] | list[str]) -> dict[str, str]:
    """Each word that is one token -> its stem (a word the tokenizer splits, or drops, is
    left out: FTS5 reads a split word as a phrase)."""
    return {w: t[0] for w, t in tokens(words).items() if len(t) == 1}
