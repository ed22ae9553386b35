"""One line for any failure a front door may meet: what happened and what to do.

The CLI prints it after ``memlens:``; the MCP server answers it as a tool error. Messages of
the engine's own errors (config, import, index) are already one line and pass through.
"""

from __future__ import annotations

from pathlib import Path

from .db import Error as DBError
from .db import IndexUnavailable, describe_db_error, describe_os_error


def describe(exc: BaseException, db_path: Path | None = None) -> str:
    from .config import ConfigError
    from .importers import ImportFailed

    if isinstance(exc, DBError):
        return describe_db_error(exc, db_path or Path("the index"))
    if isinstance(exc, FileNotFoundError) and not exc.filename:
        return str(exc)  # our own "no index at ...: run `memlens reindex` first"
    if isinstance(exc, OSError):
        return describe_os_error(exc)
    if isinstance(exc, RecursionError):
        return "input nested too deeply to process (run again with --debug for the traceback)"
    if isinstance(exc, (ConfigError, ImportFailed, IndexUnavailable, RuntimeError)):
        return str(exc)
    return (f"unexpected error: {type(exc).__name__}: {exc} (run again with --debug for the "
            "traceback)")
