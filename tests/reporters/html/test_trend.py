"""`zeroclaw_eval.reporters.html.trend`: the geometry of the HTML page's pass-rate chart."""

from __future__ import annotations

from zeroclaw_eval.report.baseline import HistoryPoint
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters.html.trend import HEIGHT, WIDTH, trend


def test_no_history_no_chart() -> None:
    assert trend(SuiteReport("evals", "replay")) is None


def test_every_dot_lies_inside_the_chart_and_a_run_of_no_case_counts_as_zero() -> None:
    report = SuiteReport("evals", "replay", history=[HistoryPoint(0, 0), HistoryPoint(7, 7)])
    chart = trend(report)
    assert chart is not None
    for dot in chart.dots:
        assert 0 <= float(dot.x) <= WIDTH
        assert 0 <= float(dot.y) <= HEIGHT
    empty, full, this_run = chart.dots
    assert empty.y == chart.bottom == this_run.y  # this run holds no case either
    assert full.y == chart.top
    assert (empty.x, this_run.x) == (chart.left, chart.right)
    assert this_run.label == "this run: 0/0 passed (0%)"


def test_a_lone_run_sits_in_the_middle() -> None:
    chart = trend(SuiteReport("evals", "replay", history=[]))
    assert chart is not None
    (dot,) = chart.dots
    assert float(dot.x) == (float(chart.left) + float(chart.right)) / 2
    assert chart.line == f"{dot.x},{dot.y}"
