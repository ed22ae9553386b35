"""One-chunk-per-record JSONL types, rendered as readable text with labelled fields.

Chunk id: ``<source_file>#<id>`` when the record has an ``id`` (first occurrence wins; a
repeated id falls back to the line form), else ``<source_file>#L<line>``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .base import BaseExtractor, Chunk, Problems
from .common import (
    ELEMENT_ERRORS,
    as_number,
    as_str_list,
    as_text,
    clean_text,
    fmt_dec,
    iso_timestamp,
    make_chunk,
    to_date_str,
)
from .reading import iter_jsonl


class Fields:
    """Typed, memoised access to one record's fields; a type error is reported once."""

    def __init__(self, record: dict[str, Any], problems: Problems, line: int) -> None:
        self.record = record
        self.problems = problems
        self.line = line
        self._cache: dict[tuple[str, str], Any] = {}

    def _get(self, kind: str, key: str, compute: Any) -> Any:
        if (kind, key) not in self._cache:
            self._cache[(kind, key)] = compute()
        return self._cache[(kind, key)]

    def text(self, key: str) -> str | None:
        return self._get("text", key, lambda: as_text(self.record, key, self.problems, self.line))

    def list(self, key: str, split: bool = True) -> list[str]:
        return self._get("list", key, lambda: as_str_list(
            self.record, key, self.problems, self.line, split=split))

    def number(self, key: str) -> float | int | None:
        return self._get("number", key,
                         lambda: as_number(self.record, key, self.problems, self.line))

    def date(self, key: str) -> str | None:
        """YYYY-MM-DD of a date/timestamp field; an unparseable value is reported."""
        return self._get("date", key, lambda: self._date(key))

    def _date(self, key: str) -> str | None:
        raw = self.record.get(key)
        if raw is None or raw == "":
            return None
        value = to_date_str(raw)
        if value is None:
            self.problems.add(f"field {key!r}: unparseable date {raw!r:.40}", line=self.line)
        return value


class RecordExtractor(BaseExtractor):
    """Subclasses implement :meth:`render`; this class streams, ids and dates the records."""

    date_field = "date"
    #: at least one of these must hold text, else the record is skipped with a problem
    required: tuple[str, ...] = ()
    #: the first line says what the record is (a quote's words, an event's title and place),
    #: the lines under it only annotate one occurrence: records whose first lines match but
    #: for their dates are repeats of one thing, shown as one row (engine/rank/repeats.py)
    headline_names_record = False

    def extract(self, path: Path, source_file: str, problems: Problems) -> Iterator[Chunk]:
        seen_ids: set[str] = set()
        for line, _, record in iter_jsonl(path, problems):
            try:
                chunk = self._record_chunk(source_file, line, record, seen_ids, problems)
            except ELEMENT_ERRORS as exc:  # one bad record never fails the file
                problems.add(f"record unreadable ({type(exc).__name__}); skipped", line=line)
                continue
            if chunk is not None:
                yield chunk

    def _record_chunk(self, source_file: str, line: int, record: dict[str, Any],
                      seen_ids: set[str], problems: Problems) -> Chunk | None:
        f = Fields(record, problems, line)
        if self.required and not any(f.text(k) for k in self.required):
            problems.add(f"record has no {' / '.join(self.required)} text; skipped",
                         line=line)
            return None
        rendered = self.render(f)
        if rendered is None:
            return None
        content, metadata = rendered
        chunk_id = self._chunk_id(source_file, record, line, seen_ids, problems)
        content_date, raw_date = self.content_date(f)
        ts = iso_timestamp(raw_date) if content_date else None
        meta: dict[str, Any] = {"line": line}
        if isinstance(record.get("id"), str | int) and not isinstance(record["id"], bool):
            meta["record_id"] = str(record["id"])
        if content_date:
            meta["date"] = content_date
        if ts:
            meta["timestamp"] = ts
        meta.update({k: v for k, v in metadata.items() if v not in (None, "", [])})
        return make_chunk(chunk_id, source_file, self.source_type, content, meta,
                          content_date)

    def _chunk_id(self, source_file: str, record: dict[str, Any], line: int,
                  seen: set[str], problems: Problems) -> str:
        rid = record.get("id")
        if isinstance(rid, str | int) and not isinstance(rid, bool):
            key = clean_text(str(rid)).strip()
            if key and key not in seen:
                seen.add(key)
                return f"{source_file}#{key}"
            if key:
                problems.add(f"duplicate id {key!r}; chunk id uses the line number", line=line)
        key = f"L{line}"
        n = 1
        while key in seen:  # only if an earlier record's own id was literally "L<line>"
            key = f"L{line}.{n}"
            n += 1
        seen.add(key)
        return f"{source_file}#{key}"

    def content_date(self, f: Fields) -> tuple[str | None, Any]:
        """(YYYY-MM-DD, the raw value it came from)."""
        return f.date(self.date_field), f.record.get(self.date_field)

    def render(self, f: Fields) -> tuple[str, dict[str, Any]] | None:
        raise NotImplementedError


