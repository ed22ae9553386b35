"""What the main screen's controllers (``chunk_actions``, ``time_actions``, ``filter_actions``,
``panes``) use of the screen and of the app: ``Protocol``s, so a controller needs no import of
``tui.screens.main`` (which imports the controllers) nor of ``tui.app``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.screen import Screen
    from textual.widget import Widget

    from engine.config import Config

    from ..messages import Overview
    from ..session import SearchSession
    from ..widgets.preview import Preview
    from ..widgets.results import ResultList

W = TypeVar("W", bound="Widget")


class MainApp(Protocol):
    """The app, as the main screen's controllers use it."""

    config: Config
    now: datetime | None
    frozen: bool

    def push_screen(self, screen: Screen[object],
                    callback: Callable[..., object] | None = None) -> object: ...

    def open_in_editor(self, path: Path, line: int | None = None) -> None: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def action_timeline(self) -> None: ...


class MainHost(Protocol):
    """The main screen, as its controllers use it: the search session, the index overview,
    the embedder mismatch, its widgets, and the Screen calls they make."""

    session: SearchSession
    overview: Overview | None
    mismatch: BaseException | str | None

    @property
    def app(self) -> MainApp: ...

    @property
    def results(self) -> ResultList: ...

    @property
    def preview(self) -> Preview: ...

    @property
    def focused(self) -> Widget | None: ...

    def query_one(self, selector: type[W]) -> W: ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def post_message(self, message: Message) -> bool: ...

    def run_worker(self, work: Callable[[], object], name: str | None = "",
                   group: str = "default", *, thread: bool = False, exclusive: bool = False,
                   exit_on_error: bool = True) -> object: ...

    def prevent(self, *message_types: type[Message]) -> AbstractContextManager[None]: ...

    def has_class(self, *class_names: str) -> bool: ...

    def add_class(self, *class_names: str, update: bool = True) -> object: ...

    def remove_class(self, *class_names: str, update: bool = True) -> object: ...

    def toggle_class(self, *class_names: str) -> object: ...

    def schedule_search(self, delay: float | None = None) -> None: ...

    def show_infobar(self) -> None: ...
