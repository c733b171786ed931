"""`--jobs N` in replay, the hard paths: a signal while chunks are out, a worker that
dies between chunks, a fork that fails, workers that stop at --maxfail."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import FAILING, PASSING, scripted_fixture, text_step, write_fixture
from zeroclaw_eval.agent.loop import AgentContext, ReferenceAgent
from zeroclaw_eval.errors import SystemProblem
from zeroclaw_eval.runner import RunOptions, run_suite
from zeroclaw_eval.runner.workers import chunks, forkable, in_workers

pytestmark = pytest.mark.skipif(not forkable(), reason="worker processes are forked (Linux)")

#: The process running the suite: the one a user signals.
THIS_PID = os.getpid()


class StopsLater(ReferenceAgent):
    """On "stop": waits a little (so other workers finish cases), then SIGTERMs the run."""

    async def run_turn(self, user_input: str) -> str:
        if user_input == "stop":
            await asyncio.sleep(0.6)
            os.kill(THIS_PID, signal.SIGTERM)
            await asyncio.sleep(600)
        return await super().run_turn(user_input)


def _signalled_suite(root: Path) -> Path:
    # 8 fixtures, jobs=2: chunks of one case; worker 0 gets chunks 0 and 1, worker 1 gets 2 and 3.
    suite = root / "suite"
    write_fixture(suite, "c0_fails.json", FAILING)
    stop = scripted_fixture([("stop", [text_step("never")])], {"response_contains": ["never"]})
    write_fixture(suite, "c1_stop.json", stop)
    write_fixture(suite, "c2_fails.json", FAILING)
    for n in range(3, 8):
        write_fixture(suite, f"c{n}_passes.json", PASSING)
    return suite


def test_after_a_signal_a_case_taken_before_is_not_taken_again(tmp_path: Path, private_tmp: Path) -> None:
    # Chunks taken before the signal are not taken again when the rest are collected:
    # on_case_done once per case, each failure counted once.
    seen: list[str] = []
    previous = signal.getsignal(signal.SIGTERM)
    try:
        report = run_suite(
            _signalled_suite(tmp_path),
            RunOptions(
                agent_factory=StopsLater,
                jobs=2,
                stop_on_signals=True,
                on_case_done=lambda f, r: seen.append(r.name),
            ),
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert report.interrupted == "SIGTERM"
    assert len(seen) == len(set(seen)), seen


def test_after_a_signal_maxfail_is_not_reached_by_counting_a_failure_twice(
    tmp_path: Path, private_tmp: Path
) -> None:
    # c0 fails (1 failure), c2 fails in the other worker and finishes before the signal:
    # the failures before c2 are 1 < maxfail 2, so c2 is a finished case and is reported.
    previous = signal.getsignal(signal.SIGTERM)
    try:
        report = run_suite(
            _signalled_suite(tmp_path),
            RunOptions(agent_factory=StopsLater, jobs=2, stop_on_signals=True, maxfail=2),
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    names = [case.name for case in report.cases]
    assert "c2_fails.json" in names, (names, report.not_run)
    assert len(report.cases) + report.not_run == 8


def test_after_a_signal_the_chunk_being_awaited_does_not_drop_every_later_one(
    tmp_path: Path, private_tmp: Path
) -> None:
    # The signal cancels the run while it waits for chunk 1 (c1_stop): the results of the
    # chunks after it, finished in the other worker long before, are still taken.
    previous = signal.getsignal(signal.SIGTERM)
    try:
        report = run_suite(
            _signalled_suite(tmp_path), RunOptions(agent_factory=StopsLater, jobs=2, stop_on_signals=True)
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    names = [c.name for c in report.cases]
    # c2 and c3 are worker 1's first chunks: both finished 0.6 s before the signal. (A
    # chunk queued behind c1_stop in worker 0 may rightly be "not run".)
    assert {"c2_fails.json", "c3_passes.json"} <= set(names), names
    assert len(names) + report.not_run == 8


class FailsOnceStopRuns(StopsLater):
    """ "after stop" waits until "stop" has begun in the other worker: failing earlier
    could reach maxfail before that worker starts its case, and no signal would come."""

    marker: Path

    async def run_turn(self, user_input: str) -> str:
        if user_input == "stop":
            self.marker.touch()
        elif user_input == "after stop":
            for _ in range(1000):
                if self.marker.exists():
                    break
                await asyncio.sleep(0.01)
        return await super().run_turn(user_input)


def test_after_a_signal_past_maxfail_not_run_is_not_counted_twice(
    tmp_path: Path, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # maxfail 1: c0 fails, c1 is left out (not run: 1); c2 stops the run; c1 counts once.
    monkeypatch.setattr(FailsOnceStopRuns, "marker", tmp_path / "stop-began", raising=False)
    suite = tmp_path / "suite"
    fails = scripted_fixture([("after stop", [text_step("hello")])], {"response_contains": ["goodbye"]})
    write_fixture(suite, "c0_fails.json", fails)
    write_fixture(suite, "c1_passes.json", PASSING)
    stop = scripted_fixture([("stop", [text_step("never")])], {"response_contains": ["never"]})
    write_fixture(suite, "c2_stop.json", stop)
    for n in range(3, 8):
        write_fixture(suite, f"c{n}_passes.json", PASSING)
    previous = signal.getsignal(signal.SIGTERM)
    try:
        report = run_suite(
            suite, RunOptions(agent_factory=FailsOnceStopRuns, jobs=2, stop_on_signals=True, maxfail=1)
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert report.interrupted == "SIGTERM"
    assert [c.name for c in report.cases] == ["c0_fails.json"]
    assert report.not_run == 7


class Counted(ReferenceAgent):
    folder: Path

    def __init__(self, context: AgentContext) -> None:
        super().__init__(context)
        (self.folder / f"{os.getpid()}-{id(self)}").touch()

    async def run_turn(self, user_input: str) -> str:
        await asyncio.sleep(0.02)
        return await super().run_turn(user_input)


def test_workers_stop_starting_cases_once_maxfail_is_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The parent's cut alone would give the right report while the workers ran the
    # whole suite: they must stop on the board's count and flag.
    ran = tmp_path / "ran"
    ran.mkdir()
    monkeypatch.setattr(Counted, "folder", ran, raising=False)
    suite = tmp_path / "suite"
    for n in range(200):
        write_fixture(suite, f"c{n:03d}.json", FAILING if n == 0 else PASSING)
    report = run_suite(suite, RunOptions(agent_factory=Counted, jobs=2, maxfail=1))
    assert [c.name for c in report.cases] == ["c000.json"]
    assert len(os.listdir(ran)) < 40  # one process runs 1; workers may run a little ahead


def test_a_worker_dying_between_two_chunks_logs_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    # Worker 1 sends chunk 2 and dies at the start of chunk 3 while the parent is busy;
    # handing it another chunk then fails (its pipe is closed): no traceback in the log,
    # and the run ends with the worker's death.
    size = len(chunks(64, 2)[0])

    async def work(chunk: range, board: Any, put: Any) -> None:
        if chunk.start == 3 * size:
            os._exit(3)
        if chunk.start == 2 * size:  # worker 1 holds chunks 2 and 3 (two handed ahead)
            await asyncio.sleep(0.2)
        for i in chunk:
            put((i, i))

    first = [True]

    def take(results: Sequence[Any]) -> bool:
        if first[0]:
            first[0] = False
            time.sleep(1.0)
        return False

    with caplog.at_level(logging.ERROR, logger="asyncio"), pytest.raises(SystemProblem):
        asyncio.run(in_workers(64, 2, work, take))
    assert [r.getMessage() for r in caplog.records] == []


def test_a_fork_that_fails_is_an_eval_error_and_leaks_no_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A container's pids limit: fork raises EAGAIN for the second worker.
    suite = tmp_path / "suite"
    for n in range(8):
        write_fixture(suite, f"c{n}.json", PASSING)
    real, calls = os.fork, [0]

    def fork() -> int:
        calls[0] += 1
        if calls[0] == 2:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real()

    before = set(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(os, "fork", fork)
    with pytest.raises(
        SystemProblem, match="cannot start a worker process: Resource temporarily unavailable"
    ):
        run_suite(suite, RunOptions(jobs=2))
    monkeypatch.undo()
    assert set(os.listdir("/proc/self/fd")) - before == set()


INTERRUPTED_TWICE = """
import asyncio, os, subprocess, sys, time
from pathlib import Path
from zeroclaw_eval.agent.loop import ReferenceAgent
from zeroclaw_eval.runner import RunOptions, run_suite