def _lines(*parts: str | None) -> str:
    return "\n".join(p for p in parts if p)


def _label(label: str, value: str | None) -> str | None:
    return f"{label}: {value}" if value else None


def _join(items: list[str]) -> str | None:
    return ", ".join(items) if items else None


class EmailCatalogExtractor(RecordExtractor):
    """``data/email/catalog/<name>.jsonl``: id, date, from, to, subject, summary, tags[]."""

    source_type = "email_catalog"
    required = ("subject", "summary")

    def render(self, f: Fields) -> tuple[str, dict[str, Any]]:
        sender = f.text("from") or "unknown sender"
        to = f.list("to")
        subject, summary, tags = f.text("subject"), f.text("summary"), f.list("tags")
        head = f"Email from {sender}"
        if to:
            head += f" to {', '.join(to)}"
        day = f.date("date")
        if day:
            head += f" on {day}"
        head += f" — Subject: {subject or '(no subject)'}"
        content = _lines(head, summary, _label("Tags", _join(tags)))
        return content, {"from": f.text("from"), "to": to, "subject": subject, "tags": tags}


class EventExtractor(RecordExtractor):
    """``data/photos/events.jsonl``: id, date, title, location, people[], description,
    photo_count."""

    source_type = "event"
    required = ("title", "description")
    headline_names_record = True

    def render(self, f: Fields) -> tuple[str, dict[str, Any]]:
        title, location = f.text("title"), f.text("location")
        people, description = f.list("people"), f.text("description")
        count = f.number("photo_count")
        head = f"Photo event: {title or '(untitled)'}"
        day = f.date("date")
        if day:
            head += f" — {day}"
        if location:
            head += f" at {location}"
        content = _lines(head, _label("People", _join(people)), description,
                         _label("Photos", fmt_dec(count) if count is not None else None))
        return content, {"title": title, "location": location, "people": people,
                         "photo_count": count}


class CheckinExtractor(RecordExtractor):
    """``data/health/checkins.jsonl``: date, mood (1-10), energy (1-10), sleep_quality, notes."""

    source_type = "checkin"

    def render(self, f: Fields) -> tuple[str, dict[str, Any]] | None:
        mood, energy = f.number("mood"), f.number("energy")
        sleep: Any = f.number("sleep_quality") if _is_numeric(f.record.get("sleep_quality")) \
            else f.text("sleep_quality")
        notes = f.text("notes")
        if mood is None and energy is None and sleep is None and not notes:
            f.problems.add("check-in has no mood, energy, sleep_quality or notes; skipped",
                           line=f.line)
            return None
        parts = []
        if mood is not None:
            parts.append(f"mood {fmt_dec(mood)}/10")
        if energy is not None:
            parts.append(f"energy {fmt_dec(energy)}/10")
        if isinstance(sleep, int | float):
            parts.append(f"sleep quality {fmt_dec(sleep)}/10")
        elif sleep:
            parts.append(f"sleep quality {sleep}")
        head = f"Daily check-in {f.date('date') or '(undated)'}"
        if parts:
            head += ": " + ", ".join(parts)
        return _lines(head, notes), {"mood": mood, "energy": energy, "sleep_quality": sleep}


def _is_numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return False
        return True
    return False


