"""An Obsidian vault (folder or zip) -> ``notes/<vault name>/…`` (``note`` files).

Every ``.md`` note is mirrored at the same relative path. The frontmatter is copied verbatim
(tags, aliases, properties keep their types; the note extractor reads frontmatter tags and
inline ``#tags`` incl. nested ``#a/b``). In the body, outside code, wikilinks are made readable
for search: ``[[Note]]`` -> ``Note``, ``[[Note|alias]]`` -> ``alias (Note)``,
``[[Note#Heading]]`` -> ``Note > Heading``, ``![[note embed]]`` -> the note's name, while
embeds of attachments (``![[photo.png]]``, ``![[View.base#Table]]``) are dropped. A daily note
whose name is a date in another spelling (``20230912``, ``12.09.2023`` via the vault's
daily-notes format, ``September 12, 2023``) gets a ``date:`` frontmatter line so its
content_date is right; ``YYYY-MM-DD`` names need nothing. Skipped: hidden folders
(``.obsidian``, ``.trash``), the templates folder (from ``.obsidian/templates.json``, else a
top-level ``Templates``), and attachments (non-``.md`` files). The mirror is refreshed on each
import; notes deleted from the vault are not deleted from it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import date

import yaml

from engine.extractors.splitting import code_lines
from engine.path_style import portable_name, readable_name, windows_name_problem

from ._util import ImportFailed, decode_text, looks_binary, month_number, parse_json, slugify
from .base import Importer
from .context import ImportContext

_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_NOTE_EXT = re.compile(r"\.md$", re.IGNORECASE)
_ATTACHMENT = re.compile(r"\.[A-Za-z0-9]{2,5}$")
_ISO_NAME = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")


def readable_wikilinks(body: str) -> str:
    """Rewrite wikilinks outside fenced and inline code (see the module docstring)."""
    out: list[str] = []
    for line, in_code in code_lines(body.split("\n")):
        if in_code or "[[" not in line:
            out.append(line)
            continue
        pieces: list[str] = []
        pos = 0
        for code in _INLINE_CODE.finditer(line):
            pieces.append(_WIKILINK.sub(_render_link, line[pos:code.start()]))
            pieces.append(code.group(0))
            pos = code.end()
        pieces.append(_WIKILINK.sub(_render_link, line[pos:]))
        out.append("".join(pieces))
    return "\n".join(out)


def _render_link(m: re.Match[str]) -> str:
    embed, inner = m.group(1) == "!", m.group(2)
    target, _, alias = inner.partition("|")
    target, _, anchor = target.partition("#")
    target = target.strip()
    name = target.rsplit("/", 1)[-1]
    name = _NOTE_EXT.sub("", name)
    if embed and target and _ATTACHMENT.search(target) and not _NOTE_EXT.search(target):
        return ""  # an image, PDF, .base or .canvas embed
    anchor = "" if anchor.startswith("^") else anchor.strip()  # ^id: a block reference
    shown = " > ".join(p for p in (name, anchor) if p)
    alias = alias.strip()
    if alias and shown and alias.casefold() != name.casefold():
        return f"{alias} ({shown})"
    return alias or shown


# -- daily-note names --------------------------------------------------------------------

_MOMENT_TOKENS = [
    ("YYYY", r"(?P<y>\d{4})"), ("MMMM", r"(?P<mon>[A-Za-z]+)"), ("MMM", r"(?P<mon>[A-Za-z]+)"),
    ("MM", r"(?P<m>\d{2})"), ("M", r"(?P<m>\d{1,2})"), ("DD", r"(?P<d>\d{2})"),
    ("Do", r"(?P<d>\d{1,2})(?:st|nd|rd|th)"), ("D", r"(?P<d>\d{1,2})"),
    ("dddd", r"[A-Za-z]+"), ("ddd", r"[A-Za-z]+"), ("YY", r"(?P<yy>\d{2})"),
]
_DEFAULT_DAILY = ["YYYYMMDD", "YYYY_MM_DD", "YYYY.MM.DD", "MMMM D, YYYY", "dddd, MMMM D, YYYY",
                  "D MMMM YYYY", "MMMM Do, YYYY"]


def moment_regex(fmt: str) -> re.Pattern[str] | None:
    """A regex for a (subset of a) moment.js date format, as Obsidian's daily notes use."""
    out, i = "", 0
    used: set[str] = set()
    while i < len(fmt):
        if fmt[i] == "[":
            end = fmt.find("]", i)
            end = len(fmt) if end < 0 else end
            out += re.escape(fmt[i + 1:end])
            i = end + 1
            continue
        for token, rx in _MOMENT_TOKENS:
            if fmt.startswith(token, i):
                group = re.search(r"\?P<(\w+)>", rx)
                if group and group.group(1) in used:
                    rx = re.sub(r"\?P<\w+>", "?:", rx)
                elif group:
                    used.add(group.group(1))
                out += rx
                i += len(token)
                break
        else:
            out += re.escape(fmt[i])
            i += 1
    try:
        return re.compile(f"^{out}$")
    except re.error:
        return None


