"""Saved reports read back: a report to render or merge, a baseline to compare a run with,
a pass-rate history; each refused with a usage error, never a traceback, whatever the
file holds. Read before any case runs (a bad file costs no replay, nor a live run's
tokens); the finished report is then marked with what changed (`Comparison`).

Imported by every `zeroclaw --help` (for `HISTORY_POINTS`): what it needs beyond that is
imported where it is used."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from zeroclaw_eval._support.files import read_bounded
from zeroclaw_eval.errors import UsageError

if TYPE_CHECKING:
    from zeroclaw_eval.report.baseline import HistoryPoint
    from zeroclaw_eval.report.model import SuiteReport


#: The largest saved report read back: ~130,000 cases of the size a 10,000-case suite
#: writes (7.8 KB each). A file past it (or a device such as /dev/zero, which never ends)
#: is refused, never read whole.
MAX_REPORT_BYTES = 1 << 30
_LIMIT = ("a saved report", "is it a report zeroclaw-eval wrote?")
#: Earlier runs the HTML trend chart shows (the newest of the history), besides this one.
HISTORY_POINTS = 30
#: The largest history file read: a line of ~50 bytes a run is a million runs and more.
MAX_HISTORY_BYTES = 64 * 1024 * 1024
_BASELINE_HINT = "give a report an earlier run wrote with --report json=FILE"
_SHAPE = 'a JSON object with integers "passed" and "total" (0 <= passed <= total)'


def read_report(path: Path, *, role: str = "", hint: str = "") -> SuiteReport:
    """The report saved at `path`. `role` names the option the file was given to
    (`--baseline `), `hint` says how to make a good one."""
    return read_report_bytes(path, role=role, hint=hint)[0]


def read_report_bytes(path: Path, *, role: str = "", hint: str = "") -> tuple[SuiteReport, bytes]:
    """The report saved at `path`, and the file's bytes (to tell exactly which file it was)."""
    from zeroclaw_eval._support.json.text import loads_untrusted
    from zeroclaw_eval.errors import ReportShapeError
    from zeroclaw_eval.report.codec import report_from_dict

    tail = f"; {hint}" if hint else ""
    data = read_bounded(path, MAX_REPORT_BYTES, limit=_LIMIT, regular_only=True)
    if isinstance(data, str):
        raise UsageError(f"{role}{path}: {data}")
    try:
        parsed = loads_untrusted(data)
    except ValueError as exc:  # not UTF-8, or not JSON
        raise UsageError(f"{role}{path} is not a JSON report: {exc}{tail}") from None
    if not isinstance(parsed, dict):
        kind = type(parsed).__name__.replace("dict", "object").replace("list", "array")
        raise UsageError(f"{role}{path} is not a zeroclaw-eval JSON report: it holds a JSON {kind}{tail}")
    try:
        return report_from_dict(parsed), data
    except ReportShapeError as exc:
        raise UsageError(f"{role}{path} is not a zeroclaw-eval JSON report: at {exc}{tail}") from None


class Comparison:
    """What a finished report is to be marked with. (A plain class: this module is
    imported by every `zeroclaw --help`, and a dataclass costs its import time.)"""

    def __init__(
        self,
        baseline: SuiteReport | None = None,
        path: str = "",
        digest: str = "",
        fail_on: str = "any",
        history: list[HistoryPoint] | None = None,
        alpha: float = 0.05,
        max_cost_increase: float | None = None,
    ) -> None:
        self.baseline, self.path, self.digest = baseline, path, digest
        self.fail_on, self.history, self.alpha = fail_on, history, alpha
        self.max_cost_increase = max_cost_increase

    def apply(self, report: SuiteReport) -> None:
        """Mark each case of `report` with its change, and attach the baseline and history."""
        from zeroclaw_eval.report.baseline import Baseline, compare, matched
        from zeroclaw_eval.report.pairing import paired_against, paired_cost

        if self.fail_on == "significant-regression" and report.mode != "live":
            raise UsageError(
                "--fail-on significant-regression tells a fall from the noise of live runs; a replay"
                " is deterministic, so every fall in it is real: use --fail-on new-failures"
            )
        if self.baseline is not None:
            before = self.baseline.cases
            changes, removed = compare(report.cases, before)
            for case, change in zip(report.cases, changes, strict=True):
                case.change = change
            pairs = matched(report.cases, before)
            paired = paired_against(report.cases, before, pairs)
            tool_version = self.baseline.tool_version
            report.baseline = Baseline(
                self.path,
                self.digest,
                tool_version,
                self.fail_on,
                removed,
                paired=paired,
                alpha=self.alpha,
                cost_before=paired_cost(before, pairs.values()),
                cost_after=paired_cost(report.cases, pairs.keys()),
                max_cost_increase=self.max_cost_increase,
            )
        report.history = self.history


