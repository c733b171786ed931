"""`--baseline`, `--fail-on` and `--history` of `zeroclaw eval run`: the earlier report and
the pass-rate history are read before any case runs (a bad file costs no replay, nor a
live run's tokens), and the finished report is then marked with what changed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.files import read_bounded
from zeroclaw_eval.fixtures.json_text import loads_untrusted

if TYPE_CHECKING:
    from zeroclaw_eval.report.baseline import HistoryPoint
    from zeroclaw_eval.report.model import SuiteReport

F = TypeVar("F", bound=Callable[..., Any])

#: `report.baseline.FAIL_ON`, spelt out: importing that module (its dataclasses) would
#: slow every `zeroclaw --help`. A test holds the two equal.
FAIL_ON = ("any", "new-failures")

#: Earlier runs the HTML trend chart shows (the newest of the history), besides this one.
HISTORY_POINTS = 30
#: The largest history file read: a line of ~50 bytes a run is a million runs and more.
MAX_HISTORY_BYTES = 64 * 1024 * 1024
_BASELINE_HINT = "give a report an earlier run wrote with --report json=FILE"
_SHAPE = 'a JSON object with integers "passed" and "total" (0 <= passed <= total)'


def baseline_options(command: F) -> F:
    """The options that compare a run with an earlier one."""
    options = [
        click.option(
            "--baseline",
            type=click.Path(path_type=Path, exists=True, dir_okay=False),
            metavar="REPORT.json",
            help="Compare with an earlier run's JSON report: mark each case new failure, fixed,"
            " still failing, new or removed (matched by path, then by fixture id).",
        ),
        click.option(
            "--fail-on",
            type=click.Choice(FAIL_ON),
            default=FAIL_ON[0],
            show_default=True,
            help="any: exit 1 when a case does not pass. new-failures: only when a case that passed"
            " in the --baseline does not pass now, or a fixture is rejected (for suites not at 100%).",
        ),
        click.option(
            "--history",
            type=click.Path(path_type=Path, exists=True, dir_okay=False),
            metavar="FILE",
            help="Pass-rate history, a JSON line per earlier run with passed and total (as nox -s"
            f" eval_capability writes): the HTML report charts its last {HISTORY_POINTS} runs and this one.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


class Comparison:
    """What a finished report is to be marked with. (A plain class: this module is
    imported by every `zeroclaw --help`, and a dataclass costs its import time.)"""

    def __init__(
        self,
        baseline: SuiteReport | None = None,
        path: str = "",
        digest: str = "",
        fail_on: str = FAIL_ON[0],
        history: list[HistoryPoint] | None = None,
    ) -> None:
        self.baseline, self.path, self.digest = baseline, path, digest
        self.fail_on, self.history = fail_on, history

    def apply(self, report: SuiteReport) -> None:
        """Mark each case of `report` with its change, and attach the baseline and history."""
        from zeroclaw_eval.report.baseline import Baseline, compare

        if self.baseline is not None:
            changes, removed = compare(report.cases, self.baseline.cases)
            for case, change in zip(report.cases, changes, strict=True):
                case.change = change
            tool_version = self.baseline.tool_version
            report.baseline = Baseline(self.path, self.digest, tool_version, self.fail_on, removed)
        report.history = self.history


def plan_comparison(baseline: Path | None, fail_on: str, history: Path | None) -> Comparison:
    """The baseline and history read and checked, before anything runs."""
    import hashlib

    from zeroclaw_eval.cli.report_file import read_report_bytes

    if fail_on == FAIL_ON[1] and baseline is None:
        raise UsageError(
            "--fail-on new-failures fails only on regressions since a baseline;"
            " give --baseline REPORT.json (a JSON report of an earlier run)"
        )
    points = read_history(history) if history is not None else None
    if baseline is None:
        return Comparison(fail_on=fail_on, history=points)
    previous, data = read_report_bytes(baseline, role="--baseline ", hint=_BASELINE_HINT)
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    return Comparison(previous, str(baseline), digest, fail_on, points)


def read_history(path: Path) -> list[HistoryPoint]:
    """The newest `HISTORY_POINTS` runs of a pass-rate history, oldest first; a line that
    is not one is a usage error at its line (blank lines are skipped)."""
    data = read_bounded(path, MAX_HISTORY_BYTES, limit=("a history", "keep its newest lines"))
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
