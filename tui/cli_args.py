"""Checks on what the user typed, before anything runs: each bad value is one line, exit 2."""

from __future__ import annotations

import argparse
import calendar
import difflib
import re
from datetime import date
from pathlib import Path

from engine.textsafe import one_line

from .cli_errors import UsageError

DATE_FORMS = "YYYY-MM-DD, YYYY-MM or YYYY"
_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")


def _bound(text: str, end: bool) -> str:
    """``text`` as YYYY-MM-DD: a month or a year becomes its first (or, for ``end``, last) day.

    Phrases ("last week") are refused with the accepted forms until a shared time-phrase
    parser exists; it would plug in here."""
    m = _DATE.fullmatch(text.strip())
    if not m:
        raise argparse.ArgumentTypeError(
            f"{one_line(text)!r} is not a date: use {DATE_FORMS} (e.g. 2026-07-14, 2026-07, 2026)")
    year, month, day = (int(g) if g else None for g in m.groups())
    try:
        if day:
            return date(year, month, day).isoformat()
        if month:
            last = calendar.monthrange(year, month)[1] if 1 <= month <= 12 else 1
            return date(year, month, last if end else 1).isoformat()
        return date(year, 12, 31).isoformat() if end else date(year, 1, 1).isoformat()
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"{text.strip()} is not a date ({exc}): use {DATE_FORMS}") from exc


def since_date(text: str) -> str:
    return _bound(text, end=False)


def until_date(text: str) -> str:
    return _bound(text, end=True)


def limit_count(text: str) -> int:
    from engine.searcher import MAX_LIMIT

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{one_line(text)!r} is not a number") from None
    if not 1 <= n <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIMIT}, not {n}")
    return n


def check_search_args(args, routes) -> None:
    """What argparse cannot check alone: the date range's order, source types known to routes."""
    if args.since and args.until and args.since > args.until:
        raise UsageError(f"--since {args.since} is after --until {args.until}: nothing can match")
    known = sorted({source_type for _, source_type in routes})
    for name in args.source or ():
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean {close[0]}?" if close else f"known types: {', '.join(known)}"
            raise UsageError(f"unknown source type {one_line(name)!r}: {hint}")


def package_version() -> str:
    """The installed distribution's version; in a checkout that was never installed, the
    version pyproject.toml declares."""
    import importlib.metadata

    try:
        return importlib.metadata.version("memlens")
    except importlib.metadata.PackageNotFoundError:
        import tomllib

        pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
        try:
            return tomllib.loads(pyproject.read_text())["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "unknown"
