"""The target files of an import, and how each is merged with what is already on disk.

An importer only *parses*: it hands the context (``context.py``) records for target files in
the data layer's documented formats. ``apply_targets`` then merges them:

* **message logs** (slack / telegram JSONL) and **append logs** (email catalog) are
  append-only: a record whose stable key (``id``) or content (timestamp + sender + text) is
  already in the file is a duplicate; new records are appended at the end, in order, with one
  write followed by fsync;
* **upsert logs** (journal) replace a line whose ``id`` matches (an edited entry) and append
  new ones; other lines are kept byte for byte;
* **JSON documents** (meeting, voice, garmin) are merged key by key over the existing file, so
  fields the user added (a meeting ``summary``) survive a re-import;
* **text documents** (notes) are replaced when their text differs;
* **moved logs** (an earlier importer's log of a chat, now kept elsewhere) are renamed to the
  log they belong in before it is merged, or, when that log exists, merged into it (duplicates
  dropped by ``id``) and then removed: a crash in between leaves both, and the next import
  merges again.

A file whose content would not change is never written (its mtime stays put). New and rewritten
files are written atomically: a temp file in the same folder, fsync, then ``os.replace``
(``atomic.py``).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.extractors.common import parse_datetime

from ._util import parse_json
from .atomic import append_bytes, atomic_write
from .report import ImportReport


@dataclass
class MessageLog:
    records: list[dict[str, Any]]
    ts_field: str
    sender_field: str
    text_field: str


@dataclass
class RecordLog:
    records: list[dict[str, Any]]
    upsert: bool


@dataclass
class JsonDoc:
    doc: dict[str, Any]


@dataclass
class TextDoc:
    text: str

Target = MessageLog | RecordLog | JsonDoc | TextDoc


@dataclass(frozen=True)
class Move:
    """A log that belongs at ``new``: moved, or merged into it, before ``new`` is written."""

    old: str
    new: str
    why: str


def apply_targets(targets: dict[str, Target], root: Path, report: ImportReport,
                  dry_run: bool, moves: tuple[Move, ...] = ()) -> None:
    """Merge every target into its file under ``root`` (or, on a dry run, only count)."""
    planned = _apply_moves(moves, targets, root, report, dry_run)
    for rel in sorted(targets):
        target = targets[rel]
        path = root / rel
        counted = report.records_imported
        try:
            if isinstance(target, MessageLog | RecordLog):
                written = _apply_log(report, rel, path, target, dry_run, planned.get(rel))
            elif isinstance(target, JsonDoc):
                written = _apply_json(report, rel, path, target, dry_run)
            else:
                written = _apply_text(report, rel, path, target, dry_run)
        except OSError as exc:
            report.records_imported = counted  # not imported: its file could not be written
            report.problems.append((rel, None, f"cannot write: {exc}"))
            continue
        if written:
            report.per_file[rel] = written
            if dry_run:
                report.dry_run_plan.append((rel, written))
            else:
                report.files_written.append(rel)


def _apply_moves(moves: tuple[Move, ...], targets: dict[str, Target], root: Path,
                 report: ImportReport, dry_run: bool) -> dict[str, bytes]:
    """Move (or merge) each old log into its new place. On a dry run nothing moves: returns
    what each new log would hold after the moves, so the counts are the real run's."""
    planned: dict[str, bytes] = {}
    for move in moves:
        old, new = root / move.old, root / move.new
        if not old.is_file():
            continue
        merge = move.new in planned or new.exists()
        verb = ("would merge {} into {}" if merge else "would move {} to {}") if dry_run \
            else "merged {} into {}" if merge else "moved {} to {}"
        try:
            if dry_run:
                before = planned.get(move.new)
                if before is None:
                    before = new.read_bytes() if new.exists() else b""
                data = old.read_bytes()
                planned[move.new] = before + (b"\n" if before[-1:] not in (b"", b"\n")
                                              else b"") + data
            elif not new.exists():
                new.parent.mkdir(parents=True, exist_ok=True)
                os.replace(old, new)
            else:
                target = targets.get(move.new)
                if not isinstance(target, MessageLog):
                    continue
                records = [r for line in old.read_bytes().split(b"\n")
                           if isinstance(r := _loads(line.decode("utf-8", "replace")), dict)]
                _apply_log(ImportReport(report.kind, report.source), move.new, new,
                           MessageLog(records, target.ts_field, target.sender_field,
                                      target.text_field), dry_run=False)
                old.unlink()
        except OSError as exc:
            report.problems.append((move.old, None, f"cannot move to {move.new}: {exc}"))
            continue
        report.add_note(f"{verb.format(move.old, move.new)} ({move.why})")
    return planned


def _apply_log(report: ImportReport, rel: str, path: Path, target: MessageLog | RecordLog,
               dry_run: bool, planned: bytes | None = None) -> int:
    """``planned``: what the file would hold now (a dry run's moves), instead of its bytes."""
    existing = planned if planned is not None else path.read_bytes() if path.exists() else b""
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
        if isinstance(target, MessageLog):
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
            if isinstance(target, RecordLog) and target.upsert and index >= 0:
                current = _loads(lines[index])
                if current != record:
                    replaced[index] = record
                    continue
            report.records_skipped_duplicate += 1
            continue
        if isinstance(target, MessageLog) and content_keys:
            key = _content_key(record, target)
            if key is not None and content_keys[key] > 0:
                content_keys[key] -= 1
                report.records_skipped_duplicate += 1
                continue
        if rid is not None:
            by_id[rid] = -1  # a repeat inside this import is a duplicate too
        new.append(record)
    if isinstance(target, MessageLog) and new and last_dt is not None:
        older = sum(1 for r in new if (d := _dt(r.get(target.ts_field))) is not None
                    and _comparable(d, last_dt) and d < last_dt)
        if older:
            report.add_note(f"{rel}: {older} new message(s) older than the file's last "
                            "message were appended at the end (the log is append-only)")
    count = len(new) + len(replaced)
    report.records_imported += count
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


def _apply_json(report: ImportReport, rel: str, path: Path, target: JsonDoc,
                dry_run: bool) -> int:
    merged = dict(target.doc)
    if path.exists():
        try:
            existing = parse_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            report.problems.append((rel, None, f"existing file is not valid JSON ({exc}); "
                                    "left untouched"))
            return 0
        if not isinstance(existing, dict):
            report.problems.append((rel, None, "existing file is not a JSON object; left "
                                    "untouched"))
            return 0
        merged = dict(existing)
        for key, value in target.doc.items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
        if merged == existing:
            report.records_skipped_duplicate += 1
            return 0
    report.records_imported += 1
    if not dry_run:
        text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
        atomic_write(path, text.encode("utf-8"))
    return 1


def _apply_text(report: ImportReport, rel: str, path: Path, target: TextDoc,
                dry_run: bool) -> int:
    data = target.text.encode("utf-8")
    if path.exists() and path.read_bytes() == data:
        report.records_skipped_duplicate += 1
        return 0
    report.records_imported += 1
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


def _content_key(obj: dict[str, Any], target: MessageLog) -> tuple | None:
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
