"""Watch mode: reindex the files of the data root and its sources shortly after they change.

:class:`Watcher` listens to the file system (``watchfiles``: inotify/FSEvents, no polling) for
changes to routed files only (engine/scanner.py's routes; never ``data/search/``,
``secrets/``, the index and its ``-wal``/``-shm``/``.lock``, hidden or temporary files). Changes
are debounced: a run starts after ``quiet_ms`` without a new change, or ``max_latency_ms``
after the first one while a burst goes on, so 1,000 writes cost a handful of runs. A run is the
ordinary incremental :func:`engine.indexer.reindex` (mtime diff, then chunk hashes; a no-op at
500k chunks takes ~0.4 s) under the single-writer lock: when another writer holds it, the
watcher waits and retries every ``retry_s`` seconds, it never gives up on the changes.

Progress is reported as events (:class:`Started`, :class:`Changed`, :class:`Reindexed`,
:class:`Waiting`, :class:`Failed`, :class:`Stopped`; each has ``line()``), to a callback that
runs on the watcher's thread. After a run, each of its errors and warnings is one
:class:`Problem` (``error: <path>: <why>``, as ``memlens reindex`` prints them); one the run
before also had is not said again, so a source that stays unmounted warns once.

A change of ``memlens.toml`` is read at once (:class:`Reconfigured`): a source added by
``memlens source add`` or the app is watched and indexed, a removed one's chunks go; a file that
no longer loads, or is gone or emptied while it held a configuration (moved away, a sync tool
writing it), is one ``error:`` line and the last good one stays in force until one loads again
(``memlens.toml loads again``). Each source folder is checked as every walk checks it
(engine/index/sources.py, ``folder_now``): one not there, empty or leading where no source may
is not watched (its chunks are kept), and the folders are looked at again at every pause, so a
folder that comes back, is replaced (deleted and made again, as sync tools do) or swapped for a
link is watched as it is now, then caught up (:class:`Rewatched`); so is a source whose top
``.gitignore`` changed (the filter reads it once), so newly ignored files leave the index and
newly allowed ones enter it.

A name that is not valid UTF-8 kills watchfiles' watch (it cannot pass the name on): watching
starts again and a catch-up run follows, so nothing is missed, with one warning that names no
path (none for ``secrets/`` or the index folder: nothing there is indexed). A tree holding a
folder so named cannot even be watched by the file system (the watch dies as it starts): it is
then polled, every ``POLL_MS``. The app uses ``Watcher(config, on_event).start()`` /
``.stop()``; ``memlens watch`` calls :meth:`Watcher.run` in the foreground.

The events are in engine/index/watch_events.py, which changed paths matter in
engine/index/watch_filter.py; this module holds the watcher: its thread, the debouncing loop
over watchfiles' changes, the reload of memlens.toml and the runs.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

from engine.config import CONFIG_FILENAME, Config, ConfigError, config_missing, load_config
from engine.display import one_line
from engine.embedder import Embedder, get_embedder
from engine.index.watch_events import (
    Changed,
    EventCallback,
    Failed,
    Problem,
    Reconfigured,
    Reindexed,
    Rewatched,
    Started,
    Stopped,
    Waiting,
    WatchEvent,
)
from engine.index.watch_filter import ADDED, PathFilter
from engine.indexer import IndexStats, reindex
from engine.path_style import slashed
from engine.storage.db import Error as DBError
from engine.storage.db import describe_db_error, describe_os_error
from engine.storage.lock import WriterBusy, active_writer

QUIET_MS = 400  # a run starts this long after the last change...
MAX_LATENCY_MS = 2000  # ...or this long after the first one, while a burst goes on
STEP_MS = 100  # how often watchfiles looks at the stop event (idle cost ~0.03 s CPU a minute)
POLL_MS = 2000  # how often a tree the file system cannot watch is polled (~4% CPU at 20k files)
RETRY_S = 1.0  # how often a watcher that found the writer lock held tries again


# -- the watcher ----------------------------------------------------------------------------------

class Watcher:
    """Reindexes changed routed files, debounced, until :meth:`stop`.

    ``reindex_fn`` (default :func:`engine.indexer.reindex`) is called as
    ``reindex_fn(config=..., embedder=..., cancel=stop_event)``; a stop request cancels a run
    between files. One embedder serves every run (``embedder``, else the configured one, made
    at the first run), so a provider's learned dimension is not probed again per run.
    """

    def __init__(self, config: Config, on_event: EventCallback | None = None, *,
                 quiet_ms: int = QUIET_MS, max_latency_ms: int = MAX_LATENCY_MS,
                 retry_s: float = RETRY_S, catch_up: bool = True,
                 embedder: Embedder | None = None,
                 reindex_fn: Callable[..., IndexStats] = reindex):
        self.config = config
        self.on_event = on_event
        self.quiet_ms = quiet_ms
        self.max_latency_ms = max(max_latency_ms, quiet_ms)
        self.retry_s = retry_s
        self.catch_up = catch_up
        self.filter = PathFilter(config.root, config.routes, config.db_path, config.sources)
        self.runs = 0
        self.error: str | None = None  # why watching itself failed (not a run: those go on)
        self._reindex = reindex_fn
        self._embedder = embedder
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._rewatch = False  # watch anew: the folders or the filter changed
        self._polling = False  # the file system's watch cannot start on this tree
        self._said: set[str] = set()  # what the watcher tells once a session
        self._last_problems: set[Problem] = set()  # those the last run reported
        # whether memlens.toml held a configuration, and whether the last read failed
        self._config_held = config_missing(config.root) is None
        self._config_broken = False

    # -- the app's API --------------------------------------------------------------------------

    def start(self) -> Watcher:
        """Watch on a daemon thread; events reach ``on_event`` on that thread."""
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="memlens-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 30.0) -> None:
        """Ask the watcher to stop (a running reindex stops after its current file) and wait."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def stop_event(self) -> threading.Event:
        return self._stop

    # -- the loop -------------------------------------------------------------------------------

    def run(self) -> None:
        """Watch in the calling thread until :meth:`stop` (or ``stop_event.set()``)."""
        # its "N changes detected" lines would reach stderr once anything calls basicConfig
        # (wordllama does, at INFO): the events are the progress report
        logging.getLogger("watchfiles").setLevel(logging.WARNING)
        self._emit(Started(self.config.root, *self.filter.watched_names()))
        pending: set[str] = set()  # routed paths changed since the last run
        first = last = None  # when the oldest and the newest of them changed
        due = self.catch_up  # a run is owed without a change (the catch-up, a busy retry)
        waiting, last_try = False, 0.0
        quiet_s, max_s = self.quiet_ms / 1000, self.max_latency_ms / 1000
        try:
            with closing(self._changes()) as stream:
                for changes in stream:
                    now = time.monotonic()
                    if changes is None or self._rearmed(changes):  # watching anew: catch up
                        due = True
                        first = first or now
                        last = first
                        continue
                    new = {rel for change, path in changes
                           if (rel := self.filter.relative(path, change)) is not None}
                    if new:
                        pending |= new
                        first, last = first or now, now
                    if self._stop.is_set() or not (pending or due):
                        continue
                    quiet = last is None or now - last >= quiet_s * 0.95
                    if not quiet and not (first is not None and now - first >= max_s):
                        continue
                    if waiting and now - last_try < self.retry_s:
                        continue
                    last_try = now
                    waiting = self._run_once(pending, waiting)
                    due = waiting
                    if not pending:
                        first = last = None
        except Exception as exc:  # noqa: BLE001 - the watcher reports, the caller goes on
            self.error = _describe(exc, self.config.db_path)
            self._emit(Failed(self.error))
        finally:
            self._emit(Stopped(self.runs))

    def _changes(self) -> Iterator[set[tuple[int, str]] | None]:
        """What watchfiles yields (empty after ``quiet_ms`` without a change) until the stop
        event, on the folders of the filter in force, watched anew when ``_rewatch`` is set;
        None when watching started again after a name that is not valid UTF-8 killed it:
        what changed meanwhile is unknown, a run is owed."""
        import watchfiles

        owed = None  # the warning to give once watching is back
        while not self._stop.is_set():
            self._rewatch = started = False
            try:
                # Every raw change is yielded (watch_filter=None) and filtered by the caller:
                # changes the filter drops (the index's own writes, a searcher's) must still
                # hand control back, or a busy index would postpone the quiet period for ever.
                # rust_timeout makes an empty yield after quiet_ms without any change.
                for changes in watchfiles.watch(
                        self.config.root, *self.filter.source_folders(), watch_filter=None,
                        debounce=self.max_latency_ms, step=STEP_MS, stop_event=self._stop,
                        rust_timeout=self.quiet_ms, yield_on_timeout=True,
                        raise_interrupt=False, ignore_permission_denied=True,
                        force_polling=True if self._polling else None, poll_delay_ms=POLL_MS):
                    started = True
                    if owed:
                        self._tell_once(owed)
                        owed = None
                    # '/' between names, as the filter's folders and the index's paths
                    yield {(change, slashed(path)) for change, path in changes}
                    if self._rewatch:
                        break
                else:
                    return  # the stop event
                continue
            except RuntimeError as exc:  # watchfiles' WatchfilesRustInternalError
                path = _undecodable_path(exc)
                if path is None:
                    raise
                path = slashed(path)
            # said only where a file can be indexed: secrets/ and the index stay unmentioned
            if self.filter.relative(path, ADDED) is not None:
                owed = owed or UNDECODABLE
            yield None
            if started:
                continue
            if not self._polling and os.path.isdir(path):  # the watch dies as it starts: poll
                self._polling = True
                owed = owed and POLLING
            elif not self._stop.wait(self.quiet_ms / 1000):
                yield set()  # such names keep coming: a quiet spell first, so a run goes on

    def _rearmed(self, changes: set[tuple[int, str]]) -> bool:
        """Whether ``changes`` call for watching anew, then a catch-up: memlens.toml changed
        the routes or sources, a source folder was replaced, or a source's .gitignore
        changed."""
        config_file = slashed(str(self.config.root / CONFIG_FILENAME))
        if any(path == config_file for _, path in changes) and self._reload():
            pass  # watch the new folders, then index them
        elif self.filter.folders_moved(changes):  # a source folder replaced
            self._rearm("a source folder changed")
        elif (gitignore := self.filter.ignores_changed(changes)) is not None:
            self._rearm(f"{gitignore} changed")  # the run drops or adds what it rules
        else:
            return False
        self._rewatch = True
        return True

    def _reload(self) -> bool:
        """Read memlens.toml again; whether the root's routes or sources changed. A file that
        does not load, or holds nothing while it did (moved away; emptied by a sync tool
        writing it), is one error, and the configuration in force stays until one loads."""
        if not self.config.root.is_dir():
            return False  # the run says the root is gone
        missing = config_missing(self.config.root)
        try:
            if missing and self._config_held:  # not "no sources": the loaded default says so
                raise ConfigError(f"{CONFIG_FILENAME} is {missing}")
            fresh = load_config(self.config.root, self.config.db_path)
        except (ConfigError, OSError) as exc:
            self._config_broken = True
            self._emit(Failed(f"{one_line(str(exc))} (still watching with the previous one)"))
            return False
        again, self._config_broken = self._config_broken, False
        self._config_held = missing is None
        changed = (fresh.routes, fresh.sources) != (self.config.routes, self.config.sources)
        self.config = fresh
        if changed:
            self.filter = PathFilter(fresh.root, fresh.routes, fresh.db_path, fresh.sources)
        if changed or again:
            self._emit(Reconfigured(tuple(s.name for s in fresh.sources), again, changed))
        return changed or again  # a file back may hold what a reindex meanwhile dropped

    def _rearm(self, why: str) -> None:
        """Watch the source folders as they are now; the run that follows catches up."""
        self.filter = PathFilter(self.config.root, self.config.routes, self.config.db_path,
                                 self.config.sources)
        self._emit(Rewatched(*self.filter.watched_names(), why=why))

    def _run_once(self, pending: set[str], waiting: bool) -> bool:
        """One reindex for ``pending`` (emptied unless the lock was busy); returns whether the
        watcher is waiting for the lock now."""
        if not self.config.root.is_dir():  # a reindex would recreate an empty index in it
            raise FileNotFoundError(f"the data root {self.config.root} is gone: stopped watching")
        paths = tuple(sorted(pending))
        if paths and not waiting:
            self._emit(Changed(paths))
        try:
            if self._embedder is None:
                self._embedder = get_embedder(self.config.embedder, self.config.root)
            stats = self._reindex(config=self.config, embedder=self._embedder, cancel=self._stop)
        except WriterBusy:
            if not waiting:
                self._emit(Waiting(active_writer(self.config.db_path) or "write"))
            return True
        except Exception as exc:  # noqa: BLE001 - one failed run never stops the watcher
            self._emit(Failed(_describe(exc, self.config.db_path)))
            pending.clear()  # a later change tries again
            return False
        self.runs += 1
        pending.clear()
        self._emit(Reindexed(stats, paths))
        self._tell_problems(stats)
        return False

    def _tell_problems(self, stats: IndexStats) -> None:
        """The run's errors and warnings, one event each, but not those the run before also
        reported: a walk repeats its warnings (an unmounted source, a bad .gitignore line) at
        every run, a file's error comes again only when the file does. A warning an earlier
        run (a reindex before this watch) said already is not new (warnings_seen.py)."""
        found = [Problem("error", e.source_file, e.message) for e in stats.errors]
        found += [Problem("warning", w.source_file, w.message) for w in stats.warnings
                  if getattr(w, "new", True)]
        found += [Problem("embedding", "", message) for message in stats.embedding_errors]
        for problem in dict.fromkeys(found):
            if problem not in self._last_problems:
                self._emit(problem)
        self._last_problems = set(found)

    def _tell_once(self, message: str) -> None:
        """A warning of the watcher's own, once a session (polling says the rest too)."""
        if message not in self._said:
            self._said.update((message, UNDECODABLE) if message == POLLING else (message,))
            self._emit(Problem("warning", "", message))

    def _emit(self, event: WatchEvent) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except Exception:  # noqa: BLE001 - a broken display must not stop the watcher
            pass


