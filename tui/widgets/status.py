"""The status line under the results: how the search went (arms, confidence, results, time),
the mode and the active filters."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from .text import one_line, plain

Part = Content | str | tuple[str, str]


def search_parts(session: Any, *, frozen: bool, mismatch: bool, job_running: bool,
                 describe_error: Any) -> list[Part]:
    """What the status says about the session's latest search."""
    parts: list[Part] = []
    if session.searching:
        parts.append(("searching…", "$text-accent"))
    resp = session.response
    if resp is not None:
        arms = resp.arms
        if resp.semantic_error:
            hint = " — F2 → Re-embed" if resp.semantic_error == "embedder_mismatch" else ""
            parts.append(Content.styled(f"arms: {plain(arms)}{hint}", "bold $text-warning"))
        elif mismatch and resp.mode == "keyword":
            parts.append(("arms: keyword (embedder mismatch — F2 → Re-embed)",
                          "bold $text-warning"))
        else:
            parts.append(Content.assemble(("arms: ", "dim"), (plain(arms), "bold $text-success")))
        conf_style = "bold $text-success" if resp.confidence == "ok" else "bold $text-warning"
        parts.append(Content.assemble(("confidence: ", "dim"), (resp.confidence, conf_style)))
        more = "+" if session.page_full else ""
        parts.append(f"{len(session.rows)}{more} results")
        if session.at_cap:  # the last page size: say so rather than stop silently
            parts.append(("more may exist: narrow the query", "$text-warning"))
        if frozen:
            parts.append(("-- ms", "dim"))
        else:
            parts.append(f"{resp.timings_ms.get('total', 0):.0f} ms")
        if resp.index_transition and not job_running:
            parts.append((f"index: {resp.index_transition} running", "$text-warning"))
    elif session.error is not None:
        parts.append(Content.styled("search unavailable: " + one_line(
            describe_error(session.error))[:120], "$text-error"))
    else:
        parts.append(("ready", "dim"))
    return parts


class StatusLine(Static):
    """arms · confidence · results · time · mode · filters."""

    def show(self, parts: list[Part]) -> None:
        joined: list[Part] = [" "]
        for i, part in enumerate(parts):
            if i:
                joined.append(("  ·  ", "dim"))
            joined.append(part)
        # one fixed line, updated at every search: a repaint, no layout of the screen
        self.update(Content.assemble(*joined, strip_control_codes=False), layout=False)
