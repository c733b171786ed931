"""`--jobs N` in replay: the cases run in forked worker processes, and the report is the
one a single process makes (fixture order, the same grades), whatever finished first."""

from __future__ import annotations

import gc
import json
import os
import re
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.builders import PASSING, echo_fixture, scripted_fixture, text_step, write_fixture
from tests.invoke import run_cli
from zeroclaw_eval.errors import AgentLoadError, SystemProblem
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.run.agent import Agent, AgentContext, ReferenceAgent
from zeroclaw_eval.run.workers import chunks, forkable
from zeroclaw_eval.runner import RunOptions, run_suite
from zeroclaw_eval.runner.options import Fixture

pytestmark = pytest.mark.skipif(not forkable(), reason="worker processes are forked (Linux)")


class PidNoting(ReferenceAgent):
    """The reference loop, which also notes which process ran each case (in `folder`)."""

    folder: Path

    def __init__(self, context: AgentContext) -> None:
        super().__init__(context)
        (self.folder / f"{os.getpid()}-{id(self)}").touch()


def _suite(root: Path, cases: int = 12) -> Path:
    """Passing, failing and rejected cases, interleaved."""
    suite = root / "suite"
    for n in range(cases):
        if n % 4 == 1:
            content = echo_fixture({"response_contains": ["not said"]})
        elif n % 4 == 3:
            content = {"model_name": "x"}  # rejected: no turns
        else:
            content = echo_fixture({"exact_tool_calls": 1}, tools=["file_write"])
        write_fixture(suite, f"case_{n:02d}.json", content)
    return suite


def _without_timing(report: CaseReport) -> CaseReport:
    record = report.record
    return replace(report, duration_ms=0.0, record=replace(record, duration_ms=0.0) if record else None)


def test_workers_report_what_one_process_does_in_fixture_order(
    tmp_path: Path, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = _suite(tmp_path)
    ran = tmp_path / "ran"
    ran.mkdir()
    monkeypatch.setattr(PidNoting, "folder", ran, raising=False)
    alone = run_suite(suite, RunOptions(agent_factory=PidNoting))
    assert {name.split("-")[0] for name in os.listdir(ran)} == {str(os.getpid())}
    for name in os.listdir(ran):
        (ran / name).unlink()
    shared = run_suite(suite, RunOptions(agent_factory=PidNoting, jobs=3))
    pids = {name.split("-")[0] for name in os.listdir(ran)}
    assert pids  # every case ran, and in a worker, not in this process:
    assert str(os.getpid()) not in pids
    assert [_without_timing(c) for c in shared.cases] == [_without_timing(c) for c in alone.cases]
    assert [c.status for c in shared.cases][:4] == ["passed", "failed", "passed", "rejected"]
    assert shared.exit_code() == alone.exit_code() == 1
    assert os.listdir(private_tmp) == []  # every worker removed its cases' workspaces


def test_each_finished_case_is_handed_to_on_case_done_in_fixture_order(tmp_path: Path) -> None:
    suite = _suite(tmp_path, cases=9)
    seen: list[tuple[Fixture, str]] = []
    report = run_suite(suite, RunOptions(jobs=2, on_case_done=lambda f, r: seen.append((f, r.name))))
    assert (
        [name for _, name in seen]
        == [case.name for case in report.cases]
        == sorted(path.name for path in suite.iterdir())
    )
    # The parent never read the fixtures: the workers did, so the hook gets their paths.
    assert all(isinstance(fixture, Path) for fixture, _ in seen)


def test_the_parents_heap_is_not_left_frozen(tmp_path: Path) -> None:
    # Frozen before the fork so the workers share its pages; a library caller's own
    # collections must see it again afterwards.
    before = gc.get_freeze_count()
    run_suite(_suite(tmp_path, cases=4), RunOptions(jobs=2))
    assert gc.get_freeze_count() == before


def test_maxfail_stops_every_worker(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    for n in range(40):
        write_fixture(suite, f"case_{n:02d}.json", echo_fixture({"response_contains": ["not said"]}))
    report = run_suite(suite, RunOptions(jobs=2, maxfail=1))
    # Each worker may be in the middle of one case when the first failure is counted.
    assert 1 <= len(report.cases) <= 2
    assert len(report.cases) + report.not_run == 40


class Exits(ReferenceAgent):
    """An agent whose process ends under it, as a crash in native code would end it."""

    async def run_turn(self, user_input: str) -> str:
        os._exit(3)


def test_a_worker_that_dies_is_an_error_of_the_run_not_a_hang(tmp_path: Path, private_tmp: Path) -> None:
    suite = tmp_path / "suite"
    write_fixture(suite, "a.json", PASSING)
    write_fixture(suite, "b.json", scripted_fixture([("hi", [text_step("hello")])], {}))
    with pytest.raises(SystemProblem, match=r"a worker process died .*run with --jobs 1"):
        run_suite(suite, RunOptions(agent_factory=Exits, jobs=2))


def _no_agent(context: AgentContext) -> Agent:
    raise ValueError("no agent today")


def test_an_agent_factory_that_fails_fails_the_run_as_in_one_process(tmp_path: Path) -> None:
    suite = _suite(tmp_path, cases=4)
    with pytest.raises(AgentLoadError) as alone:
        run_suite(suite, RunOptions(agent_factory=_no_agent))
    with pytest.raises(AgentLoadError) as shared:
        run_suite(suite, RunOptions(agent_factory=_no_agent, jobs=2))
    assert str(shared.value) == str(alone.value)
    assert "no agent today" in str(shared.value)


def test_with_another_thread_running_the_cases_stay_in_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = tmp_path / "ran"
    ran.mkdir()
    monkeypatch.setattr(PidNoting, "folder", ran, raising=False)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not forkable()  # a forked child would hold copies of that thread's locks
        report = run_suite(_suite(tmp_path, cases=4), RunOptions(agent_factory=PidNoting, jobs=2))
    finally:
        release.set()
        other.join()
    assert {name.split("-")[0] for name in os.listdir(ran)} == {str(os.getpid())}
    assert [c.status for c in report.cases] == ["passed", "failed", "passed", "rejected"]


@pytest.mark.parametrize(("count", "jobs"), [(1, 2), (5, 3), (100, 2), (10_000, 4)])
def test_chunks_cover_every_index_once_in_order(count: int, jobs: int) -> None:
    found = chunks(count, jobs)
    assert [i for chunk in found for i in chunk] == list(range(count))
    assert max(len(chunk) for chunk in found) <= 64
    assert len(found) >= min(count, jobs)  # every worker gets work


def _timeless(report: dict[str, Any]) -> dict[str, Any]:
    """A JSON report without what differs from run to run: durations."""
    text = json.dumps(report)
    return json.loads(re.sub(r'"duration_ms": [0-9.e+-]+', '"duration_ms": 0', text))  # type: ignore[no-any-return]


def test_the_installed_command_reports_the_same_with_workers(tmp_path: Path) -> None:
    _suite(tmp_path)
    alone = run_cli("eval", "run", "suite", "--format", "json", cwd=tmp_path)
    shared = run_cli("eval", "run", "suite", "--format", "json", "--jobs", "2", cwd=tmp_path)
    assert (alone.code, shared.code) == (1, 1), shared.stderr
    assert _timeless(shared.json()) == _timeless(alone.json())
    assert len(shared.json()["cases"]) == 12