UNDECODABLE = ("a changed file's or folder's name is not valid UTF-8; not indexed (rename it); "
               "still watching")
POLLING = (f"a folder's name is not valid UTF-8; not indexed (rename it); still watching, by "
           f"polling every {POLL_MS / 1000:g}s (the file system's watch cannot take such a folder)")
_UNDECODABLE_RE = re.compile(r'Unable to decode path "(.*)" to string\Z', re.S)
_RUST_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]+\}|.)", re.S)


def _undecodable_path(exc: BaseException) -> str | None:
    """The path watchfiles could not decode (its Rust ``{:?}`` form read back, the bad bytes
    as ``surrogateescape`` gives them, as the walk sees them; "" if it does not read back), or
    None for another error."""
    found = _UNDECODABLE_RE.search(str(exc))
    if found is None:
        return None
    text, out, at = found.group(1), bytearray(), 0
    try:
        for escape in _RUST_ESCAPE.finditer(text):
            out += text[at:escape.start()].encode()
            code = escape.group(1)
            if code[0] == "x":
                out.append(int(code[1:], 16))
            elif code[0] == "u" and len(code) > 1:
                out += chr(int(code[2:-1], 16)).encode()
            else:
                out += {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(code, code).encode()
            at = escape.end()
        out += text[at:].encode()
    except (ValueError, UnicodeError, OverflowError):
        return ""
    return os.fsdecode(bytes(out))


def _describe(exc: BaseException, db_path: Path) -> str:
    if isinstance(exc, DBError):
        return describe_db_error(exc, db_path)
    if isinstance(exc, OSError):
        return describe_os_error(exc)
    if isinstance(exc, RuntimeError):
        return one_line(str(exc))
    return one_line(f"{type(exc).__name__}: {exc}")
