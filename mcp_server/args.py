"""Checking a tool's arguments: one clear line per mistake (a :class:`ToolFailure`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from engine import SOURCE_TYPES
from engine.index import relative_path
from engine.search_options import SORTS

from .schemas import DEFAULT_LIMIT, MAX_LIMIT
from .text import jstr


class ToolFailure(Exception):
    """A bad argument or an unavailable resource: returned as a one-line isError result."""


def check_keys(args: dict, allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        takes = ", ".join(allowed) if allowed else "no arguments"
        raise ToolFailure(f"unknown argument {jstr(unknown[0])}; this tool takes {takes}")


def int_arg(args: dict, name: str, default: int, low: int, high: int | None) -> int:
    value = args.get(name, default)
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolFailure(f"{name} must be an integer, not {jstr(value)}")
    if value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ToolFailure(f"{name} must be an integer {bound} (got {value})")
    return value


def str_list(args: dict, name: str) -> list[str] | None:
    value = args.get(name)
    if value is None or value == [] or value == "":
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ToolFailure(f"{name} must be a list of non-empty strings")
    return [v.strip() for v in value]


def date_arg(args: dict, name: str) -> str | None:
    value = args.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ToolFailure(f"{name} must be a date string YYYY-MM-DD")
    try:
        return date.fromisoformat(value.strip()[:10]).isoformat()
    except ValueError:
        raise ToolFailure(f"{name} must be a date YYYY-MM-DD, not {jstr(value)}") from None


@dataclass
class SearchArgs:
    query: str
    limit: int
    folder: str | None
    tags: list[str] | None
    frontmatter: dict[str, Any] | None
    source_types: list[str] | None
    since: str | None
    until: str | None
    rerank: bool
    sort: str = "relevance"
    decay: bool = True
    person: str | None = None


SEARCH_KEYS = ("query", "limit", "folder", "tags", "frontmatter", "source_types", "since",
               "until", "rerank", "sort", "decay", "person")


def bool_arg(args: dict, name: str, default: bool) -> bool:
    value = args.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ToolFailure(f"{name} must be true or false")
    return value


def parse_search_args(args: dict) -> SearchArgs:
    check_keys(args, SEARCH_KEYS)
    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ToolFailure("query must be a non-empty string")
    limit = int_arg(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)

    folder = args.get("folder")
    if folder is not None and not isinstance(folder, str):
        raise ToolFailure("folder must be a string path prefix (e.g. \"notes/work/\")")
    folder = (relative_path(folder, "folder") or None) if folder else None

    tags = str_list(args, "tags")
    if tags:
        tags = [t.lstrip("#") for t in tags]

    frontmatter = args.get("frontmatter")
    if frontmatter in (None, {}):
        frontmatter = None
    elif not isinstance(frontmatter, dict):
        raise ToolFailure("frontmatter must be an object of key/value pairs, e.g. "
                          "{\"status\": \"active\"}")
    else:
        for key, value in frontmatter.items():
            if not isinstance(key, str) or not key.strip():
                raise ToolFailure("frontmatter keys must be non-empty strings")
            if isinstance(value, (dict, list)):
                kind = "an object" if isinstance(value, dict) else "a list"
                raise ToolFailure(f"frontmatter value for {jstr(key)} is {kind}; values "
                                  "must be strings, numbers, booleans or null (matched "
                                  "strictly by type)")
            if not (value is None or isinstance(value, (str, int, float, bool))):
                raise ToolFailure(f"frontmatter value for {jstr(key)} must be a string, "
                                  "number, boolean or null")

    source_types = str_list(args, "source_types")
    for st in source_types or ():
        if st not in SOURCE_TYPES:
            raise ToolFailure(f"unknown source type {jstr(st)}; known types: "
                              f"{', '.join(SOURCE_TYPES)}")

    since, until = date_arg(args, "since"), date_arg(args, "until")
    if since and until and since > until:
        raise ToolFailure(f"since ({since}) is after until ({until})")
    sort = args.get("sort") or "relevance"
    if sort not in SORTS:
        raise ToolFailure(f"sort must be one of {', '.join(SORTS)}, not {jstr(sort)}")
    person = args.get("person")
    if person is not None and not isinstance(person, str):
        raise ToolFailure("person must be a name (a string), e.g. \"Maya Chen\"")
    return SearchArgs(query.strip(), limit, folder, tags, frontmatter, source_types, since,
                      until, bool_arg(args, "rerank", False), sort,
                      bool_arg(args, "decay", True), (person or "").strip() or None)


SECTION = re.compile(r"^#?s?(\d+)(?:\.\d+)?$")


def parse_section(value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ToolFailure("section must be \"#N\" (e.g. \"#2\")")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and SECTION.match(value.strip()):
        number = int(SECTION.match(value.strip()).group(1))
    else:
        raise ToolFailure(f"section must be \"#N\" as in a row's § field (e.g. \"#2\"), not "
                          f"{jstr(value)}")
    if number < 0:
        raise ToolFailure("section numbers start at #0")
    return number
