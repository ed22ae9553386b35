"""memlens engine: hybrid BM25 + vector search over a personal data layer in one SQLite file.

Public surface: ``reindex()`` writes, ``search()`` reads. This package never imports a UI
library (textual, rich); a test enforces it.
"""

from .indexer import FileError, IndexStats, Progress, reindex
from .searcher import Searcher, SearchResponse, SearchResult, search

__all__ = ["FileError", "IndexStats", "Progress", "SearchResponse", "SearchResult", "Searcher",
           "reindex", "search"]
