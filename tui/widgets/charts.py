"""Bar charts drawn with block characters (they resize with the terminal)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from .badges import type_colour
from .text import bar, plain

_COLUMN = " ▁▂▃▄▅▆▇█"
_MONTHS = "JFMAMJJASOND"


class HBarChart(Static):
    """label ████▌ count, one row per item, bars scaled to the largest value."""

    def __init__(self, data: dict[str, int] | None = None, *, colour_by_type: bool = False,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.data = dict(data or {})
        self.colour_by_type = colour_by_type

    def set_data(self, data: dict[str, int]) -> None:
        self.data = dict(data)
        self.refresh(layout=True)

    def render(self) -> Content:
        if not self.data:
            return Content.styled("no data", "dim")
        label_w = min(max(len(k) for k in self.data), 18)
        count_w = max(len(f"{v:,}") for v in self.data.values())
        width = max(self.content_region.width or self.size.width, 30)
        bar_w = max(width - label_w - count_w - 3, 4)
        top = max(self.data.values()) or 1
        rows = []
        for key, value in self.data.items():
            colour = type_colour(key) if self.colour_by_type else "$text-primary"
            rows.append(Content.assemble(
                plain(key)[:label_w].ljust(label_w), " ",
                (bar(value / top, bar_w), colour), " ",
                (f"{value:,}".rjust(count_w), "bold"), strip_control_codes=False))
        return Content("\n").join(rows)


class ColumnChart(Static):
    """Vertical columns per month (YYYY-MM keys), eighth-block resolution, month initials
    and years underneath."""

    def __init__(self, data: dict[str, int] | None = None, *, height_rows: int = 8,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.data = dict(data or {})
        self.height_rows = height_rows

    def set_data(self, data: dict[str, int]) -> None:
        self.data = dict(sorted(data.items()))
        self.refresh(layout=True)

    def render(self) -> Content:
        if not self.data:
            return Content.styled("no dated chunks", "dim")
        width = max((self.content_region.width or self.size.width) - 8, 12)
        items = list(self.data.items())
        col_w = max(1, min(4, width // max(len(items), 1)))
        if len(items) * col_w > width:
            items = items[-(width // col_w):]
        top = max(v for _, v in items) or 1
        h = self.height_rows
        axis_w = len(f"{top:,}")
        lines = []
        for row in range(h, 0, -1):
            label = f"{top:,}".rjust(axis_w) if row == h else (
                "0".rjust(axis_w) if row == 1 else " " * axis_w)
            cells = []
            for _, v in items:
                eighths = round(v / top * h * 8)
                level = min(max(eighths - (row - 1) * 8, 0), 8)
                if v and row == 1 and level == 0:
                    level = 1  # a non-empty month always shows
                cells.append(_COLUMN[level] * max(col_w - 1, 1) + (" " if col_w > 1 else ""))
            lines.append(Content.assemble((label, "dim"), " ┤" if row in (1, h) else " │",
                                          ("".join(cells), "$text-primary")))
        months = "".join(
            (_MONTHS[int(k[5:7]) - 1] if k[5:7].isdigit() and 1 <= int(k[5:7]) <= 12 else "?")
            .ljust(col_w) for k, _ in items)
        lines.append(Content.styled(" " * (axis_w + 2) + months, "dim"))
        years, last = [], None
        for k, _ in items:
            y = k[:4]
            years.append(y if y != last else "")
            last = y
        year_line = ""
        for i, y in enumerate(years):
            if y:
                pos = max(i * col_w, len(year_line) + 1 if year_line else 0)
                year_line = year_line.ljust(pos) + y
        lines.append(Content.styled(" " * (axis_w + 2) + year_line, "dim"))
        return Content("\n").join(lines)
