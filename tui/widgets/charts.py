"""Bar charts drawn with block characters (they resize with the terminal)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from engine.display import type_label

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

    def _label(self, key: str) -> str:
        """A source type by its label (engine.display.type_label), other keys as they are."""
        return type_label(key) if self.colour_by_type else key

    def render(self) -> Content:
        if not self.data:
            return Content.styled("no data", "dim")
        label_w = min(max(len(self._label(k)) for k in self.data), 18)
        count_w = max(len(f"{v:,}") for v in self.data.values())
        width = max(self.content_region.width or self.size.width, 30)
        bar_w = max(width - label_w - count_w - 3, 4)
        top = max(self.data.values()) or 1
        rows = []
        for key, value in self.data.items():
            colour = type_colour(key) if self.colour_by_type else "$text-primary"
            rows.append(Content.assemble(
                plain(self._label(key))[:label_w].ljust(label_w), " ",
                (bar(value / top, bar_w), colour), " ",
                (f"{value:,}".rjust(count_w), "bold"), strip_control_codes=False))
        return Content("\n").join(rows)


GAP = None  # a column standing for a run of empty months


def month_series(data: dict[str, int]) -> list[tuple[str, int]]:
    """Every month from the first to the last key (YYYY-MM), the empty ones as 0."""
    keys = sorted(k for k in data if len(k) >= 7 and k[:4].isdigit() and k[5:7].isdigit()
                  and 1 <= int(k[5:7]) <= 12)
    if not keys:
        return []
    y, m = int(keys[0][:4]), int(keys[0][5:7])
    last = (int(keys[-1][:4]), int(keys[-1][5:7]))
    out = []
    while (y, m) <= last:
        key = f"{y:04d}-{m:02d}"
        out.append((key, data.get(key, 0)))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def fit_months(series: list[tuple[str, int]], width: int, min_gap: int = 3
               ) -> tuple[list[tuple[str | None, int]], bool]:
    """The columns to draw in ``width`` cells: every month when they fit, else runs of at
    least ``min_gap`` empty months as one gap column (``(None, months)``), else the latest
    columns that fit; and whether earlier ones were left out."""
    if len(series) <= width:
        return list(series), False
    out: list[tuple[str | None, int]] = []
    i = 0
    while i < len(series):
        j = i
        while j < len(series) and series[j][1] == 0:
            j += 1
        if j - i >= min_gap:
            out.append((GAP, j - i))
            i = j
        else:
            out.append(series[i])
            i += 1
    if len(out) > width:
        out = out[-width:]
        while out and out[0][0] is GAP:
            out = out[1:]
        return out, True
    return out, False


class ColumnChart(Static):
    """Vertical columns per month (YYYY-MM keys), eighth-block resolution, month initials
    and years underneath. Empty months are empty columns; a long run of them, when the months
    do not fit, one ``┊`` column."""

    def __init__(self, data: dict[str, int] | None = None, *, height_rows: int = 8,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.data = dict(data or {})
        self.height_rows = height_rows

    def set_data(self, data: dict[str, int]) -> None:
        self.data = dict(sorted(data.items()))
        self.refresh(layout=True)

    def render(self) -> Content:
        series = month_series(self.data)
        if not series:
            return Content.styled("no dated chunks", "dim")
        top_value = max(v for _, v in series) or 1
        axis_w = len(f"{top_value:,}")
        width = max((self.content_region.width or self.size.width) - axis_w - 2, 12)
        items, cut = fit_months(series, width)
        col_w = max(1, min(4, width // max(len(items), 1)))
        top = max((v for k, v in items if k is not GAP), default=0) or 1
        axis_w = len(f"{top:,}")
        h = self.height_rows
        lines = []
        for row in range(h, 0, -1):
            label = f"{top:,}".rjust(axis_w) if row == h else (
                "0".rjust(axis_w) if row == 1 else " " * axis_w)
            cells = []
            for key, v in items:
                if key is GAP:
                    cells.append("┊".ljust(col_w))
                    continue
                eighths = round(v / top * h * 8)
                level = min(max(eighths - (row - 1) * 8, 0), 8)
                if v and row == 1 and level == 0:
                    level = 1  # a non-empty month always shows
                cells.append(_COLUMN[level] * max(col_w - 1, 1) + (" " if col_w > 1 else ""))
            lines.append(Content.assemble((label, "dim"), " ┤" if row in (1, h) else " │",
                                          ("".join(cells), "$text-primary")))
        months = "".join(("┊" if key is GAP else _MONTHS[int(key[5:7]) - 1]).ljust(col_w)
                         for key, _ in items)
        lines.append(Content.styled(" " * (axis_w + 2) + months, "dim"))
        lines.append(Content.styled(" " * (axis_w + 2) + year_line(items, col_w), "dim"))
        if cut:
            lines.append(Content.styled(f"earlier months not shown (from {series[0][0]})",
                                        "dim"))
        return Content("\n").join(lines)


def year_line(items: list[tuple[str | None, int]], col_w: int) -> str:
    """Each year under the column of its first month shown. A label that would run into the
    next one is left out rather than moved (a moved year names the wrong columns); placed from
    the right, so a partial first year ("D" of 2025 before 2026's "J") gives way."""
    starts, last = [], None
    for i, (key, _) in enumerate(items):
        if key is not GAP and key[:4] != last:
            last = key[:4]
            starts.append((i * col_w, last))
    placed: list[tuple[int, str]] = []
    limit = None
    for pos, year in reversed(starts):
        if limit is None or pos + len(year) < limit:
            placed.append((pos, year))
            limit = pos
    line = ""
    for pos, year in reversed(placed):
        line = line.ljust(pos) + year
    return line