def date_from_daily_name(stem: str, formats: list[str]) -> str | None:
    for fmt in formats:
        rx = moment_regex(fmt)
        m = rx.match(stem) if rx else None
        if not m:
            continue
        g = m.groupdict()
        try:
            year = int(g["y"]) if g.get("y") else 2000 + int(g["yy"])
            month = int(g["m"]) if g.get("m") else month_number(g.get("mon") or "")
            if not month:
                continue
            return date(year, month, int(g["d"])).isoformat()
        except (KeyError, TypeError, ValueError):
            continue
    return None


class ObsidianImporter(Importer):
    kind = "obsidian"
    description = "Obsidian vault (folder or .zip) -> notes/<vault name>/"

    def parse(self, ctx: ImportContext) -> None:
        tree = ctx.tree(allow_file=False)
        names = tree.names
        vault = tree.display_name
        # a zip holding one top folder: that folder is the vault
        tops = {n.split("/", 1)[0] for n in names if "/" in n}
        prefix = ""
        if tree.mode == "zip" and len(tops) == 1 and all("/" in n for n in names):
            prefix = f"{next(iter(tops))}/"
            vault = next(iter(tops))
        config = self._config(tree, prefix)
        templates = (config.get("templates") or "").strip("/")
        daily_folder = (config.get("daily_folder") or "").strip("/")
        daily_formats = ([config["daily_format"]] if config.get("daily_format") else []) \
            + _DEFAULT_DAILY
        notes = []
        for name in names:
            rel = name[len(prefix):]
            parts = rel.split("/")
            if any(p.startswith(".") for p in parts):
                continue
            top = parts[0] if len(parts) > 1 else ""
            in_templates = (templates and (rel == templates or rel.startswith(templates + "/"))
                            ) or (not templates and top.lower() == "templates")
            if not rel.lower().endswith(".md"):
                ctx.skip("attachments (non-Markdown files)")
                continue
            if in_templates:
                ctx.skip("template notes")
                continue
            notes.append((name, rel))
        if not notes:
            raise ImportFailed(f"{ctx.source}: no Markdown notes found (is this an Obsidian "
                               "vault?)")
        base = f"notes/{slugify(vault, fallback='vault')}"
        folder = ctx.root / base
        places = NotePlaces(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                            if p.is_file()) if folder.is_dir() else NotePlaces()
        for i, (name, rel) in enumerate(notes):
            ctx.progress(i, len(notes))
            label = tree.label(name)
            data = tree.read(name)
            if data is None:
                continue
            if looks_binary(data):
                ctx.problem(label, None, "binary file with a .md name; skipped")
                continue
            text, how = decode_text(data)
            if how:
                ctx.problem(label, None, how)
            folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
            stem = rel.rsplit("/", 1)[-1][:-3]
            is_daily = not daily_folder or folder == daily_folder
            saved, why = places.place(rel)
            if why:
                ctx.note(f"{label}: saved as {saved!r}: {why}")
            out = self._convert(ctx, text, label, stem, daily_formats if is_daily else [],
                                title=readable_name(stem) if why else None)
            ctx.text_document(f"{base}/{saved}", out)
        ctx.progress(len(notes), len(notes))

    @staticmethod
    def _config(tree, prefix: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for fname, keys in (("templates.json", {"folder": "templates"}),
                            ("daily-notes.json", {"folder": "daily_folder",
                                                  "format": "daily_format"})):
            path = f"{prefix}.obsidian/{fname}"
            data = tree.read(path) if path in tree.names else None
            if not data:
                continue
            try:
                conf = parse_json(decode_text(data)[0])
            except ValueError:
                continue
            if isinstance(conf, dict):
                for src, dst in keys.items():
                    if isinstance(conf.get(src), str) and conf[src].strip():
                        out[dst] = conf[src].strip()
        return out

    def _convert(self, ctx: ImportContext, text: str, label: str, stem: str,
                 daily_formats: list[str], title: str | None = None) -> str:
        """The note as the data root keeps it; ``title``: the note's own name, written into
        its frontmatter when its file is saved under another (and it names no title)."""
        front, body, fm = _split(text)
        if fm is not None:
            try:
                data = yaml.safe_load(fm) if fm.strip() else {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                ctx.problem(label, mark.line + 2 if mark is not None else None,
                            "broken YAML frontmatter; copied as is (the body is still indexed)")
                data = None
            if isinstance(data, dict):
                for key in ("people", "attendees"):
                    values = data.get(key)
                    for v in values if isinstance(values, list) else [values]:
                        if isinstance(v, str) and v.strip():
                            ctx.person(re.sub(r"^\[\[([^|\]#]+).*\]\]$", r"\1", v.strip()))
        else:
            data = {}
        new_body = readable_wikilinks(body)
        if daily_formats and not _ISO_NAME.search(stem) and (
                not isinstance(data, dict) or not ({"date", "created"} & set(data))):
            day = date_from_daily_name(stem, daily_formats)
            if day and isinstance(data, dict):
                if fm is None:
                    front = f"---\ndate: {day}\n---\n"
                else:
                    front = front.replace("---\n", f"---\ndate: {day}\n", 1)
        if title and (fm is None or isinstance(data, dict) and "title" not in data):
            line = f"title: {json.dumps(title, ensure_ascii=False)}\n"  # JSON is YAML
            front = front.replace("---\n", f"---\n{line}", 1) if front else f"---\n{line}---\n"
        return front + new_body


class NotePlaces:
    """Where each note of one import is saved: under a name every system holds, ending in
    ``.md`` (what the routes index), and never beside a name that differs only in letter case
    (Windows and macOS do not tell them apart), a folder's or a note's, whether this import
    writes it or an earlier one did (``present``: the files under the vault's folder now). A
    note whose file is there already keeps it."""

    TAKEN = "another note of the vault is saved under that name"
    CASE_CLASH = ("a note whose name differs only in letter case is there (Windows and macOS "
                  "do not tell them apart)")
    FOLDER_CASE = "its folder is there already, spelled {!r} (letter case aside)"
    EXTENSION = "notes are saved ending in .md, which the routes index"

    def __init__(self, present: Iterable[str] = ()):
        self.present = set(present)
        self._present_folded = {p.casefold() for p in self.present}
        self._taken: dict[str, str] = {}  # case-folded -> as saved by this import
        self._folders: dict[str, str] = {}  # a folder, case-folded -> as the root spells it
        for rel in sorted(self.present):
            self._folder("/".join(rel.split("/")[:-1]))

    def place(self, rel: str) -> tuple[str, str | None]:
        """(where the note ``rel`` of the vault is saved, why that differs, or None)."""
        names = rel.split("/")
        said = [f"the name {why}" for why in map(windows_name_problem, names) if why]
        wanted = "/".join(portable_name(n) for n in names[:-1])
        folder = self._folder(wanted)
        if folder != wanted:
            said.append(self.FOLDER_CASE.format(folder))
        stem = portable_name(names[-1])
        if stem.lower().endswith(".md"):
            if not stem.endswith(".md"):
                said.append(self.EXTENSION)
            stem = stem[:-3]
        n = 1
        while (why := self._clash(candidate := "/".join(
                filter(None, (folder, f"{stem}{f' {n}' if n > 1 else ''}.md"))))) is not None:
            if n == 1:
                said.append(why)
            n += 1
        self._taken[candidate.casefold()] = candidate
        return candidate, "; ".join(said) or None

    def _folder(self, folder: str) -> str:
        """``folder`` as the root spells it already (its first spelling, letter case aside)."""
        spelled = ""
        for name in folder.split("/") if folder else ():
            path = f"{spelled}/{name}" if spelled else name
            spelled = self._folders.setdefault(path.casefold(), path)
        return spelled

    def _clash(self, candidate: str) -> str | None:
        """Why ``candidate`` is not free, or None."""
        folded = candidate.casefold()
        if folded in self._taken:
            return self.TAKEN if self._taken[folded] == candidate else self.CASE_CLASH
        if folded in self._present_folded and candidate not in self.present:
            return self.CASE_CLASH
        return None


def _split(text: str) -> tuple[str, str, str | None]:
    """(frontmatter block incl. delimiters, body, raw YAML or None)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return "", text, None
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            front = "\n".join(lines[:i + 1]) + ("\n" if i + 1 < len(lines) else "")
            return front, "\n".join(lines[i + 1:]), "\n".join(lines[1:i])
    return "", text, None
