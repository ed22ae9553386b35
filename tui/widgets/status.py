"""The status line under the results: how the search went (arms, confidence, results, time),
the mode and the active filters."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from engine.display import plural

from .text import WordCut, one_line, plain

Part = Content | str | tuple[str, str]


COVERAGE_WARN = 0.95  # below this share of chunks with a vector, semantic search is partial


def coverage_text(coverage: float) -> str:
    """``semantic covers 1% of the index`` (``<1%`` when some but under one percent)."""
    pct = coverage * 100
    shown = "<1" if 0 < pct < 1 else f"{pct:.0f}"
    return f"semantic covers {shown}% of the index"


def search_parts(session: Any, *, frozen: bool, mismatch: bool, job_running: bool,
                 describe_error: Any, coverage: float | None = None) -> list[Part]:
    """What the status says about the session's latest search (``coverage``: the share of
    chunks with a vector, from the overview)."""
    parts: list[Part] = []
    if session.searching:
        parts.append(("searching…", "$text-accent"))
    resp = session.response
    if resp is not None:
        arms = resp.arms
        # most chunks have no vector: "both" and "ok" would claim a search that did not run
        partial = (coverage is not None and coverage < COVERAGE_WARN and not resp.semantic_error
                   and resp.mode in ("hybrid", "semantic"))
        if resp.semantic_error:
            hint = " — F2 → Re-embed" if resp.semantic_error == "embedder_mismatch" else ""
            parts.append(Content.styled(f"arms: {plain(arms)}{hint}", "bold $text-warning"))
        elif mismatch and resp.mode == "keyword":
            parts.append(("arms: keyword (embedder mismatch — F2 → Re-embed)",
                          "bold $text-warning"))
        elif partial:
            parts.append((coverage_text(coverage), "bold $text-warning"))
        else:
            parts.append(Content.assemble(("arms: ", "dim"), (plain(arms), "bold $text-success")))
        if resp.serving_embedder and not resp.semantic_error:  # another embedder configured
            which = plain(resp.serving_embedder.split(":", 1)[0])
            hint = "re-embedding" if job_running else "F2 → Re-embed"
            parts.append((f"vectors: {which} ({hint})", "$text-warning"))
        if resp.confidence != "ok" or not partial:
            conf_style = ("bold $text-success" if resp.confidence == "ok"
                          else "bold $text-warning")
            parts.append(Content.assemble(("confidence: ", "dim"), (resp.confidence, conf_style)))
        more = "+" if session.page_full else ""
        parts.append(f"{len(session.rows):,}+ results" if more
                     else plural(len(session.rows), "result"))
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
        # one fixed line, updated at every search: a repaint, no layout of the screen; cut
        # after a whole word
        self.update(WordCut.of(Content.assemble(*joined, strip_control_codes=False)),
                    layout=False)
