"""`--jobs N` in replay: the cases run in forked worker processes, and the report is the
one a single process makes (fixture order, the same grades), whatever finished first."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.support.agents import CancelsItsOwnTask
from tests.support.builders import (
    PASSING,
    echo_fixture,
    said_suite,
    scripted_fixture,
    text_step,
    write_fixture,
)
from tests.support.invoke import Result, run_cli
from zeroclaw_eval.agent.loop import Agent, AgentContext, ReferenceAgent
from zeroclaw_eval.errors import AgentLoadError, SystemProblem
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.runner import RunOptions, run_suite
from zeroclaw_eval.runner.options import Fixture
from zeroclaw_eval.runner.workers import chunks, forkable

REPO = Path(__file__).resolve().parents[3]
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


@pytest.mark.parametrize("maxfail", [1, 3, 7, 100])
@pytest.mark.parametrize("jobs", [2, 3])
def test_maxfail_cuts_the_report_where_one_process_stops(tmp_path: Path, jobs: int, maxfail: int) -> None:
    # Passing, failing and rejected cases over several chunks: the workers run ahead of
    # the failures they cannot see yet, and the parent cuts what one process never ran.
    # A rejected fixture past the cut is still reported, as in one process.
    suite = _suite(tmp_path, cases=90)
    alone = run_suite(suite, RunOptions(maxfail=maxfail))
    shared = run_suite(suite, RunOptions(jobs=jobs, maxfail=maxfail))
    assert [(c.name, c.status) for c in shared.cases] == [(c.name, c.status) for c in alone.cases]
    assert shared.not_run == alone.not_run
    not_passed = [i for i, c in enumerate(shared.cases) if not c.passed]
    if len(not_passed) > maxfail:  # the cut came: past it, only rejections are reported
        assert {c.status for c in shared.cases[not_passed[maxfail - 1] + 1 :]} == {"rejected"}
        assert shared.not_run > 0
    else:
        assert maxfail == 100
        assert shared.not_run == 0


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


class Slow(ReferenceAgent):
    """The reference loop, a little slower: a worker is caught mid-case."""

    async def run_turn(self, user_input: str) -> str:
        await asyncio.sleep(0.3)
        return await super().run_turn(user_input)


def test_a_worker_that_dies_while_others_run_ends_the_run_and_leaves_nothing(
    tmp_path: Path, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One case kills its worker; the other worker is mid-case with a workspace: it must
    # cancel that case, remove the workspace and end, and the run must not wait for ever.
    suite = tmp_path / "suite"
    for n in range(6):
        write_fixture(suite, f"c{n}.json", echo_fixture({"exact_tool_calls": 1}, tools=["file_write"]))
    write_fixture(
        suite, "c3.json", scripted_fixture([("die", [text_step("never")])], {"response_contains": ["never"]})
    )

    class DiesOnCue(Slow):
        async def run_turn(self, user_input: str) -> str:
            if user_input == "die":
                os._exit(3)
            return await super().run_turn(user_input)

    with pytest.raises(SystemProblem, match="a worker process died"):
        run_suite(suite, RunOptions(agent_factory=DiesOnCue, jobs=2))
    assert os.listdir(private_tmp) == []
    assert _children(os.getpid()) == []  # every worker reaped


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="utf-8")
    return [int(child) for child in text.split()]


class NotesSignals(ReferenceAgent):
    """Starts a process, as a project tool that shells out does, and notes which signals
    that process ignores."""

    folder: Path

    async def run_turn(self, user_input: str) -> str:
        status = subprocess.run(["cat", "/proc/self/status"], capture_output=True, text=True, check=True)
        mask = next(line.split()[1] for line in status.stdout.splitlines() if line.startswith("SigIgn:"))
        (self.folder / f"{os.getpid()}-{id(self)}").write_text(mask, encoding="utf-8")
        return await super().run_turn(user_input)


@pytest.mark.parametrize("stop_on_signals", [True, False])
def test_a_process_a_case_starts_in_a_worker_still_dies_of_ctrl_c(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop_on_signals: bool
) -> None:
    # The workers leave SIGINT and SIGTERM to the run; were they to ignore them (SIG_IGN),
    # every process a case starts would too (exec keeps an ignored signal ignored), and a
    # tool's `sleep 600` would outlive the Ctrl-C that ends the run.
    noted = tmp_path / "noted"
    noted.mkdir()
    monkeypatch.setattr(NotesSignals, "folder", noted, raising=False)
    suite = tmp_path / "suite"
    for name in ("a.json", "b.json", "c.json"):
        write_fixture(suite, name, PASSING)
    run_suite(suite, RunOptions(agent_factory=NotesSignals, jobs=2, stop_on_signals=stop_on_signals))
    masks = [path.read_text(encoding="utf-8") for path in noted.iterdir()]
    assert len(masks) == 3
    both = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    assert [int(mask, 16) & both for mask in masks] == [0, 0, 0]


KILLED_PARENT = """
import asyncio, sys
from pathlib import Path
from zeroclaw_eval.agent.loop import ReferenceAgent
from zeroclaw_eval.runner import RunOptions, run_suite

