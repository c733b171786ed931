"""The pass-rate trend chart of the HTML page: earlier runs (`report.history`) and this
one, as the geometry of a small inline SVG.

Everything the chart shows is a number formatted here (coordinates, counts, percents),
never text from a history file, so the chart can carry no markup of its own; the page
stays one self-contained file.
"""

from __future__ import annotations

from dataclasses import dataclass

from zeroclaw_eval.report.baseline import HistoryPoint
from zeroclaw_eval.report.model import PASSED, SuiteReport

WIDTH, HEIGHT = 360, 90
#: Room left of the plot for the axis labels, and above and below it for the dots.
_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 8, 8, 8


@dataclass(frozen=True)
class Dot:
    """One run on the chart."""

    x: str
    y: str
    #: The tooltip: which run, cases passed of all, the rate.
    label: str
    current: bool


@dataclass(frozen=True)
class Trend:
    """The chart: its dots, the line through them, where the axis lines run, a caption."""

    dots: list[Dot]
    line: str
    top: str
    bottom: str
    left: str
    right: str
    caption: str
    width: int = WIDTH
    height: int = HEIGHT


def _percent(point: HistoryPoint) -> str:
    return f"{point.rate * 100:.0f}%"


def trend(report: SuiteReport) -> Trend | None:
    """The chart of `report.history` followed by this run; None without a history."""
    if report.history is None:
        return None
    counts = report.counts()
    points = [*report.history, HistoryPoint(counts[PASSED], counts["total"])]
    plot_width, plot_height = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM
    step = plot_width / (len(points) - 1) if len(points) > 1 else 0.0
    dots = []
    for index, point in enumerate(points):
        current = index == len(points) - 1
        x = _LEFT + (index * step if len(points) > 1 else plot_width / 2)
        y = _TOP + (1 - point.rate) * plot_height
        which = "this run" if current else f"run {index + 1} of {len(points)}"
        label = f"{which}: {point.passed}/{point.total} passed ({_percent(point)})"
        dots.append(Dot(f"{x:.1f}", f"{y:.1f}", label, current))
    first, last = points[0], points[-1]
    caption = (
        f"pass rate over the last {len(points)} runs: {_percent(first)} → {_percent(last)}"
        if len(points) > 1
        else f"pass rate: {_percent(last)} (no earlier run in the history)"
    )
    return Trend(
        dots=dots,
        line=" ".join(f"{dot.x},{dot.y}" for dot in dots),
        top=f"{_TOP:.1f}",
        bottom=f"{HEIGHT - _BOTTOM:.1f}",
        left=f"{_LEFT:.1f}",
        right=f"{WIDTH - _RIGHT:.1f}",
        caption=caption,
    )
