"""The importer contract, the report, and the writer every importer shares.

An importer only *parses*: it hands the context records for target files in the data layer's
documented formats. The context then merges them with what is already on disk:

* **message logs** (slack / telegram JSONL) and **append logs** (email catalog) are
  append-only: a record whose stable key (``id``) or content (timestamp + sender + text) is
  already in the file is a duplicate; new records are appended at the end, in order, with one
  write followed by fsync;
* **upsert logs** (journal) replace a line whose ``id`` matches (an edited entry) and append
  new ones; other lines are kept byte for byte;
* **JSON documents** (meeting, voice, garmin) are merged key by key over the existing file, so
  fields the user added (a meeting ``summary``) survive a re-import;
* **text documents** (notes) are replaced when their text differs.

A file whose content would not change is never written (its mtime stays put). New and rewritten
files are written atomically: a temp file in the same folder, fsync, then ``os.replace``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from engine.extractors.common import parse_datetime
from engine.present import plural

from ._source import SourceTree
from ._util import (
    ImportFailed,
    decode_text,
    looks_binary,
    parse_json,
    resolve_tz,
    safe_relpath,
)

ProgressFn = Callable[[int, int], None]


@dataclass
class ImportReport:
    kind: str
    source: str = ""
    root: str = ""
    dry_run: bool = False
    files_written: list[str] = field(default_factory=list)
    records_imported: int = 0
    records_skipped_duplicate: int = 0
    #: records deliberately left out, by reason (media without text, boilerplate, templates…)
    records_skipped: dict[str, int] = field(default_factory=dict)
    problems: list[tuple[str, int | None, str]] = field(default_factory=list)
    #: informational notes (assumptions made, out-of-order appends) – not errors
    notes: list[str] = field(default_factory=list)
    dry_run_plan: list[tuple[str, int]] = field(default_factory=list)
    people_added: list[str] = field(default_factory=list)
    #: per target file: records imported into it (also filled on a dry run)
    per_file: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """False only when nothing could be imported (no new and no already-present record)."""
        return self.records_imported + self.records_skipped_duplicate > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for ``--json`` output)."""
        return {"kind": self.kind, "source": self.source, "root": self.root,
                "dry_run": self.dry_run, "ok": self.ok, "files_written": self.files_written,
                "records_imported": self.records_imported,
                "records_skipped_duplicate": self.records_skipped_duplicate,
                "records_skipped": self.records_skipped,
                "problems": [{"file": f, "line": ln, "message": m} for f, ln, m in self.problems],
                "notes": self.notes,
                "dry_run_plan": [{"path": p, "records": n} for p, n in self.dry_run_plan],
                "people_added": self.people_added}

    def summary(self) -> str:
        """Human-readable lines for a CLI."""
        verb = "would import" if self.dry_run else "imported"
        lines = [f"{self.kind}: {verb} {plural(self.records_imported, 'record')}, "
                 f"{self.records_skipped_duplicate:,} already present"]
        if self.records_skipped:
            lines.append("skipped: " + ", ".join(f"{n:,} {why if n != 1 else _one(why)}"
                                                 for why, n in sorted(self.records_skipped.items())))
        if self.dry_run:
            lines += [f"  would write {path} (+{n})" for path, n in self.dry_run_plan]
        else:
            lines += [f"  wrote {path}" for path in self.files_written]
        lines += [f"  person: {p}" for p in self.people_added]
        lines += [f"  note: {n}" for n in self.notes]
        for file, line, message in self.problems:
            where = f"{file}:{line}" if line is not None else file
            lines.append(f"  problem: {where}: {message}")
        if not self.ok:
            lines.append("nothing could be imported")
        return "\n".join(lines)


def _one(reason: str) -> str:
    """A skip reason (written for many: "entries without text", "JSON files that are not ...")
    for one record: its first plural noun made singular, "that are" made "that is"."""
    words = reason.split(" ")
    for i, word in enumerate(words):
        if len(word) > 3 and word.isalpha() and word.endswith("s"):
            words[i] = word[:-3] + "y" if word.endswith("ies") else word[:-1]
            break
    return " ".join(words).replace(" that are ", " that is ", 1)


