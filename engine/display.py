"""How the engine's values read in every front door: safe text, numbers, type labels, one-line
failures, and (loaded on first use) how a result explains and highlights its match.

**Safe text.** A file name, a chunk or an error quoting either is data, never terminal control.
The unsafe characters are the C0 controls (ESC, BEL, CR...), DEL, the C1 range U+0080-U+009F
(U+009B is a one-byte CSI to many terminals) and the bidi overrides that reorder text. For
display they become visible one-cell stand-ins (:func:`plain`, :func:`one_line`); in JSON they
become ``\\uXXXX`` escapes (:func:`json_dumps`), so a program still reads the exact text and no
raw control byte is ever written. See docs/reliability.md.

**Type labels.** Filters and machine fields keep the raw name (``--source rwgps_memory``, MCP's
``type:``); a person reads "ride memory". A type a config adds without a label here shows with
its underscores as spaces.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine import lazy_exports, path_style

# one visible stand-in per control character, one cell wide (columns stay aligned)
_C0 = {i: chr(0x2400 + i) for i in range(32)}  # ␀ … ␟ (␛ for ESC)
_TABLE = {**_C0, 0x7F: "␡"}
_TABLE.update({i: "\N{REPLACEMENT CHARACTER}" for i in range(0x80, 0xA0)})  # C1 (incl. CSI)
BIDI = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c"
_TABLE.update({ord(ch): "\N{REPLACEMENT CHARACTER}" for ch in BIDI})
# a file name that is not valid UTF-8 arrives with its bad bytes as lone surrogates
# (surrogateescape): show each byte as \xNN, the name stays faithful and printable
_TABLE.update({i: "\N{REPLACEMENT CHARACTER}" for i in range(0xD800, 0xE000)})
_TABLE.update({0xDC00 + b: f"\\x{b:02x}" for b in range(0x80, 0x100)})
_NO_NEWLINE = {**_TABLE}
del _NO_NEWLINE[10]
_FOLD_NEWLINE = {**_NO_NEWLINE, 10: " "}

# what json.dumps(ensure_ascii=False) leaves raw but must not reach a terminal or a line
# splitter: DEL, C1, bidi controls and the Unicode line/paragraph separators
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff" + BIDI + "]")


def plain(text: object, *, keep_newlines: bool = True, tab: str = "    ") -> str:
    """``text`` with every control character replaced by a visible stand-in.

    ``\\n`` is kept (or folded to a space), ``\\r\\n`` becomes ``\\n``, tabs become spaces.
    """
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\t", tab)
    return s.translate(_NO_NEWLINE if keep_newlines else _FOLD_NEWLINE)


def one_line(text: object) -> str:
    """Plain text flattened to one line (runs of whitespace become one space)."""
    return " ".join(plain(text, keep_newlines=False).split(" ")).strip()


def shown_path(stored: object) -> str:
    """A path the index stores ('/' between names), for a person: on one line and written
    the system's way ('\\' on Windows, engine/path_style.py). Machine output keeps '/'."""
    return one_line(path_style.shown(str(stored)))


