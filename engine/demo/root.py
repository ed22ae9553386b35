"""generate_demo_root: write (or find) the demo data root, idempotently."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from engine.dates import clock

from .facts import DEMO_FORMAT, DEMO_MARKER, OWNED_PATHS, DemoRootError, DemoSummary
from .generator import _Generator


def generate_demo_root(root: Path, chunks: int | None = None, seed: int = 7,
                       today: date | None = None,
                       progress: Callable[[int, int], None] | None = None,
                       *, overwrite: bool = False) -> DemoSummary:
    """Write the demo data root at ``root`` (see the module docstring) and describe it.

    ``today`` is the last day of the demo's year (default: the clock's today, so "last week"
    and "yesterday" find demo data on any date; tests pin it). A complete demo made on another
    day with the same other arguments is made again for ``today``: it is dated to the day it
    is made. ``progress(done, total)`` is called as chunks are written (``total`` is refined
    once, when the small sources are done and the messaging plan is fixed). Raises :class:`DemoRootError`
    when ``root`` holds another demo (different arguments, without ``overwrite``) or data-layer
    files without a demo marker, and ``ValueError`` for bad arguments.
    """
    if chunks is not None and (isinstance(chunks, bool) or not isinstance(chunks, int)
                               or chunks < 1):
        raise ValueError(f"chunks must be a positive integer or None, not {chunks!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, not {seed!r}")
    if today is None:
        today = clock.today()
    if not isinstance(today, date):
        raise ValueError(f"today must be a datetime.date, not {today!r}")
    root = Path(root).expanduser()
    args = {"chunks": chunks, "seed": seed, "today": today.isoformat()}
    marker = root / DEMO_MARKER

    if marker.exists():
        try:
            info = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DemoRootError(f"{marker} is unreadable ({exc}); delete it to regenerate") \
                from None
        same = info.get("args") == args and info.get("format") == DEMO_FORMAT
        if same and info.get("complete"):
            return DemoSummary.from_json(root, info["summary"], created=False)
        redated = info.get("format") == DEMO_FORMAT and _but_the_day(info.get("args")) \
            == _but_the_day(args)
        if not same and not overwrite and not redated:
            raise DemoRootError(
                f"{root} already holds a memlens demo generated with {info.get('args')}; "
                f"asked for {args}. Pass overwrite=True (or choose another root) to replace it.")
        _clear_owned(root)  # same args but unfinished, or overwrite: start clean
    elif root.exists():
        if not root.is_dir():
            raise DemoRootError(f"{root} exists and is not a folder")
        present = [p for p in OWNED_PATHS if (root / p).exists()]
        if present:
            raise DemoRootError(
                f"{root} already holds data-layer files ({', '.join(present[:3])}...) but no "
                f"{DEMO_MARKER}: refusing to write a demo over what may be real data")

    root.mkdir(parents=True, exist_ok=True)
    _write_marker(marker, {"format": DEMO_FORMAT, "complete": False, "args": args})
    gen = _Generator(root, chunks, seed, today, progress)
    summary = gen.run()
    _write_marker(marker, {"format": DEMO_FORMAT, "complete": True, "args": args,
                           "summary": summary.to_json()})
    return summary


def _but_the_day(args: Any) -> dict | None:
    return {k: v for k, v in args.items() if k != "today"} if isinstance(args, dict) else None


def estimate(root: Path) -> dict[str, int]:
    """The estimated chunks per source type recorded in a demo root's marker."""
    info = json.loads((Path(root) / DEMO_MARKER).read_text(encoding="utf-8"))
    return dict(info["summary"]["estimated_chunks"])


def _write_marker(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def _clear_owned(root: Path) -> None:
    for rel in OWNED_PATHS:
        p = root / rel
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
