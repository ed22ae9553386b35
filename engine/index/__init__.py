"""Reindexing: walking the root, routing files, indexing them, embedding, watching, what a run
reports. Front doors use :func:`engine.reindex` and, from here, watch mode's events and the
editing of sources in place (``add_source``, ``remove_source``, ``default_name``)."""

from engine import lazy_exports

_PUBLIC = {name: "watch_events" for name in
           ("Changed", "Failed", "Problem", "Reconfigured", "Reindexed", "Rewatched", "Stopped",
            "Waiting")}
_PUBLIC["Watcher"] = "watch"
_PUBLIC["relative_path"] = "data_files"
_PUBLIC["default_name"] = "sources"
_PUBLIC.update(dict.fromkeys(("add_source", "remove_source", "demo_root_takes_no_source",
                              "SourceRefused", "SourceEditFailed", "SourceState"),
                             "source_config"))
__all__ = sorted(_PUBLIC)
__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
