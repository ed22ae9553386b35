"""Reading a file of the data layer by its root-relative path, with the path-safety rules.

Only files a route claims (or the index holds, or the people profile) are opened; nothing
outside the root after links are resolved, and never ``secrets/``, the configuration or the
index, whatever the routes say, under their own names or through a hard link
(engine/index/protected.py). A source's file (``@name/...``, engine/index/sources.py) is read
inside its folder by the same rules: its globs, its ignore rules, no link leading out of it, no
hard link to a protected file of the root. Every refusal is one :class:`ReadRefused` line that
quotes the path as given (cut short), never an absolute path of the machine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from engine import path_style
from engine.config import Config
from engine.index import sources
from engine.index.protected import Protected, source_folder
from engine.index.routes import route_of
from engine.index.walk import skipped_path
from engine.library_types import FileText, ReadRefused
from engine.retrieval.entities import PROFILE_RELATIVE_PATH

MAX_PATH_CHARS = 1024
MAX_PART_CHARS = 255  # a longer file name is ENAMETOOLONG on every common file system
QUOTED_CHARS = 120
PROFILE_TYPE = "profile"
OUTLINE_SECTIONS = 60

# (source type, mtime) of an indexed file, or None
IndexedLookup = Callable[[str], "tuple[str | None, float] | None"]


def quote(value: object) -> str:
    """A path for an error line: a JSON string on one line, cut to ``QUOTED_CHARS``."""
    text = str(value)
    if len(text) > QUOTED_CHARS:
        text = text[: QUOTED_CHARS - 1] + "…"
    out = json.dumps(text, ensure_ascii=False)
    for ch in ("\u0085", "\u2028", "\u2029"):
        out = out.replace(ch, f"\\u{ord(ch):04x}")
    return out


def relative_path(value: object, what: str = "path") -> str:
    """``value`` as a root-relative path with '/' between names (a trailing '/' kept), or
    ReadRefused when it is not a string, too long, absolute or climbs with '..'."""
    if not isinstance(value, str) or not value.strip():
        raise ReadRefused(f"{what} must be a non-empty string relative to the data root")
    if len(value) > MAX_PATH_CHARS:
        raise ReadRefused(f"{what} is too long ({len(value):,} characters; at most "
                          f"{MAX_PATH_CHARS:,}): {quote(value)}")
    if "\x00" in value:
        raise ReadRefused(f"{what} must not contain NUL characters")
    text = path_style.slashed(value.strip())  # '\\' separates names on Windows only
    if text.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:", text):
        raise ReadRefused(f"{what} must be relative to the data root; absolute paths are "
                          f"refused: {quote(value)}")
    parts = [p for p in PurePosixPath(text).parts if p not in ("", ".")]
    if ".." in parts:
        raise ReadRefused(f"{what} must stay inside the data root; '..' is refused: "
                          f"{quote(value)}")
    if any(len(p) > MAX_PART_CHARS for p in parts):
        raise ReadRefused(f"{what} has a name longer than {MAX_PART_CHARS} characters: "
                          f"{quote(value)}")
    rel = "/".join(parts)
    return rel + "/" if text.endswith("/") and rel else rel


class DataFiles:
    """Which files of one root may be opened, and as what source type."""

    def __init__(self, config: Config, config_error: str | None = None):
        """``config_error``: why memlens.toml does not load now, in a long-running process
        that follows it (engine/config.py, ``FollowedConfig``): its sources are then not
        served, since a removal or a new ignore rule may be what failed to load."""
        self.config = config
        self.config_error = config_error
        self.root = config.root.resolve()
        self.routes = config.routes
        self.protected = Protected(self.root, config.db_path)

    def forbidden(self, rel: str) -> bool:
        """secrets/, the configuration and the index are never data (engine/index/protected.py)."""
        return rel in self.protected

    def source_type(self, rel: str, indexed: IndexedLookup) -> str | None:
        if sources.split(rel) is not None:
            return self._source_file_type(rel, indexed)
        if self.forbidden(rel):
            return None
        if rel == PROFILE_RELATIVE_PATH:
            return PROFILE_TYPE
        routed = route_of(rel, self.routes)
        if routed is not None:
            return routed
        found = indexed(rel)  # indexed under an older route
        return None if found is None else (found[0] or "file")

    def _source_file_type(self, rel: str, indexed: IndexedLookup) -> str | None:
        """A declared source's file its walk would take (or the index holds), else None;
        ReadRefused when the source's folder is not read now."""
        found = sources.find(self.config.sources, rel)
        if found is None or not found[1]:
            return None
        source, inner = found
        if skipped_path(inner, source.ignore_rules(self._source_folder(source, rel))):
            return None
        routed = route_of(inner, source.routes)
        if routed is not None:
            return routed
        known = indexed(rel)
        return None if known is None else (known[0] or "file")

    def _source_folder(self, source: sources.Source, rel: str) -> Path:
        """The source's folder, checked at this read (a link swapped in since the
        configuration was read leads nowhere): engine/index/sources.py, ``folder_now``."""
        if self.config_error is not None:
            raise ReadRefused(f"memlens.toml does not load now, so no source file is served "
                              f"until it does ({self.config_error}): {quote(rel)}")
        folder = source_folder(self.config, source)
        if folder.real is None:
            raise ReadRefused(f"source {source.name!r} is not read now: {folder.why}: "
                              f"{quote(rel)}")
        return folder.real

    def _folder(self, rel: str) -> tuple[Path, str, str, Protected]:
        """(folder, path inside it, what it is called, its protection) of a readable path."""
        found = sources.find(self.config.sources, rel)
        if found is None:
            return self.root, rel, "the data root", self.protected
        source, inner = found
        real = self._source_folder(source, rel)
        return real, inner, "the source", Protected(self.root, self.config.db_path, inside=real)

    def resolve(self, value: object, indexed: IndexedLookup) -> tuple[Path, str, str]:
        """(absolute path, root-relative path, source type) of a data-layer file, or
        ReadRefused."""
        rel = relative_path(value).rstrip("/")
        if not rel:
            raise ReadRefused("path must name a file inside the data root")
        not_layer = ReadRefused(f"{quote(rel)} is not part of the data layer (no route "
                                "indexes it); only the files search returns can be read")
        source_type = self.source_type(rel, indexed)
        if source_type is None:
            raise not_layer
        folder, inner, where, protected = self._folder(rel)
        try:
            resolved = (folder / inner).resolve()
            if not resolved.is_relative_to(folder):
                raise ReadRefused(f"path leaves {where} (through a symlink): {quote(rel)}")
            if not resolved.exists():
                raise ReadRefused(f"no such file in {where}: {quote(rel)}")
            if not resolved.is_file():
                raise ReadRefused(f"not a file: {quote(rel)}")
        except ReadRefused:
            raise
        except (OSError, RuntimeError, ValueError):  # a loop of links, a name the OS refuses
            raise ReadRefused(f"path cannot be resolved: {quote(rel)}") from None
        real_rel = rel[:len(rel) - len(inner)] + resolved.relative_to(folder).as_posix()
        if real_rel != rel and self.source_type(real_rel, indexed) is None:
            raise not_layer  # a routed name that is a link to, say, secrets/
        try:
            why = protected.refusal(resolved.stat())  # a hard link: the name says nothing
        except OSError:
            raise ReadRefused(f"path cannot be resolved: {quote(rel)}") from None
        if why is not None:
            raise ReadRefused(f"{quote(rel)} is not part of the data layer: {why}")
        return resolved, rel, source_type

    def read(self, value: object, section: int | None, indexed: IndexedLookup) -> FileText:
        """The file's text, or one markdown section of it (``section`` numbered as the
        markdown extractor numbers them: #0 above the first heading, then each heading)."""
        path, rel, source_type = self.resolve(value, indexed)
        try:
            raw = path.read_bytes()
            mtime = path.stat().st_mtime
        except OSError as exc:
            raise ReadRefused(f"{quote(rel)} could not be read: "
                              f"{exc.strerror or type(exc).__name__}") from None
        text = raw.decode("utf-8", errors="replace").replace("\x00", "")
        found = indexed(rel)
        markdown = is_markdown(source_type)
        out = FileText(rel=rel, source_type=source_type, text=text, indexed=found is not None,
                       stale=found is not None and found[1] != mtime, markdown=markdown)
        if section is not None:
            if not markdown:
                raise ReadRefused(f"sections exist only in markdown files; {quote(rel)} is "
                                  f"{source_type}: read it without a section")
            out.text, out.section_path = section_text(text, section, rel)
            out.section = section
        elif markdown:
            out.outline = outline(text)
        return out


