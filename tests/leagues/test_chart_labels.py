"""The month names under a chart never overlap: at the desktop's font and, for those written on a
phone, at the phone's larger one; the last ends at its point, the others are centred on theirs
(templates/leagues/_chart.html)."""
from __future__ import annotations

import re
from datetime import date

import pytest
from django.utils import translation

from leagues.charts import CHAR_EM, TICK_PX, TICK_PX_PHONE, line_chart
from leagues.views.year import month_label


def _spans(chart, font_px: float, phone_only: bool) -> list[tuple[float, float]]:
    labels = [(x, text) for x, text, phone in chart.x_labels if phone or not phone_only]
    spans = []
    for k, (x, text) in enumerate(labels):
        width = len(text) * CHAR_EM * font_px
        last = k == len(labels) - 1 and k > 0
        spans.append((x - width, x) if last else (x - width / 2, x + width / 2))
    return spans


def _months(n: int) -> list[date]:
    return [date(2025 + (m // 12), m % 12 + 1, 1) for m in range(n)]


@pytest.mark.parametrize("language", ["en", "es", "pt-br", "it"])
@pytest.mark.parametrize("months", [2, 5, 7, 8, 13, 24, 60])
@pytest.mark.parametrize("width", [560, 640])
def test_no_two_month_names_overlap(language, months, width):
    with translation.override(language):
        points = [(month_label(day), 1500.0 + i, None, None) for i, day in enumerate(_months(months))]
        chart = line_chart(points, width=width)
    assert chart.x_labels[-1][1] == points[-1][0] and chart.x_labels[-1][2], "the last month is always named"
    for font, phone_only in ((TICK_PX, False), (TICK_PX_PHONE, True)):
        spans = _spans(chart, font, phone_only)
        for (_a0, a1), (b0, _b1) in zip(spans, spans[1:], strict=False):
            assert a1 < b0, (language, months, width, font, chart.x_labels)


def test_the_chart_writes_which_names_a_phone_keeps():
    points = [(f"M{i:02d} 2026", float(i), None, None) for i in range(13)]
    svg = line_chart(points, width=560)
    kept = [text for _x, text, phone in svg.x_labels if phone]
    assert kept and len(kept) < len(svg.x_labels)
    assert re.fullmatch(r"M\d\d 2026", kept[-1])
