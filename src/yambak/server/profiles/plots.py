"""Small SVG plots drawn on the server: a score histogram and a score trend. They scale to the page's
width (a viewBox, no fixed size), take their colours from the page's stylesheet (classes, so dark mode
follows), and carry a text alternative. Every label is escaped."""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape
from typing import Any

__all__ = ["histogram_svg", "nice_width", "rating_svg", "series_svg", "trend_svg"]

W, H = 360, 190  # the drawing's own units
LEFT, RIGHT, TOP, BOTTOM = 34, 8, 10, 26


def nice_width(low: int, high: int, bins: int = 12) -> int:
    """A round bin width giving about `bins` bins between low and high."""
    span = max(1, high - low)
    for w in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if span / w <= bins:
            return w
    return 10000


def _svg(label: str, body: list[str]) -> str:
    return (
        f'<svg class="plot" viewBox="0 0 {W} {H}" role="img" aria-label="{escape(label)}" '
        f'preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(label)}</title>{''.join(body)}</svg>"
    )


def _axis_y(ticks: list[tuple[float, str]], left: int = LEFT) -> list[str]:
    out = []
    for y, text in ticks:
        out.append(f'<line class="grid" x1="{left}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>')
        out.append(f'<text class="tick" x="{left - 4}" y="{y + 3.5:.1f}" text-anchor="end">{escape(text)}</text>')
    return out


def _left(ticks: list[tuple[float, str]]) -> int:
    """The plot's left edge: wider where a tick's label is long (thousands of games in a bin)."""
    return max(LEFT, 10 + 7 * max((len(t) for _, t in ticks), default=0))


def _scales(
    values: list[float], count: int, least: float = 0.0
) -> tuple[Callable[[int], float], Callable[[float], float], float, float]:
    """The x of the i-th of `count` points and the y of a value, over the values' range padded by 8% (a
    flat range, or one narrower than `least`, opened by 1 each way); with the padded low and high."""
    low, high = min(values), max(values)
    if high == low or high - low < least:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.08
    low, high = low - pad, high + pad
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (count - 1) if count > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (1 - (v - low) / (high - low))

    return x, y, low, high


