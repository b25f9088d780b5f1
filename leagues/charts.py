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
    x_labels: list[tuple[float, str]] = field(default_factory=list)
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
    step = max(1, math.ceil(len(points) / 7))  # about seven names at most
    x_labels = [(x(i), p[0]) for i, p in enumerate(points) if (len(points) - 1 - i) % step == 0]  # the last named
    return Chart(width, height, line, band, dots, y_ticks, x_labels, left=left)