class ExperimentExtractor(RecordExtractor):
    """``data/health/experiments.jsonl``: id, name, start, end, hypothesis, protocol, result,
    status. content_date: ``start`` (else ``end``)."""

    source_type = "experiment"
    date_field = "start"
    required = ("name", "hypothesis", "protocol", "result")

    def render(self, f: Fields) -> tuple[str, dict[str, Any]]:
        name, status = f.text("name"), f.text("status")
        start, end = f.date("start"), f.date("end")
        head = f"Experiment: {name or '(unnamed)'}"
        span = f"{start or '?'} → {end or 'ongoing'}" if (start or end) else None
        paren = ", ".join(p for p in (status, span) if p)
        if paren:
            head += f" ({paren})"
        content = _lines(head, _label("Hypothesis", f.text("hypothesis")),
                         _label("Protocol", f.text("protocol")),
                         _label("Result", f.text("result")))
        return content, {"name": name, "status": status, "start": start, "end": end}

    def content_date(self, f: Fields) -> tuple[str | None, Any]:
        if f.date("start"):
            return f.date("start"), f.record.get("start")
        return f.date("end"), f.record.get("end")


class JournalExtractor(RecordExtractor):
    """``data/journal/<year>.jsonl``: id, date, title, text, tags[], location."""

    source_type = "journal"
    required = ("text", "title")

    def render(self, f: Fields) -> tuple[str, dict[str, Any]]:
        title, location, tags = f.text("title"), f.text("location"), f.list("tags")
        head = f"Journal — {f.date('date') or '(undated)'}"
        if title:
            head += f": {title}"
        content = _lines(head, f.text("text"), _label("Tags", _join(tags)),
                         _label("Location", location))
        return content, {"title": title, "tags": tags, "location": location}


class QuoteExtractor(RecordExtractor):
    """``data/identity/quotes.jsonl``: id, date, text, context, source."""

    source_type = "quote"
    required = ("text",)
    headline_names_record = True

    def render(self, f: Fields) -> tuple[str, dict[str, Any]]:
        source, context = f.text("source"), f.text("context")
        content = _lines(f"Quote: \"{f.text('text')}\"", _label("Source", source),
                         _label("Context", context))
        return content, {"source": source}


class ObservationExtractor(RecordExtractor):
    """``data/identity/observations.jsonl``: id, date, observation, category, evidence."""

    source_type = "observation"
    required = ("observation",)

    def render(self, f: Fields) -> tuple[str, dict[str, Any]]:
        category = f.text("category")
        head = f"Observation ({category}): " if category else "Observation: "
        content = _lines(head + (f.text("observation") or ""),
                         _label("Evidence", f.text("evidence")))
        return content, {"category": category}


class StoryExtractor(RecordExtractor):
    """``data/identity/stories.jsonl``: id, date, title, story, people[]."""

    source_type = "story"
    required = ("story",)

    def render(self, f: Fields) -> tuple[str, dict[str, Any]]:
        title, people = f.text("title"), f.list("people")
        content = _lines(f"Story: {title or '(untitled)'}", f.text("story"),
                         _label("People", _join(people)))
        return content, {"title": title, "people": people}


class InterviewExtractor(RecordExtractor):
    """``data/interviews/<session>.jsonl``: session_id, date, question, answer."""

    source_type = "interview"
    required = ("answer",)

    def render(self, f: Fields) -> tuple[str, dict[str, Any]]:
        session = f.text("session_id")
        head = "Interview"
        if session:
            head += f" {session}"
        day = f.date("date")
        if day:
            head += f" ({day})"
        content = _lines(head, f"Q: {f.text('question') or '(no question)'}",
                         f"A: {f.text('answer')}")
        return content, {"session_id": session, "question": f.text("question")}


class PodcastDigestExtractor(RecordExtractor):
    """``data/podcasts/digests.jsonl``: date, podcast, episode, digest, takeaways[]."""

    source_type = "podcast_digest"
    required = ("digest",)

    def render(self, f: Fields) -> tuple[str, dict[str, Any]]:
        podcast, episode = f.text("podcast"), f.text("episode")
        takeaways = f.list("takeaways", split=False)
        head = f"Podcast digest — {podcast or '(unknown podcast)'}"
        if episode:
            head += f": {episode}"
        day = f.date("date")
        if day:
            head += f" ({day})"
        body = [head, f.text("digest")]
        if takeaways:
            body.append("Takeaways:\n" + "\n".join(f"- {t}" for t in takeaways))
        return _lines(*body), {"podcast": podcast, "episode": episode}
