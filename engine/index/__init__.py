"""Reindexing: walking the root, routing files, indexing them, embedding, watching, what a run
reports. Front doors use :func:`engine.reindex` and, from here, watch mode's events."""

from engine import lazy_exports

_PUBLIC = {name: "watch" for name in
           ("Watcher", "Changed", "Failed", "Reindexed", "Stopped", "Waiting")}
_PUBLIC["relative_path"] = "data_files"
__all__ = sorted(_PUBLIC)
__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