def json_dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` that keeps non-ASCII text readable but never emits a raw control
    character: those can only occur inside JSON strings, where ``\\uXXXX`` means the same."""
    text = json.dumps(obj, ensure_ascii=False, **kwargs)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# -- numbers as words ------------------------------------------------------------------------

def human_bytes(n: float | None) -> str:
    """``512 B``, ``1.5 KB``, ``2.3 GB`` (powers of 1024); ``?`` when unknown."""
    if n is None:
        return "?"
    for unit in ("B", "KB", "MB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``2,594 files``; ``many`` for an irregular plural."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"


def in_units(count: int, unit: str) -> str:
    """A timeline count in its unit (engine/dates/message_days.py): ``3 messages``,
    ``1 entry``."""
    return plural(count, unit, "entries" if unit == "entry" else None)


def units_text(messages: int, entries: int) -> str:
    """``9,424 messages · 1,828 entries``, a zero part left out (``0 entries`` when both are)."""
    parts = [in_units(messages, "message")] if messages else []
    if entries or not messages:
        parts.append(in_units(entries, "entry"))
    return " · ".join(parts)


# -- repeats ---------------------------------------------------------------------------------

REPEAT_DATES = 12  # dates a repeats line names; the rest are counted


def repeats_text(result: Any, most: int = REPEAT_DATES) -> str:
    """How many chunks a row stands for and when: ``3×: 2026-02-12, 07-17, 11-08`` (its own
    date and its repeats', oldest first, the year left out while it stays the same; undated
    ones counted at the end: ``2 undated``); "" for a row of one chunk
    (engine/rank/repeats.py)."""
    repeats = getattr(result, "repeats", None) or ()
    if not repeats:
        return ""
    dates = [result.content_date, *(r.content_date for r in repeats)]
    dated = sorted(one_line(d) for d in dates if d)
    days = list(dict.fromkeys(dated))  # a day twice is said once, with its count: "10-12 ×2"
    shown, year = [], None
    for day in days[:most]:
        text = day[5:] if day[:4] == year and day[4:5] == "-" else day
        times = dated.count(day)
        shown.append(f"{text} ×{times}" if times > 1 else text)
        year = day[:4] if day[:4].isdigit() else None
    if len(days) > most:
        shown.append(f"{len(dated) - sum(dated.count(d) for d in days[:most])} more")
    undated = len(dates) - len(dated)
    if undated:
        shown.append(f"{undated} undated")
    return f"{len(dates)}×: " + ", ".join(shown)


# -- "did you mean" ---------------------------------------------------------------------------

CLOSE_ENOUGH = 0.6  # difflib's ratio from which a name is spelled close to what was typed


def close_matches(word: str, known: Iterable[str], n: int = 1, within: float = 1.0) -> list[str]:
    """Up to ``n`` of ``known`` spelled closest to ``word``, best first: THE measure behind
    every "did you mean". Each is at least CLOSE_ENOUGH alike (difflib's ratio, ties by name as
    difflib.get_close_matches orders them) and within ``within`` of the best one (0.1: only the
    nearest few, ``notes/hmoe`` is ``notes/home``, not also ``notes``)."""
    import difflib

    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    scored = []
    for name in dict.fromkeys(known):
        matcher.set_seq1(name)
        if (matcher.real_quick_ratio() >= CLOSE_ENOUGH and matcher.quick_ratio() >= CLOSE_ENOUGH
                and (score := matcher.ratio()) >= CLOSE_ENOUGH):
            scored.append((score, name))
    best = max((score for score, _ in scored), default=0.0)
    return [name for score, name in sorted(scored, reverse=True) if score >= best - within][:n]


def did_you_mean(close: Iterable[str], aside: bool = False) -> str:
    """``did you mean A?`` (``A or B?``) naming what :func:`close_matches` found, each as the
    caller shows it; ``aside``: `` (did you mean A?)``, to follow a name in a sentence. "" when
    nothing is close, so a caller adds it or says something else."""
    close = list(close)
    if not close:
        return ""
    text = f"did you mean {' or '.join(close)}?"
    return f" ({text})" if aside else text


# -- source types -----------------------------------------------------------------------------

LABELS: dict[str, str] = {
    "slack": "Slack",
    "telegram": "Telegram",
    "whatsapp": "WhatsApp",
    "signal": "Signal",
    "meeting": "meeting",
    "email_catalog": "email",
    "event": "photo event",
    "garmin": "Garmin",
    "cgm": "glucose (CGM)",
    "checkin": "check-in",
    "experiment": "experiment",
    "journal": "journal",
    "voice": "voice note",
    "transcript": "transcript",
    "quote": "quote",
    "observation": "observation",
    "story": "story",
    "interview_meta": "interview info",
    "interview": "interview",
    "podcast_digest": "podcast",
    "board_summary": "board meeting",
    "entity_file": "entity",
    "codebase_doc": "code doc",
    "rwgps_memory": "ride memory",
    "scratch": "scratch",
    "note": "note",
    "profile": "profile",
}


def type_label(source_type: str) -> str:
    """``rwgps_memory`` → ``ride memory``."""
    return LABELS.get(source_type) or one_line(str(source_type).replace("_", " "))


def type_named(source_type: str) -> str:
    """A type by its label, and its id when that is spelled otherwise: ``email
    (email_catalog)``, ``Slack (slack)``, but ``note``."""
    label = type_label(source_type)
    return label if label == source_type else f"{label} ({source_type})"


class UnknownSourceType(ValueError):
    """A source type as typed that names none, or more than one (one line, for the user)."""


def _type_key(text: str) -> str:
    return " ".join(str(text).replace("_", " ").casefold().split())


def resolve_source_type(text: str, known: Iterable[str]) -> str:
    """The source type a person means: its id (``email_catalog``), its label (``email``, any
    case, ``_`` or space) or an unambiguous prefix of either (``board`` → ``board_summary``).
    :class:`UnknownSourceType` says why not, with a "did you mean" when one is close."""
    known = sorted(set(known))
    key = _type_key(text)
    names = {t: {_type_key(t), _type_key(type_label(t))} for t in known}
    exact = [t for t, forms in names.items() if key in forms]
    if len(exact) == 1:
        return exact[0]
    prefixed = [t for t, forms in names.items() if key and any(f.startswith(key) for f in forms)]
    if len(prefixed) == 1:
        return prefixed[0]
    shown = one_line(str(text))[:60]
    if len(prefixed) > 1:
        raise UnknownSourceType(f"source type {shown!r} could be "
                                + ", ".join(map(type_named, prefixed[:6]))
                                + ": say more of it")
    spelled = {form: t for t, forms in names.items() for form in forms}
    hint = (did_you_mean(type_named(spelled[form]) for form in close_matches(key, spelled))
            or "known: " + ", ".join(type_label(t) for t in known))
    raise UnknownSourceType(f"unknown source type {shown!r}: {hint}")


# -- failures ---------------------------------------------------------------------------------


class OneLineError(Exception):
    """An engine error whose message is already the one line a person should read (a bad
    setting, an export that cannot be imported): :func:`describe` passes it through."""


def describe(exc: BaseException, db_path: Path | None = None) -> str:
    """One line for any failure a front door may meet: what happened and what to do. The CLI
    prints it after ``memlens:``; the MCP server answers it as a tool error. Messages of the
    engine's own errors (config, import, index) are already one line and pass through."""
    from engine.storage.db import Error as DBError  # the driver loads only when a failure is shown
    from engine.storage.db import IndexUnavailable, describe_db_error, describe_os_error

    if isinstance(exc, DBError):
        return describe_db_error(exc, db_path or Path("the index"))
    if isinstance(exc, FileNotFoundError) and not exc.filename:
        return str(exc)  # our own "no index at ...: run `memlens reindex` first"
    if isinstance(exc, OSError):
        return describe_os_error(exc)
    if isinstance(exc, RecursionError):
        return "input nested too deeply to process (run again with --debug for the traceback)"
    if isinstance(exc, (OneLineError, IndexUnavailable, RuntimeError)):
        return str(exc)
    return (f"unexpected error: {type(exc).__name__}: {exc} (run again with --debug for the "
            "traceback)")


# -- how a result explains and highlights its match (engine/retrieval/, loaded on first use) -----

_SEARCH_TEXT = {
    "explain_lines": "engine.retrieval.explain", "formula": "engine.retrieval.explain",
    "plain_summary": "engine.retrieval.explain",
    "Snippet": "engine.retrieval.snippets", "marked": "engine.retrieval.snippets",
    "ParsedQuery": "engine.retrieval.fts_query", "fold": "engine.retrieval.fts_query",
    "matched_terms": "engine.retrieval.fts_query", "parse_query": "engine.retrieval.fts_query",
}
__getattr__, __dir__ = lazy_exports(__name__, _SEARCH_TEXT)
