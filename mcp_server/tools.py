"""The tool implementations: plain synchronous functions from arguments to text.

Every read goes through one :class:`engine.library.Library` (WAL: a running reindex or the
app never blocks it; it never takes the writer lock). ``read_note`` opens only the files the
facade's path rules allow (docs/architecture.md, "Which files may be read").
``$MEMLENS_MCP_MAX_CHARS`` caps a response (default 12,000 characters).
"""

from __future__ import annotations

import logging
import os
import threading
import traceback
from collections.abc import Callable
from functools import partial
from typing import Any

from engine import SOURCE_TYPES, SearchError
from engine.config import Config
from engine.display import parse_query
from engine.library import (
    PROFILE_RELATIVE_PATH,
    IndexUnavailable,
    Library,
    ReadRefused,
    index_unavailable,
    match_person,
    person_to_content,
)

from . import answers
from .args import (
    SECTION,
    ToolFailure,
    check_keys,
    int_arg,
    parse_search_args,
    parse_section,
)
from .page import format_search
from .schemas import MAX_NEIGHBORS
from .text import DEFAULT_MAX_CHARS, MIN_MAX_CHARS, jstr, machine_paths, one_line, scrub_paths
from .time_tools import messages_text, timeline_text

log = logging.getLogger("memlens.mcp")

MAX_CHARS_ENV = "MEMLENS_MCP_MAX_CHARS"


