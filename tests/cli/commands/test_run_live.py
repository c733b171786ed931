"""`zeroclaw eval run --mode live`: live runs against a `ReplayServer` on loopback over
real HTTP: retries, timeouts, approvals, concurrency, usage accounting, recording, the API
key kept out of every output, and a misconfiguration that says what to set."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import write_fixture
from tests.support.invoke import Result, invoke
from zeroclaw_eval.collect.suite import discover
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer

API_KEY = "sk-zeroclaw-test-9f3c2a7e51b04d68"


KEY_ENV = "ZEROCLAW_TEST_KEY"


def text_case(name: str, answer: str, tokens: tuple[int, int] = (11, 7)) -> dict[str, Any]:
    return {
        "model_name": name,
        "turns": [
            {
                "user_input": f"Say the word for {name}.",
                "steps": [
                    {
                        "response": {
                            "type": "text",
                            "content": answer,
                            "input_tokens": tokens[0],
                            "output_tokens": tokens[1],
                        }
                    }
                ],
            }
        ],
        "expects": {"response_contains": [answer]},
    }


def tool_case(name: str, tool: str, arguments: dict[str, Any], tools: list[str]) -> dict[str, Any]:
    return {
        "model_name": name,
        "tools": tools,
        "turns": [
            {
                "user_input": f"Use {tool} for {name}.",
                "steps": [
                    {
                        "response": {
                            "type": "tool_calls",
                            "tool_calls": [{"id": "c1", "name": tool, "arguments": arguments}],
                            "input_tokens": 20,
                            "output_tokens": 5,
                        }
                    },
                    {"response": {"type": "text", "content": "done", "input_tokens": 30, "output_tokens": 2}},
                ],
            }
        ],
        "expects": {"tools_used": [tool], "response_contains": ["done"]},
    }


def configure(
    live_project: Path,
    url: str,
    *,
    allowed: list[str] | None = None,
    timeout: float = 30,
    kind: str = "openai",
) -> None:
    (live_project / "zeroclaw.toml").write_text(
        f"""[eval]
suite_dir = "suite"
live_provider = "local"
live_allowed_tools = {json.dumps(allowed or [])}
case_timeout_secs = {timeout}

[providers.models.local]
kind = "{kind}"
base_url = "{url}"
model = "served"
api_key_env = "{KEY_ENV}"
max_retries = 3
""",
        encoding="utf-8",
    )


@pytest.fixture
def live_project(tmp_path: Path) -> Path:
    """A project whose suite/ holds three one-turn text cases."""
    suite = tmp_path / "suite"
    write_fixture(suite, "a_alpha.json", text_case("alpha", "apple"))
    write_fixture(suite, "b_bravo.json", text_case("bravo", "banana"))
    write_fixture(suite, "c_charlie.json", text_case("charlie", "cherry"))
    return tmp_path


@pytest.fixture
def serve_suite(live_project: Path, serve: Callable[..., ReplayServer]) -> Callable[..., ReplayServer]:
    """Serve the live_project's suite (as it is when called) with the given fault specs."""
    return lambda *faults: serve(load_cases(discover(live_project / "suite")), *faults)


def live(live_project: Path, *args: str) -> Result:
    return invoke("eval", "run", "--mode", "live", *args, cwd=live_project, env={KEY_ENV: API_KEY})


def test_live_suite_passes_over_loopback_with_usage_accounted(
    live_project: Path, serve_suite: Callable[..., ReplayServer]
) -> None:
    server = serve_suite()
    configure(live_project, server.url)
    result = live(live_project, "--format", "json", "--details", "all")
    assert result.code == 0, result.stdout + result.stderr
    data = result.json()
    assert data["mode"] == "live"
    steps = data["cases"][0]["record"]["steps"]
    assert (steps[0]["input_tokens"], steps[0]["output_tokens"]) == (11, 7)  # from the served usage
    assert len(server.requests()) == 3


def test_progress_is_one_line_per_case_in_a_log(
    live_project: Path, serve_suite: Callable[..., ReplayServer]
) -> None:
    configure(live_project, serve_suite().url)
    result = live(live_project)
    lines = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert len(lines) == 3
    assert lines[-1].startswith("[3/3] ✓ suite/")


