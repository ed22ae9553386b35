"""What the main screen's controllers (``chunk_actions``, ``time_actions``, ``filter_actions``,
``panes``, ``search_flow``, ``results_view``) use of the screen and of the app: ``Protocol``s,
so a controller needs no import of ``tui.screens.main`` (which imports the controllers), of
another controller, nor of ``tui.app``."""

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
    from textual.timer import Timer
    from textual.widget import Widget

    from engine.config import Config
    from engine.library import Library

    from ..actions import JobKind
    from ..messages import Overview
    from ..session import SearchSession
    from ..widgets.empty import EmptyState
    from ..widgets.preview import Preview
    from ..widgets.results import ResultList

W = TypeVar("W", bound="Widget")


class JobStarter(Protocol):
    """The app's job runner, as the main screen's controllers use it."""

    def start(self, kind: JobKind | str) -> bool: ...


class MainApp(Protocol):
    """The app, as the main screen's controllers use it."""

    config: Config
    library: Library
    now: datetime | None
    frozen: bool
    heap_settled: bool
    jobs: JobStarter

    @property
    def job(self) -> object | None: ...

    @property
    def screen(self) -> Screen[object]: ...

    def settle_heap(self) -> None: ...

    def demo_refusal(self, action_id: str) -> str | None: ...

    def push_screen(self, screen: Screen[object],
                    callback: Callable[..., object] | None = None) -> object: ...

    def open_in_editor(self, path: Path, line: int | None = None) -> None: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def action_timeline(self) -> None: ...


class FilterPart(Protocol):
    """The screen's ``filter_actions``, as the other controllers use it."""

    time_phrase: str | None

    def summary(self) -> list[str]: ...

    def show_chips(self) -> None: ...


class ResultsPart(Protocol):
    """The screen's ``results_view``, as the other controllers use it."""

    def empty(self) -> EmptyState: ...

    def show_results_pane(self, rows: bool) -> None: ...

    def show_idle(self) -> None: ...

    def show_no_index(self) -> None: ...

    def show_no_results(self) -> None: ...

    def show_status(self) -> None: ...


class MainHost(Protocol):
    """The main screen, as its controllers use it: the search session, the index overview,
    the embedder mismatch, its widgets, its controllers, and the Screen calls they make."""

    session: SearchSession
    overview: Overview | None
    mismatch: BaseException | str | None
    filter_actions: FilterPart
    results_view: ResultsPart

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

    def set_timer(self, delay: float, callback: Callable[[], object] | None = None) -> Timer: ...

    def call_after_refresh(self, callback: Callable[[], object]) -> bool: ...

    def schedule_search(self, delay: float | None = None) -> None: ...

    def answer_came(self, rows: bool) -> None: ...

    def show_infobar(self) -> None: ...
