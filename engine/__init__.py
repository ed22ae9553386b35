"""memlens engine: hybrid BM25 + vector search over a personal data layer in one SQLite file.

Public surface: ``reindex()`` writes, ``search()`` reads, and :class:`Library` is the one read
facade front doors use (docs/architecture.md). This package never imports a UI library
(textual, rich); a test enforces it.

The names are loaded on first use: ``import engine.textsafe`` (or ``python -m engine.indexer``)
does not pay for the whole search stack.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "FileError": "indexer", "IndexStats": "indexer", "Progress": "indexer", "reindex": "indexer",
    "Library": "library",
    "Searcher": "searcher", "SearchResponse": "search_response", "SearchResult": "search_response",
    "search": "searcher",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
