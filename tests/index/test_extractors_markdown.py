"""Markdown extractors: heading sections, frontmatter, tags, dates, splitting, broken input."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from engine.extractors import Chunk, Problems, get_extractor
from engine.extractors.markdown import SECTION_MAX_CHARS
from engine.extractors.splitting import split_section


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def run(source_type: str, root: Path, rel: str) -> tuple[list[Chunk], Problems]:
    problems = Problems()
    chunks = list(get_extractor(source_type).extract(root / rel, rel, problems))
    for c in chunks:
        assert c.source_type == source_type and c.source_file == rel
        json.dumps(c.metadata)
        assert "\x00" not in c.content
    assert len({c.id for c in chunks}) == len(chunks)
    return chunks, problems


NOTE = """\
---
title: Route importer
date: 2026-03-10
created: 2026-01-02T08:30:00
tags: [project/alpha, "#planning"]
status: active
priority: 0
aliases:
  - GPX importer
---
Quick context: parsing GPX and FIT files. #inbox #project/alpha

# Route importer

## Goals ##

- Import GPX with elevation
- Keep it under 200 ms per file #perf

```python
# not a heading
color = "#fff"  # not a tag
```

## Open questions

### Formats

Is TCX worth it? See [[Formats#TCX]] and [the spec](https://example.org/spec#tcx).
Price is \\#1 concern; the year #1985 is not a tag, but #y-1985 is. Use `#notatag` in code.
Nested #area/maps/tiles/ tag.

## Empty heading

## Log

2026-03-12: first prototype works.
"""


def test_note_sections_paths_numbers(tmp_path):
    rel = "notes/Projects/Alpha/route-importer.md"
    write(tmp_path, rel, NOTE)
    chunks, problems = run("note", tmp_path, rel)
    assert problems == []
    assert [c.id for c in chunks] == [f"{rel}#s0", f"{rel}#s2", f"{rel}#s4", f"{rel}#s6"]
    assert [c.metadata["section"] for c in chunks] == [0, 2, 4, 6]
    assert [c.metadata["section_path"] for c in chunks] == [
        [],
        ["Route importer", "Goals"],
        ["Route importer", "Open questions", "Formats"],
        ["Route importer", "Log"],
    ]
    assert chunks[0].content == ("Route importer\n\n"
                                 "Quick context: parsing GPX and FIT files. #inbox #project/alpha")
    assert chunks[1].content == (
        "Route importer > Goals\n\n"
        "- Import GPX with elevation\n- Keep it under 200 ms per file #perf\n\n"
        '```python\n# not a heading\ncolor = "#fff"  # not a tag\n```')
    assert chunks[2].content.startswith("Route importer > Open questions > Formats\n\nIs TCX")
    assert chunks[3].content == "Route importer > Log\n\n2026-03-12: first prototype works."


def test_note_metadata_tags_frontmatter_folder_date(tmp_path):
    rel = "notes/Projects/Alpha/route-importer.md"
    write(tmp_path, rel, NOTE)
    chunks, _ = run("note", tmp_path, rel)
    meta = chunks[1].metadata
    assert meta["title"] == "Route importer"
    assert meta["folder"] == "Projects/Alpha"
    assert meta["tags"] == ["project/alpha", "planning", "inbox", "perf", "y-1985",
                            "area/maps/tiles"]
    assert meta["frontmatter"] == {
        "title": "Route importer", "date": "2026-03-10", "created": "2026-01-02T08:30:00",
        "tags": ["project/alpha", "#planning"], "status": "active", "priority": 0,
        "aliases": ["GPX importer"]}
    assert isinstance(meta["frontmatter"]["priority"], int)  # types kept for strict filters
    assert "part" not in meta
    assert {c.content_date for c in chunks} == {"2026-03-10"}
    # the same note-level metadata on every chunk
    assert all(c.metadata["tags"] == meta["tags"] for c in chunks)


def test_note_tags_as_string_and_created_date_and_top_folder(tmp_path):
    rel = "notes/inbox.md"
    write(tmp_path, rel, "---\ntags: \"reading, #books  later\"\ncreated: 2025-12-01 09:15\n---\n"
                         "Read *Deep Work*.\n")
    (chunk,), problems = run("note", tmp_path, rel)
    assert problems == []
    assert chunk.metadata["tags"] == ["reading", "books", "later"]
    assert chunk.metadata["folder"] == ""
    assert chunk.metadata["title"] == "inbox"
    assert chunk.content_date == "2025-12-01"
    assert chunk.metadata["timestamp"] == "2025-12-01T09:15:00"
    assert chunk.content == "inbox\n\nRead *Deep Work*."


def test_note_broken_frontmatter_reported_and_body_indexed(tmp_path):
    rel = "notes/Daily/2026-03-14.md"
    write(tmp_path, rel, "---\ntitle: [unclosed\ntags: x\n---\n# Saturday\n\nRode to the coast. "
                         "#cycling\n")
    (chunk,), problems = run("note", tmp_path, rel)
    assert len(problems) == 1
    assert problems[0].startswith("broken YAML frontmatter at frontmatter line ")
    assert problems[0].endswith("frontmatter ignored, body indexed")
    assert chunk.id == f"{rel}#s1"
    assert chunk.content == "Saturday\n\nRode to the coast. #cycling"
    assert chunk.metadata["frontmatter"] == {}
    assert chunk.metadata["title"] == "Saturday"
    assert chunk.metadata["tags"] == ["cycling"]
    assert chunk.metadata["folder"] == "Daily"
    assert chunk.content_date == "2026-03-14"  # file name


def test_note_frontmatter_not_a_mapping_and_bad_date(tmp_path):
    rel = "notes/list.md"
    write(tmp_path, rel, "---\n- a\n- b\n---\nBody text.\n")
    (chunk,), problems = run("note", tmp_path, rel)
    assert problems == ["frontmatter is not a mapping (got list); ignored"]
    assert chunk.content == "list\n\nBody text."
    rel = "notes/when.md"
    path = write(tmp_path, rel, "---\ndate: last tuesday\n---\nBody.\n")
    stamp = datetime(2025, 7, 1, 15, 0).timestamp()
    os.utime(path, (stamp, stamp))
    (chunk,), problems = run("note", tmp_path, rel)
    assert problems == ["frontmatter 'date': unparseable date 'last tuesday'"]
    assert chunk.content_date == "2025-07-01"  # mtime
    assert chunk.metadata["frontmatter"] == {"date": "last tuesday"}


def test_note_leading_rule_without_closing_is_not_frontmatter(tmp_path):
    rel = "notes/rule.md"
    write(tmp_path, rel, "---\nJust a rule above this text.\n")
    (chunk,), problems = run("note", tmp_path, rel)
    assert problems == []
    assert chunk.content == "rule\n\n---\nJust a rule above this text."
    assert chunk.metadata["frontmatter"] == {}


def test_note_frontmatter_only_and_empty_files(tmp_path):
    """A note of only frontmatter or only headings is one chunk of those; an empty one none."""
    write(tmp_path, "notes/fm.md", "---\ntitle: Only metadata\n---\n")
    (chunk,), problems = run("note", tmp_path, "notes/fm.md")
    assert (chunk.id, chunk.content, problems) == (
        "notes/fm.md#s0", "Only metadata\n\ntitle: Only metadata", [])
    write(tmp_path, "notes/empty.md", "")
    assert run("note", tmp_path, "notes/empty.md") == ([], [])
    write(tmp_path, "notes/headings.md", "# A\n## B\n")
    (chunk,), _ = run("note", tmp_path, "notes/headings.md")
    assert chunk.content == "A\nA > B" and chunk.metadata["section"] == 0


def test_note_invalid_utf8_and_nul(tmp_path):
    rel = "notes/bytes.md"
    write(tmp_path, rel, b"# Caf\xe9 notes\n\nEspresso\x00 first. #coffee\r\n")
    (chunk,), problems = run("note", tmp_path, rel)
    assert problems == ["not UTF-8; read as cp1252"]
    assert chunk.content == "Café notes\n\nEspresso first. #coffee"
    assert chunk.metadata["section_path"] == ["Café notes"]
    assert chunk.metadata["tags"] == ["coffee"]


def test_long_section_split_at_paragraphs(tmp_path):
    rel = "notes/long.md"
    paragraphs = [f"Paragraph {i}: " + ("lorem ipsum dolor sit amet " * 20).strip()
                  for i in range(12)]
    write(tmp_path, rel, "# Long\n\nIntro.\n\n## Essay\n\n" + "\n\n".join(paragraphs) + "\n")
    chunks, problems = run("note", tmp_path, rel)
    assert problems == []
    assert chunks[0].id == f"{rel}#s1"
    essay = chunks[1:]
    assert [c.id for c in essay] == [f"{rel}#s2.1", f"{rel}#s2.2", f"{rel}#s2.3",
                                     f"{rel}#s2.4"]
    assert [c.metadata["part"] for c in essay] == [1, 2, 3, 4]
    assert all(c.metadata["section"] == 2 for c in essay)
    assert all(c.metadata["section_path"] == ["Long", "Essay"] for c in essay)
    bodies = []
    for c in essay:
        head, body = c.content.split("\n\n", 1)
        assert head == "Long > Essay"
        assert len(body) <= SECTION_MAX_CHARS
        bodies.append(body)
    assert "\n\n".join(bodies) == "\n\n".join(paragraphs)  # cut only between paragraphs


def test_split_section_oversize_paragraph_and_fence():
    fence = "```\n" + "\n\n".join(f"line {i}" for i in range(10)) + "\n```"
    assert split_section(fence, limit=1000) == [fence]
    words = " ".join(f"w{i:04d}" for i in range(800))  # one 4,799-char paragraph
    parts = split_section(words, limit=2000)
    assert len(parts) == 3
    assert all(len(p) <= 2000 for p in parts)
    assert " ".join(parts) == words


def test_transcript_board_codebase_rwgps(tmp_path):
    cases = {
        "transcript": "data/identity/transcripts/2026-02-20-values.md",
        "board_summary": "data/board/2026-03-01.md",
        "codebase_doc": "memory/codebase/search.md",
        "rwgps_memory": "memory/rwgps/elevation.md",
    }
    text = ("---\ndate: 2026-02-20\n---\n# Session notes\n\n**Q:** What matters?\n\n"
            "**A:** Candor. #values\n")
    for source_type, rel in cases.items():
        write(tmp_path, rel, text)
        (chunk,), problems = run(source_type, tmp_path, rel)
        assert problems == []
        assert chunk.id == f"{rel}#s1"
        assert chunk.content == "Session notes\n\n**Q:** What matters?\n\n**A:** Candor. #values"
        assert chunk.metadata == {"title": "Session notes", "frontmatter": {"date": "2026-02-20"},
                                  "tags": [], "section_path": ["Session notes"], "section": 1}
        assert chunk.content_date == "2026-02-20"


def test_board_summary_date_from_filename(tmp_path):
    rel = "data/board/2026-03-01-monthly.md"
    write(tmp_path, rel, "## Decisions\n\n- Hire a designer\n\n## Risks\n\nRunway 14 months.\n")
    chunks, _ = run("board_summary", tmp_path, rel)
    assert [c.id for c in chunks] == [f"{rel}#s1", f"{rel}#s2"]
    assert chunks[0].content == "2026-03-01-monthly > Decisions\n\n- Hire a designer"
    assert chunks[1].metadata["section_path"] == ["Risks"]
    assert {c.content_date for c in chunks} == {"2026-03-01"}


@pytest.mark.parametrize("folder,kind", [("people", "person"), ("projects", "project"),
                                         ("topics", "topic")])
def test_entity_file(tmp_path, folder, kind):
    rel = f"memory/entities/{folder}/maya-chen.md"
    write(tmp_path, rel, "---\ntitle: Maya Chen\ntags: [family]\n---\nSister, climber.\n\n"
                         "## Notes\n\nMoved to Oakland in 2025.\n")
    chunks, problems = run("entity_file", tmp_path, rel)
    assert problems == []
    assert [c.id for c in chunks] == [f"{rel}#s0", f"{rel}#s1"]
    assert chunks[0].content == "Maya Chen\n\nSister, climber."
    assert chunks[1].content == "Maya Chen > Notes\n\nMoved to Oakland in 2025."
    assert chunks[1].metadata["entity_type"] == kind
    assert chunks[1].metadata["tags"] == ["family"]


def test_scratch_daily_and_weekly_dates(tmp_path):
    write(tmp_path, "memory/scratch/2026-03-14.md", "- call Maya\n- fix GPX bug #todo\n")
    write(tmp_path, "memory/scratch/2026-W11.md", "# Week 11\n\nFocus: importer.\n")
    (daily,), _ = run("scratch", tmp_path, "memory/scratch/2026-03-14.md")
    (weekly,), _ = run("scratch", tmp_path, "memory/scratch/2026-W11.md")
    assert daily.content_date == "2026-03-14"
    assert daily.content == "2026-03-14\n\n- call Maya\n- fix GPX bug #todo"
    assert daily.metadata["tags"] == []  # inline tags are collected for notes only
    assert weekly.content_date == "2026-03-09"
    assert weekly.id == "memory/scratch/2026-W11.md#s1"


def test_markdown_ids_and_hashes_are_stable_across_reads(tmp_path):
    rel = "notes/Projects/Alpha/route-importer.md"
    path = write(tmp_path, rel, NOTE)
    first, _ = run("note", tmp_path, rel)
    os.utime(path, (1, 1))  # mtime does not enter ids or hashes
    second, _ = run("note", tmp_path, rel)
    assert [(c.id, c.content_hash) for c in first] == [(c.id, c.content_hash) for c in second]
    # editing one section changes only that chunk's hash
    write(tmp_path, rel, NOTE.replace("first prototype works", "second prototype works"))
    third, _ = run("note", tmp_path, rel)
    changed = [a.id for a, b in zip(first, third, strict=True) if a.content_hash != b.content_hash]
    assert changed == [f"{rel}#s6"]


# --------------------------------------------------------------------------- short sections


def dense_note(count: int = 1000) -> str:
    """``count`` sections of about 30 characters each: a log written as headings."""
    return "".join(f"## h{i}\nshort line number {i:04d}\n" for i in range(1, count + 1))


def heading_lines(chunk: Chunk) -> set[str]:
    """The last heading of each heading line of a chunk (its first line, then merged ones)."""
    return {line.rsplit(" > ", 1)[-1] for line in chunk.content.split("\n") if line}


def test_many_tiny_sections_merge_into_few_chunks(tmp_path):
    """1,000 sections of ~30 characters were 1,000 chunks (100x the note in the index); short
    neighbours are packed up to SECTION_MAX_CHARS, each keeping its heading as a line."""
    from engine.extractors.markdown import parse_markdown
    from engine.index.data_files import section_text

    rel = "notes/log.md"
    text = dense_note()
    write(tmp_path, rel, text)
    chunks, problems = run("note", tmp_path, rel)
    sections = parse_markdown(text, Problems()).sections  # what section_text reads, once
    assert problems == []
    assert 1 <= len(chunks) <= len(text) // 1024  # at most one chunk per KB of the note
    covered = []
    for chunk in chunks:
        first, last = chunk.metadata["sections"]
        assert chunk.id == f"{rel}#s{first}" and chunk.metadata["section"] == first
        assert "part" not in chunk.metadata
        body = chunk.content.split("\n\n", 1)[1]
        assert len(body) <= SECTION_MAX_CHARS
        # the numbering read_note(path, section) uses
        assert chunk.metadata["section_path"] == section_text(text, first, rel)[1] == [f"h{first}"]
        assert section_text(text, last, rel)[0] in chunk.content
        for s in sections[first:last + 1]:
            assert "\n".join(s.lines).strip("\n") in chunk.content
            assert s.path[-1] in heading_lines(chunk)
        covered += range(first, last + 1)
    assert covered == list(range(1, 1001))  # every section in exactly one chunk, in order
    assert chunks[0].content.startswith("log > h1\n\nshort line number 0001\n\nh2\n\n")
    every_line = {line for c in chunks for line in heading_lines(c)}
    assert {f"h{i}" for i in range(1, 1001)} <= every_line


def test_merged_chunks_stable_and_an_edit_changes_only_its_chunk(tmp_path):
    rel = "notes/log.md"
    write(tmp_path, rel, dense_note())
    first, _ = run("note", tmp_path, rel)
    second, _ = run("note", tmp_path, rel)
    assert [(c.id, c.content_hash) for c in first] == [(c.id, c.content_hash) for c in second]
    write(tmp_path, rel, dense_note().replace("number 0500", "NUMBER 0500"))
    third, _ = run("note", tmp_path, rel)
    assert [c.id for c in third] == [c.id for c in first]
    changed = [a for a, b in zip(first, third, strict=True) if a.content_hash != b.content_hash]
    assert len(changed) == 1
    lo, hi = changed[0].metadata["sections"]
    assert lo <= 500 <= hi


def test_notes_with_ordinary_sections_chunk_exactly_as_before(tmp_path):
    """A handful of short sections (most notes), or many sections of a useful size: one chunk
    per section, ids, texts and metadata as they always were."""
    rel = "notes/few.md"
    text = "# Few\n\n" + "".join(f"## s{i}\nA short section {i}.\n\n" for i in range(2, 17))
    write(tmp_path, rel, text)
    chunks, _ = run("note", tmp_path, rel)
    assert [c.id for c in chunks] == [f"{rel}#s{i}" for i in range(2, 17)]
    assert [c.content for c in chunks] == [f"Few > s{i}\n\nA short section {i}." for i in
                                           range(2, 17)]
    assert all("sections" not in c.metadata for c in chunks)

    rel = "notes/essays.md"
    bodies = [f"Essay {i}: " + ("words of a real paragraph " * 24).strip() for i in range(40)]
    assert all(SECTION_MAX_CHARS // 4 <= len(b) <= SECTION_MAX_CHARS for b in bodies)
    write(tmp_path, rel, "".join(f"## e{i}\n\n{b}\n\n" for i, b in enumerate(bodies)))
    chunks, _ = run("note", tmp_path, rel)
    assert [c.id for c in chunks] == [f"{rel}#s{i + 1}" for i in range(40)]
    assert [c.content for c in chunks] == [f"essays > e{i}\n\n{b}" for i, b in enumerate(bodies)]
    assert [c.metadata["section_path"] for c in chunks] == [[f"e{i}"] for i in range(40)]
    assert all("sections" not in c.metadata for c in chunks)


def test_long_sections_next_to_tiny_ones_stay_whole_and_merges_stay_under_the_max(tmp_path):
    rel = "notes/mixed.md"
    tiny = "".join(f"## t{i}\n{'tiny text ' * 40}\n" for i in range(1, 101))  # ~420 chars each
    middle = ("A section of a useful size. " * 30).strip()  # 839 characters: not short
    huge = "\n\n".join(f"Paragraph {i}: " + ("lorem ipsum dolor sit amet " * 20).strip()
                         for i in range(8))
    text = f"# Mixed\n\n{tiny}## Middle\n\n{middle}\n\n{tiny}## Huge\n\n{huge}\n\n{tiny}"
    write(tmp_path, rel, text)
    chunks, _ = run("note", tmp_path, rel)
    assert len(chunks) <= len(text) // 1024 + 4
    by_id = {c.id.rpartition("#")[2]: c for c in chunks}
    middle_chunk = by_id["s102"]  # 1 title + 100 tiny, then Middle
    assert middle_chunk.content == f"Mixed > Middle\n\n{middle}"
    assert "sections" not in middle_chunk.metadata
    huge_parts = [c for c in chunks if c.id.startswith(f"{rel}#s203.")]
    assert len(huge_parts) >= 2 and all(c.metadata["section"] == 203 for c in huge_parts)
    assert "\n\n".join(c.content.split("\n\n", 1)[1] for c in huge_parts) == huge
    merged = [c for c in chunks if "sections" in c.metadata]
    assert merged
    for c in merged:
        first, last = c.metadata["sections"]
        assert first < last and not first <= 102 <= last and not first <= 203 <= last
        assert len(c.content.split("\n\n", 1)[1]) <= SECTION_MAX_CHARS
    numbers = []  # each section with text in exactly one chunk (or its parts), in order
    for c in chunks:
        if c.metadata.get("part", 1) == 1:
            first, last = c.metadata.get("sections", [c.metadata["section"]] * 2)
            numbers += range(first, last + 1)
    assert numbers == list(range(2, 304))
