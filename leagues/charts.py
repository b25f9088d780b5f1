"""Small SVG line charts drawn on the server (no script): a series of (x, y) values becomes
the coordinates of a polyline, an optional band around it, and the axis labels.

``line_chart(points, ...)`` takes ``points`` as (label, value, low, high) with ``low``/``high``
``None`` for no band, and returns a ``Chart`` whose fields the template writes into an
``<svg viewBox="0 0 {width} {height}">``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Chart:
    width: int
    height: int
    line: str
    band: str
    dots: list[tuple[float, float, str]] = field(default_factory=list)
    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    x_labels: list[tuple[float, str, bool]] = field(default_factory=list)  # x, text, also written on a phone
    empty: bool = False
    left: int = 0  # where the plot starts (the y labels end just before it)


def line_chart(points: Sequence[tuple[str, float | None, float | None, float | None]], *, width: int = 640,
               height: int = 220, invert: bool = False, ticks: int = 4, value_format: str = "{:.0f}",
               pad: tuple[int, int, int, int] = (14, 46, 36, 62),
               y_range: tuple[float, float] | None = None) -> Chart:
    """The chart of ``points`` (a ``None`` value leaves a gap in the dots but the line skips it).
    ``invert`` puts low values on top (a rank). ``pad`` is top, right, bottom, left in px;
    ``y_range`` fixes the vertical scale (e.g. ranks 1 to the last, shared by several charts)."""
    known = [(i, p) for i, p in enumerate(points) if p[1] is not None]
    if not known:
        return Chart(width, height, "", "", empty=True)
    top, right, bottom, left = pad
    lows = [p[2] if p[2] is not None else p[1] for _i, p in known]
    highs = [p[3] if p[3] is not None else p[1] for _i, p in known]
    lo, hi = (min(lows), max(highs)) if y_range is None else y_range
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    span_x = max(len(points) - 1, 1)

    def x(i: int) -> float:
        return round(left + (width - left - right) * (i / span_x if len(points) > 1 else 0.5), 1)

    def y(v: float) -> float:
        share = (v - lo) / (hi - lo)
        if not invert:
            share = 1 - share
        return round(top + (height - top - bottom) * share, 1)

    line = " ".join(f"{x(i)},{y(p[1])}" for i, p in known)
    band = ""
    if any(p[2] is not None for _i, p in known):
        upper = [f"{x(i)},{y(p[3] if p[3] is not None else p[1])}" for i, p in known]
        lower = [f"{x(i)},{y(p[2] if p[2] is not None else p[1])}" for i, p in reversed(known)]
        band = " ".join(upper + lower)
    dots = [(x(i), y(p[1]), f"{p[0]}: {value_format.format(p[1])}") for i, p in known]
    y_ticks = []
    for k in range(ticks + 1):
        value = lo + (hi - lo) * k / ticks
        y_ticks.append((y(value), value_format.format(value)))
    texts, per_point = [p[0] for p in points], (width - left - right) / span_x
    names = label_indices(texts, per_point, TICK_PX)
    phone = set(label_indices(texts, per_point, TICK_PX_PHONE, among=names))
    x_labels = [(x(i), points[i][0], i in phone) for i in names]
    return Chart(width, height, line, band, dots, y_ticks, x_labels, left=left)


#: the font size of the labels in the SVG's units (static/css/year.css), and on a phone
TICK_PX, TICK_PX_PHONE = 11, 20
CHAR_EM = 0.62  # the width of a label's character, in ems of its font (digits and short month names)


def label_indices(labels: Sequence[str], per_point_px: float, font_px: float,
                  among: Sequence[int] | None = None) -> list[int]:
    """Which of ``labels`` (one per point, ``per_point_px`` apart) to write so that none overlaps
    another at ``font_px``: the last always (it ends at its point), then every ``step``-th back
    from it, about seven at most; the one before the last is left out when the last's text,
    which runs leftwards from its point, would reach it. ``among``: choose only from these
    indices (every k-th of them), the labels already chosen for a smaller font."""
    if not labels:
        return []
    widest = max(len(text) for text in labels) * CHAR_EM * font_px
    gap = font_px * 0.6
    step = max(1, math.ceil(len(labels) / 7), math.ceil((widest + gap) / max(per_point_px, 1e-9)))
    last = len(labels) - 1
    if among:
        base = min((b - a for a, b in zip(among, among[1:], strict=False)), default=step)
        step = base * math.ceil(step / base)
    chosen = [i for i in range(last, -1, -step)][::-1]
    if among:
        chosen = [i for i in chosen if i in set(among)]
    if len(chosen) >= 2 and (chosen[-1] - chosen[-2]) * per_point_px < 1.5 * widest + gap:
        chosen.pop(-2)  # centred on its point, it would run into the last label's text
    return chosen
