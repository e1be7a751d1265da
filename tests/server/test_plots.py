"""The server's SVG plots: every point inside the drawing, the highest score highest, a flat series drawn
(not a division by zero), labels escaped."""

from __future__ import annotations

import re

from yambak.server.profiles.plots import BOTTOM, TOP, H, rating_svg, series_svg, trend_svg

DOT = re.compile(r'<circle class="[^"]*" cx="([\d.]+)" cy="([\d.]+)"')


def _dots(svg: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in DOT.findall(svg)]


def test_scores_are_drawn_inside_the_plot_the_best_highest() -> None:
    points = [{"score": s, "best": False} for s in (120, 250, 180, 90)]
    dots = _dots(trend_svg(points, "Scores <&>"))
    assert len(dots) == 4 and all(TOP <= y <= H - BOTTOM for _, y in dots)
    assert min(dots, key=lambda d: d[1]) == dots[1] and max(dots, key=lambda d: d[1]) == dots[3]
    assert [x for x, _ in dots] == sorted(x for x, _ in dots)  # oldest first, left to right


def test_a_flat_series_and_a_single_point_are_drawn() -> None:
    for svg in (trend_svg([{"score": 100, "best": False}] * 3, "t"), rating_svg([0.0, 0.5], "r")):
        assert "nan" not in svg and "inf" not in svg and _dots(svg)
    season = series_svg([("Ann", [(0, 150.0)]), ("Bram", [(0, 150.0)])], 1, "Season")
    assert len(_dots(season)) == 2 and "nan" not in season


def test_labels_are_escaped() -> None:
    assert "<&>" not in trend_svg([{"score": 1, "best": False}], "<&>")
