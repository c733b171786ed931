"""`zeroclaw_eval.runner`: each case isolated in its own workspace, graded and located."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from tests.support.agents import CancelsItsOwnTask, RaisingAgent
from tests.support.builders import (
    PASSING,
    admit_case,
    echo_fixture,
    line_col,
    run_replay,
    said_suite,
    scripted_fixture,
    text_step,
    tool_call,
    tools_step,
    write_fixture,
)
from zeroclaw_eval.agent.loop import Agent, AgentContext, ReferenceAgent
from zeroclaw_eval.errors import SystemProblem
from zeroclaw_eval.runner import RunOptions, run_suite


class WorkspaceWatcher:
    """An agent factory that notes which temp folders exist while each case runs."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.seen: list[list[str]] = []
        self.agents: list[ReferenceAgent] = []

    def __call__(self, context: AgentContext) -> Agent:
        self.seen.append(sorted(os.listdir(self.base)))
        agent = ReferenceAgent(context)
        self.agents.append(agent)
        return agent


def test_each_case_gets_a_fresh_workspace_that_is_removed_afterwards(
    tmp_path: Path, private_tmp: Path
) -> None:
    fixtures_dir = tmp_path / "fixtures"
    fixtures_dir.mkdir()
    writer = admit_case(
        fixtures_dir,
        scripted_fixture(
            [
                (
                    "write a file",
                    [
                        tools_step(
                            tool_call("file_write", {"path": "leak.txt", "content": "from case A"}, "w1")
                        ),
                        text_step("written"),
                    ],
                )
            ],
            {"workspace": {"file_contains": {"leak.txt": ["case A"]}}},
            tools=["file_write"],
        ),
        name="a.json",
    )
    reader = admit_case(
        fixtures_dir,
        scripted_fixture(
            [("list", [tools_step(tool_call("list_dir", {}, "l1")), text_step("listed")])],
            {"workspace": {"file_absent": ["leak.txt"], "file_exists": ["seed.txt"]}},
            tools=["list_dir"],
            setup={"workspace_files": {"seed.txt": "seeded"}},
        ),
        name="b.json",
    )
    watcher = WorkspaceWatcher(private_tmp)
    first = run_replay(writer, agent_factory=watcher)
    assert os.listdir(private_tmp) == []  # removed after the case
    second = run_replay(reader, agent_factory=watcher)
    assert os.listdir(private_tmp) == []
    assert first.passed, [g.detail for g in first.failed_grades]
    assert second.passed, [g.detail for g in second.failed_grades]
    assert second.record is not None
    assert second.record.calls[0].result == "seed.txt"  # nothing of case A is visible
    # One workspace existed while each case ran, and not the same one.
    assert len(watcher.seen[0]) == 1
    assert len(watcher.seen[1]) == 1
    assert watcher.seen[0] != watcher.seen[1]
    # A fresh agent per case: the second one never saw the first case's conversation.
    assert watcher.agents[0] is not watcher.agents[1]
    assert watcher.agents[1].messages[0] == {"role": "user", "content": "list"}


def test_workspace_is_removed_even_when_the_run_errors(tmp_path: Path, private_tmp: Path) -> None:
    data = scripted_fixture([("go", [])], {"exact_tool_calls": 1}, tools=["file_read"])
    report = run_replay(admit_case(tmp_path, data), agent_factory=RaisingAgent)
    assert report.error is not None
    assert os.listdir(private_tmp) == []


def test_a_case_that_needs_no_workspace_creates_none(tmp_path: Path, private_tmp: Path) -> None:
    data = scripted_fixture(
        [("echo", [tools_step(tool_call("echo", {"message": "hi"}, "c1")), text_step("hi")])],
        {"tool_results_contain": [{"tool": "echo", "needle": "hi"}]},
    )
    watcher = WorkspaceWatcher(private_tmp)
    report = run_replay(admit_case(tmp_path, data), agent_factory=watcher)
    assert report.passed
    assert watcher.seen == [[]]
    assert os.listdir(private_tmp) == []


