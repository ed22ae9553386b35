"""How every ``memlens`` subcommand fails: one escaped line ``memlens: <message>`` on stderr,
and one rule for its exit code (README "Command line"), decided by the kind of problem:

- 2, bad input: what the user typed is refused before anything is done (an unknown flag or
  value, a date that is none, an unknown source type or import kind, a bad source name, a
  path that does not exist or a folder that is not one, the demo root as a target), as
  argparse's usage errors are;
- 1, a failure while doing a valid request: the index cannot be read or written, an export
  cannot be imported, memlens.toml is broken or cannot be edited.

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
    """A user-facing failure while doing what was asked: printed as one line, exit code 1."""

    exit_code = 1


class UsageError(CliError):
    """Bad input from the user (a flag's value, a root that does not exist): exit code 2.
    A command turns its engine's errors of bad input into this one; :func:`exit_code` knows
    those no command turns."""

    exit_code = 2


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line like every other failure (no usage dump)."""

    def error(self, message: str):
        print(f"memlens: {one_line(message)} (see `{self.prog} --help`)", file=sys.stderr)
        sys.exit(2)

    subcommands = None  # its subcommands' action, once it has some

    def add_subparsers(self, **kwargs):
        self.subcommands = super().add_subparsers(**kwargs)
        return self.subcommands

    def parse_args(self, args=None, namespace=None):
        """As argparse, but an argument no parser takes is refused by the subcommand it
        follows, whose help lists what it takes (`memlens search --help`)."""
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            self.innermost(sys.argv[1:] if args is None else list(args)).error(
                f"unrecognized arguments: {' '.join(extras)}")
        return namespace

    def innermost(self, argv: list[str]) -> argparse.ArgumentParser:
        """The (sub)parser of the deepest subcommand named in ``argv``."""
        subcommands = self.subcommands.choices if self.subcommands is not None else {}
        for i, token in enumerate(argv):
            sub = subcommands.get(token)
            if sub is not None:
                return sub.innermost(argv[i + 1:]) if isinstance(sub, OneLineParser) else sub
        return self


def debug_wanted(args) -> bool:
    return bool(getattr(args, "debug", False)) or os.environ.get(DEBUG_ENV, "") not in ("", "0")


def describe(exc: BaseException, db_path: Path | None) -> str:
    """The one line for ``exc`` (engine/display.py knows the engine's failures)."""
    from engine.display import describe as describe_failure

    return str(exc) if isinstance(exc, CliError) else describe_failure(exc, db_path)


def exit_code(exc: BaseException) -> int:
    """The exit code of ``exc``: a CliError says its own; of the engine's errors, a source
    refused as asked (engine/index/source_config.py) and a demo root refused where asked
    (`memlens demo`, or the app creating it) are bad input, 2; any other is a failure, 1."""
    if isinstance(exc, CliError):
        return exc.exit_code
    from engine.demo import DemoRootError
    from engine.index import SourceEditFailed, SourceRefused

    refused = isinstance(exc, (SourceRefused, DemoRootError))
    return 2 if refused and not isinstance(exc, SourceEditFailed) else 1


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
        return exit_code(exc)