class Slow(ReferenceAgent):
    async def run_turn(self, user_input):
        await asyncio.sleep(0.5)
        return await super().run_turn(user_input)

print("running", flush=True)
run_suite(Path(sys.argv[1]), RunOptions(agent_factory=Slow, jobs=2, stop_on_signals=True))
"""


def test_workers_do_not_outlive_a_run_killed_with_sigkill(tmp_path: Path, private_tmp: Path) -> None:
    # A CI job's time limit or the OOM killer ends a run with SIGKILL. Its workers must end
    # too: they hold its stdout, so `zeroclaw eval run -j 2 | tee log` would never end.
    # Enough cases that each chunk holds dozens of them, half a second each: a worker
    # that went on with its chunk would live on for half a minute.
    suite = tmp_path / "suite"
    for n in range(1000):
        write_fixture(suite, f"c{n:04d}.json", echo_fixture({"exact_tool_calls": 1}, tools=["file_write"]))
    script = tmp_path / "run.py"
    script.write_text(KILLED_PARENT, encoding="utf-8")
    environment = {**os.environ, "TMPDIR": str(private_tmp), "PYTHONPATH": str(Path.cwd())}
    with subprocess.Popen(
        [sys.executable, str(script), str(suite)],
        stdout=subprocess.PIPE,
        env=environment,
        start_new_session=True,
    ) as process:
        try:
            assert process.stdout is not None
            assert process.stdout.readline() == b"running\n"
            deadline = time.monotonic() + 30  # a bound on waiting, not a timed assertion
            while len(_children(process.pid)) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert len(_children(process.pid)) == 2, "the workers started"
            process.kill()
            process.wait(timeout=10)
            # Each worker notices within a moment, cancels its case and ends: the pipe
            # they share with the killed run then reaches its end.
            ready, _, _ = select.select([process.stdout], [], [], 10)
            assert ready, "a worker outlived the run"
            assert process.stdout.read() == b""
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # what this test leaves, by its group
    assert os.listdir(private_tmp) == []  # the cancelled cases removed their workspaces


class Slowish(ReferenceAgent):
    async def run_turn(self, user_input: str) -> str:
        await asyncio.sleep(0.02)
        return await super().run_turn(user_input)


def test_with_maxfail_the_first_failures_stop_the_run_as_in_one_process(tmp_path: Path) -> None:
    # Cases start in fixture order across the workers, so the failure that stops the run
    # is the first one, not one a worker met first in a later chunk.
    suite = tmp_path / "suite"
    for n in range(200):
        failing = n == 11 or n >= 24  # a worker starting at a later case fails at once
        content = echo_fixture({"response_contains": ["not said"]}) if failing else PASSING
        write_fixture(suite, f"c{n:03d}.json", content)
    for jobs in (1, 2):
        # Slow cases: a worker that started at c024 would fail long before c011 ran.
        report = run_suite(suite, RunOptions(agent_factory=Slowish, jobs=jobs, maxfail=1))
        failed = [case.name for case in report.cases if not case.passed]
        assert failed[0] == "c011.json"
        assert len(report.cases) + report.not_run == 200


def _no_agent(context: AgentContext) -> Agent:
    raise ValueError("no agent today")


class BlocksTheLoop(ReferenceAgent):
    """An async agent that blocks its worker's event loop on the second case of a run."""

    async def run_turn(self, user_input: str) -> str:
        if "blocks" in user_input:
            time.sleep(30)
        return await super().run_turn(user_input)


