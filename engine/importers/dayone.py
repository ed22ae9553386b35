"""Day One JSON export (``Journal.json``, or the export zip / folder) -> journal entries.

Each entry becomes one ``journal`` record in ``data/journal/<year>.jsonl``:
``{"id": "dayone-<uuid>", "date", "title"?, "text", "tags", "location"?, "journal", "tz",
"starred"?, "weather"?, "photos"?, "modified"?}``. ``date`` is ``creationDate`` (UTC) shown in
the entry's own ``timeZone`` (ISO with offset); the configured local zone is used when the
entry has none. A leading Markdown heading becomes the title. Day One's Markdown escapes
(``\\.``, ``\\-``, ``\\(`` …) are undone and ``dayone-moment://`` image links removed (counted in
``photos``). Entries are keyed by ``id``: re-importing an edited entry replaces its line in
place; other lines (including ones you wrote) are left as they are.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ._util import ImportFailed, LineFinder, iso
from .base import Importer
from .context import ImportContext

_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!/|<>~=:])")
_MOMENT = re.compile(r"!\[[^\]]*\]\(dayone-moment:/*[^)]*\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")


def _parse_utc(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else None


class DayOneImporter(Importer):
    kind = "dayone"
    description = "Day One JSON export (.json, folder or .zip) -> data/journal/<year>.jsonl"

    def parse(self, ctx: ImportContext) -> None:
        tree = ctx.tree()
        journals = 0
        for name, label, text, doc in self.json_files(
                ctx, tree, "not a Day One export (no journal JSON)", progress=False):
            if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list):
                if tree.mode == "file":
                    raise ImportFailed(f"{label}: not a Day One export (no 'entries' list)")
                ctx.problem(label, None, "not a Day One journal (no 'entries' list); skipped")
                continue
            journals += 1
            journal = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            finder = LineFinder(text)
            entries = doc["entries"]
            by_year: dict[str, list[dict[str, Any]]] = {}
            for i, entry in enumerate(entries):
                ctx.progress(i, len(entries))
                if not isinstance(entry, dict):
                    ctx.problem(label, None, f"entry {i} is not an object; skipped")
                    continue
                line = finder.find(f'"{entry.get("uuid")}"') if entry.get("uuid") else None
                record = self._entry(ctx, entry, journal, label, line)
                if record is not None:
                    by_year.setdefault(record["date"][:4], []).append(record)
            ctx.progress(len(entries), len(entries))
            for year, records in sorted(by_year.items()):
                records.sort(key=lambda r: r["date"])
                ctx.records(f"data/journal/{year}.jsonl", records, upsert=True)
        if not journals:
            raise ImportFailed(f"{ctx.source}: no Day One journal JSON found")

    def _entry(self, ctx: ImportContext, entry: dict[str, Any], journal: str, label: str,
               line: int | None) -> dict[str, Any] | None:
        uuid = entry.get("uuid")
        if not isinstance(uuid, str) or not uuid.strip():
            ctx.problem(label, line, "entry without a uuid; skipped")
            return None
        created = _parse_utc(entry.get("creationDate"))
        if created is None:
            ctx.problem(label, line, f"entry {uuid}: unrecognised creationDate "
                        f"{entry.get('creationDate')!r:.40}; skipped")
            return None
        tz, tz_name = ctx.tz, ctx.tz_name
        zone = entry.get("timeZone")
        if isinstance(zone, str) and zone:
            try:
                tz, tz_name = ZoneInfo(zone), zone
            except (ZoneInfoNotFoundError, ValueError):
                ctx.problem(label, line, f"entry {uuid}: unknown timeZone {zone!r}; "
                            "the local zone was used")
        raw = entry.get("text")
        if not isinstance(raw, str) or not raw.strip():
            ctx.skip("entries without text")
            return None
        photos = len(_MOMENT.findall(raw))
        body = _ESCAPE.sub(r"\1", _MOMENT.sub("", raw))
        body = re.sub(r"\n{3,}", "\n\n", body).strip()
        title = None
        first, _, rest = body.partition("\n")
        m = _HEADING.match(first.strip())
        if m:
            title, body = m.group(1).strip(), rest.strip()
        if not body and not title:
            ctx.skip("entries without text")
            return None
        record: dict[str, Any] = {"id": f"dayone-{uuid}", "date": iso(created.astimezone(tz))}
        if title:
            record["title"] = title
        record["text"] = body
        tags = entry.get("tags")
        record["tags"] = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
        location = _location(entry.get("location"))
        if location:
            record["location"] = location
        record["journal"] = journal
        record["tz"] = tz_name
        if entry.get("starred") is True:
            record["starred"] = True
        weather = _weather(entry.get("weather"))
        if weather:
            record["weather"] = weather
        if photos or isinstance(entry.get("photos"), list) and entry["photos"]:
            record["photos"] = max(photos, len(entry.get("photos") or []))
        modified = _parse_utc(entry.get("modifiedDate"))
        if modified is not None:
            record["modified"] = iso(modified.astimezone(tz))
        return record


def _location(loc: Any) -> str | None:
    if not isinstance(loc, dict):
        return None
    parts = [loc.get(k) for k in ("placeName", "localityName", "administrativeArea", "country")]
    seen: list[str] = []
    for p in parts:
        if isinstance(p, str) and p.strip() and p.strip() not in seen:
            seen.append(p.strip())
    return ", ".join(seen) or None


def _weather(w: Any) -> str | None:
    if not isinstance(w, dict):
        return None
    bits = []
    if isinstance(w.get("conditionsDescription"), str):
        bits.append(w["conditionsDescription"])
    t = w.get("temperatureCelsius")
    if isinstance(t, int | float) and not isinstance(t, bool):
        bits.append(f"{t:.0f} °C")
    return ", ".join(bits) or None
