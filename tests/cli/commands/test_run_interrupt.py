"""`zeroclaw eval run` stopped by SIGINT or SIGTERM, in a real process of the installed
command: partial reports marked interrupted, no workspace or temporary file left, and
the exit code a shell expects of a signal (130, 143)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.builders import PASSING, scripted_fixture, text_step, write_fixture
from tests.support.invoke import console_script, invoke

# The reference loop, except that on the input "block" it says so and waits for ever.
BLOCKING_AGENT = """
import asyncio, os, pathlib

from zeroclaw_eval.agent.loop import ReferenceAgent


class Blocking(ReferenceAgent):
    async def run_turn(self, user_input):
        if user_input == "block":
            pathlib.Path(os.environ["ZC_TEST_BLOCKED"]).write_text("blocked", encoding="utf-8")
            await asyncio.sleep(600)
        return await super().run_turn(user_input)
"""


@pytest.fixture
def blocking_project(tmp_path: Path) -> Path:
    """A project whose second case blocks mid-run (with a workspace), and a third after it."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "zc_blocking_agent.py").write_text(BLOCKING_AGENT, encoding="utf-8")
    (project / "zeroclaw.toml").write_text('[eval]\nagent = "zc_blocking_agent:Blocking"\n', encoding="utf-8")
    suite = project / "evals" / "regression"
    write_fixture(suite, "a_done.json", PASSING)
    block = scripted_fixture([("block", [text_step("never")])], {"response_contains": ["never"]})
    write_fixture(suite, "b_block.json", {**block, "setup": {"workspace_files": {"notes.txt": "x"}}})
    write_fixture(suite, "c_later.json", PASSING)
    reports = project / "reports"
    reports.mkdir()
    (reports / "eval.html").write_text("stale from an earlier run", encoding="utf-8")
    return project


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize(("name", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_signal_mid_case_writes_partial_reports_and_leaves_nothing_behind(
    blocking_project: Path, tmp_path: Path, name: str, code: int, jobs: str
) -> None:
    temp = tmp_path / "temp"  # the child's temp folder: its workspaces go there
    temp.mkdir()
    blocked = tmp_path / "blocked"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    environment.update(TMPDIR=str(temp), ZC_TEST_BLOCKED=str(blocked), NO_COLOR="1")
    command = [console_script(), "eval", "run", "--format", "json", "--output", "reports/eval.json"]
    command += ["--report", "html=reports/eval.html", "--report", "junit=reports/eval.xml", "--jobs", jobs]
    with subprocess.Popen(
        command,
        cwd=blocking_project,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a command a terminal runs
    ) as process:
        deadline = time.monotonic() + 60  # a bound on waiting, not a timed assertion
        while not blocked.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert blocked.exists(), process.communicate(timeout=30)
        assert os.listdir(temp), "the blocked case runs in a workspace"
        # To the whole group, as Ctrl-C in a terminal reaches the workers of --jobs 2 too.
        os.killpg(process.pid, getattr(signal, name))
        stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr
    assert "Aborted!" not in stdout + stderr
    assert "Traceback" not in stderr
    assert os.listdir(temp) == []  # the cancelled case removed its workspace
    reports = blocking_project / "reports"
    assert sorted(os.listdir(reports)) == ["eval.html", "eval.json", "eval.xml"]  # no .tmp sibling
    data = json.loads((reports / "eval.json").read_text(encoding="utf-8"))
    finished = [(case["name"], case["status"]) for case in data["cases"]]
    if jobs == "1":  # b is cancelled mid-case, c never starts
        assert f"Interrupted by {name}: 1 case finished, 2 not run" in stderr
        assert finished == [("a_done.json", "passed")]
    else:  # a and b start together in two workers; c may have run after a
        assert finished in (
            [("a_done.json", "passed")],
            [("a_done.json", "passed"), ("c_later.json", "passed")],
        )
        assert f"Interrupted by {name}: {len(finished)} case" in stderr
    assert (data["interrupted"], data["exit_code"], data["not_run"]) == (name, code, 3 - len(finished))
    html = (reports / "eval.html").read_text(encoding="utf-8")
    assert html != "stale from an earlier run"  # no fresh JSON beside a stale page
    assert "a_done.json" in html
    assert "a_done.json" in (reports / "eval.xml").read_text(encoding="utf-8")


def _escaped(number: int, frame: object) -> None:
    raise AssertionError(f"signal {number} escaped the command")


@pytest.fixture
def guarded() -> Iterator[None]:
    """SIGTERM fails the test, rather than ending pytest, if the command lets it through."""
    previous = signal.signal(signal.SIGTERM, _escaped)
    yield
    signal.signal(signal.SIGTERM, previous)


def _sigterm_then(call: object) -> object:
    def wrapped(*args: object, **kwargs: object) -> object:
        os.kill(os.getpid(), signal.SIGTERM)
        return call(*args, **kwargs)  # type: ignore[operator]

    return wrapped


def test_a_signal_before_any_case_ran_exits_with_its_code_and_writes_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch, guarded: None
) -> None:
    from zeroclaw_eval.config import load

    monkeypatch.setattr(load, "load_config", _sigterm_then(load.load_config))
    result = invoke("eval", "run", "--report", "json=reports/eval.json", cwd=project)
    assert (result.code, result.stderr) == (143, "Interrupted by SIGTERM: no report was written\n")
    assert not (project / "reports").exists()


@pytest.mark.parametrize(
    ("module", "function"),
    [("zeroclaw_eval.report.saved", "read_report_bytes"), ("zeroclaw_eval.cli.outputs", "plan_outputs")],
)
def test_a_signal_while_the_options_are_read_exits_with_its_code(
    project: Path, monkeypatch: pytest.MonkeyPatch, guarded: None, module: str, function: str
) -> None:
    # Reading the baseline and planning the outputs happen before the command's body: a
    # signal then ends it as cleanly as one while the configuration is read.
    import importlib

    target = importlib.import_module(module)
    write_fixture(project, "previous.json", {})
    monkeypatch.setattr(target, function, _sigterm_then(getattr(target, function)))
    result = invoke("eval", "run", "--baseline", "previous.json", cwd=project)
    assert (result.code, result.stderr) == (143, "Interrupted by SIGTERM: no report was written\n")


def test_a_signal_while_the_outputs_are_written_waits_until_every_one_is_written(
    project: Path, monkeypatch: pytest.MonkeyPatch, guarded: None
) -> None:
    from zeroclaw_eval.cli import outputs

    monkeypatch.setattr(outputs, "render_report", _sigterm_then(outputs.render_report))
    result = invoke(
        "eval", "run", "-o", "reports/eval.json", "--format", "json", "--report", "html=reports/eval.html",
        cwd=project,
    )  # fmt: skip
    assert result.code == 143, result.stderr
    assert sorted(os.listdir(project / "reports")) == ["eval.html", "eval.json"]
    data = json.loads((project / "reports" / "eval.json").read_text(encoding="utf-8"))
    assert (data["interrupted"], data["counts"]["passed"]) == (None, 1)  # the run itself had finished


def test_the_table_of_an_interrupted_run_says_so_in_its_summary(tmp_path: Path) -> None:
    from zeroclaw_eval.reporters.registry import get_reporter
    from zeroclaw_eval.runner import run_suite

    write_fixture(tmp_path, "a.json", PASSING)
    report = run_suite(tmp_path)
    report.interrupted, report.not_run = "SIGTERM", 2
    summary = get_reporter("table")(report).splitlines()[-1]
    assert summary.startswith(
        "INTERRUPTED: 1 case (1 passed, 0 failed, 2 not run (interrupted by SIGTERM)) in "
    )
    report.cases = []
    summary = get_reporter("table")(report).splitlines()[-1]
    assert "interrupted by SIGTERM before any case finished" in summary
