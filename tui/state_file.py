"""What the app remembers between runs: the theme, the query history, the last filters and the
watch setting, in ``state.json`` in the user's state directory (platformdirs'
``user_state_dir("memlens")``; ``MEMLENS_STATE_DIR`` overrides it, as the tests do).

Written atomically (a temporary file in the same folder, then ``os.replace``), so a crash never
leaves half a file. A file that cannot be read is ignored with a one-line notice (and replaced
at the next save): remembering is a convenience, never a reason not to start.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .session import FILTER_KEYS
from .widgets.text import one_line

STATE_ENV = "MEMLENS_STATE_DIR"
WATCH_ENV = "MEMLENS_WATCH"  # "off" / "on" wins over the saved setting (tests, scripts)
HISTORY_KEPT = 200


@dataclass
class AppState:
    theme: str | None = None
    history: list[str] = field(default_factory=list)
    filters: dict[str, str | None] = field(default_factory=dict)  # FILTER_KEYS
    watch: bool = True


def state_file() -> Path:
    folder = os.environ.get(STATE_ENV)
    if not folder:
        from platformdirs import user_state_dir

        folder = user_state_dir("memlens")
    return Path(folder) / "state.json"


def _parse(raw: object) -> AppState:
    if not isinstance(raw, dict):
        raise ValueError("not a JSON object")
    state = AppState()
    if isinstance(raw.get("theme"), str):
        state.theme = raw["theme"]
    history = raw.get("history")
    if isinstance(history, list):
        state.history = [q for q in history if isinstance(q, str) and q.strip()][-HISTORY_KEPT:]
    filters = raw.get("filters")
    if isinstance(filters, dict):
        state.filters = {k: v for k, v in filters.items()
                         if k in FILTER_KEYS and (v is None or isinstance(v, str))}
    if isinstance(raw.get("watch"), bool):
        state.watch = raw["watch"]
    return state


def load_state(path: Path | None = None) -> tuple[AppState, str | None]:
    """The saved state (defaults when there is none) and a notice when the file was ignored."""
    path = path or state_file()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return AppState(), None
    except (OSError, UnicodeDecodeError) as exc:
        return AppState(), f"Ignored the saved app state ({path}): {one_line(str(exc))[:120]}"
    try:
        return _parse(json.loads(text)), None
    except ValueError as exc:  # JSONDecodeError is one
        return AppState(), (f"Ignored the saved app state ({path}): {one_line(str(exc))[:120]}"
                            "; it is replaced at the next save")


def save_state(state: AppState, path: Path | None = None) -> str | None:
    """Write ``state`` atomically; the one-line reason when it could not be written."""
    path = path or state_file()
    data = asdict(state)
    data["history"] = data["history"][-HISTORY_KEPT:]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".state-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, ensure_ascii=False, indent=1)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        return f"Could not save the app state ({path}): {one_line(str(exc))[:120]}"
    return None


def watch_override() -> bool | None:
    """``MEMLENS_WATCH``: False for off/0/no/false, True for on/1/yes/true, else None."""
    value = os.environ.get(WATCH_ENV, "").strip().lower()
    if value in ("off", "0", "no", "false"):
        return False
    if value in ("on", "1", "yes", "true"):
        return True
    return None
