"""`--agent-service`: what the harness makes of a service's answers, its start-up and its
requests, through a real service (`tests/support/scripted_service.py`, whose answers each
test scripts) on loopback, run by `zeroclaw eval run` in this process.

The unhappy paths first: an error status is the case's error, never read as an answer;
a redirect is not followed; an answer over the bound is never read whole; a malformed
answer says what is wrong with it; a service that does not become ready says why."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import text_step, tool_call, tools_step, write_fixture
from tests.support.invoke import Runner, full_json_report
from zeroclaw_eval.backends.loopback import ANSWER_LIMIT

SERVICE = Path(__file__).resolve().parents[1] / "support" / "scripted_service.py"


def case(word: str, turns: int = 1) -> dict[str, Any]:
    """A case of `turns` turns, each answered by the model with text."""
    return {
        "model_name": f"model-{word}",
        "turns": [
            {"user_input": f"Say {word} {turn}", "steps": [text_step(f"{word.title()} {turn}.")]}
            for turn in range(turns)
        ],
        "expects": {"response_contains": [word.title()]},
    }


def project(
    root: Path, plan: dict[str, Any], *, cases: tuple[dict[str, Any], ...] = (), config: str = ""
) -> Path:
    """A project whose service answers as `plan` says, and whose suite is `cases` (one
    case by default), each case run with no quiet time after it."""
    root.mkdir(exist_ok=True)
    (root / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    for index, fixture in enumerate(cases or (case("alpha"),)):
        write_fixture(root / "evals" / "regression", f"case_{index:02d}.json", fixture)
    (root / "zeroclaw.toml").write_text(
        f'[eval]\nagent_service = "{sys.executable} {SERVICE} plan.json"\n'
        f"agent_service_quiet_secs = 0\n{config}",
        encoding="utf-8",
    )
    return root


def cases_of(cli: Runner, root: Path, *flags: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = full_json_report(cli, root, *flags)["cases"]
    return found


def error_of(cli: Runner, root: Path, *flags: str) -> str:
    """The run error of the project's one case."""
    (found,) = cases_of(cli, root, *flags)
    assert found["status"] == "error", found
    message: str = found["error"]["message"]
    return message


def logged(root: Path, name: str) -> list[dict[str, Any]]:
    path = root / name
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def starts(root: Path) -> int:
    path = root / "starts.log"
    return len(path.read_text(encoding="utf-8").split()) if path.exists() else 0


LOOKS_LIKE_AN_ANSWER = '{"output": "Alpha 0."}'


def answered(
    cli: Runner, root: Path, answers: list[dict[str, Any]], config: str = ""
) -> list[dict[str, Any]]:
    """The cases of a run whose service answers the Nth case's one turn with `answers[N]`
    (every case asks "Say alpha 0", which the model answers "Alpha 0.")."""
    project(root, {"answers": answers}, cases=(case("alpha"),) * len(answers), config=config)
    found = cases_of(cli, root)
    assert starts(root) == 1  # an answer the turn fails for leaves the service serving
    return found


def test_an_error_status_fails_the_turn_quoting_its_body_never_read_as_an_answer(
    cli: Runner, tmp_path: Path
) -> None:
    statuses = [400, 404, 500, 503]
    found = answered(cli, tmp_path, [{"status": status, "body": LOOKS_LIKE_AN_ANSWER} for status in statuses])
    assert [c["error"]["message"] for c in found] == [
        f"turn 1: the agent service answered POST /turn with HTTP {status}: '{LOOKS_LIKE_AN_ANSWER}'"
        for status in statuses
    ]


def test_a_redirect_fails_the_turn_and_is_not_followed(cli: Runner, tmp_path: Path) -> None:
    statuses = [300, 302, 307, 399]
    found = answered(cli, tmp_path, [{"status": status, "location": "/elsewhere"} for status in statuses])
    assert [c["error"]["message"] for c in found] == [
        f"turn 1: the agent service answered POST /turn with HTTP {status}, a redirect, which is not followed"
        for status in statuses
    ]
    assert {(r["method"], r["path"]) for r in logged(tmp_path, "requests.jsonl")} == {("POST", "/turn")}


