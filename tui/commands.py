"""The command palette (ctrl+p): every action of the catalogue by name, for where you are.

One ``Provider`` (as posting does): ``commands`` lists what makes sense now — the main
screen's actions only over the main screen, the chunk actions only while the preview shows a
chunk, no index job while one runs, no import or source on the demo root, "Cancel job" only
while a cancellable one runs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .actions import ACTIONS, Action


class MemlensCommands(Provider):
    def _available(self, action: Action, main, job) -> bool:
        if action.scope == "main" and main is None:
            return False
        if action.needs_chunk and (main is None or main.preview.chunk is None):
            return False
        if action.job is not None and job is not None:
            return False  # refused while a job runs: not offered
        if self.app.demo_refusal(action.id):
            return False  # refused on the demo root: not offered
        if action.id == "cancel_job":
            return job is not None and job.cancellable
        return True

    @property
    def commands(self) -> list[tuple[str, Callable[[], object], str]]:
        from .screens.main import MainScreen

        app = self.app
        main = self.screen if isinstance(self.screen, MainScreen) else None
        job = app.job
        out = []
        for action in ACTIONS:
            if not self._available(action, main, job):
                continue
            help_text = action.help
            if action.id == "cancel_job" and job is not None:
                help_text = f"Cancel the running {job.title.lower()}"
            target = main if action.scope == "main" else app
            out.append((action.title, partial(app.run_action, action.action, target),
                        help_text))
        return out

    async def discover(self) -> Hits:
        for title, runner, help_text in self.commands:
            yield DiscoveryHit(title, runner, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, runner, help_text in self.commands:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), runner, help=help_text)
