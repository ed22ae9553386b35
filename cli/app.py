"""Opening the Textual app from a command (``memlens``, ``memlens demo``): imported only when
one runs, so no other command loads Textual."""

from __future__ import annotations

from .errors import CliError


def open_app(root, db) -> int:
    try:
        from tui.app import run_app
    except ImportError as exc:
        raise CliError(f"the app is not available in this build ({exc})") from exc
    return run_app(root, db)
