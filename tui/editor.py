"""Opening a file in the user's editor: the app suspends while it runs."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path, PureWindowsPath
from typing import Any

# editors that take +N to open at line N
LINE_EDITORS = {"vi", "vim", "nvim", "nano", "emacs", "emacsclient", "micro", "hx", "kak",
                "joe", "mg", "ne"}


# the first on PATH when neither variable is set (Notepad is on every Windows)
DEFAULT_EDITORS = ("notepad",) if os.name == "nt" else ("nano", "vi")


def choose_editor() -> tuple[str, str | None] | None:
    """The editor command and, when it is a fallback, why (for a notification): $EDITOR, else
    $VISUAL, else nano or vi (Notepad on Windows) from PATH; None when there is none. (Windows
    shows an %EDITOR% set in its environment as $EDITOR here too.)"""
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


def editor_argv(path: Path, line: int | None, editor: str | None = None,
                windows: bool = os.name == "nt") -> list[str] | None:
    """The editor (``editor``, else :func:`choose_editor`'s) with ``path``, at ``line`` when
    the editor takes +N; None when there is none. On Windows the command is split the way
    Windows quotes it (a backslash is part of a path, not an escape) and ``vim.exe`` is vim."""
    if editor is None:
        chosen = choose_editor()
        if chosen is None:
            return None
        editor = chosen[0]
    argv = shlex.split(editor, posix=not windows)
    if windows:  # non-POSIX splitting keeps the quotes around a path with spaces
        argv = [a[1:-1] if len(a) > 1 and a[0] == a[-1] == '"' else a for a in argv]
    if windows:  # "code" is code.cmd: Windows starts it only by its full name (PATHEXT)
        argv[0] = shutil.which(argv[0]) or argv[0]
    name = PureWindowsPath(argv[0]).name if windows else Path(argv[0]).name
    if windows and name.lower().endswith((".exe", ".cmd", ".bat")):
        name = name[:-4]
    if line and name.lower() in LINE_EDITORS:
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
