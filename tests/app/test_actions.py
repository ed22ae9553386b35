"""The action catalogue is complete: every action runs somewhere, every key names an action."""

from __future__ import annotations

import re

from tui import keys
from tui.actions import ACTIONS, BY_ID, MENU, JobKind
from tui.app import MemlensApp
from tui.screens.main import MainScreen


def _method(action: str) -> str:
    return "action_" + re.sub(r"\(.*\)$", "", action)


def test_every_action_is_run_by_its_scope():
    for action in ACTIONS:
        owner = MainScreen if action.scope == "main" else MemlensApp
        assert hasattr(owner, _method(action.action)), (action.id, owner.__name__)


def test_bindings_of_catalogue_actions_take_their_label_and_help_from_it():
    bound = {b.id: b for _, group in keys.SECTIONS for b in group if b.id in BY_ID}
    assert set(bound) == {a.id for a in ACTIONS if a.id in keys.ALL_IDS}
    for binding_id, binding in bound.items():
        action = BY_ID[binding_id]
        assert (binding.action, binding.description, binding.tooltip) == (
            action.action, action.short, action.help)


def test_job_kinds_have_titles_and_menu_entries():
    # one catalogue action starts each job kind, and names the running job
    assert sorted(a.job for a in ACTIONS if a.job) == sorted(JobKind)
    assert [k.title for k in JobKind] == [
        "Reindex", "Full rebuild", "Re-embed", "Maintenance (rewrite + VACUUM)",
        "Maintenance (rewrite, no VACUUM)", "Import"]
    assert {a.job for a in MENU if a.job} == set(JobKind)
    assert [k for k in JobKind if k.cancellable] == [JobKind.REINDEX, JobKind.FULL,
                                                     JobKind.RE_EMBED]
    assert JobKind("maintenance").maintenance and JobKind.RE_EMBED.reopens_searcher
