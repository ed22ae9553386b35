"""memlens engine: hybrid BM25 + vector search over a personal data layer in one SQLite file.

Public surface: ``reindex()`` writes, ``search()`` reads, and :class:`Library` is the one read
facade front doors use (docs/architecture.md, which lists the few other modules a front door
may import). This package never imports a UI library (textual, rich); a test enforces it.

The names are loaded on first use: ``import engine`` (or ``python -m engine.indexer``) does
not pay for the whole search stack.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(package: str, table: dict[str, str]) -> tuple[Callable, Callable]:
    """A package's ``__getattr__`` and ``__dir__`` that import ``name`` from ``table[name]``
    (a module of ``package``, or a whole ``engine.…`` path) on first use, so importing the
    package stays cheap."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str):
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        path = module if module.startswith("engine.") else f"{package}.{module}"
        value = getattr(importlib.import_module(path), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__


_PUBLIC = {
    "FileError": "indexer", "IndexStats": "indexer", "Progress": "indexer", "reindex": "indexer",
    "Library": "library",
    "Searcher": "searcher", "SearchError": "searcher", "search": "searcher",
    "SearchResponse": "search_response", "SearchResult": "search_response",
    "EmbedderMismatch": "schema", "maintain_index": "maintenance", "SOURCE_TYPES": "scanner",
    "WriterBusy": "engine.storage.lock",
}
__all__ = sorted(_PUBLIC)
__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