def test_setup_files_are_seeded_before_the_first_turn(tmp_path: Path, private_tmp: Path) -> None:
    data = scripted_fixture(
        [("read it", [tools_step(tool_call("file_read", {"path": "docs/in.txt"}, "r1")), text_step("read")])],
        {
            "tool_results_contain": [{"tool": "file_read", "needle": "seeded 東京"}],
            "all_tools_succeeded": True,
        },
        tools=["file_read"],
        setup={"workspace_files": {"docs/in.txt": "seeded 東京"}},
    )
    report = run_replay(admit_case(tmp_path, data))
    assert report.passed, [g.detail for g in report.failed_grades]
    assert os.listdir(private_tmp) == []


def test_failed_grade_is_located_in_the_fixture(tmp_path: Path) -> None:
    data = scripted_fixture([("hi", [text_step("hello")])], {"response_contains": ["hello", "absent"]})
    case = admit_case(tmp_path, data)
    report = run_replay(case)
    failed = report.failed_grades
    assert [g.check_id for g in failed] == ["response_contains[1]"]
    lines = case.text.splitlines()
    line, col = failed[0].field.line, failed[0].field.col
    assert line is not None
    assert col is not None
    assert lines[line - 1][col - 1 :].startswith('"absent"')


def test_a_failing_keyed_check_is_located_at_its_key_and_a_substring_at_its_entry(tmp_path: Path) -> None:
    # A response_json check is a key of its object (the pointer): the report points at the
    # key, not at the expected value. A file_contains check is one substring of the path's
    # list: the report points at that entry.
    expects = {
        "response_json": {"/status": "ok"},
        "workspace": {"file_contains": {"out.txt": ["present", "missing"]}},
    }
    data = scripted_fixture([("hi", [text_step('{"status": "failed"}')])], expects)
    data["setup"] = {"workspace_files": {"out.txt": "present"}}
    case = admit_case(tmp_path, data)
    failed = {g.check_id: g.field for g in run_replay(case).failed_grades}
    assert set(failed) == {'response_json["/status"]', 'workspace.file_contains["out.txt"][1]'}
    key = failed['response_json["/status"]']
    assert (key.line, key.col) == line_col(case.text, '"/status"')
    assert (key.end_line, key.end_col) == (key.line, key.col + len('"/status"'))
    entry = failed['workspace.file_contains["out.txt"][1]']
    assert (entry.line, entry.col) == line_col(case.text, '"missing"')


class BriefAgent(ReferenceAgent):
    """The reference loop with a system prompt."""

    def __init__(self, context: AgentContext) -> None:
        super().__init__(context)
        self.messages.append({"role": "system", "content": "Be brief."})


def test_what_the_agent_sent_is_recorded_and_graded(tmp_path: Path) -> None:
    data = scripted_fixture(
        [("Echo hi", [tools_step(tool_call("echo", {"message": "hi"}, "c1")), text_step("hi")])],
        {"system_prompt_contains": ["Be brief"], "tools_offered": ["echo"], "tools_used": ["echo"]},
    )
    case = admit_case(tmp_path, data)
    brief = run_replay(case, agent_factory=BriefAgent)
    assert brief.passed, [g.detail for g in brief.failed_grades]
    assert brief.record is not None
    sent = [(s.sent_roles, s.offered_tools, s.system_prompt) for s in brief.record.steps]
    assert sent == [
        (["system", "user"], ["echo"], "Be brief."),
        (["system", "user", "assistant", "tool"], ["echo"], "Be brief."),
    ]
    plain = run_replay(case)
    assert [g.check_id for g in plain.failed_grades] == ["system_prompt_contains[0]"]


def test_case_paths_follow_the_working_directory_of_each_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = tmp_path / "project" / "evals"
    write_fixture(suite, "a.json", PASSING)
    monkeypatch.chdir(tmp_path / "project")
    assert run_suite(suite).cases[0].path == "evals/a.json"
    monkeypatch.chdir(tmp_path)
    assert run_suite(suite).cases[0].path == "project/evals/a.json"  # not the first run's, cached


