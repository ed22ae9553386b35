"""Keys typed after enter, before the answer came: they are meant for its first result.

A paste or a macro ("sourdough porch⏎c") sends the query, enter and a result key at once. The
main screen then holds ``after_enter`` (a list) until the answer lands; an action on the
highlighted result decorated with :func:`waits_for_answer` is kept there instead of running on
no result (or on the previous query's), and runs once the answer's first result is previewed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


def waits_for_answer(action: Callable[..., None]) -> Callable[..., None]:
    """Run ``action`` now, or keep it for the answer on its way."""
    name = action.__name__.removeprefix("action_")

    @functools.wraps(action)
    def run(self: Any, *args: Any) -> None:
        waiting = getattr(self, "after_enter", None)
        if waiting is not None:
            waiting.append(name)
            return
        action(self, *args)
    run.waits_for_answer = True  # type: ignore[attr-defined]
    return run
