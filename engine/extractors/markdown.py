"""Markdown source types: one heading-based chunker shared by all of them.

A file is optional YAML frontmatter (``---`` … ``---`` at the very top) plus a body. The body is
cut at ATX headings (``#`` … ``######``, never inside fenced code). Section ``#0`` is the text
before the first heading; ``#1``, ``#2`` … are the headings in document order, numbered whether
or not their section has text, so a number keeps naming the same heading. Each non-empty
section becomes a chunk whose content starts with its heading-path line; a section longer than
:data:`SECTION_MAX_CHARS` is split at paragraph boundaries into parts ``#sN.1``, ``#sN.2`` ….
In a note of many short sections (a log written as headings) neighbouring short sections are
packed into one chunk ``#sN`` (N its first section), each keeping its heading as a line:
:func:`pack_sections`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from .base import BaseExtractor, Chunk, Problems
from .bounds import FIELD_MAX_CHARS, short, shrink
from .common import (
    date_from_filename,
    iso_timestamp,
    json_safe,
    make_chunk,
    mtime_date,
    to_date_str,
)
from .frontmatter import split_frontmatter
from .reading import read_text
from .splitting import code_lines, split_section

SECTION_MAX_CHARS = 2000
PATH_SEPARATOR = " > "
HEADING_LINE_MAX_CHARS = 2 * FIELD_MAX_CHARS
FRONTMATTER_META_MAX_CHARS = 2048  # of JSON, copied into each chunk (frontmatter filters)
# Packing short sections (docs/design.md, "Chunking"). A chunk has a fixed cost whatever its
# text (a vector, FTS rows, the note's metadata and frontmatter): 1,000 sections of 30
# characters were 1,000 chunks, 100x the note. A section under a quarter of SECTION_MAX_CHARS
# (~80 words) is a poor retrieval unit alone, so it is packed with its short neighbours up to
# SECTION_MAX_CHARS, the size of a long section's part; a longer section stays its own chunk.
# Only a note that would otherwise be dense is packed: more than MERGE_FREE_CHUNKS chunks and
# more than one per MERGE_CHARS_PER_CHUNK characters of file. Ordinary notes (a handful of
# sections: the demo root and the bench collections have at most 6 chunks a note) and notes of
# full-size sections chunk exactly as before, so their ids, vectors and figures do not move.
SHORT_SECTION_CHARS = SECTION_MAX_CHARS // 4
MERGE_FREE_CHUNKS = 16
MERGE_CHARS_PER_CHUNK = SECTION_MAX_CHARS // 2

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_WIKILINK = re.compile(r"\[\[[^\[\]\n]*\]\]")  # no "[" inside: one scan per "[["
_MD_LINK_TARGET = re.compile(r"\]\([^()\]\s]*\)")  # no "](" inside: linear
_INLINE_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
_TAG_HAS_LETTER = re.compile(r"[^\W\d]")  # #1985 or #2024-01 is not a tag; #y-1985 is


# --------------------------------------------------------------------------- parsing


@dataclass
class Section:
    number: int
    path: list[str]
    lines: list[str] = field(default_factory=list)


@dataclass
class MarkdownDoc:
    frontmatter: dict[str, Any]
    sections: list[Section]
    first_h1: str | None
    body_lines: list[str]
    fenced: list[bool]  # per body line: inside a fenced code block (fence lines included)


def parse_markdown(text: str, problems: Problems) -> MarkdownDoc:
    frontmatter, body = split_frontmatter(text, problems)
    body_lines = body.split("\n")
    sections = [Section(0, [])]
    stack: list[tuple[int, str]] = []
    fenced: list[bool] = []
    first_h1: str | None = None
    number = 0
    for line, in_code in code_lines(body_lines):
        fenced.append(in_code)
        if in_code:
            sections[-1].lines.append(line)
            continue
        h = _HEADING.match(line)
        if h:
            level = len(h.group(1))
            title = _CLOSING_HASHES.sub("", h.group(2) or "").strip()
            if level == 1 and first_h1 is None and title:
                first_h1 = title
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            number += 1
            sections.append(Section(number, [t for _, t in stack]))
            continue
        sections[-1].lines.append(line)
    return MarkdownDoc(frontmatter, sections, first_h1, body_lines, fenced)


def _flat(value: Any) -> str:
    """A frontmatter value as one line of text: a list's items joined, a mapping as JSON."""
    if isinstance(value, list):
        return ", ".join(_flat(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


# --------------------------------------------------------------------------- tags


def _norm_tag(tag: str) -> str:
    return tag.strip().lstrip("#").strip().rstrip("/")


def frontmatter_tags(frontmatter: dict[str, Any]) -> list[str]:
    """``tags`` (or ``tag``): a list, or a string of comma/space-separated tags; '#' stripped."""
    raw = frontmatter.get("tags", frontmatter.get("tag"))
    items: list[Any]
    if raw is None:
        return []
    if isinstance(raw, str):
        items = re.split(r"[,\s]+", raw)
    elif isinstance(raw, list | tuple):
        items = []
        for item in raw:
            if isinstance(item, str):
                items.extend(re.split(r"[,\s]+", item))
            elif isinstance(item, int | float) and not isinstance(item, bool):
                items.append(str(item))
    elif isinstance(raw, int | float) and not isinstance(raw, bool):
        items = [str(raw)]
    else:
        return []
    return [t for t in (_norm_tag(str(i)) for i in items) if t]


def inline_tags(doc: MarkdownDoc) -> list[str]:
    """``#tag`` / ``#nested/tag`` in the body: not in code, links, or after a backslash;
    a heading's ``#`` markers are not tags, nor is ``#1985`` (a tag needs a letter or ``_``)."""
    found: list[str] = []
    for line, in_fence in zip(doc.body_lines, doc.fenced, strict=True):
        if in_fence or "#" not in line:
            continue
        h = _HEADING.match(line)
        if h:
            line = h.group(2) or ""
        line = _INLINE_CODE.sub(" ", line)
        line = _WIKILINK.sub(" ", line)
        line = _MD_LINK_TARGET.sub("] ", line)
        for m in _INLINE_TAG.finditer(line):
            tag = _norm_tag(m.group(1))
            if _TAG_HAS_LETTER.search(tag):
                found.append(tag)
    return found


def dedupe_tags(tags: list[str]) -> list[str]:
    """First spelling wins; comparison is case-insensitive."""
    seen: set[str] = set()
    out = []
    for tag in tags:
        key = tag.casefold()
        if key not in seen:
            seen.add(key)
            out.append(tag)
    return out


# --------------------------------------------------------------------------- packing


@dataclass
class _Unit:
    """A section with text: its parts as chunks of their own, and its heading line when it
    is packed after another section."""

    section: Section
    shown: list[str]  # its heading path, each heading shortened as chunks repeat it
    parts: list[str]  # its body, split at SECTION_MAX_CHARS
    line: str  # its heading line inside packed sections (MarkdownExtractor._inner_line)
    whole_heading: bool  # its heading is not shortened (a long one stays in its own chunk)
    size: int = field(init=False)  # of merged_text()
    short: bool = field(init=False)

    def __post_init__(self) -> None:
        self.size = len(self.line) + 2 + len(self.parts[0]) if self.line else len(self.parts[0])
        self.short = (len(self.parts) == 1 and self.whole_heading
                      and self.size < SHORT_SECTION_CHARS)

    def merged_text(self) -> str:
        """Its text after another section in a packed chunk: its heading line, then body."""
        return f"{self.line}\n\n{self.parts[0]}" if self.line else self.parts[0]


def pack_sections(units: list[_Unit], text_chars: int) -> list[list[_Unit]]:
    """The chunks of a note as groups of sections: one section each, unless the note is dense
    (more than MERGE_FREE_CHUNKS chunks and more than one per MERGE_CHARS_PER_CHUNK characters
    of its ``text_chars``); then runs of short neighbours are packed in file order while the
    packed text stays within SECTION_MAX_CHARS. A section that is not short is never packed."""
    chunks = sum(len(u.parts) for u in units)
    if chunks <= max(MERGE_FREE_CHUNKS, text_chars // MERGE_CHARS_PER_CHUNK):
        return [[u] for u in units]
    groups: list[list[_Unit]] = []
    size = 0  # of the last group's text after its first heading line
    for unit in units:
        if (unit.short and groups and groups[-1][0].short
                and size + 2 + unit.size <= SECTION_MAX_CHARS):
            groups[-1].append(unit)
            size += 2 + unit.size
        else:
            groups.append([unit])
            size = len(unit.parts[0])
    return groups


# --------------------------------------------------------------------------- extractor


class MarkdownExtractor(BaseExtractor):
    """The shared heading-based chunker; subclasses set ``source_type`` and extras."""

    collect_inline_tags = False  # notes also collect #tags written in the body
    date_keys: tuple[str, ...] = ("date", "created")

    def extract(self, path: Path, source_file: str, problems: Problems) -> Iterator[Chunk]:
        text = read_text(path, problems)
        if not text.strip():
            return
        doc = parse_markdown(text, problems)
        fm = doc.frontmatter
        full_title = self.title(fm, doc, path)
        title = short(full_title)
        tags = frontmatter_tags(fm)
        if self.collect_inline_tags:
            tags += inline_tags(doc)
        tags = dedupe_tags(tags)
        content_date, timestamp = self.content_date(fm, path, problems)
        base: dict[str, Any] = {"title": title, "frontmatter": self._kept_frontmatter(fm, problems),
                                "tags": tags}
        if timestamp:
            base["timestamp"] = timestamp
        base.update(self.extra_metadata(path, source_file, fm))
        long_headings = yielded = 0
        units: list[_Unit] = []
        for section in doc.sections:
            body = "\n".join(section.lines).strip("\n")
            # a title or heading that chunks repeat is shortened there; its whole text is
            # indexed once: a long frontmatter title (or file name) at the top of #0, a long
            # heading in its own section's first chunk
            if not section.path and title != full_title and full_title != doc.first_h1:
                body = f"{full_title}\n\n{body}" if body.strip() else full_title
                long_headings += 1
            if not body.strip():
                continue
            shown = [short(p) for p in section.path]
            cut_heading = shown[-1:] != section.path[-1:]
            long_headings += cut_heading
            units.append(_Unit(section, shown, split_section(body, SECTION_MAX_CHARS),
                               self._inner_line(title, full_title, shown), not cut_heading))
        for group in pack_sections(units, len(text)):
            first = group[0]
            section, shown, parts = first.section, first.shown, first.parts
            if len(group) > 1:  # short neighbours: one chunk, each heading a line of it
                meta = {**base, "section_path": shown, "section": section.number,
                        "sections": [section.number, group[-1].section.number]}
                text_of = "\n\n".join([first.parts[0], *(u.merged_text() for u in group[1:])])
                yield make_chunk(f"{source_file}#s{section.number}", source_file,
                                 self.source_type,
                                 f"{self.heading_line(title, shown, full_title)}\n\n{text_of}",
                                 meta, content_date)
                yielded += 1
                continue
            for k, part in enumerate(parts, start=1):
                own = [*shown[:-1], *section.path[-1:]] if k == 1 else shown
                heading_line = self.heading_line(title, own, full_title)
                meta = dict(base)
                meta["section_path"] = shown
                meta["section"] = section.number
                suffix = f"s{section.number}"
                if len(parts) > 1:
                    meta["part"] = k
                    suffix += f".{k}"
                yield make_chunk(f"{source_file}#{suffix}", source_file, self.source_type,
                                 f"{heading_line}\n\n{part}", meta, content_date)
                yielded += 1
        if not yielded:  # only headings or only frontmatter: the note is those (a to-do
            # written as one heading line is found like any other note)
            meta = {**base, "section_path": [], "section": 0}
            yield make_chunk(f"{source_file}#s0", source_file, self.source_type,
                             self._outline(doc, fm, title, full_title), meta, content_date)
        if long_headings:
            problems.cut(f"{long_headings:,} title or heading(s) over {FIELD_MAX_CHARS} "
                         "characters shortened where each chunk repeats them (the whole text "
                         "is indexed once, in its section)")

    def _outline(self, doc: MarkdownDoc, fm: dict[str, Any], title: str,
                 full_title: str) -> str:
        """A note without a line of text: its headings, one heading line each (the title
        alone when it has none), then its frontmatter as ``key: value`` lines."""
        lines = [self.heading_line(title, [short(p) for p in s.path], full_title)
                 for s in doc.sections if s.path] or [self.heading_line(title, [], full_title)]
        props = [f"{key}: {_flat(value)}" for key, value in json_safe(fm).items()]
        return "\n".join(lines) + ("\n\n" + "\n".join(props) if props else "")

    @staticmethod
    def _kept_frontmatter(fm: dict[str, Any], problems: Problems) -> dict[str, Any]:
        """The frontmatter each chunk carries: all of it up to FRONTMATTER_META_MAX_CHARS of
        JSON, else its leading keys, values shortened (a 100 KB title is not copied 1,000
        times)."""
        kept = json_safe(fm)
        size = len(json.dumps(kept, ensure_ascii=False))
        if size <= FRONTMATTER_META_MAX_CHARS:
            return kept
        kept = shrink(kept, FRONTMATTER_META_MAX_CHARS)
        problems.cut(f"frontmatter is {size:,} characters of JSON: each chunk keeps "
                     f"{len(kept):,} of its {len(fm):,} key(s), long values shortened "
                     f"(filters see those)")
        return kept

    # -- overridable pieces -----------------------------------------------------------

    @staticmethod
    def title(fm: dict[str, Any], doc: MarkdownDoc, path: Path) -> str:
        value = fm.get("title")
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        return doc.first_h1 or path.stem

    @staticmethod
    def heading_line(title: str, section_path: list[str], full_title: str | None = None) -> str:
        """The note title, then the heading path (the title is not repeated when the first
        heading is the title). Past HEADING_LINE_MAX_CHARS (six long headings) it keeps the
        first and the last, the last as given: whole in its own section's first chunk."""
        parts = [p for p in section_path if p]
        if not parts or parts[0] not in (title, full_title):
            parts = [title, *parts]
        line = PATH_SEPARATOR.join(parts)
        if len(line) > HEADING_LINE_MAX_CHARS and len(parts) > 2:
            line = PATH_SEPARATOR.join((short(parts[0], FIELD_MAX_CHARS // 2), "…", parts[-1]))
        return line

    @staticmethod
    def _inner_line(title: str, full_title: str, section_path: list[str]) -> str:
        """A section's heading line inside a chunk of packed sections: its heading path
        without the note title (the chunk's first line has it), so 1,000 sections do not
        repeat the title 1,000 times; "" for #0 or an empty heading."""
        parts = [p for p in section_path if p]
        while len(parts) > 1 and parts[0] in (title, full_title):
            parts = parts[1:]
        return PATH_SEPARATOR.join(parts)

    def content_date(self, fm: dict[str, Any], path: Path,
                     problems: Problems) -> tuple[str | None, str | None]:
        for key in self.date_keys:
            raw = fm.get(key)
            if raw in (None, ""):
                continue
            day = to_date_str(raw)
            if day:
                ts = raw.isoformat() if isinstance(raw, datetime) else (
                    None if isinstance(raw, date) else iso_timestamp(raw))
                return day, ts
            problems.add(f"frontmatter {key!r}: unparseable date {raw!r:.40}")
        return date_from_filename(path.name) or mtime_date(path), None

    def extra_metadata(self, path: Path, source_file: str, fm: dict[str, Any]) -> dict[str, Any]:
        return {}


class MarkdownTranscriptExtractor(MarkdownExtractor):
    """``data/identity/transcripts/*.md``."""

    source_type = "transcript"


class BoardSummaryExtractor(MarkdownExtractor):
    """``data/board/*.md``."""

    source_type = "board_summary"


class EntityFileExtractor(MarkdownExtractor):
    """``memory/entities/{people,projects,topics}/*.md``; metadata ``entity_type``."""

    source_type = "entity_file"
    _KINDS = {"people": "person", "projects": "project", "topics": "topic"}

    def extra_metadata(self, path: Path, source_file: str, fm: dict[str, Any]) -> dict[str, Any]:
        folder = Path(source_file).parent.name
        return {"entity_type": self._KINDS.get(folder, folder)}


class RwgpsMemoryExtractor(MarkdownExtractor):
    """``memory/rwgps/*.md`` (and, as a dynamic subclass, ``memory/codebase/*.md``)."""

    source_type = "rwgps_memory"


# The codebase_doc extractor is the rwgps one under another source type (same layout).
CodebaseDocExtractor: type[RwgpsMemoryExtractor] = type(
    "CodebaseDocExtractor", (RwgpsMemoryExtractor,),
    {"source_type": "codebase_doc", "__doc__": "``memory/codebase/*.md``.",
     "__module__": __name__})


class ScratchExtractor(MarkdownExtractor):
    """``memory/scratch/<YYYY-MM-DD>.md`` or ``<YYYY>-W<ww>.md`` (dated by the week's Monday)."""

    source_type = "scratch"


class NoteExtractor(MarkdownExtractor):
    """``notes/**/*.md``: a vault. Tags also from inline ``#tags``; metadata ``folder``."""

    source_type = "note"
    collect_inline_tags = True

    def extra_metadata(self, path: Path, source_file: str, fm: dict[str, Any]) -> dict[str, Any]:
        rel = source_file[len("notes/"):] if source_file.startswith("notes/") else source_file
        parent = Path(rel).parent.as_posix()
        return {"folder": "" if parent == "." else parent}