@pytest.mark.skipif(sys.version_info < (3, 11) or not hasattr(signal, "setitimer"), reason="SIGALRM timer")
def test_a_turn_that_blocks_a_workers_loop_times_out_as_in_one_process(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    for n in range(4):
        data = scripted_fixture(
            [("blocks" if n == 1 else "fine", [text_step("fine")])], {"response_contains": ["fine"]}
        )
        write_fixture(suite, f"case_{n}.json", data)
    started = time.monotonic()
    report = run_suite(suite, RunOptions(agent_factory=BlocksTheLoop, jobs=2, case_timeout_secs=0.3))
    assert time.monotonic() - started < 10  # not the 30 s the turn blocks for
    assert [case.error.message if case.error else "passed" for case in report.cases] == [
        "passed",
        "turn 1 timed out after 0.3s (case_timeout_secs); the agent asked the model nothing in that turn",
        "passed",
        "passed",
    ]


def test_an_agent_factory_that_fails_fails_the_run_as_in_one_process(tmp_path: Path) -> None:
    suite = _suite(tmp_path, cases=4)
    with pytest.raises(AgentLoadError) as alone:
        run_suite(suite, RunOptions(agent_factory=_no_agent))
    with pytest.raises(AgentLoadError) as shared:
        run_suite(suite, RunOptions(agent_factory=_no_agent, jobs=2))
    assert str(shared.value) == str(alone.value)
    assert "no agent today" in str(shared.value)


def test_a_case_that_cancels_its_workers_task_fails_the_run_rather_than_vanish(tmp_path: Path) -> None:
    # Cancelled by no stop of the parent's, the worker's share would end early and quietly:
    # the cases after it left out of a report that passes.
    suite = said_suite(tmp_path / "suite", ["hi", CancelsItsOwnTask.CUE, *["hi"] * 4])
    with pytest.raises(SystemProblem, match=r"cancelled the task that ran it .* run with --jobs 1"):
        run_suite(suite, RunOptions(agent_factory=CancelsItsOwnTask, jobs=2))


def test_a_case_a_worker_never_reports_fails_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Whatever a worker's share loses on the way (here, a share that drops its last
    # result), the parent counts every case: none may go missing from a passing report.
    from zeroclaw_eval.runner import suite as suite_module

    whole = suite_module._chunk

    async def losing(fixtures: Any, run: Any, chunk: range, board: Any, put: Any) -> None:
        kept: list[Any] = []
        await whole(fixtures, run, chunk, board, kept.append)
        for result in kept[:-1]:
            put(result)

    monkeypatch.setattr(suite_module, "_chunk", losing)
    with pytest.raises(SystemProblem, match=r"case\(s\) ended without a report, the first .*case_\d+\.json"):
        run_suite(_suite(tmp_path, cases=6), RunOptions(jobs=2))


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
    """A JSON report without what differs from run to run: durations, and the trace."""
    text = re.sub(r'"trace_id": "[0-9a-f]{32}"', '"trace_id": ""', json.dumps(report))
    return json.loads(re.sub(r'"duration_ms": [0-9.e+-]+', '"duration_ms": 0', text))  # type: ignore[no-any-return]


#: A project's agent module: the reference loop, noting in $PIDS which process ran each case.
_PID_NOTING_AGENT = """\
import os
from pathlib import Path

from zeroclaw_eval.agent.loop import ReferenceAgent


class PidNoting(ReferenceAgent):
    def __init__(self, context):
        super().__init__(context)
        (Path(os.environ["PIDS"]) / f"{os.getpid()}-{id(self)}").touch()
"""


def test_the_installed_command_reports_the_same_with_workers(tmp_path: Path) -> None:
    _suite(tmp_path)
    (tmp_path / "pid_noting.py").write_text(_PID_NOTING_AGENT, encoding="utf-8")
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nagent = "pid_noting:PidNoting"\n', encoding="utf-8")

    def run(name: str, *extra: str) -> tuple[Result, set[str]]:
        noted = tmp_path / name
        noted.mkdir()
        result = run_cli(
            "eval", "run", "suite", "--format", "json", *extra, cwd=tmp_path, env={"PIDS": str(noted)}
        )
        return result, {entry.split("-")[0] for entry in os.listdir(noted)}

    alone, one = run("alone")
    shared, workers = run("shared", "--jobs", "2")
    assert (alone.code, shared.code) == (1, 1), shared.stderr
    # The cases really ran in two worker processes (a run that could not fork them would
    # have run them in one, and reported the same).
    assert len(one) == 1, one
    assert len(workers) == 2, workers
    assert _timeless(shared.json()) == _timeless(alone.json())
    assert len(shared.json()["cases"]) == 12
