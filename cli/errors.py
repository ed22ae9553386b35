"""How every ``memlens`` subcommand fails: one escaped line ``memlens: <message>`` on stderr
and exit 1; bad input (flags, dates, a missing root) exits 2, as argparse's usage errors do.
A traceback is shown only with ``--debug`` or ``MEMLENS_DEBUG=1`` (docs/reliability.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from engine.display import one_line

DEBUG_ENV = "MEMLENS_DEBUG"


class CliError(Exception):
    """A user-facing failure: printed as one line, exit code 1."""

    exit_code = 1


class UsageError(CliError):
    """Bad input from the user (a flag's value, a root that does not exist): exit code 2."""

    exit_code = 2


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line like every other failure (no usage dump)."""

    def error(self, message: str):
        print(f"memlens: {one_line(message)} (see `{self.prog} --help`)", file=sys.stderr)
        sys.exit(2)


def debug_wanted(args) -> bool:
    return bool(getattr(args, "debug", False)) or os.environ.get(DEBUG_ENV, "") not in ("", "0")


def describe(exc: BaseException, db_path: Path | None) -> str:
    """The one line for ``exc`` (engine/display.py knows the engine's failures)."""
    from engine.display import describe as describe_failure

    return str(exc) if isinstance(exc, CliError) else describe_failure(exc, db_path)


def run(func: Callable[[object], int], args) -> int:
    """``func(args)`` with every failure turned into one line and an exit code."""
    try:
        return func(args)
    except KeyboardInterrupt:
        print("memlens: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `memlens search x --json | head`
        try:
            sys.stderr.close()
        except OSError:
            pass
        return 0
    except Exception as exc:  # noqa: BLE001 - the front door: one line, never a traceback
        if debug_wanted(args):
            import traceback

            traceback.print_exc()
        line = describe(exc, getattr(args, "db_path", None))
        print(f"memlens: {one_line(line)}", file=sys.stderr)
        return getattr(exc, "exit_code", 1)
