"""End to end over real HTTP: `zeroclaw eval serve` in one process, `zeroclaw eval run
--mode live` in another, on loopback. Retries, timeouts, approvals, concurrency, usage
accounting, recording, and the API key kept out of every output."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.builders import write_fixture
from tests.invoke import console_script, run_cli

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


class Server:
    """A `zeroclaw eval serve` subprocess on a free loopback port."""

    def __init__(self, suite: Path, *faults: str) -> None:
        args = [console_script(), "eval", "serve", "--suite", str(suite), "--port", "0"]
        for fault in faults:
            args += ["--fault", fault]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert " on http://127.0.0.1:" in line, (
            line + self.process.stderr.read() if self.process.stderr else line
        )
        self.url = line.split(" on ", 1)[1].split()[0]

    def requests(self) -> list[dict[str, Any]]:
        import urllib.request

        with urllib.request.urlopen(self.url.removesuffix("/v1") + "/_zeroclaw/requests") as response:
            data: list[dict[str, Any]] = json.load(response)
        return data

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def configure(project: Path, url: str, *, allowed: list[str] | None = None, timeout: float = 30) -> None:
    (project / "zeroclaw.toml").write_text(
        f"""[eval]
suite_dir = "suite"
live_provider = "local"
live_allowed_tools = {json.dumps(allowed or [])}
case_timeout_secs = {timeout}

[providers.models.local]
base_url = "{url}"
model = "served"
api_key_env = "{KEY_ENV}"
max_retries = 3
""",
        encoding="utf-8",
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    write_fixture(suite, "a_alpha.json", text_case("alpha", "apple"))
    write_fixture(suite, "b_bravo.json", text_case("bravo", "banana"))
    write_fixture(suite, "c_charlie.json", text_case("charlie", "cherry"))
    return tmp_path


@pytest.fixture
def serve(project: Path) -> Iterator[Any]:
    servers: list[Server] = []

    def start(*faults: str) -> Server:
        server = Server(project / "suite", *faults)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def live(project: Path, *args: str) -> Any:
    return run_cli("eval", "run", "--mode", "live", *args, cwd=project, env={KEY_ENV: API_KEY})


def test_live_suite_passes_over_loopback_with_usage_accounted(project: Path, serve: Any) -> None:
    server = serve()
    configure(project, server.url)
    result = live(project, "--format", "json")
    assert result.code == 0, result.stdout + result.stderr
    data = result.json()
    assert data["mode"] == "live"
    steps = data["cases"][0]["record"]["steps"]
    assert (steps[0]["input_tokens"], steps[0]["output_tokens"]) == (11, 7)  # from the served usage
    assert len(server.requests()) == 3


def test_progress_is_one_line_per_case_in_a_log(project: Path, serve: Any) -> None:
    configure(project, serve().url)
    result = live(project)
    lines = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert len(lines) == 3
    assert lines[-1].startswith("[3/3] ✓ suite/")


def test_429_and_500_are_retried(project: Path, serve: Any) -> None:
    server = serve("429:0@1", "500@2")
    configure(project, server.url)
    result = live(project)
    assert result.code == 0, result.stdout
    statuses = [entry["status"] for entry in server.requests()]
    assert statuses == [429, 500, 200, 200, 200]


def test_a_slow_turn_times_out_that_case_only(project: Path, serve: Any) -> None:
    server = serve("delay:2500@2")  # the second request is bravo's (serial, in file order)
    configure(project, server.url, timeout=1)
    result = live(project, "--format", "json")
    assert result.code == 1
    cases = {c["name"]: c for c in result.json()["cases"]}
    assert cases["a_alpha.json"]["status"] == "passed"
    assert cases["c_charlie.json"]["status"] == "passed"
    assert cases["b_bravo.json"]["status"] == "error"
    assert "timed out after 1s" in cases["b_bravo.json"]["error"]["message"]


def test_a_tool_outside_the_allowlist_is_denied_and_fails_its_case(project: Path, serve: Any) -> None:
    write_fixture(
        project / "suite",
        "d_write.json",
        tool_case("delta", "file_write", {"path": "x.txt", "content": "x"}, ["file_write"]),
    )
    write_fixture(project / "suite", "e_echo.json", tool_case("echo", "echo", {"message": "hi"}, []))
    configure(project, serve().url, allowed=[])
    result = live(project, "--format", "json")
    cases = {c["name"]: c for c in result.json()["cases"]}
    denied = cases["d_write.json"]
    assert denied["status"] == "error"
    assert "approval denied: the model called 'file_write'" in denied["error"]["message"]
    assert denied["record"]["calls"][0]["success"] is False
    assert cases["e_echo.json"]["status"] == "passed"  # echo is always approved
    configure(project, serve().url, allowed=["file_write"])
    allowed = {c["name"]: c for c in live(project, "--format", "json").json()["cases"]}
    assert allowed["d_write.json"]["status"] == "passed"


def test_jobs_keep_fixture_order(project: Path, serve: Any) -> None:
    # With three cases at once, alpha's answer is the slowest to come.
    server = serve("delay:600@a_alpha")
    configure(project, server.url)
    result = live(project, "--jobs", "3", "--format", "json")
    assert result.code == 0, result.stdout
    assert [c["name"] for c in result.json()["cases"]] == ["a_alpha.json", "b_bravo.json", "c_charlie.json"]
    progress = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert "a_alpha.json" in progress[-1]  # it finished last


def test_the_api_key_is_in_no_output_and_no_recording(project: Path, serve: Any, tmp_path: Path) -> None:
    server = serve("500@1,2,3,4")  # the first case fails after retries: its error text is reported too
    configure(project, server.url)
    reports = tmp_path / "out"
    result = live(
        project,
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


def test_a_recorded_run_replays_to_the_same_verdict(project: Path, serve: Any, tmp_path: Path) -> None:
    write_fixture(
        project / "suite",
        "d_wrong.json",
        {**text_case("delta", "date"), "expects": {"response_contains": ["fig"]}},
    )
    configure(project, serve().url)
    recorded = tmp_path / "recorded"
    live_run = live(project, "--record", str(recorded), "--format", "json")
    replay = run_cli("eval", "run", "--suite", str(recorded), "--format", "json")
    assert [(c["name"], c["status"]) for c in replay.json()["cases"]] == [
        (c["name"], c["status"]) for c in live_run.json()["cases"]
    ]
    assert replay.json()["counts"]["failed"] == 1
    assert f"Recorded 4 run(s) as fixtures in {recorded}" in live_run.stderr


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
    project: Path, toml: str, env: dict[str, str], words: str
) -> None:
    (project / "zeroclaw.toml").write_text(toml, encoding="utf-8")
    result = run_cli("eval", "run", "--mode", "live", cwd=project, env=env)
    assert result.code == 2
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_record_needs_live_mode(project: Path) -> None:
    result = run_cli("eval", "run", "--suite", "suite", "--record", "out", cwd=project)
    assert result.code == 2
    assert "use it with --mode live" in result.stderr


def test_serve_refuses_a_rejected_fixture_and_bad_faults(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"model_name": "x"}', encoding="utf-8")
    result = run_cli("eval", "serve", "--fixture", str(tmp_path / "bad.json"), "--port", "0")
    assert result.code == 2
    assert "fix the fixture before serving it" in result.stderr
    fault = run_cli("eval", "serve", "--suite", str(tmp_path), "--fault", "418")
    assert fault.code == 2
    assert "--fault '418'" in fault.stderr