def histogram_svg(bins: list[tuple[int, int]], width: int, label: str, mark: int | None = None) -> str:
    """Games per score bin (start, count), bins `width` points wide; `mark`: a score to mark (the best)."""
    if not bins:
        return _svg(label, [])
    first, last = bins[0][0], bins[-1][0]
    counts = dict(bins)
    starts = list(range(first, last + width, width))
    peak = max(counts.values())
    plot_h = H - TOP - BOTTOM
    ticks = [(TOP + plot_h * (1 - f), str(round(peak * f))) for f in (0, 0.5, 1) if peak * f == int(peak * f)]
    left = _left(ticks)
    plot_w = W - left - RIGHT
    bar = plot_w / len(starts)
    body = _axis_y(ticks, left)
    step = max(1, len(starts) // 6)
    for i, start in enumerate(starts):
        n = counts.get(start, 0)
        x = left + i * bar
        h = plot_h * n / peak
        if n:
            cls = "bar best" if mark is not None and start <= mark < start + width else "bar"
            body.append(
                f'<rect class="{cls}" x="{x + 1:.1f}" y="{TOP + plot_h - h:.1f}" width="{max(1.0, bar - 2):.1f}" '
                f'height="{h:.1f}" rx="2"><title>{start}–{start + width - 1}: {n}</title></rect>'
            )
        if i % step == 0:
            body.append(f'<text class="tick" x="{x + bar / 2:.1f}" y="{H - 8}" text-anchor="middle">{start}</text>')
    return _svg(label, body)


def trend_svg(points: list[dict[str, Any]], label: str, window: int = 10, ends: tuple[str, str] | None = None) -> str:
    """Each game's score in order (dots) with the moving mean of the last `window` games (a line);
    personal bests drawn apart. `points`: {"score", "best"}, oldest first; `ends`: what to write under
    the first and the last game (their dates; default their numbers)."""
    if not points:
        return _svg(label, [])
    scores: list[float] = [p["score"] for p in points]
    x, y, low, high = _scales(scores, len(points))

    step = nice_width(math.floor(low), math.ceil(high), 5)  # round scores on the axis: 150, 200, 250
    ticks = range(math.ceil(low / step) * step, math.floor(high) + 1, step)
    body = _axis_y([(y(t), str(t)) for t in ticks])
    r = 2.6 if len(points) <= 60 else 1.6
    for i, p in enumerate(points):
        cls = "dot best" if p.get("best") else "dot"
        size = r + 1.4 if p.get("best") else r
        body.append(f'<circle class="{cls}" cx="{x(i):.1f}" cy="{y(p["score"]):.1f}" r="{size}"/>')
    means = []
    for i in range(len(points)):
        chunk = scores[max(0, i - window + 1) : i + 1]
        means.append(sum(chunk) / len(chunk))
    line = " ".join(f"{x(i):.1f},{y(m):.1f}" for i, m in enumerate(means))
    body.append(f'<polyline class="mean" points="{line}"/>')
    first, last = ends or ("1", str(len(points)))
    body.append(f'<text class="tick" x="{LEFT}" y="{H - 8}">{escape(first)}</text>')
    if len(points) > 1:
        body.append(f'<text class="tick" x="{W - RIGHT}" y="{H - 8}" text-anchor="end">{escape(last)}</text>')
    return _svg(label, body)


def rating_svg(ratings: list[float], label: str, ends: tuple[str, str] | None = None) -> str:
    """A rating after each rated game, oldest first (a line with a dot a game), from the start rating
    (`ratings[0]`, before any game); `ends`: what to write under the first and the last point."""
    if not ratings:
        return _svg(label, [])
    x, y, low, high = _scales(ratings, len(ratings), least=2)

    step = nice_width(math.floor(low), math.ceil(high), 5)
    ticks = range(math.ceil(low / step) * step, math.floor(high) + 1, step)
    body = _axis_y([(y(t), str(t)) for t in ticks])
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(ratings))
    body.append(f'<polyline class="mean" points="{line}"/>')
    r = 2.6 if len(ratings) <= 60 else 1.6
    for i, v in enumerate(ratings[1:], start=1):
        body.append(f'<circle class="dot" cx="{x(i):.1f}" cy="{y(v):.1f}" r="{r}"><title>{i}: {v:.1f}</title></circle>')
    first, last = ends or ("0", str(len(ratings) - 1))
    body.append(f'<text class="tick" x="{LEFT}" y="{H - 8}">{escape(first)}</text>')
    if len(ratings) > 1:
        body.append(f'<text class="tick" x="{W - RIGHT}" y="{H - 8}" text-anchor="end">{escape(last)}</text>')
    return _svg(label, body)


def series_svg(series: list[tuple[str, list[tuple[int, float]]]], games: int, label: str) -> str:
    """Several players' scores over the same games (a season): one line a player, a dot a game they played.
    `series`: (name, [(game index from 0, score)]); `games`: how many games there are. Line `k` has the class
    `s{k}` (the page colours the first eight; the legend beside it uses the same classes)."""
    scores = [v for _, points in series for _, v in points]
    if not scores or games < 1:
        return _svg(label, [])
    x, y, low, high = _scales(scores, games)

    step = nice_width(math.floor(low), math.ceil(high), 5)
    ticks = range(math.ceil(low / step) * step, math.floor(high) + 1, step)
    body = _axis_y([(y(t), str(t)) for t in ticks])
    for k, (name, points) in enumerate(series):
        cls = f"s{k}" if k < 8 else "s-other"
        line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in points)
        body.append(f'<g class="series {cls}"><title>{escape(name)}</title>')
        if len(points) > 1:
            body.append(f'<polyline class="line" points="{line}"/>')
        for i, v in points:
            body.append(f'<circle class="pt" cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.6"/>')
        body.append("</g>")
    body.append(f'<text class="tick" x="{LEFT}" y="{H - 8}">1</text>')
    if games > 1:
        body.append(f'<text class="tick" x="{W - RIGHT}" y="{H - 8}" text-anchor="end">{games}</text>')
    return _svg(label, body)