def test_429_and_500_are_retried(live_project: Path, serve_suite: Callable[..., ReplayServer]) -> None:
    server = serve_suite("429:0@1", "500@2")
    configure(live_project, server.url)
    result = live(live_project)
    assert result.code == 0, result.stdout
    statuses = [entry["status"] for entry in server.requests()]
    assert statuses == [429, 500, 200, 200, 200]


def test_a_slow_turn_times_out_that_case_only(
    live_project: Path, serve_suite: Callable[..., ReplayServer]
) -> None:
    server = serve_suite("delay:2500@2")  # the second request is bravo's (serial, in file order)
    configure(live_project, server.url, timeout=1)
    result = live(live_project, "--format", "json", "--details", "all")
    assert result.code == 1
    cases = {c["name"]: c for c in result.json()["cases"]}
    assert cases["a_alpha.json"]["status"] == "passed"
    assert cases["c_charlie.json"]["status"] == "passed"
    assert cases["b_bravo.json"]["status"] == "error"
    assert "timed out after 1s" in cases["b_bravo.json"]["error"]["message"]


def test_a_tool_outside_the_allowlist_is_denied_and_fails_its_case(
    live_project: Path, serve: Callable[..., ReplayServer]
) -> None:
    write_fixture(
        live_project / "suite",
        "d_write.json",
        tool_case("delta", "file_write", {"path": "x.txt", "content": "x"}, ["file_write"]),
    )
    write_fixture(live_project / "suite", "e_echo.json", tool_case("echo", "echo", {"message": "hi"}, []))
    # The served script is a model that calls file_write whatever it is offered: to serve,
    # a call to a tool outside the fixture's `tools` is a hallucination, needing no offer.
    model = tool_case("delta", "file_write", {"path": "x.txt", "content": "x"}, [])
    write_fixture(live_project / "model", "d_write.json", model)
    write_fixture(live_project / "model", "e_echo.json", tool_case("echo", "echo", {"message": "hi"}, []))
    served = load_cases(discover(live_project / "model"))
    configure(live_project, serve(served).url, allowed=[])
    result = live(live_project, "--format", "json", "--details", "all")
    cases = {c["name"]: c for c in result.json()["cases"]}
    denied = cases["d_write.json"]
    assert denied["status"] == "error"
    assert "approval denied: the model called 'file_write'" in denied["error"]["message"]
    assert denied["record"]["calls"][0]["success"] is False
    assert cases["e_echo.json"]["status"] == "passed"  # echo is always approved
    configure(live_project, serve(served).url, allowed=["file_write"])
    allowed = {
        c["name"]: c for c in live(live_project, "--format", "json", "--details", "all").json()["cases"]
    }
    assert allowed["d_write.json"]["status"] == "passed"


def test_jobs_keep_fixture_order(live_project: Path, serve_suite: Callable[..., ReplayServer]) -> None:
    # With three cases at once, alpha's answer is the slowest to come.
    server = serve_suite("delay:600@a_alpha")
    configure(live_project, server.url)
    result = live(live_project, "--jobs", "3", "--format", "json", "--details", "all")
    assert result.code == 0, result.stdout
    assert [c["name"] for c in result.json()["cases"]] == ["a_alpha.json", "b_bravo.json", "c_charlie.json"]
    progress = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert "a_alpha.json" in progress[-1]  # it finished last


