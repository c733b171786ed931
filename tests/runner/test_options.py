"""`runner.options`: what a run is asked for, refused when it cannot work, and what one
process does of it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from zeroclaw_eval.backends.command import AgentCommand
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.runner.options import AUTO_JOBS_FROM, Run, RunOptions, default_jobs

LIVE = LiveOptions(ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), "")


def test_recording_keeps_what_a_live_provider_answered_so_replay_cannot_ask_for_it(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--record writes what a live run got back; use it with --mode live"):
        RunOptions(record_dir=tmp_path)
    assert RunOptions(record_dir=tmp_path, live=LIVE).record_dir == tmp_path


def test_an_agent_command_runs_in_replay_only() -> None:
    command = AgentCommand.parse(f"{sys.executable} -V")
    with pytest.raises(UsageError, match="--agent-cmd runs in replay only"):
        RunOptions(agent_cmd=command, live=LIVE)


def test_a_run_of_the_options_does_what_they_ask_of_the_whole() -> None:
    def done(fixture: object, report: object) -> None: ...

    options = RunOptions(jobs=3, maxfail=2, on_case_done=done)
    run = Run.of(options)
    assert (run.options, run.jobs, run.maxfail, run.on_case_done, run.live) == (options, 3, 2, done, None)
    assert not run.stopped()
    run.stop.failed = 2
    assert run.stopped()


def test_a_large_replayed_suite_runs_in_workers_unless_asked_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("zeroclaw_eval.runner.workers.usable_cpus", lambda: 6)
    assert default_jobs(RunOptions(), AUTO_JOBS_FROM - 1) == 1
    assert default_jobs(RunOptions(), AUTO_JOBS_FROM) == 6
    # Waiting on a provider or a process: how many at once is the user's call.
    assert default_jobs(RunOptions(live=LIVE), 10 * AUTO_JOBS_FROM) == 1
    command = AgentCommand.parse(f"{sys.executable} -V")
    assert default_jobs(RunOptions(agent_cmd=command), 10 * AUTO_JOBS_FROM) == 1


def test_details_are_failing_or_all_and_all_keeps_passing_cases_whole() -> None:
    with pytest.raises(UsageError, match="details must be one of failing, all"):
        RunOptions(details="some")
    with pytest.raises(UsageError, match="must keep passing cases whole"):
        RunOptions(details="all", keep_passing=False)
    assert RunOptions(keep_passing=False).details == "failing"