def test_any_2xx_answer_is_the_turns_answer(cli: Runner, tmp_path: Path) -> None:
    found = answered(
        cli, tmp_path, [{"status": status, "body": LOOKS_LIKE_AN_ANSWER} for status in (200, 201, 299)]
    )
    assert [c["record"]["turns"][0]["response"] for c in found] == ["Alpha 0."] * 3
    # The service answered without asking the model: the script's step is left over.
    assert all("unconsumed" in c["error"]["message"] for c in found)


def test_a_malformed_or_failed_json_answer_fails_the_turn_saying_what_it_was(
    cli: Runner, tmp_path: Path
) -> None:
    answers: list[tuple[dict[str, Any], str]] = [
        (
            {"body": "not json\r\nat all"},
            "answered POST /turn with a body that is not JSON: 'not json  at all'",
        ),
        ({"json": {"output": 3}}, """answered POST /turn without a string "output": '{"output": 3}'"""),
        ({"json": ["output"]}, """answered POST /turn without a string "output": '["output"]'"""),
        (
            {"json": {"answer": "Alpha 0."}},
            """answered POST /turn without a string "output": '{"answer": "Alpha 0."}'""",
        ),
        ({"json": {"error": "no key for the model"}}, "reported an error: 'no key for the model'"),
        ({"json": {"error": {"code": 7}}}, "reported an error: \"{'code': 7}\""),
    ]
    found = answered(cli, tmp_path, [answer for answer, _ in answers])
    assert [c["error"]["message"] for c in found] == [
        f"turn 1: the agent service {words}" for _, words in answers
    ]


def test_an_answer_with_output_and_error_is_its_output(cli: Runner, tmp_path: Path) -> None:
    (found,) = answered(cli, tmp_path, [{"json": {"output": "Alpha 0.", "error": "ignored"}}])
    assert found["record"]["turns"][0]["response"] == "Alpha 0."


def test_a_long_refused_body_is_quoted_cut_short(cli: Runner, tmp_path: Path) -> None:
    body = "e" * 299 + "Z" + "never quoted" * 50
    (found,) = answered(cli, tmp_path, [{"status": 500, "body": body}])
    assert found["error"]["message"].endswith(": '" + "e" * 299 + "Z…'")


def test_a_chat_service_answers_with_its_first_choices_message_text(cli: Runner, tmp_path: Path) -> None:
    replies: list[dict[str, Any]] = [
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Alpha 0."}}]},
        {"choices": []},
        {"choices": [{"message": {"role": "assistant", "content": None}}]},
        {"choices": [{"message": "Alpha 0."}]},
        {"output": "Alpha 0."},
    ]
    found = answered(
        cli, tmp_path, [{"json": reply} for reply in replies], 'agent_service_protocol = "chat"\n'
    )
    assert found[0]["record"]["turns"][0]["response"] == "Alpha 0."
    assert [c["error"]["message"] for c in found[1:]] == [
        "turn 1: the agent service answered POST /v1/chat/completions with no"
        f" choices[0].message.content text: {json.dumps(reply)!r}"
        for reply in replies[1:]
    ]


def test_an_answer_of_the_most_bytes_allowed_is_read_whole(cli: Runner, tmp_path: Path) -> None:
    root = project(tmp_path, {"answers": [{"size": ANSWER_LIMIT}]})
    (found,) = cases_of(cli, root)
    assert len(found["record"]["turns"][0]["response"]) == ANSWER_LIMIT - len('{"output": ""}')


def test_an_answer_over_the_bound_is_the_cases_error_and_the_next_case_gets_a_new_service(
    cli: Runner, tmp_path: Path
) -> None:
    plan = {"answers": [{"size": ANSWER_LIMIT + 1}, {"model": True}]}
    root = project(tmp_path, plan, cases=(case("alpha"), case("bravo")))
    first, second = cases_of(cli, root)
    assert first["error"]["message"] == (
        "turn 1: the agent service stopped answering: its answer is over 16 MiB, the most an answer may be"
    )
    assert second["status"] == "passed", second
    assert starts(root) == 2


