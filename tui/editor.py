"""Opening a file in the user's editor: the app suspends while it runs."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

# editors that take +N to open at line N
LINE_EDITORS = {"vi", "vim", "nvim", "nano", "emacs", "emacsclient", "micro", "hx", "kak",
                "joe", "mg", "ne"}


def editor_argv(path: Path, line: int | None) -> list[str] | None:
    """$EDITOR (else $VISUAL) with ``path`` (at ``line`` when the editor takes +N); None when
    neither is set."""
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL")
    if not editor:
        return None
    argv = shlex.split(editor)
    if line and Path(argv[0]).name in LINE_EDITORS:
        argv.append(f"+{line}")
    argv.append(str(path))
    return argv


def run_editor(app: Any, argv: list[str]) -> int:
    """Run the editor with the terminal handed over (headless, as in tests: detached); its
    exit status. Raises OSError when it cannot start or the app cannot suspend."""
    from textual.app import SuspendNotSupported

    if app.is_headless:
        return subprocess.call(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        with app.suspend():
            return subprocess.call(argv)
    except SuspendNotSupported as exc:
        raise OSError(f"this terminal cannot hand over to an editor: {exc}") from exc