def _deep(depth: int) -> str:
    return "/".join(["d"] * depth) + "/f.txt"


def test_folders_nested_past_the_recursion_limit_are_removed_and_the_case_is_graded(
    tmp_path: Path, private_tmp: Path
) -> None:
    # Two writes, 900 and 1,800 folders deep: the clean-up of such a workspace once raised
    # RecursionError, ending the run with a traceback and leaving 1,801 folders behind.
    calls = [tool_call("file_write", {"path": _deep(d), "content": "x"}, f"w{d}") for d in (900, 1_800)]
    fixture = scripted_fixture(
        [("nest", [tools_step(*calls), text_step("done")])],
        {"all_tools_succeeded": True, "workspace": {"file_exists": [_deep(1_800)]}},
        tools=["file_write"],
    )
    write_fixture(tmp_path / "suite", "deep.json", fixture)
    report = run_suite(tmp_path / "suite")
    (case,) = report.cases
    assert case.passed, case.failures()
    assert os.listdir(private_tmp) == []


def test_a_workspace_clean_up_that_fails_is_a_run_error_of_its_case_and_the_run_goes_on(
    tmp_path: Path, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(root: Path) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("zeroclaw_eval.tools.workspace.remove_tree", refuse)
    suite = tmp_path / "suite"
    write_fixture(suite, "a_workspace.json", echo_fixture({"exact_tool_calls": 1}, tools=["file_write"]))
    write_fixture(suite, "b_plain.json", PASSING)
    report = run_suite(suite)
    workspace_case, plain = report.cases
    assert workspace_case.status == "error"
    assert workspace_case.error is not None
    (left,) = os.listdir(private_tmp)
    assert workspace_case.error.message == (
        f"cannot remove the case workspace {private_tmp / left}: Permission denied"
    )
    assert [g.passed for g in workspace_case.grades] == [True]  # the grades stand
    assert plain.passed


#: The test process: the one a user running the suite signals.
RUN_PID = os.getpid()


class SignalsItself(ReferenceAgent):
    """The reference loop, except that on the input "stop" it sends the run's process
    `signal_name` and then blocks, as a run a user interrupts mid-case. In a worker
    process (`jobs` > 1) it signals the worker too, as a terminal's Ctrl-C reaches every
    process of the group: the worker must leave the signal to the run."""

    signal_name = "SIGTERM"

    async def run_turn(self, user_input: str) -> str:
        if user_input == "stop":
            for pid in {os.getpid(), RUN_PID}:
                os.kill(pid, getattr(signal, self.signal_name))
            await asyncio.sleep(600)
        return await super().run_turn(user_input)


def _escaped(number: int, frame: object) -> None:
    raise AssertionError(f"signal {number} escaped the run")


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_signal_stops_the_run_cleanly_with_a_report_of_the_finished_cases(
    tmp_path: Path, private_tmp: Path, monkeypatch: pytest.MonkeyPatch, name: str, jobs: int
) -> None:
    monkeypatch.setattr(SignalsItself, "signal_name", name)
    suite = tmp_path / "suite"
    write_fixture(suite, "a_done.json", PASSING)
    stop = scripted_fixture([("stop", [text_step("never")])], {"response_contains": ["never"]})
    write_fixture(suite, "b_stop.json", {**stop, "tools": ["file_write"]})  # it has a workspace
    write_fixture(suite, "c_rejected.json", {"model_name": "x"})
    write_fixture(suite, "d_later.json", PASSING)
    # Were the run not to catch it, SIGTERM fails this test instead of ending pytest.
    previous = signal.signal(signal.SIGTERM, _escaped)
    try:
        before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
        try:
            report = run_suite(
                suite, RunOptions(agent_factory=SignalsItself, stop_on_signals=True, jobs=jobs)
            )
        except KeyboardInterrupt:
            pytest.fail("SIGINT escaped the run")
        after = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert report.interrupted == name
    assert report.exit_code() == {"SIGINT": 130, "SIGTERM": 143}[name]
    shown = [(case.name, case.status) for case in report.cases]
    if jobs == 1:  # b is cancelled mid-case, d never starts; a rejection is always reported
        assert shown == [("a_done.json", "passed"), ("c_rejected.json", "rejected")]
        assert report.not_run == 2
    else:  # a and b start together (in two worker processes); d may have run after a
        assert ("c_rejected.json", "rejected") in shown
        assert "b_stop.json" not in [case for case, _ in shown]
        assert len(report.cases) + report.not_run == 4
    assert os.listdir(private_tmp) == []  # the cancelled case removed its workspace
    assert after == before  # the handlers found are put back


def test_without_stop_on_signals_sigint_stays_a_keyboard_interrupt(tmp_path: Path, private_tmp: Path) -> None:
    suite = tmp_path / "suite"
    stop = scripted_fixture([("stop", [text_step("never")])], {"response_contains": ["never"]})
    write_fixture(suite, "stop.json", {**stop, "tools": ["file_write"]})
    SignalsItself.signal_name = "SIGINT"
    try:
        with pytest.raises(KeyboardInterrupt):
            run_suite(suite, RunOptions(agent_factory=SignalsItself))
    finally:
        SignalsItself.signal_name = "SIGTERM"
    assert os.listdir(private_tmp) == []


def test_a_case_that_has_run_is_not_held_while_the_rest_run(tmp_path: Path) -> None:
    # Only the reports are kept: a 10,000-case suite must not hold every parsed fixture
    # to the end. Each case's fixture is gone by the time the next one is done.
    import gc
    import weakref

    from zeroclaw_eval.cases.case import Case, RejectedFixture
    from zeroclaw_eval.report.model import CaseReport

    suite = tmp_path / "suite"
    for name in ("a.json", "b.json", "c.json"):
        write_fixture(suite, name, PASSING)
    seen: list[weakref.ref[Case | RejectedFixture]] = []
    held_when_done: list[int] = []

    def done(fixture: Case | RejectedFixture, report: CaseReport) -> None:
        gc.collect()
        held_when_done.append(sum(ref() is not None for ref in seen))
        seen.append(weakref.ref(fixture))

    report = run_suite(suite, RunOptions(on_case_done=done))
    assert [case.passed for case in report.cases] == [True, True, True]
    assert held_when_done == [0, 0, 0]


class _SignalsThenWorks(ReferenceAgent):
    """The reference loop, never suspending (a replay), each turn a little work; the first
    case's turn sends the process a SIGINT."""

    async def run_turn(self, user_input: str) -> str:
        if user_input == "signal":
            os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)  # work that does not await
        return await super().run_turn(user_input)


def test_sigint_stops_a_serial_replay_whose_turns_never_suspend(tmp_path: Path) -> None:
    # Such a run never lets the event loop read its wake-up pipe on its own: the runner
    # gives it a turn every `POLL_SECS`, or the signal would be noticed only at the end.
    suite = said_suite(tmp_path / "suite", ["signal", *["later"] * 40])
    report = run_suite(suite, RunOptions(agent_factory=_SignalsThenWorks, stop_on_signals=True, jobs=1))
    assert report.interrupted == "SIGINT"
    assert report.not_run > 20


def test_a_case_that_cancels_the_serial_runs_task_fails_the_run_with_an_error(tmp_path: Path) -> None:
    # As the command runs it (stop_on_signals): no traceback, an error that says why.
    suite = said_suite(tmp_path / "suite", ["hi", CancelsItsOwnTask.CUE, "hi"])
    options = RunOptions(agent_factory=CancelsItsOwnTask, jobs=1, stop_on_signals=True)
    with pytest.raises(SystemProblem, match="a case cancelled the task that runs the cases"):
        run_suite(suite, options)
