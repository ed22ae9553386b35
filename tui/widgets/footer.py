"""The footer, with F1 Help and F2 Menu first: Textual lists the focused widget's keys first,
so at 80 columns the way to every other key fell off the right edge."""

from __future__ import annotations

from textual.widgets import Footer

PINNED = ("help", "menu")  # the actions shown first, whatever has focus


class MemlensFooter(Footer):
    def compose(self):
        # no binding groups in memlens: the keys are flat, reordering them is safe
        keys = list(super().compose())
        pinned = [k for k in keys if getattr(k, "action", None) in PINNED]
        yield from pinned + [k for k in keys if k not in pinned]
