"""What the app's parts (``tui/app_jobs``, ``tui/app_state``, ``tui/app_sources``) use of the
app that holds them: a ``Protocol`` each part is typed against, so a part needs no import of
``tui.app`` (which imports the parts) and a test can hand it a stand-in."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from engine import Searcher
    from engine.config import Config


class AppHost(Protocol):
    """The engine objects the app holds and the few App calls every part makes."""

    config: Config
    searcher: Searcher
    embedder: object | None  # the embedding model handed in (tests), else the searcher's

    @property
    def screen(self) -> Screen[object]: ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def push_screen(self, screen: Screen[object],
                    callback: Callable[..., object] | None = None) -> object: ...

    def run_worker(self, work: Callable[[], object], name: str | None = "",
                   group: str = "default", *, thread: bool = False,
                   exit_on_error: bool = True) -> object: ...

    def post_message(self, message: Message) -> bool: ...

    def refresh_bindings(self) -> None: ...

    def tell_main(self, message: Message) -> bool:
        """Post ``message`` to the main screen alone (it does not bubble back to the app);
        False when there is no main screen yet."""

    def refuse_on_demo_root(self, action_id: str) -> bool:
        """Say the demo root's refusal of the catalogue action ``action_id``, if it refuses."""