def plan_comparison(
    baseline: Path | None,
    fail_on: str,
    history: Path | None,
    alpha: float = 0.05,
    max_cost_increase: float | None = None,
) -> Comparison:
    """The baseline and history read and checked, before anything runs."""
    import hashlib

    if fail_on != "any" and baseline is None:
        raise UsageError(
            f"--fail-on {fail_on} fails only on regressions since a baseline;"
            " give --baseline REPORT.json (a JSON report of an earlier run)"
        )
    if max_cost_increase is not None and baseline is None:
        raise UsageError(
            "--max-cost-increase bounds the cost's growth since a baseline;"
            " give --baseline REPORT.json (a JSON report of an earlier run)"
        )
    if max_cost_increase is not None and not 0 <= max_cost_increase < 1e9:
        raise UsageError(f"--max-cost-increase {max_cost_increase:g}: a percentage, 0 or more (e.g. 20)")
    if not 0.001 <= alpha <= 0.5:
        # Below 0.001 a suite needs ten paired cases falling to say anything; above 0.5 a
        # false alarm is likelier than not.
        raise UsageError(f"--alpha {alpha:g}: the chance of a false alarm, from 0.001 to 0.5 (e.g. 0.05)")
    points = read_history(history) if history is not None else None
    if baseline is None:
        return Comparison(fail_on=fail_on, history=points, alpha=alpha)  # no baseline: no cost bound
    previous, data = read_report_bytes(baseline, role="--baseline ", hint=_BASELINE_HINT)
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    return Comparison(previous, str(baseline), digest, fail_on, points, alpha, max_cost_increase)


def read_history(path: Path) -> list[HistoryPoint]:
    """The newest `HISTORY_POINTS` runs of a pass-rate history, oldest first; a line that
    is not one is a usage error at its line (blank lines are skipped)."""
    from zeroclaw_eval._support.json.text import loads_untrusted

    data = read_bounded(
        path, MAX_HISTORY_BYTES, limit=("a history", "keep its newest lines"), regular_only=True
    )
    if isinstance(data, str):
        raise UsageError(f"--history {path}: {data}")
    try:
        lines = data.decode("utf-8").split("\n")
    except ValueError as exc:
        raise UsageError(f"--history: cannot read {path}: {exc}") from None
    points = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = loads_untrusted(line)
        except ValueError as exc:
            raise UsageError(f"--history {path}:{number}: not JSON ({exc}); expected {_SHAPE}") from None
        point = _point(entry)
        if point is None:
            raise UsageError(f"--history {path}:{number}: expected {_SHAPE}")
        points.append(point)
    return points[-HISTORY_POINTS:]


def _point(entry: object) -> HistoryPoint | None:
    """The run a history line records, or None when it is not one."""
    from zeroclaw_eval.report.baseline import HistoryPoint

    if not isinstance(entry, dict):
        return None
    passed, total = entry.get("passed"), entry.get("total")
    # JSON true is a Python int; a count it is not.
    counts = [value for value in (passed, total) if isinstance(value, int) and not isinstance(value, bool)]
    if len(counts) != 2 or not 0 <= counts[0] <= counts[1]:
        return None
    return HistoryPoint(counts[0], counts[1])