def max_chars_from_env() -> int:
    raw = os.environ.get(MAX_CHARS_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_CHARS
    try:
        value = int(raw)
    except ValueError:
        log.warning("%s=%r is not an integer; using %d", MAX_CHARS_ENV, raw, DEFAULT_MAX_CHARS)
        return DEFAULT_MAX_CHARS
    return max(MIN_MAX_CHARS, value)


class MemlensTools:
    """The six tools over one read facade; :meth:`call` is what the server runs."""

    def __init__(self, config: Config, max_chars: int | None = None):
        self.config = config
        self.root = config.root.resolve()
        self.library = Library(config)
        self._scrubbed: tuple[tuple, list] = ((), [])  # (sources, their machine_paths)
        # the first call should not pay for loading the vector index (seconds at 500k)
        threading.Thread(target=self.library.searcher.warm_up, name="memlens-warm-up",
                         daemon=True).start()
        self.max_chars = max_chars or max_chars_from_env()
        self.handlers: dict[str, Callable[[dict], str]] = {
            "hybrid_search": partial(self.search, "hybrid"),
            "keyword_search": partial(self.search, "keyword"),
            "semantic_search": partial(self.search, "semantic"),
            "read_note": self.read_note,
            "get_neighborhood": self.get_neighborhood,
            "index_status": self.index_status,
            "timeline": self.timeline,
        }

    def close(self) -> None:
        self.library.close()

    def call(self, name: str, args: Any) -> tuple[str, bool]:
        """One tool call as (text, is_error). A failure is one line that names no path of
        the machine, only root-relative ones (docs/reliability.md)."""
        handler = self.handlers.get(name)
        if handler is None:
            return self._error(f"unknown tool {jstr(name)}; tools: "
                               f"{', '.join(self.handlers)}"), True
        if not isinstance(args, dict):
            return self._error("arguments must be an object"), True
        try:
            text = handler(args)
        except (ToolFailure, IndexUnavailable, ReadRefused) as exc:
            return self._error(str(exc)), True
        except Exception as exc:  # noqa: BLE001 - a crash is reported, never fatal
            log.error("tool %s failed:\n%s", name, traceback.format_exc())
            return self._error(f"internal error in {name}: {type(exc).__name__}: "
                               f"{one_line(exc, 300)}"), True
        if name == "index_status":
            text = scrub_paths(text, self._machine_paths())
        return text, False

    def _error(self, message: str) -> str:
        return one_line(scrub_paths(message, self._machine_paths()), 600)

    def _machine_paths(self) -> list:
        """What answers show instead of this machine's paths, for the sources declared now
        (memlens.toml is followed while the server runs: a source added since is scrubbed)."""
        config = self.library.config
        if self._scrubbed[0] != config.sources or not self._scrubbed[1]:
            self._scrubbed = (config.sources, machine_paths(config.root, self.root,
                                                            config.db_path, config.sources))
        return self._scrubbed[1]

    def _exists(self, rel: str) -> bool:
        try:
            path = self.library.config.locate(rel)  # as memlens.toml is now
            return path is not None and path.exists()
        except OSError:
            return False

    # -- search -------------------------------------------------------------------------
    def search(self, mode: str, args: dict) -> str:
        a = parse_search_args(args)
        try:
            response = self.library.search(
                a.query, a.limit, a.source_types, mode=mode, since=a.since, until=a.until,
                path_prefix=a.folder, tags=a.tags, frontmatter=a.frontmatter, person=a.person,
                rerank=a.rerank, sort=a.sort, decay=a.decay)
        except SearchError as exc:
            raise ToolFailure(one_line(exc)) from None
        if mode == "semantic" and response.semantic_error:
            raise ToolFailure(
                f"semantic search unavailable ({response.semantic_error}): "
                f"{one_line(response.semantic_detail or '', 200)}; keyword_search still works")
        return format_search(response, parse_query(a.query), self.max_chars,
                             threshold=self.config.similarity_threshold, exists=self._exists)

    # -- read_note ----------------------------------------------------------------------
    def read_note(self, args: dict) -> str:
        check_keys(args, ("path", "section", "offset"))
        section = parse_section(args.get("section"))
        offset = int_arg(args, "offset", 0, 0, None)
        raw_path = args.get("path")
        try:
            file = self.library.read_file(raw_path, section)
        except ReadRefused:
            # a chunk id ("notes/x.md#s2") given as a path: open the file at that section
            if not (isinstance(raw_path, str) and "#" in raw_path):
                raise
            base, _, suffix = raw_path.rpartition("#")
            if section is None and SECTION.match(suffix):
                section = parse_section(suffix)
            file = self.library.read_file(base, section)
        if offset > len(file.text):
            raise ToolFailure(f"offset {offset} is past the end ({len(file.text)} characters)")
        return answers.note_text(file, offset, self.max_chars)

    # -- get_neighborhood -----------------------------------------------------------------
    def get_neighborhood(self, args: dict) -> str:
        check_keys(args, ("id", "before", "after", "messages"))
        chunk_id = args.get("id")
        if not isinstance(chunk_id, str) or not chunk_id.strip():
            raise ToolFailure("id must be a chunk id from a search row (its id: field)")
        chunk_id = chunk_id.strip()
        messages = args.get("messages", False)
        if messages not in (None, True, False):
            raise ToolFailure("messages must be true or false")
        if messages:
            return messages_text(self.library, chunk_id, args, self.max_chars)
        before = int_arg(args, "before", 2, 0, MAX_NEIGHBORS)
        after = int_arg(args, "after", 2, 0, MAX_NEIGHBORS)
        people = self.library.people()
        if chunk_id.startswith("profile:"):
            slug = chunk_id.split(":", 1)[1]
            person = next((p for p in people.people if p.slug == slug), None)
            if person is None:
                raise ToolFailure(f"no profile {jstr(chunk_id)} in {PROFILE_RELATIVE_PATH}")
            return "\n".join([f"id: {jstr(chunk_id)}", "type: profile",
                              f"path: {jstr(PROFILE_RELATIVE_PATH)}",
                              answers.person_line(person.name, person.name,
                                                  person_to_content(person))])
        run = self.library.neighbours(chunk_id, before, after)
        if run is None:
            raise ToolFailure(f"no chunk with id {jstr(chunk_id)}: use the id: field of a "
                              "search row (the index may have changed; search again)")
        found = match_person(run.chunks[run.center].content, people)
        if found is None:
            profile = "profile: none (no known person is named in this chunk)"
        else:
            person, matched = found
            profile = answers.person_line(person.name, matched, person_to_content(person))
        return answers.neighbourhood_text(run, profile, self.max_chars)

    # -- timeline -----------------------------------------------------------------------
    def timeline(self, args: dict) -> str:
        return timeline_text(self.library, args, self.max_chars, SOURCE_TYPES)

    # -- index_status -------------------------------------------------------------------
    def index_status(self, args: dict) -> str:
        check_keys(args, ())
        status = self.library.status()
        if not status.exists and self.config.db_path.exists():
            raise index_unavailable(self.config)  # a first build has not made its tables yet
        return answers.status_text(status, self.max_chars)
