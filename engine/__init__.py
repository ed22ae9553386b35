"""memlens engine: hybrid BM25 + vector search over a personal data layer in one SQLite file.

Public surface: ``reindex()`` writes, ``search()`` reads, and :class:`Library` is the one read
facade front doors use (docs/architecture.md). This package never imports a UI library
(textual, rich); a test enforces it.
"""

from .indexer import FileError, IndexStats, Progress, reindex
from .library import Library
from .searcher import Searcher, SearchResponse, SearchResult, search

__all__ = ["FileError", "IndexStats", "Library", "Progress", "SearchResponse", "SearchResult",
           "Searcher", "reindex", "search"]
