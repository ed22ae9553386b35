"""What the user typed: the options every command shares, the data root and its config, and
checks on values before anything runs (each bad value is one line, exit 2)."""

from __future__ import annotations

import argparse
import re
from datetime import date
from pathlib import Path

from engine.config import DB_HELP, ROOT_HELP
from engine.display import one_line

from .errors import UsageError

DATE_FORMS = "YYYY-MM-DD, YYYY-MM or YYYY"
DATE_HELP = f"{DATE_FORMS}, or a time phrase: \"last week\", March"
_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")


def _bound(text: str, end: bool) -> str:
    """``text`` as YYYY-MM-DD: a month or a year becomes its first (or, for ``end``, last) day;
    a time phrase ("last week", "March", "2026-03-01..2026-03-15") its range's first or last
    day, read by the same parser as the query's phrases (engine/dates/timephrase.py)."""
    import calendar

    m = _DATE.fullmatch(text.strip())
    if not m:
        return _phrase_bound(text, end)
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


def _phrase_bound(text: str, end: bool) -> str:
    from engine.dates import now, resolve_time

    found = resolve_time(text, now())
    bound = None if found is None or found.month_day else (found.until if end else found.since)
    if bound is None:
        raise argparse.ArgumentTypeError(
            f"{one_line(text)!r} is not a date: use {DATE_FORMS} or a time phrase such as "
            "\"last week\" or \"March\" (e.g. 2026-07-14, 2026-07, 2026)")
    return bound.isoformat()


def since_date(text: str) -> str:
    return _bound(text, end=False)


def until_date(text: str) -> str:
    return _bound(text, end=True)


def limit_count(text: str) -> int:
    from engine.search_options import MAX_LIMIT

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{one_line(text)!r} is not a whole number") from None
    if not 1 <= n <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIMIT}, not {n}")
    return n


def iso_day(text: str):
    """A day written YYYY-MM-DD, as a date."""
    from datetime import date

    try:
        return date.fromisoformat(text.strip())
    except ValueError as exc:
        # why a date of the right shape is none (day is out of range for month); Python's
        # own words for any other text are no help
        why = "" if "isoformat" in str(exc) else f" ({exc})"
        raise argparse.ArgumentTypeError(
            f"{one_line(text)!r} is not a day{why}: use YYYY-MM-DD (e.g. 2026-03-14)") from None


def positive_count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{one_line(text)!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {n}")
    return n


def check_search_args(args, routes) -> None:
    """What argparse cannot check alone: a query with words, the date range's order, source
    types known to routes."""
    if not args.query.strip():
        raise UsageError("the query is empty: say what to look for, e.g. `memlens search "
                         "\"dinner with maya\"`")
    if args.since and args.until and args.since > args.until:
        raise UsageError(f"--since {args.since} is after --until {args.until}: nothing can match")
    for flag in ("person", "folder", "tag"):  # given empty, each was silently no filter
        value = getattr(args, flag, None)
        values = [value] if isinstance(value, str) else value or []
        if any(not v.strip() for v in values):
            raise UsageError(f"--{flag} is empty: give a {'name' if flag == 'person' else flag}")
    args.source = source_types_arg(args.source, routes)


def source_types_arg(names: list[str] | None, routes) -> list[str] | None:
    """``--source`` values as the source types they name: an id, a label or an unambiguous
    prefix (engine.display.resolve_source_type); a name that is none stops with one line."""
    from engine.display import UnknownSourceType, resolve_source_type

    known = {source_type for _, source_type in routes}
    try:
        return [resolve_source_type(name, known) for name in names] if names else names
    except UnknownSourceType as exc:
        raise UsageError(str(exc)) from None


class VersionAction(argparse.Action):
    """``--version``, reading the version only when asked (importlib.metadata costs ~50 ms,
    paid by every command if the parser looked it up when built)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show the version and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"memlens {package_version()}")
        parser.exit()


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


def common_options(parser: argparse.ArgumentParser, top: bool) -> argparse.ArgumentParser:
    """--root, --db and --debug. After the subcommand the defaults are SUPPRESS: a
    subcommand's default must not undo ``memlens --root DIR <command>`` (argparse copies every
    subcommand default over the top's)."""
    default = None if top else argparse.SUPPRESS
    parser.add_argument("--root", default=default, help=ROOT_HELP)
    parser.add_argument("--db", default=default, help=DB_HELP)
    debug_flag(parser)
    return parser


def debug_flag(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS on both levels: a subcommand's default must not undo `memlens --debug <command>`
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show a traceback on failure (also MEMLENS_DEBUG=1)")


def existing(root: Path) -> Path:
    if not root.is_dir():
        what = "is not a folder" if root.exists() else "does not exist"
        raise UsageError(f"data root {root} {what}: check --root or $MEMLENS_ROOT")
    return root


def load_root_config(args):
    """The config of the data root the options name; the demo root only once it exists."""
    from engine.config import is_demo_root, load_config, resolve_root

    root, is_demo = resolve_root(args.root)
    if is_demo and not is_demo_root(root):
        raise UsageError(
            f"no data root given and no demo root at {root}: pass --root, set $MEMLENS_ROOT, "
            "or run `memlens demo` to create the demo root")
    config = load_config(existing(root), args.db)
    args.db_path = config.db_path  # for the one-line description of index errors
    if config.keys:  # the app's key map, checked by every command as the rest of the file
        from tui.keys import remap_problems  # only for a [keys] table: it loads textual

        problems = remap_problems(config.keys)
        if problems:
            from engine.config import CONFIG_FILENAME, ConfigError

            raise ConfigError(f"{CONFIG_FILENAME}: {problems[0]}")
    return config