def is_markdown(source_type: str) -> bool:
    from engine.extractors import EXTRACTORS, MarkdownExtractor

    cls = EXTRACTORS.get(source_type)
    return cls is not None and issubclass(cls, MarkdownExtractor)


def _sections(text: str):
    from engine.extractors import Problems
    from engine.extractors.markdown import parse_markdown

    return parse_markdown(text, Problems()).sections


def section_label(number: int, path: list[str]) -> str:
    """"#3 Title > Heading", each heading as long as a chunk's heading line has it."""
    from engine.extractors.bounds import short

    return "#0 (top of note)" if number == 0 else \
        f"#{number} {' > '.join(short(str(p)) for p in path)}"


def outline(text: str) -> list[str]:
    """The labels of a markdown text's sections (#0 only when it has text)."""
    return [section_label(s.number, s.path) for s in _sections(text)[:OUTLINE_SECTIONS]
            if s.number or any(line.strip() for line in s.lines)]


def section_text(text: str, number: int, rel: str) -> tuple[str, list[str]]:
    """The body of section ``number`` and its heading path."""
    sections = _sections(text)
    if number < 0 or number >= len(sections):
        raise ReadRefused(f"{quote(rel)} has no section #{number}; its sections are "
                          f"#0-#{len(sections) - 1}")
    s = sections[number]
    return "\n".join(s.lines).strip("\n"), list(s.path)