class SlowCleanup(ReferenceAgent):
    async def run_turn(self, user_input):
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.sleep(1.5)  # a slow clean-up, still running at the second signal
            raise

before = set(os.listdir("/proc/self/fd"))
me = os.getpid()
killer = subprocess.Popen(["sh", "-c", f"sleep 0.7; kill -INT {me}; sleep 0.4; kill -INT {me}"])
try:
    run_suite(Path(sys.argv[1]), RunOptions(agent_factory=SlowCleanup, jobs=2))
except KeyboardInterrupt:
    pass
killer.wait()
print(sorted(set(os.listdir("/proc/self/fd")) - before))
print(Path(f"/proc/{me}/task/{me}/children").read_text().split())
"""


def test_a_library_caller_interrupted_twice_is_left_no_pipe_and_no_child(tmp_path: Path) -> None:
    # Without stop_on_signals, Ctrl-C is Python's KeyboardInterrupt wherever it lands;
    # the second one lands while the workers are being closed: every pipe is closed and
    # every worker reaped all the same.
    suite = tmp_path / "suite"
    for n in range(4):
        write_fixture(suite, f"c{n}.json", PASSING)
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED_TWICE, encoding="utf-8")
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    done = subprocess.run(
        [sys.executable, str(script), str(suite)], env=environment, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.splitlines() == ["[]", "[]"], done.stderr