# --------------------------------------------------------------------------- targets


@dataclass
class _MessageLog:
    records: list[dict[str, Any]]
    ts_field: str
    sender_field: str
    text_field: str


@dataclass
class _RecordLog:
    records: list[dict[str, Any]]
    upsert: bool


@dataclass
class _JsonDoc:
    doc: dict[str, Any]


@dataclass
class _TextDoc:
    text: str


class ImportContext:
    """What an importer talks to: problems, skips, people, progress and the target files."""

    def __init__(self, kind: str, source: Path, root: Path, *, tz: tzinfo, tz_name: str,
                 progress: ProgressFn | None, report: ImportReport) -> None:
        self.kind = kind
        self.source = source
        self.root = root
        self.tz = tz
        self.tz_name = tz_name
        self.report = report
        self._progress = progress
        self.targets: dict[str, Any] = {}
        self.people: list[tuple[str, list[str]]] = []

    # -- reporting ------------------------------------------------------------------------

    def problem(self, file: str, line: int | None, message: str) -> None:
        self.report.problems.append((file, line, message))

    def note(self, message: str) -> None:
        if message not in self.report.notes:
            self.report.notes.append(message)

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
        safe = safe_relpath(rel)
        if safe is None:
            raise ValueError(f"unsafe target path {rel!r}")
        return safe

    def messages(self, rel: str, records: list[dict[str, Any]], *, ts_field: str,
                 sender_field: str, text_field: str) -> None:
        """Messages for an append-only JSONL log; each record carries a stable ``id``."""
        rel = self._claim(rel)
        if rel in self.targets:
            self.targets[rel].records.extend(records)
        else:
            self.targets[rel] = _MessageLog(list(records), ts_field, sender_field, text_field)

    def records(self, rel: str, records: list[dict[str, Any]], *, upsert: bool = False) -> None:
        """Records (each with an ``id``) for a JSONL records file."""
        rel = self._claim(rel)
        if rel in self.targets:
            self.targets[rel].records.extend(records)
        else:
            self.targets[rel] = _RecordLog(list(records), upsert)

    def json_document(self, rel: str, doc: dict[str, Any]) -> None:
        self.targets[self._claim(rel)] = _JsonDoc(doc)

    def text_document(self, rel: str, text: str) -> None:
        self.targets[self._claim(rel)] = _TextDoc(text)

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
                if isinstance(claimed, _JsonDoc) and claimed.doc.get("source") == source_id:
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

    # -- applying ---------------------------------------------------------------------------

    def apply(self, dry_run: bool) -> None:
        for rel in sorted(self.targets):
            target = self.targets[rel]
            path = self.root / rel
            try:
                if isinstance(target, _MessageLog | _RecordLog):
                    written = self._apply_log(rel, path, target, dry_run)
                elif isinstance(target, _JsonDoc):
                    written = self._apply_json(rel, path, target, dry_run)
                else:
                    written = self._apply_text(rel, path, target, dry_run)
            except OSError as exc:
                self.problem(rel, None, f"cannot write: {exc}")
                continue
            if written:
                self.report.per_file[rel] = written
                if dry_run:
                    self.report.dry_run_plan.append((rel, written))
                else:
                    self.report.files_written.append(rel)

    def _apply_log(self, rel: str, path: Path, target: _MessageLog | _RecordLog,
                   dry_run: bool) -> int:
        existing = path.read_bytes() if path.exists() else b""
        raw_lines = existing.split(b"\n")
        if raw_lines and raw_lines[-1] == b"":
            raw_lines.pop()
        # parsed for matching only; a rewrite keeps every other line's bytes as they were
        lines = [raw.decode("utf-8", errors="replace") for raw in raw_lines]
        by_id: dict[str, int] = {}
        # lines without an ``id`` (written by hand or by another tool) are matched by content;
        # each such line absorbs at most one imported record
        content_keys: Counter[tuple] = Counter()
        last_dt: datetime | None = None
        for i, line in enumerate(lines):
            try:
                obj = parse_json(line)
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            if obj.get("id") is not None:
                by_id.setdefault(str(obj["id"]), i)
            if isinstance(target, _MessageLog):
                key = _content_key(obj, target)
                if key is not None:
                    if obj.get("id") is None:
                        content_keys[key] += 1
                    dt = _dt(obj.get(target.ts_field))
                    if dt is not None:
                        last_dt = dt
        new: list[dict[str, Any]] = []
        replaced: dict[int, dict[str, Any]] = {}
        for record in target.records:
            rid = str(record["id"]) if record.get("id") is not None else None
            if rid is not None and rid in by_id:
                index = by_id[rid]
                if isinstance(target, _RecordLog) and target.upsert and index >= 0:
                    current = _loads(lines[index])
                    if current != record:
                        replaced[index] = record
                        continue
                self.report.records_skipped_duplicate += 1
                continue
            if isinstance(target, _MessageLog) and content_keys:
                key = _content_key(record, target)
                if key is not None and content_keys[key] > 0:
                    content_keys[key] -= 1
                    self.report.records_skipped_duplicate += 1
                    continue
            if rid is not None:
                by_id[rid] = -1  # a repeat inside this import is a duplicate too
            new.append(record)
        if isinstance(target, _MessageLog) and new and last_dt is not None:
            older = sum(1 for r in new if (d := _dt(r.get(target.ts_field))) is not None
                        and _comparable(d, last_dt) and d < last_dt)
            if older:
                self.note(f"{rel}: {older} new message(s) older than the file's last message "
                          "were appended at the end (the log is append-only)")
        count = len(new) + len(replaced)
        self.report.records_imported += count
        if not count or dry_run:
            return count
        payload = "".join(_dumps(r) + "\n" for r in new).encode("utf-8")
        if replaced or not path.exists():
            out = [(_dumps(replaced[i]).encode("utf-8") if i in replaced else raw)
                   for i, raw in enumerate(raw_lines)]
            data = b"\n".join(out) + b"\n" if out else b""
            atomic_write(path, data + payload)
        else:
            if existing and not existing.endswith(b"\n"):
                payload = b"\n" + payload
            append_bytes(path, payload)
        return count

    def _apply_json(self, rel: str, path: Path, target: _JsonDoc, dry_run: bool) -> int:
        merged = dict(target.doc)
        if path.exists():
            try:
                existing = parse_json(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                self.problem(rel, None, f"existing file is not valid JSON ({exc}); left "
                             "untouched")
                return 0
            if not isinstance(existing, dict):
                self.problem(rel, None, "existing file is not a JSON object; left untouched")
                return 0
            merged = dict(existing)
            for key, value in target.doc.items():
                if isinstance(value, dict) and isinstance(merged.get(key), dict):
                    merged[key] = {**merged[key], **value}
                else:
                    merged[key] = value
            if merged == existing:
                self.report.records_skipped_duplicate += 1
                return 0
        self.report.records_imported += 1
        if not dry_run:
            text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
            atomic_write(path, text.encode("utf-8"))
        return 1

    def _apply_text(self, rel: str, path: Path, target: _TextDoc, dry_run: bool) -> int:
        data = target.text.encode("utf-8")
        if path.exists() and path.read_bytes() == data:
            self.report.records_skipped_duplicate += 1
            return 0
        self.report.records_imported += 1
        if not dry_run:
            atomic_write(path, data)
        return 1


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False)


