"""``memlens watch``: reindex changed files as they change, in the foreground (engine/index/watch.py).

One line per event (``watching ...``, ``changed N files: ...``, ``reindexed: ...``,
``waiting: ...``) on stdout; on stderr, ``error: ...`` when something failed, and after a run
each of its errors and warnings as ``memlens reindex`` prints them (``error: <path>: <why>``,
``warning: ...``; one the run before also had is not repeated). ctrl+c (or SIGTERM) stops it
cleanly — a run in progress stops after its current file — and prints ``stopped after N reindex
runs``, exit 0 (1 when watching itself failed, e.g. the root vanished; a failed run is one
``error:`` line and goes on).
"""

from __future__ import annotations

import signal
import sys

from .args import load_root_config


def cmd_watch(args) -> int:
    from engine.index import Failed, Problem, Watcher

    config = load_root_config(args)

    def show(event) -> None:
        print(event.line(), file=sys.stderr if isinstance(event, (Failed, Problem))
              else sys.stdout, flush=True)

    watcher = Watcher(config, show)
    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, lambda *_: watcher.stop_event.set())
    try:
        watcher.run()  # returns once the stop event is set (or watching failed)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 1 if watcher.error else 0


def add_parser(sub, common) -> None:
    p = sub.add_parser("watch", parents=[common],
                       help="reindex changed files as they change (ctrl+c stops)")
    p.set_defaults(func=cmd_watch)
