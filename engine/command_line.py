"""The engine's module entry points (``python -m engine.indexer``, ``engine.scanner``,
``engine.maintenance``) run the installed ``memlens`` command, found by its registered entry
point, so one implementation and one exit-code rule serve both without the engine importing a
front door (docs/architecture.md)."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

COMMAND = "memlens"  # [project.scripts] in pyproject.toml


def run(argv: list[str]) -> int:
    """``memlens *argv``, as the installed command runs it; 1 with one line when memlens is not
    installed (a source tree run without ``pip install``)."""
    found = entry_points(group="console_scripts", name=COMMAND)
    if not found:
        print(f"{COMMAND}: the command line is not installed here: run `pip install -e .` in "
              "the repository first", file=sys.stderr)
        return 1
    return next(iter(found)).load()(argv)
