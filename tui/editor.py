"""Opening a file in the user's editor: the app suspends while it runs."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

# editors that take +N to open at line N
LINE_EDITORS = {"vi", "vim", "nvim", "nano", "emacs", "emacsclient", "micro", "hx", "kak",
                "joe", "mg", "ne"}


DEFAULT_EDITORS = ("nano", "vi")  # the first on PATH when neither variable is set


def choose_editor() -> tuple[str, str | None] | None:
    """The editor command and, when it is a fallback, why (for a notification): $EDITOR, else
    $VISUAL, else nano or vi from PATH; None when there is none."""
    editor = os.environ.get("EDITOR", "").strip()
    if editor:
        return editor, None
    visual = os.environ.get("VISUAL", "").strip()
    if visual:
        return visual, f"$EDITOR is not set: opening in $VISUAL ({visual})"
    for name in DEFAULT_EDITORS:
        if shutil.which(name):
            return name, f"Neither $EDITOR nor $VISUAL is set: opening in {name}"
    return None


def editor_argv(path: Path, line: int | None, editor: str | None = None) -> list[str] | None:
    """The editor (``editor``, else :func:`choose_editor`'s) with ``path``, at ``line`` when
    the editor takes +N; None when there is none."""
    if editor is None:
        chosen = choose_editor()
        if chosen is None:
            return None
        editor = chosen[0]
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
