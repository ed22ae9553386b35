"""What an importer talks to while it parses: ``ImportContext`` and ``make_context``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

from engine.index.routes import route_matches
from engine.path_style import windows_name_problem

from ._source import SourceTree
from ._util import ImportFailed, parse_json, resolve_tz, safe_relpath
from .report import ImportReport
from .targets import JsonDoc, MessageLog, Move, RecordLog, Target, TextDoc, apply_targets

ProgressFn = Callable[[int, int], None]

#: day/month orders an import may be told to use (``--date-order``); None: detect per file
DATE_ORDERS = ("dmy", "mdy")
_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*(?P<sign>[+-])(?P<h>\d{1,2})(?::?(?P<m>\d{2}))?$",
                     re.IGNORECASE)


class ImportContext:
    """What an importer talks to: problems, skips, people, progress and the target files."""

    def __init__(self, kind: str, source: Path, root: Path, *, tz: tzinfo, tz_name: str,
                 progress: ProgressFn | None, report: ImportReport,
                 date_order: str | None = None) -> None:
        self.kind = kind
        self.date_order = date_order  # "dmy" / "mdy" forced, None: detect (WhatsApp)
        self.source = source
        self.root = root
        self.tz = tz
        self.tz_name = tz_name
        self.report = report
        self._progress = progress
        self.targets: dict[str, Target] = {}
        self.moves: dict[str, Move] = {}  # old log -> where it belongs now
        self._records: dict[str, tuple[dict[str, Any], ...]] = {}  # logs read, by path
        self._ids: dict[str, frozenset[str]] = {}
        self.people: list[tuple[str, list[str]]] = []

    # -- reporting ------------------------------------------------------------------------

    def problem(self, file: str, line: int | None, message: str) -> None:
        self.report.problems.append((file, line, message))

    def note(self, message: str) -> None:
        self.report.add_note(message)

    def skip(self, reason: str, n: int = 1) -> None:
        if n:
            self.report.records_skipped[reason] = self.report.records_skipped.get(reason, 0) + n

    def progress(self, done: int, total: int) -> None:
        if self._progress is not None:
            self._progress(done, total)

    def person(self, name: str | None, aliases: Iterable[str] = ()) -> None:
        """A person seen in the export (merged into profile/relationships.json with --people)."""
        if not name or not name.strip():
            return
        self.people.append((name.strip(), [a.strip() for a in aliases if a and a.strip()]))

    def tree(self, path: Path | None = None, *, allow_file: bool = True) -> SourceTree:
        return SourceTree(path or self.source, self.problem, allow_file=allow_file,
                          root=self.root)

    # -- targets ----------------------------------------------------------------------------

    def _claim(self, rel: str) -> str:
        """``rel`` as a target: inside the root, every name one each system can hold (an
        importer makes names with slugify, file_stem or portable_name)."""
        safe = safe_relpath(rel)
        if safe is None:
            raise ValueError(f"unsafe target path {rel!r}")
        for name in safe.split("/"):
            if (why := windows_name_problem(name)) is not None:
                raise ValueError(f"target path {rel!r}: {name!r} {why}")
        return safe

    def messages(self, rel: str, records: list[dict[str, Any]], *, ts_field: str,
                 sender_field: str, text_field: str) -> None:
        """Messages for an append-only JSONL log; each record carries a stable ``id``."""
        rel = self._claim(rel)
        if rel in self.targets:
            self.targets[rel].records.extend(records)
        else:
            self.targets[rel] = MessageLog(list(records), ts_field, sender_field, text_field)

    def records(self, rel: str, records: list[dict[str, Any]], *, upsert: bool = False) -> None:
        """Records (each with an ``id``) for a JSONL records file."""
        rel = self._claim(rel)
        if rel in self.targets:
            self.targets[rel].records.extend(records)
        else:
            self.targets[rel] = RecordLog(list(records), upsert)

    def json_document(self, rel: str, doc: dict[str, Any]) -> None:
        self.targets[self._claim(rel)] = JsonDoc(doc)

    def text_document(self, rel: str, text: str) -> None:
        self.targets[self._claim(rel)] = TextDoc(text)

    def document_path(self, folder: str, stem: str, source_id: str, ext: str = ".json") -> str:
        """A free ``folder/stem.json`` for a document imported from ``source_id``.

        A file already holding a document from the same source is reused (so re-importing
        updates it); one holding another document gets ``-2``, ``-3`` … instead.
        """
        n = 1
        while True:
            rel = f"{folder}/{stem}{'' if n == 1 else f'-{n}'}{ext}"
            claimed = self.targets.get(rel)
            if claimed is not None:
                if isinstance(claimed, JsonDoc) and claimed.doc.get("source") == source_id:
                    return rel
            else:
                path = self.root / rel
                if not path.exists():
                    return rel
                try:
                    existing = parse_json(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    existing = None
                if isinstance(existing, dict) and existing.get("source") == source_id:
                    return rel
            n += 1

    def existing(self, pattern: str) -> list[str]:
        """The data root's files matching ``pattern`` (a glob relative to it) and the targets
        of this import it matches, sorted."""
        on_disk = {p.relative_to(self.root).as_posix() for p in self.root.glob(pattern)
                   if p.is_file()}
        return sorted(on_disk | {rel for rel in self.targets if route_matches(pattern, rel)})

    def log_ids(self, rel: str) -> frozenset[str]:
        """The ``id`` of every record of the JSONL log ``rel``: on disk (read once per
        import) and given for it so far in this import."""
        target = self.targets.get(rel)
        given = frozenset(str(r["id"]) for r in target.records if r.get("id") is not None) \
            if isinstance(target, MessageLog | RecordLog) else frozenset()
        return self._disk_ids(rel) | given

    def _disk_ids(self, rel: str) -> frozenset[str]:
        if rel not in self._ids:  # asked once per chat of the import
            self._ids[rel] = frozenset(str(r["id"]) for r in self.log_records(rel)
                                       if r.get("id") is not None)
        return self._ids[rel]

    def log_records(self, rel: str) -> tuple[dict[str, Any], ...]:
        """The records (JSON objects) of the data root's JSONL log ``rel``, read once per
        import; none when it cannot be read."""
        if rel not in self._records:
            records: list[dict[str, Any]] = []
            try:
                with open(self.root / rel, "rb") as fh:
                    for raw in fh:
                        try:
                            obj = parse_json(raw.decode("utf-8", "replace"))
                        except ValueError:
                            continue
                        if isinstance(obj, dict):
                            records.append(obj)
            except OSError:
                pass
            self._records[rel] = tuple(records)
        return self._records[rel]

    def move_log(self, old: str, new: str, why: str) -> None:
        """The log ``old`` belongs at ``new``: moved or merged there before ``new`` is written."""
        self.moves[self._claim(old)] = Move(old, self._claim(new), why)

    def apply(self, dry_run: bool) -> None:
        """Write (or, on a dry run, plan) every target registered by the importer."""
        apply_targets(self.targets, self.root, self.report, dry_run, tuple(self.moves.values()))


def resolve_zone(value: str | None) -> tuple[tzinfo, str]:
    """(zone, its name) for an IANA name (``America/New_York``), a UTC offset (``+02:00``,
    ``-0530``, ``UTC+2``; named ``UTC+02:00``) or None (the system zone).

    Raises :class:`ImportFailed` for anything else.
    """
    m = _OFFSET.match(value.strip()) if value else None
    if m:
        hours, minutes = int(m["h"]), int(m["m"] or 0)
        if minutes > 59 or (hours, minutes) > (14, 0):
            raise ImportFailed(f"unknown time zone {value!r} (a UTC offset is -14:00 to "
                               "+14:00)")
        offset = timedelta(hours=hours, minutes=minutes) * (-1 if m["sign"] == "-" else 1)
        name = f"UTC{m['sign'] if offset else '+'}{hours:02d}:{minutes:02d}"
        return timezone(offset, name), name
    try:
        return resolve_tz(value)
    except ImportFailed:
        raise ImportFailed(f"unknown time zone {value!r} (use an IANA name such as "
                           "'Europe/Berlin' or a UTC offset such as '+02:00')") from None


def make_context(kind: str, source: Path, root: Path, *, progress: ProgressFn | None,
                 local_tz: str | None, dry_run: bool,
                 date_order: str | None = None) -> tuple[ImportContext, ImportReport]:
    tz, tz_name = resolve_zone(local_tz)
    if date_order is not None and date_order not in DATE_ORDERS:
        raise ImportFailed(f"unknown date order {date_order!r} (use dmy or mdy)")
    report = ImportReport(kind=kind, source=str(source), root=str(root), dry_run=dry_run)
    ctx = ImportContext(kind, source, root, tz=tz, tz_name=tz_name, progress=progress,
                        report=report, date_order=date_order)
    return ctx, report
