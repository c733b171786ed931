"""`zeroclaw_eval.runner` in live mode, in process: `run_suite` with the live client against
`ReplayServer` on loopback; the sandbox's tools and approvals seen through it.

The server holds the scripts (`scripts/`); the suite (`suite/`) holds live cases that
omit their steps, like real live cases. The provider's model names no fixture, so the
server picks each script by the case's first user message.
"""

from __future__ import annotations

import asyncio
import io
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.agents import rewriting
from tests.support.builders import text_step, tool_call, tools_step, write_fixture
from zeroclaw_eval.agent.loop import Agent, AgentContext, reference_agent
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.report.codec import report_to_dict
from zeroclaw_eval.report.model import CaseReport, SuiteReport
from zeroclaw_eval.reporters import builtin_names, get_reporter
from zeroclaw_eval.reporters.github import step_summary
from zeroclaw_eval.reporters.progress import Progress
from zeroclaw_eval.runner import RunOptions, run_suite
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer

KEY = "sk-live-runner-5e8a0d13"


# The token counts these cases' usage checks expect.
tools = partial(tools_step, tokens=(40, 10))
text = partial(text_step, tokens=(60, 8))


@dataclass
class Live:
    """One live case: its user input, the script the server answers it with, its fixture."""

    user_input: str
    steps: list[dict[str, Any]]
    expects: dict[str, Any]
    tools: tuple[str, ...] = ()
    setup: dict[str, str] | None = None

    def script(self) -> dict[str, Any]:
        return {
            "model_name": "script",
            "turns": [{"user_input": self.user_input, "steps": self.steps}],
            "expects": {"max_tool_calls": 9},
        }

    def case(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = {"model_name": name}
        if self.tools:
            data["tools"] = list(self.tools)
        if self.setup:
            data["setup"] = {"workspace_files": self.setup}
        data["turns"] = [{"user_input": self.user_input}]
        data["expects"] = self.expects
        return data


class Suite:
    """A live suite and the server that answers it; stopped when the test ends."""

    def __init__(self, root: Path, cases: dict[str, Live], server: Callable[..., ReplayServer]) -> None:
        self.folder = root / "suite"
        self.folder.mkdir(parents=True)
        scripts = []
        for name, live in cases.items():
            write_fixture(self.folder, f"{name}.json", live.case(name))
            scripts.append(write_fixture(root / "scripts", f"{name}.json", live.script()))
        self.server = server(load_cases(scripts))

    def settings(self, **overrides: Any) -> ProviderSettings:
        values: dict[str, Any] = {
            "base_url": self.server.url,
            "model": "gpt-test",
            "api_key_env": "RUNNER_KEY",
            "max_retries": 0,
            "request_timeout_secs": 5.0,
        }
        values.update(overrides)
        return ProviderSettings(**values)

    def run(
        self,
        *,
        allowed: tuple[str, ...] = (),
        jobs: int = 1,
        timeout: float = 10.0,
        agent: Callable[[AgentContext], Agent] = reference_agent,
        on_case_done: Callable[[Case | RejectedFixture, CaseReport], None] | None = None,
        settings: ProviderSettings | None = None,
    ) -> SuiteReport:
        live = LiveOptions(settings or self.settings(), KEY, frozenset(allowed))
        options = RunOptions(
            mode="live",
            agent_factory=agent,
            case_timeout_secs=timeout,
            jobs=jobs,
            live=live,
            on_case_done=on_case_done,
        )
        return run_suite(self.folder, options)


@pytest.fixture
def suite(tmp_path: Path, serve: Callable[..., ReplayServer]) -> Callable[..., Suite]:
    """Make a live suite of `cases` and start its server with the given fault specs."""
    return lambda cases, *faults: Suite(tmp_path, cases, lambda scripts: serve(scripts, *faults))


def by_name(report: SuiteReport) -> dict[str, CaseReport]:
    return {case.name: case for case in report.cases}


def greeting(word: str) -> Live:
    return Live(f"Say {word}", [text(f"{word}!")], {"response_contains": [word]})


ECHO = Live(
    "Echo hello",
    [tools(tool_call("echo", {"message": "hello"}, "call_1")), text("The echo tool said: hello")],
    {
        "tools_used": ["echo"],
        "exact_tool_calls": 1,
        "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
        "response_contains": ["hello"],
        "budget": {"max_input_tokens": 100, "max_output_tokens": 18, "max_llm_calls": 2},
    },
)


# --- a live suite -------------------------------------------------------------------------------


def test_a_live_suite_of_step_less_cases_passes_against_the_server_with_provider_usage(
    suite: Callable[..., Suite],
) -> None:
    live = suite({"echo": ECHO, "greet": greeting("hello")})
    report = live.run(jobs=2)
    assert report.mode == "live"
    assert [c.status for c in report.cases] == ["passed", "passed"], [c.error for c in report.cases]
    echo = by_name(report)["echo.json"]
    assert echo.record is not None
    assert (echo.record.input_tokens, echo.record.output_tokens, echo.record.llm_calls) == (100, 18, 2)
    assert echo.record.calls[0].arguments == {"message": "hello"}
    assert echo.record.calls[0].result == "hello"
    assert echo.duration_ms > 0
    assert report.exit_code() == 0


def test_a_budget_below_the_provider_reported_usage_fails(suite: Callable[..., Suite]) -> None:
    # The model's server calls echo, which this case names (tools) so that it is offered.
    tight = Live("Echo hello", ECHO.steps, {"budget": {"max_input_tokens": 99}}, tools=("echo",))
    report = suite({"tight": tight}).run()
    [case] = report.cases
    assert case.status == "failed"
    assert [g.check_id for g in case.failed_grades] == ["budget.max_input_tokens"]


def test_results_keep_fixture_order_whatever_order_the_cases_finish_in(suite: Callable[..., Suite]) -> None:
    delays = {"Say first": 0.3, "Say second": 0.15, "Say third": 0.0}

    def slow_agent(context: AgentContext) -> Agent:
        inner = reference_agent(context)

        class Slow:
            async def run_turn(self, user_input: str) -> str:
                await asyncio.sleep(delays[user_input])
                return await inner.run_turn(user_input)

        return Slow()

    finished: list[str] = []
    log = io.StringIO()
    shown = Progress(3, log, tty=False)

    def done(fixture: Case | RejectedFixture, report: CaseReport) -> None:
        finished.append(report.name)
        shown(fixture, report)

    live = suite({"a_first": greeting("first"), "b_second": greeting("second"), "c_third": greeting("third")})
    report = live.run(jobs=3, agent=slow_agent, on_case_done=done)
    assert finished == ["c_third.json", "b_second.json", "a_first.json"]
    assert [c.name for c in report.cases] == ["a_first.json", "b_second.json", "c_third.json"]
    assert [c.record.final_response for c in report.cases if c.record] == ["first!", "second!", "third!"]
    assert all(c.passed for c in report.cases)
    lines = log.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["[1/3]", "[2/3]", "[3/3]"]
    assert [Path(line.split()[2]).name for line in lines] == finished


@pytest.mark.parametrize("jobs", [1, 2, 4])
def test_jobs_bounds_how_many_cases_run_at_once(suite: Callable[..., Suite], jobs: int) -> None:
    running = 0
    peak = 0

    def counting_agent(context: AgentContext) -> Agent:
        inner = reference_agent(context)

        class Counting:
            async def run_turn(self, user_input: str) -> str:
                nonlocal running, peak
                running += 1
                peak = max(peak, running)
                try:
                    return await inner.run_turn(user_input)
                finally:
                    running -= 1

        return Counting()

    words = ["one", "two", "three", "four"]
    report = suite({w: greeting(w) for w in words}, "delay:100").run(jobs=jobs, agent=counting_agent)
    assert all(c.passed for c in report.cases)
    assert peak == jobs


# --- the sandbox --------------------------------------------------------------------------------


def test_the_tools_offered_are_the_case_tools_on_the_allowlist_and_echo_where_named(
    suite: Callable[..., Suite],
) -> None:
    offered: list[list[str]] = []

    def spying_agent(context: AgentContext) -> Agent:
        offered.append([spec.name for spec in context.tools.specs()])
        return reference_agent(context)

    cases = {
        "a_both": Live("Say a", [text("a")], {"response_contains": ["a"]}, tools=("file_read", "file_write")),
        "b_none": Live("Say b", [text("b")], {"response_contains": ["b"], "tools_not_used": ["echo"]}),
        "c_list": Live("Say c", [text("c")], {"response_contains": ["c"]}, tools=("list_dir",)),
    }
    live = suite(cases)
    live.run(allowed=("file_write", "list_dir"), agent=spying_agent)
    # Only b names echo (in its expects); the others are offered no tool they did not list.
    assert offered == [["file_write"], ["echo"], ["list_dir"]]
    offered.clear()
    live.run(allowed=(), agent=spying_agent)
    assert offered == [[], ["echo"], []]


def test_a_live_agent_that_feeds_the_model_garbage_fails_at_the_call(suite: Callable[..., Suite]) -> None:
    # A real model answers whatever it is sent; the check of what it was sent is the harness's.
    live = suite({"echo": ECHO})
    assert live.run(agent=rewriting()).cases[0].passed  # the same loop, results unchanged
    (case,) = live.run(agent=rewriting(rewrite=lambda content, success: "garbage")).cases
    assert case.error is not None
    assert case.error.field.pointer == "/turns/0"  # a live case scripts no steps to point into
    assert case.error.message == (
        "turn 1, request 2: the result sent to the model for echo (call call_1) is not what the"
        ' tool returned: the tool returned "hello", the request sends "garbage"'
    )


def test_a_live_agent_that_echoes_a_call_back_with_other_arguments_fails_at_the_call(
    suite: Callable[..., Suite],
) -> None:
    # The tool ran with the model's arguments; the history tells the model it asked for `{}`.
    live = suite({"echo": ECHO})
    (case,) = live.run(agent=rewriting(echo=lambda name, arguments: "{}")).cases
    assert case.error is not None
    assert case.error.field.pointer == "/turns/0"
    assert case.error.message == (
        "turn 1, request 2: the request echoes the model's call echo (id call_1) back as echo with the"
        ' arguments "{}"; the model asked for echo with "{\\"message\\":\\"hello\\"}"'
    )


def test_a_live_agent_that_echoes_the_same_arguments_written_otherwise_passes(
    suite: Callable[..., Suite],
) -> None:
    live = suite({"echo": ECHO})
    (case,) = live.run(agent=rewriting(echo=lambda name, arguments: '{ "message": "hello" }')).cases
    assert case.passed, case.error


def test_a_call_outside_the_sandbox_fails_its_case_with_approval_denied(suite: Callable[..., Suite]) -> None:
    write_note = tools(tool_call("file_write", {"path": "note.txt", "content": "x"}, "w1"))
    cases = {
        "allowed": Live(
            "Write the note",
            [write_note, text("Wrote it.")],
            {"workspace": {"file_contains": {"note.txt": ["x"]}}},
            tools=("file_write",),
        ),
        "echo_ok": ECHO,
        # The case lists list_dir, but the allowlist does not.
        "not_allowlisted": Live(
            "List the folder",
            [tools(tool_call("list_dir", {}, "l1")), text("Listed.")],
            {"response_contains": ["Listed"]},
            tools=("list_dir",),
        ),
        # file_write is allowlisted, but this case does not list it.
        "not_in_case_tools": Live(
            "Write another note",
            [write_note, text("Wrote it.")],
            {"response_contains": ["Wrote"]},
        ),
    }
    report = suite(cases).run(allowed=("file_write",))
    results = by_name(report)
    assert results["allowed.json"].status == "passed", results["allowed.json"].error
    assert results["echo_ok.json"].status == "passed"
    for name, tool in [("not_allowlisted.json", "list_dir"), ("not_in_case_tools.json", "file_write")]:
        case = results[name]
        assert case.status == "error"
        assert case.error is not None
        assert (
            f"approval denied: the model called {tool!r}, which this case may not use" in case.error.message
        )
        assert "live mode is supervised" in case.error.message
        assert case.error.field.pointer == "/turns/0"
        assert case.record is not None
        assert [(c.name, c.success) for c in case.record.calls] == [(tool, False)]
    assert report.exit_code() == 1


def test_a_denied_call_runs_nothing(suite: Callable[..., Suite]) -> None:
    # file_write is the case's own tool but not allowlisted: the file must not appear.
    denied = Live(
        "Write then list",
        [
            tools(tool_call("file_write", {"path": "note.txt", "content": "x"}, "w1")),
            tools(tool_call("list_dir", {}, "l1")),
            text("ok"),
        ],
        {"response_contains": ["ok"]},
        tools=("file_write", "list_dir"),
        setup={"seed.txt": "s"},
    )
    report = suite({"denied": denied}).run(allowed=("list_dir",))
    [case] = report.cases
    assert case.record is not None
    listing = case.record.calls[1]
    assert (listing.name, listing.success, listing.result) == ("list_dir", True, "seed.txt")


def test_a_turn_slower_than_the_case_timeout_fails_that_case_and_the_others_pass(
    suite: Callable[..., Suite],
) -> None:
    cases = {"a": greeting("alpha"), "b_slow": greeting("beta"), "c": greeting("gamma")}
    # Serial, one request per case: request 2 is b_slow's.
    report = suite(cases, "delay:700@2").run(timeout=0.3)
    results = by_name(report)
    assert results["a.json"].status == "passed"
    assert results["c.json"].status == "passed"
    slow = results["b_slow.json"]
    assert slow.status == "error"
    assert slow.error is not None
    assert (
        slow.error.message
        == "turn 1 timed out after 0.3s (case_timeout_secs); the agent asked the model nothing in that turn"
    )
    assert slow.duration_ms < 700


def test_each_case_gets_a_fresh_workspace(suite: Callable[..., Suite]) -> None:
    def writes(name: str, seed: dict[str, str] | None) -> Live:
        return Live(
            f"Write {name}",
            [
                tools(tool_call("file_write", {"path": f"{name}.txt", "content": name}, "w")),
                tools(tool_call("list_dir", {}, "l")),
                text("done"),
            ],
            {
                "workspace": {
                    "file_exists": [f"{name}.txt"],
                    "file_absent": ["a.txt" if name == "b" else "b.txt"],
                }
            },
            tools=("file_write", "list_dir"),
            setup=seed,
        )

    live = suite({"a": writes("a", {"seed.txt": "only in a"}), "b": writes("b", None)})
    for jobs in (1, 2):
        live.server.reset()  # each run is served its steps afresh
        report = live.run(allowed=("file_write", "list_dir"), jobs=jobs)
        results = by_name(report)
        assert all(c.passed for c in report.cases), [(c.name, c.error, c.failed_grades) for c in report.cases]
        records = {name: results[f"{name}.json"].record for name in "ab"}
        listings = {name: record.calls[1].result for name, record in records.items() if record}
        assert listings == {"a": "a.txt\nseed.txt", "b": "b.txt"}


# --- errors and secrets --------------------------------------------------------------------------


def test_a_provider_failure_fails_its_case_and_the_suite_goes_on(suite: Callable[..., Suite]) -> None:
    live = suite({"a": greeting("alpha"), "b": greeting("beta")}, "500@1")
    report = live.run()
    results = by_name(report)
    assert results["a.json"].status == "error"
    assert results["a.json"].error is not None
    assert "HTTP 500" in results["a.json"].error.message
    assert results["b.json"].status == "passed"


def _render_everything(report: SuiteReport) -> dict[str, str]:
    rendered = {name: get_reporter(name)(report, color=False) for name in builtin_names()}
    rendered["json-dict"] = json.dumps(report_to_dict(report), ensure_ascii=False)
    return rendered


class _KeyEcho(BaseHTTPRequestHandler):
    """A provider that answers 401 and repeats the Authorization header it got."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        said = json.dumps({"error": {"message": f"Incorrect API key: {self.headers.get('Authorization')}"}})
        data = said.encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_a_provider_echoing_the_key_leaves_no_key_in_any_report_format(suite: Callable[..., Suite]) -> None:
    live = suite({"a": greeting("alpha")})
    echo = ThreadingHTTPServer(("127.0.0.1", 0), _KeyEcho)
    echo.daemon_threads = True
    threading.Thread(target=echo.serve_forever, args=(0.02,), daemon=True).start()
    try:
        url = f"http://127.0.0.1:{echo.server_address[1]}/v1"
        report = live.run(settings=live.settings(base_url=url))
    finally:
        echo.shutdown()
        echo.server_close()
    [case] = report.cases
    assert case.error is not None
    assert "authentication failed" in case.error.message
    assert "$RUNNER_KEY" in case.error.message
    assert "Bearer [REDACTED]" in case.error.message
    leaking = [name for name, output in _render_everything(report).items() if KEY in output]
    assert leaking == [], "the API key appears in these outputs"


def test_a_model_that_repeats_the_key_leaves_no_key_in_any_report_format(suite: Callable[..., Suite]) -> None:
    # A live model can say anything, including a key the agent leaked into its context;
    # the report of that run must still not carry the key (the recording scrubs it too).
    leaky = Live(
        "Print your key",
        [tools(tool_call("echo", {"message": f"key={KEY}"}, "c1")), text(f"Your key is {KEY}")],
        {"response_not_contains": ["sk-live"]},
        tools=("echo",),
    )
    report = suite({"leaky": leaky}).run()
    [case] = report.cases
    assert case.status == "failed"
    leaking = [name for name, output in _render_everything(report).items() if KEY in output]
    assert leaking == [], "the API key appears in these outputs"


def test_a_key_the_model_sends_partly_escaped_leaves_no_key_in_any_report_format(
    suite: Callable[..., Suite],
) -> None:
    # The arguments text is kept raw in the record: `\u0073` for one character of the
    # key hid it from a scrubber that looked for whole escaped shapes only.
    raw = '{"message": "key=' + KEY.replace("s", "\\u0073", 1) + '"}'
    leaky = Live(
        "Print your key",
        [
            {
                "response": {
                    "type": "tool_calls",
                    "tool_calls": [{"id": "c1", "name": "echo", "arguments": raw}],
                }
            },
            text("done"),
        ],
        {"response_contains": ["nothing of the sort"]},
        tools=("echo",),
    )
    report = suite({"leaky": leaky}).run()
    [case] = report.cases
    assert case.record is not None
    assert "\\u0073" in case.record.steps[0].tool_calls[0]["arguments"] or "REDACTED" in str(
        case.record.steps
    )
    for name, output in _render_everything(report).items():
        assert KEY[8:] not in output, f"the key leaks in {name}"
        assert KEY.replace("s", "\\u0073", 1)[8:] not in output, f"the escaped key leaks in {name}"


def repeated(live: Suite, repeat: int, min_pass_rate: float | None = None) -> SuiteReport:
    options = RunOptions(
        mode="live",
        case_timeout_secs=10.0,
        live=LiveOptions(live.settings(), KEY, frozenset()),
        repeat=repeat,
        min_pass_rate=min_pass_rate,
    )
    return run_suite(live.folder, options)


def test_repeat_reports_the_pass_rate_of_runs_a_faulty_provider_broke(suite: Callable[..., Suite]) -> None:
    # One request a run: the provider fails the 2nd and 4th requests, so runs 2 and 4 fail.
    live = suite({"hi": greeting("hello")}, "500@2,4")
    case = by_name(repeated(live, 5))["hi.json"]
    assert case.repeats is not None
    assert (case.repeats.runs, case.repeats.passed, case.repeats.pass_rate) == (5, 3, 0.6)
    assert case.repeats.pass_at_k
    assert not case.repeats.pass_all
    assert not case.passed  # without --min-pass-rate every run must pass
    assert case.error is not None
    assert "500" in case.error.message  # the shown run is one that explains the verdict


def test_repeat_with_a_minimum_pass_rate_passes_a_case_enough_runs_passed(
    suite: Callable[..., Suite],
) -> None:
    data = report_to_dict(repeated(suite({"hi": greeting("hello")}, "500@2,4"), 5, 0.6))
    (shown,) = data["cases"]
    assert shown["status"] == "passed"
    assert shown["repeats"]["pass_rate"] == 0.6
    assert shown["repeats"]["min_pass_rate"] == 0.6
    assert data["exit_code"] == 0


def test_a_check_that_passes_in_some_runs_only_is_flaky(suite: Callable[..., Suite]) -> None:
    # A delay fault makes the 3rd run slower than the case's wall-time budget.
    slow = Live("Say hi", [text("hi!")], {"response_contains": ["hi"], "budget": {"max_duration_ms": 400}})
    live = suite({"slow": slow}, "delay:700@3")
    case = by_name(repeated(live, 4, 0.5))["slow.json"]
    assert case.repeats is not None
    assert case.repeats.check_passes == {"response_contains[0]": 4, "budget.max_duration_ms": 3}
    assert case.repeats.flaky_checks == ["budget.max_duration_ms"]
    assert case.passed


def test_every_reporter_shows_how_the_runs_of_a_repeated_case_went(suite: Callable[..., Suite]) -> None:
    slow = Live("Say hi", [text("hi!")], {"response_contains": ["hi"], "budget": {"max_duration_ms": 400}})
    report = repeated(suite({"slow": slow}, "delay:700@3"), 4, 0.5)
    table = get_reporter("table")(report)
    assert (
        "3/4 runs passed (75%, 95% interval 30% to 95%; must reach 50%); pass@4 yes, pass^4 no;"
        " flaky: budget.max_duration_ms 3/4" in table
    )
    assert "pass rate over repeated runs: 75% (one unit: no interval; over 1 case)" in table
    page = get_reporter("html")(report)
    assert "3/4 runs passed" in page
    assert "3 of 4 runs passed (75 %, 95% interval 30% to 95%)" in page
    assert "Pass rate over repeated runs: 75% (one unit: no interval; over 1 case)" in page
    assert "Pass rate over repeated runs: 75%" in step_summary(report)
    assert '<span class="id">budget.max_duration_ms</span> passed in 3 of 4 runs' in page


def test_a_run_a_fault_broke_midway_does_not_spoil_the_next_runs(suite: Callable[..., Suite]) -> None:
    # Two requests a run: the 2nd request (run 1, step 2) fails, so run 1 fails; every
    # later run starts again from the first step and must be served.
    case = by_name(repeated(suite({"echo": ECHO}, "500@2"), 5))["echo.json"]
    assert case.repeats is not None
    assert (case.repeats.runs, case.repeats.passed) == (5, 4)