def test_each_turn_is_one_request_with_its_session_turn_input_and_workspace(
    cli: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Workspaces under a folder whose name a header cannot carry as it is.
    folder = tmp_path / "work dir é"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    root = project(
        tmp_path / "project", {"answers": [{"model": True}]}, cases=(case("alpha", 2), case("bravo", 2))
    )
    found = cases_of(cli, root)
    assert [c["status"] for c in found] == ["passed", "passed"], found
    posts = logged(root, "requests.jsonl")
    assert [(r["path"], r["body"]["turn"], r["body"]["input"]) for r in posts] == [
        ("/turn", 0, "Say alpha 0"),
        ("/turn", 1, "Say alpha 1"),
        ("/turn", 0, "Say bravo 0"),
        ("/turn", 1, "Say bravo 1"),
    ]
    for request in posts:
        body, headers = request["body"], request["headers"]
        assert sorted(body) == ["input", "session", "turn", "workspace"]
        assert headers["content-type"] == "application/json"
        assert headers["x-zeroclaw-session"] == body["session"]
        assert body["workspace"].startswith(str(folder))
        assert headers["x-zeroclaw-workspace"] == body["workspace"].replace(" ", "%20").replace("é", "%C3%A9")
    sessions = [request["body"]["session"] for request in posts]
    assert sessions[0] == sessions[1] != sessions[2] == sessions[3]
    assert sessions[0].startswith("case_00.json#")
    assert sessions[2].startswith("case_01.json#")
    assert starts(root) == 1


def test_a_chat_service_gets_the_conversation_so_far_at_its_path(cli: Runner, tmp_path: Path) -> None:
    config = 'agent_service_protocol = "chat"\nagent_service_path = "/agent/chat"\n'
    root = project(tmp_path, {"answers": [{"model": True}]}, cases=(case("alpha", 2),), config=config)
    (found,) = cases_of(cli, root)
    assert found["status"] == "passed", found["error"]
    first, second = logged(root, "requests.jsonl")
    assert (first["path"], second["path"]) == ("/agent/chat", "/agent/chat")
    assert first["body"] == {"model": "model-alpha", "messages": [{"role": "user", "content": "Say alpha 0"}]}
    assert second["body"] == {
        "model": "model-alpha",
        "messages": [
            {"role": "user", "content": "Say alpha 0"},
            {"role": "assistant", "content": "Alpha 0."},
            {"role": "user", "content": "Say alpha 1"},
        ],
    }
    assert second["headers"]["x-zeroclaw-session"] == first["headers"]["x-zeroclaw-session"]


def test_the_service_starts_with_the_runs_model_server_and_its_port_but_no_cases_names(
    cli: Runner, tmp_path: Path
) -> None:
    root = project(tmp_path, {"answers": [{"model": True}]})
    (found,) = cases_of(cli, root)
    assert found["status"] == "passed", found
    (environment,) = logged(root, "environments.jsonl")
    assert environment["PORT"].isdigit()
    assert environment["OPENAI_BASE_URL"].startswith("http://127.0.0.1:")
    assert environment["OPENAI_BASE_URL"].endswith("/v1")
    assert (environment["ZEROCLAW_EVAL_CASE"], environment["ZEROCLAW_EVAL_MODEL"]) == (None, None)
    assert environment["ZEROCLAW_EVAL_MCP_URL"] is None


def test_a_request_the_harness_refused_is_named_in_the_turns_error(cli: Runner, tmp_path: Path) -> None:
    root = project(tmp_path, {"answers": [{"refused": True}]})
    message = error_of(cli, root)
    assert message.startswith(
        "turn 1: the agent service reported an error: 'the model refused' (the harness answered its"
        " POST /v1/chat/completions with HTTP 400: "
    )


def test_a_service_that_dies_mid_turn_is_the_cases_error_with_its_stderr(cli: Runner, tmp_path: Path) -> None:
    root = project(
        tmp_path, {"answers": [{"die": True}, {"model": True}]}, cases=(case("alpha"), case("bravo"))
    )
    first, second = cases_of(cli, root)
    assert first["error"]["message"].startswith("turn 1: the agent service stopped answering: ")
    assert first["error"]["traceback"] == "stderr (last lines):\ndying on purpose"
    assert second["status"] == "passed", second
    assert starts(root) == 2


# Start-up.

READY = 'agent_service_ready_path = "/health"\nagent_service_startup_secs = 0.4\n'


@pytest.mark.parametrize(
    ("ready", "words"),
    [
        (
            [302, "/health/"],
            "GET /health answered 302 (redirects are not followed; Location: /health/), not 2xx",
        ),
        ([300, None], "GET /health answered 300, not 2xx"),
        ([503, None], "GET /health answered 503, not 2xx"),
    ],
)
def test_a_ready_path_that_answers_other_than_2xx_is_never_ready_and_says_what_it_answered(
    cli: Runner, tmp_path: Path, ready: list[Any], words: str
) -> None:
    root = project(tmp_path, {"ready": ready, "answers": [{"model": True}]}, config=READY)
    assert error_of(cli, root) == (
        f"turn 1: the agent service was not ready within 0.4s (agent_service_startup_secs): {words}"
    )


@pytest.mark.parametrize("status", [200, 204, 299])
def test_a_ready_path_answering_any_2xx_is_ready(cli: Runner, tmp_path: Path, status: int) -> None:
    root = project(tmp_path, {"ready": [status, None], "answers": [{"model": True}]}, config=READY)
    (found,) = cases_of(cli, root)
    assert found["status"] == "passed", found


def test_a_ready_path_slower_than_a_second_is_not_ready(cli: Runner, tmp_path: Path) -> None:
    root = project(tmp_path, {"ready_delay": 3, "answers": [{"model": True}]}, config=READY)
    assert error_of(cli, root) == (
        "turn 1: the agent service was not ready within 0.4s (agent_service_startup_secs):"
        " GET /health did not answer within a second"
    )


def test_a_service_that_exits_before_it_is_ready_fails_every_case_started_once(
    cli: Runner, tmp_path: Path
) -> None:
    root = project(tmp_path, {"exit": 3}, cases=(case("alpha"), case("bravo")))
    first, second = cases_of(cli, root)
    assert first["error"]["message"] == "turn 1: the agent service exited with code 3 before it was ready"
    assert first["error"]["traceback"] == "stderr (last lines):\nbroken on purpose"
    assert second["error"]["message"] == (
        "turn 1: the agent service exited with code 3 before it was ready"
        " (as for an earlier case: not started again)"
    )
    assert starts(root) == 1


def test_a_service_that_exits_quietly_without_listening_is_never_ready(cli: Runner, tmp_path: Path) -> None:
    root = project(tmp_path, {"exit": 0}, config="agent_service_startup_secs = 0.3\n")
    message = error_of(cli, root)
    assert message.startswith(
        "turn 1: the agent service was not ready within 0.3s (agent_service_startup_secs)"
        " (it exited with code 0): nothing accepted a connection on port "
    )
    assert message.endswith(" (does it listen on $PORT?)")


# MCP together with a service that serves case after case.


def order(number: str) -> dict[str, Any]:
    """A case whose model looks order `number` up, a tool only its double answers."""
    return {
        "model_name": "orders",
        "tools": ["lookup_order"],
        "tool_doubles": {
            "lookup_order": [{"when": {"order_id": number}, "result": f"order {number}: shipped"}]
        },
        "turns": [
            {
                "user_input": f"Where is order {number}?",
                "steps": [
                    tools_step(tool_call("lookup_order", {"order_id": number}, f"c{number}")),
                    text_step(f"Order {number} has shipped."),
                ],
            }
        ],
        "expects": {
            "tool_results_contain": [{"tool": "lookup_order", "needle": f"order {number}: shipped"}],
            "all_tools_succeeded": True,
        },
    }


def test_a_service_takes_each_cases_tools_over_mcp_and_sees_no_other_cases(
    cli: Runner, tmp_path: Path
) -> None:
    root = project(tmp_path, {"answers": [{"model": True}]}, cases=(order("7"), order("13"), order("42")))
    found = cases_of(cli, root, "--mcp")
    assert [c["status"] for c in found] == ["passed"] * 3, [c["error"] or c["grades"] for c in found]
    for number, ran in zip(("7", "13", "42"), found, strict=True):
        calls = [(c["call_id"], c["name"], c["arguments"], c["result"]) for c in ran["record"]["calls"]]
        assert calls == [(f"c{number}", "lookup_order", {"order_id": number}, f"order {number}: shipped")]
    (environment,) = logged(root, "environments.jsonl")  # one service for the run
    assert environment["ZEROCLAW_EVAL_MCP_URL"].startswith("http://127.0.0.1:")
    assert "?" not in environment["ZEROCLAW_EVAL_MCP_URL"]  # the one case running answers it