def _loads(line: str) -> Any:
    try:
        return parse_json(line)
    except ValueError:
        return None


def _dt(value: Any) -> datetime | None:
    try:
        return parse_datetime(value, epoch_unit="s")
    except (ValueError, OverflowError):
        return None


def _comparable(a: datetime, b: datetime) -> bool:
    return (a.tzinfo is None) == (b.tzinfo is None)


def _content_key(obj: dict[str, Any], target: _MessageLog) -> tuple | None:
    """(instant, sender, text) of a message line, so a message written in another
    spelling (epoch vs ISO, or without our ``id``) is still recognised."""
    dt = _dt(obj.get(target.ts_field))
    if dt is None:
        return None
    instant = dt.timestamp() if dt.tzinfo is not None else dt.isoformat()
    text = obj.get(target.text_field)
    if isinstance(text, list):
        text = "".join(t if isinstance(t, str) else str(t.get("text", ""))
                       for t in text if isinstance(t, str | dict))
    return (instant, str(obj.get(target.sender_field) or ""), str(text or "").strip())


# --------------------------------------------------------------------------- writing


def atomic_write(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder + fsync + os.replace (never half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def append_bytes(path: Path, data: bytes) -> None:
    """One write of all new lines, then fsync; a failed append (disk full) is cut off again,
    so the log never ends in half a line."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except BaseException:
            os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- importer base


class Importer:
    """One per kind: ``parse`` reads ``ctx.source`` and registers targets on ``ctx``.

    Raise :class:`ImportFailed` when the source is not this kind of export at all; report
    everything else through ``ctx.problem`` and keep going.
    """

    kind: str = ""
    description: str = ""

    def parse(self, ctx: ImportContext) -> None:
        raise NotImplementedError

    @staticmethod
    def text_of(ctx: ImportContext, tree: SourceTree, label: str, data: bytes,
                what: str) -> str | None:
        """One export file as text. A binary file fails an import of that lone file; in a folder
        or zip it is reported and skipped (None). Invalid UTF-8 is replaced and reported."""
        if looks_binary(data):
            if tree.mode == "file":
                raise ImportFailed(f"{label}: a binary file, not {what}")
            ctx.problem(label, None, f"binary file, not {what}; skipped")
            return None
        text, bad = decode_text(data)
        if bad:
            ctx.problem(label, None, "invalid UTF-8 replaced with U+FFFD")
        return text

    @staticmethod
    def json_files(ctx: ImportContext, tree: SourceTree, nothing: str,
                   progress: bool = True) -> Iterator[tuple[str, str, str, Any]]:
        """(name, label, text, document) for each .json file of the export.

        A lone file that is not JSON fails the import; in a folder or zip it is reported and
        skipped. ``nothing`` is the ImportFailed message when there is no .json file at all.
        """
        names = [n for n in tree.names if n.lower().endswith(".json")] \
            if tree.mode != "file" else tree.names
        if not names:
            raise ImportFailed(f"{ctx.source}: {nothing}")
        for i, name in enumerate(names):
            if progress:
                ctx.progress(i, len(names))
            label = tree.label(name)
            data = tree.read(name)
            if data is None:
                continue
            text, _ = decode_text(data)
            try:
                doc = parse_json(text)
            except ValueError as exc:
                if tree.mode == "file":
                    raise ImportFailed(f"{label}: not JSON ({exc})") from exc
                ctx.problem(label, getattr(exc, "lineno", None),
                            f"invalid JSON ({exc}); skipped")
                continue
            yield name, label, text, doc
        if progress:
            ctx.progress(len(names), len(names))


def make_context(kind: str, source: Path, root: Path, *, progress: ProgressFn | None,
                 local_tz: str | None, dry_run: bool) -> tuple[ImportContext, ImportReport]:
    tz, tz_name = resolve_tz(local_tz)
    report = ImportReport(kind=kind, source=str(source), root=str(root), dry_run=dry_run)
    ctx = ImportContext(kind, source, root, tz=tz, tz_name=tz_name, progress=progress,
                        report=report)
    return ctx, report


__all__ = ["ImportContext", "ImportFailed", "ImportReport", "Importer", "append_bytes",
           "atomic_write", "make_context"]