def test_the_api_key_is_in_no_output_and_no_recording(
    live_project: Path, serve_suite: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    server = serve_suite("500@1,2,3,4")  # the first case fails after retries: its error text is reported too
    configure(live_project, server.url)
    reports = tmp_path / "out"
    result = live(
        live_project,
        "--record",
        str(tmp_path / "recorded"),
        "--report",
        f"json={reports}/r.json",
        "--report",
        f"junit={reports}/r.xml",
        "--report",
        f"html={reports}/r.html",
        "--report",
        f"github={reports}/gh.txt",
    )
    assert result.code == 1
    texts = [result.stdout, result.stderr]
    texts += [p.read_text(encoding="utf-8") for p in sorted(reports.iterdir())]
    texts += [p.read_text(encoding="utf-8") for p in sorted((tmp_path / "recorded").iterdir())]
    assert len(texts) == 2 + 4 + 3
    assert not [t for t in texts if API_KEY in t]
    assert "HTTP 500 after 4 attempt(s)" in (reports / "r.json").read_text(encoding="utf-8")


def test_a_recorded_run_replays_to_the_same_verdict(
    live_project: Path, serve_suite: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    write_fixture(
        live_project / "suite",
        "d_wrong.json",
        {**text_case("delta", "date"), "expects": {"response_contains": ["fig"]}},
    )
    configure(live_project, serve_suite().url)
    recorded = tmp_path / "recorded"
    live_run = live(live_project, "--record", str(recorded), "--format", "json", "--details", "all")
    replay = invoke("eval", "run", "--suite", str(recorded), "--format", "json", "--details", "all")
    assert [(c["name"], c["status"]) for c in replay.json()["cases"]] == [
        (c["name"], c["status"]) for c in live_run.json()["cases"]
    ]
    assert replay.json()["counts"]["failed"] == 1
    assert f"Recorded 4 run(s) as fixtures in {recorded}" in live_run.stderr


def test_an_anthropic_provider_runs_and_records_the_suite_in_messages(
    live_project: Path, serve_suite: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    write_fixture(live_project / "suite", "d_echo.json", tool_case("delta", "echo", {"message": "hi"}, []))
    server = serve_suite()
    # The Anthropic SDKs' base URL: the server's root; /v1/messages is added.
    configure(live_project, server.url.removesuffix("/v1"), kind="anthropic")
    recorded = tmp_path / "recorded"
    live_run = live(live_project, "--record", str(recorded), "--format", "json", "--details", "all")
    assert live_run.code == 0, live_run.stdout + live_run.stderr
    log = server.requests()
    assert {entry["api"] for entry in log} == {"messages"}
    assert [entry["status"] for entry in log] == [200] * 5
    # The tool's result went back as a tool_result, and the tokens are the script's.
    echo = live_run.json()["cases"][3]["record"]
    assert [(call["name"], call["result"]) for call in echo["calls"]] == [("echo", "hi")]
    assert [(s["input_tokens"], s["output_tokens"]) for s in echo["steps"]] == [(20, 5), (30, 2)]
    replay = invoke("eval", "run", "--suite", str(recorded), "--format", "json", "--details", "all")
    assert replay.json()["counts"]["passed"] == 4


def test_a_gemini_provider_runs_and_records_the_suite_in_generate_content(
    live_project: Path, serve_suite: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    # google-genai's base URL: the server's root; /v1beta/models/MODEL:generateContent is
    # added, the key goes in x-goog-api-key.
    write_fixture(live_project / "suite", "d_echo.json", tool_case("delta", "echo", {"message": "hi"}, []))
    server = serve_suite()
    configure(live_project, server.url.removesuffix("/v1"), kind="gemini")
    recorded = tmp_path / "recorded"
    live_run = live(live_project, "--record", str(recorded), "--format", "json", "--details", "all")
    assert live_run.code == 0, live_run.stdout + live_run.stderr
    log = server.requests()
    assert {entry["api"] for entry in log} == {"gemini"}
    assert [entry["status"] for entry in log] == [200] * 5
    # The tool's result went back as a function response of the call, and the tokens are the script's.
    echo = live_run.json()["cases"][3]["record"]
    assert [(call["name"], call["result"]) for call in echo["calls"]] == [("echo", "hi")]
    assert [(s["input_tokens"], s["output_tokens"]) for s in echo["steps"]] == [(20, 5), (30, 2)]
    assert log[-1]["tool_results"] == [{"call_id": "c1", "name": "echo", "content": "hi"}]
    replay = invoke("eval", "run", "--suite", str(recorded), "--format", "json", "--details", "all")
    assert replay.json()["counts"]["passed"] == 4


def test_a_bedrock_provider_signs_runs_and_records_the_suite_in_converse(
    live_project: Path,
    serve_suite: Callable[..., ReplayServer],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # boto3's endpoint URL: the server's root; /model/MODEL/converse is added, each
    # request signed with the key (the secret) and AWS_ACCESS_KEY_ID.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    write_fixture(live_project / "suite", "d_echo.json", tool_case("delta", "echo", {"message": "hi"}, []))
    server = serve_suite()
    configure(live_project, server.url.removesuffix("/v1"), kind="bedrock")
    recorded = tmp_path / "recorded"
    live_run = live(live_project, "--record", str(recorded), "--format", "json", "--details", "all")
    assert live_run.code == 0, live_run.stdout + live_run.stderr
    log = server.requests()
    assert {entry["api"] for entry in log} == {"converse"}
    assert [entry["status"] for entry in log] == [200] * 5
    echo = live_run.json()["cases"][3]["record"]
    assert [(call["name"], call["result"]) for call in echo["calls"]] == [("echo", "hi")]
    assert [(s["input_tokens"], s["output_tokens"]) for s in echo["steps"]] == [(20, 5), (30, 2)]
    assert log[-1]["tool_results"] == [{"call_id": "c1", "name": "echo", "content": "hi"}]
    assert API_KEY not in live_run.stdout + live_run.stderr  # the secret signs, never travels
    replay = invoke("eval", "run", "--suite", str(recorded), "--format", "json", "--details", "all")
    assert replay.json()["counts"]["passed"] == 4


@pytest.mark.parametrize(
    ("toml", "env", "words"),
    [
        ("[eval]\n", {}, "[eval].live_provider is empty, so live mode is off"),
        ('[eval]\nlive_provider = "nope"\n', {}, "no [providers.models.nope] table"),
        (
            '[eval]\nlive_provider = "p"\n[providers.models.p]\nbase_url = "http://127.0.0.1:9/v1"\n'
            'model = "m"\napi_key_env = "ZEROCLAW_UNSET_KEY"\n',
            {},
            "ZEROCLAW_UNSET_KEY is not set",
        ),
        (
            '[eval]\nlive_provider = "p"\nlive_allowed_tools = ["shell"]\n[providers.models.p]\n'
            'base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n',
            {},
            "live_allowed_tools names unknown tools: shell",
        ),
        (
            '[eval]\nlive_provider = "p"\n[providers.models.p]\nbase_url = "x"\n',
            {},
            "model: missing required setting",
        ),
    ],
)
def test_live_mode_misconfiguration_exits_two_saying_what_to_set(
    live_project: Path, toml: str, env: dict[str, str], words: str
) -> None:
    (live_project / "zeroclaw.toml").write_text(toml, encoding="utf-8")
    result = invoke("eval", "run", "--mode", "live", cwd=live_project, env=env)
    assert result.code == 2
    assert words in result.stderr


def test_record_needs_live_mode(live_project: Path) -> None:
    result = invoke("eval", "run", "--suite", "suite", "--record", "out", cwd=live_project)
    assert result.code == 2
    assert "use it with --mode live" in result.stderr


def test_a_denied_case_that_is_not_recorded_is_named_on_one_line(
    live_project: Path, serve: Callable[..., ReplayServer]
) -> None:
    name = "d\n::error::forged.json"
    write_fixture(
        live_project / "suite",
        name,
        tool_case("delta", "file_write", {"path": "x", "content": "x"}, ["file_write"]),
    )
    write_fixture(
        live_project / "model", name, tool_case("delta", "file_write", {"path": "x", "content": "x"}, [])
    )
    configure(live_project, serve(load_cases(discover(live_project / "model"))).url, allowed=[])
    result = live(live_project, "--record", str(live_project / "recorded"))
    said = [line for line in result.stderr.splitlines() if "Not recorded" in line]
    assert said == [
        "Not recorded: d\\n::error::forged.json was failed by the sandbox denying a tool call,"
        " which replay has no approval gate to repeat"
    ]
    assert not [line for line in result.stderr.splitlines() if line.startswith("::error::forged")]
