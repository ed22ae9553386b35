"""The footer, with F1 Help and F2 Menu first: Textual lists the focused widget's keys first,
so at 80 columns the way to every other key fell off the right edge. The keys that do not fit
whole are left out (F1 lists every key), never cut mid-word at the edge."""

from __future__ import annotations

from rich.cells import cell_len
from textual.widget import Widget
from textual.widgets import Footer

PINNED = ("help", "menu")  # the actions shown first, whatever has focus
PALETTE = "-command-palette"  # the class of the palette's key, docked at the right


class MemlensFooter(Footer):
    def compose(self):
        # no binding groups in memlens: the keys are flat, reordering them is safe
        keys = list(super().compose())
        pinned = [k for k in keys if getattr(k, "action", None) in PINNED]
        yield from pinned + [k for k in keys if k not in pinned]

    async def recompose(self) -> None:
        await super().recompose()
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Show the keys, in order, while each fits whole beside the palette's key."""
        keys = list(self.query("FooterKey"))
        room = self.size.width - sum(_width(k) for k in keys if k.has_class(PALETTE))
        for key in keys:
            if not key.has_class(PALETTE):
                key.display = _width(key) <= room
                room = room - _width(key) if key.display else 0


def _width(key: Widget) -> int:
    """The cells a key takes: its text (key, description, paddings) and its margin."""
    return cell_len(key.render().plain) + key.styles.margin.right
