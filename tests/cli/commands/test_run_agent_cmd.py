"""`zeroclaw eval run --agent-cmd`: an agent that runs as its own process, driven per case
against the case served on loopback, graded from what crossed the HTTP boundary.

The agent is `tests/support/agent_command.py` (standard library only), in each API and stream
mode, and in broken variants that must fail at the right check or step."""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import text_step as text, tool_call, tools_step, write_fixture
from tests.support.invoke import Runner, full_json_report

AGENT = Path(__file__).resolve().parents[2] / "support" / "agent_command.py"


def call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return tools_step(tool_call(name, arguments, call_id))


# Two turns, each a tool round of the agent's own tools then text.
NOTES: dict[str, Any] = {
    "model_name": "notes",
    "tools": ["echo", "write_note"],
    "turns": [
        {
            "user_input": "Echo hello",
            "steps": [
                call("echo", {"message": "hello"}, "call_1"),
                text("The echo tool said: hello", (30, 6)),
            ],
        },
        {
            "user_input": "Save a note saying remember",
            "steps": [call("write_note", {"text": "remember"}, "call_2"), text("Saved your note.")],
        },
    ],
    "expects": {
        "tools_used": ["echo", "write_note"],
        "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
        "response_matches": ["^Saved your note\\.$"],
        "all_tools_succeeded": True,
        "workspace": {"file_contains": {"note.txt": ["remember"]}},
        "budget": {"max_llm_calls": 4},
    },
}


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A project whose default suite holds the two-turn notes case."""
    write_fixture(tmp_path / "evals" / "regression", "notes.json", NOTES)
    return tmp_path


def agent(*flags: str) -> str:
    return " ".join([sys.executable, str(AGENT), *flags])


def run(cli: Runner, project: Path, *flags: str, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    case: dict[str, Any] = full_json_report(cli, project, "--agent-cmd", agent(*flags), *extra)["cases"][0]
    return case


@pytest.mark.parametrize(
    "flags",
    [
        (),
        ("--stream",),
        ("--api", "responses"),
        ("--api", "responses", "--stream"),
        ("--api", "anthropic"),
        ("--api", "anthropic", "--stream"),
        ("--api", "gemini"),
        ("--api", "gemini", "--stream"),
        ("--api", "converse"),
        ("--api", "converse", "--stream"),
    ],
    ids=[
        "chat",
        "chat-streamed",
        "responses",
        "responses-streamed",
        "anthropic",
        "anthropic-streamed",
        "gemini",
        "gemini-streamed",
        "converse",
        "converse-streamed",
    ],
)
def test_an_agent_command_passes_its_case_in_every_api(
    cli: Runner, suite: Path, flags: tuple[str, ...]
) -> None:
    case = run(cli, suite, *flags)
    assert case["status"] == "passed", case
    record = case["record"]
    # The record is what crossed the wire: the scripted steps served, the results fed back.
    assert [(c["turn"], c["name"], c["arguments"], c["result"]) for c in record["calls"]] == [
        (0, "echo", {"message": "hello"}, "hello"),
        (1, "write_note", {"text": "remember"}, "saved"),
    ]
    assert [step["offered_tools"] for step in record["steps"]] == [["echo", "write_note"]] * 4
    assert (record["steps"][1]["input_tokens"], record["steps"][1]["output_tokens"]) == (30, 6)
    assert [turn["response"] for turn in record["turns"]] == ["The echo tool said: hello", "Saved your note."]


@pytest.mark.parametrize(
    "api",
    [
        ("--stream",),
        ("--api", "responses"),
        ("--api", "anthropic", "--stream"),
        ("--api", "gemini", "--stream"),
        ("--api", "converse", "--stream"),
    ],
    ids=["chat", "responses", "anthropic", "gemini", "converse"],
)
@pytest.mark.parametrize(
    ("breaks", "pointer", "words"),
    [
        ("rename", "/turns/0/steps/0", "offers the model no tool named echo (it offers: repeat, write_note)"),
        ("forget", "/turns/0/steps/1", "the request does not carry the results of echo (id call_1)"),
        ("none", "/turns/0/steps/0", 'the script calls echo, but the request\'s tool_choice is "none"'),
        (
            "echo-args",
            "/turns/0/steps/1",
            "turn 1, step 1 of the script calls echo (id call_1) with the arguments"
            ' "{\\"message\\":\\"hello\\"}"; the request echoes that call back with "{}", as if the'
            " model had asked for them",
        ),
    ],
)
def test_a_broken_agent_fails_at_the_step(
    cli: Runner, suite: Path, api: tuple[str, ...], breaks: str, pointer: str, words: str
) -> None:
    # Each wire's refusal quotes its own setting: Gemini's functionCallingConfig, and
    # Bedrock's toolChoice (Converse has no "none": the agent forces another tool).
    if "gemini" in api and breaks == "none":
        words = 'the script calls echo, but the request\'s toolConfig.functionCallingConfig {"mode":"NONE"}'
    if "converse" in api and breaks == "none":
        words = (
            'the script calls echo, but the request\'s toolConfig.toolChoice {"tool":{"name":"write_note"}}'
        )

    case = run(cli, suite, *api, "--break", breaks)
    assert case["status"] == "error"
    assert case["error"]["field"]["pointer"] == pointer
    assert words in case["error"]["message"]


@pytest.mark.parametrize(
    ("breaks", "checks"),
    [
        ("wrong", ["response_matches[0]"]),
        # A result that reads as an error is a failed dispatch (and the note was not written).
        ("fail", ["all_tools_succeeded", 'workspace.file_contains["note.txt"][0]']),
        # The results recorded are the ones the agent fed the model, so garbage fails the check.
        ("garble", ["tool_results_contain[0]"]),
    ],
)
@pytest.mark.parametrize("api", ["responses", "anthropic", "gemini", "converse"])
def test_a_broken_agent_fails_at_the_check(
    cli: Runner, suite: Path, api: str, breaks: str, checks: list[str]
) -> None:
    case = run(cli, suite, "--api", api, "--break", breaks)
    assert case["status"] == "failed"
    assert [grade["check_id"] for grade in case["grades"] if not grade["passed"]] == checks


def test_a_crashing_agent_is_a_run_error_with_its_stderr(cli: Runner, suite: Path) -> None:
    case = run(cli, suite, "--break", "crash")
    assert case["status"] == "error"
    assert case["error"]["message"] == "turn 1: the agent command exited with code 1 before answering"
    traceback = case["error"]["traceback"]
    assert traceback.startswith("stderr (last lines):\nTraceback (most recent call last):")
    assert "RuntimeError: the agent broke on purpose" in traceback
    assert "stdout lines that were not answers:\nagent starting" in traceback


def test_a_request_the_endpoint_refused_is_named_in_the_error_without_verbose(
    cli: Runner, suite: Path
) -> None:
    # The agent's client raises on the 400 and the agent exits: its exit code alone says
    # nothing of why.
    case = run(cli, suite, "--api", "responses", "--break", "badref")
    assert case["status"] == "error"
    assert case["error"]["message"].startswith(
        "turn 1: the agent command exited with code 1 before answering (the harness answered its"
        " POST /v1/responses with HTTP 400: Item with id 'msg_gone' not found"
    )


@pytest.mark.parametrize("stream", [(), ("--stream",)], ids=["plain", "streamed"])
def test_an_agent_that_never_sends_max_tokens_fails_naming_it(
    cli: Runner, suite: Path, stream: tuple[str, ...]
) -> None:
    # The Messages API refuses a request without max_tokens: such an agent fails in
    # production, so it must not pass the gate.
    case = run(cli, suite, "--api", "anthropic", *stream, "--break", "no-max-tokens")
    assert case["status"] == "error"
    assert case["error"]["message"].startswith(
        "turn 1: the agent command exited with code 1 before answering (the harness answered its"
        " POST /v1/messages with HTTP 400: max_tokens: Field required"
    )


def test_a_refusal_the_agent_took_quietly_is_named_beside_the_step_it_left(cli: Runner, suite: Path) -> None:
    case = run(cli, suite, "--api", "responses", "--break", "badref-quiet")
    assert case["error"]["field"]["pointer"] == "/turns/0/steps/0"
    assert case["error"]["message"].startswith(
        "turn 1: the agent finished the turn with 2 scripted step(s) unconsumed (first: step 1);"
        " the script expects more model calls than the agent made (the harness answered its"
        " POST /v1/responses with HTTP 400: Item with id 'msg_gone' not found"
    )


def test_a_timeout_names_the_step_whose_calls_never_came_back(cli: Runner, suite: Path) -> None:
    (suite / "zeroclaw.toml").write_text("[eval]\ncase_timeout_secs = 1\n", encoding="utf-8")
    case = run(cli, suite, "--break", "stall")
    assert case["error"]["field"]["pointer"] == "/turns/0/steps/0"
    assert case["error"]["message"] == (
        "turn 1 timed out after 1s (case_timeout_secs); the last step served was step 1, which"
        " called echo (call call_1): no request sent the result back"
    )


def test_the_output_kept_of_an_errored_agent_is_bounded_in_bytes(cli: Runner, suite: Path) -> None:
    # 40 lines of 1 MB on each stream: the report keeps their ends, some KiB, not 80 MB.
    case = run(cli, suite, "--break", "loud-crash")
    assert case["status"] == "error"
    traceback = case["error"]["traceback"]
    assert len(traceback) < 100_000
    assert "<1,047,552 more characters>" in traceback
    assert traceback.count("\n") >= 80  # the lines are kept, each cut


def test_a_hung_agent_times_out_and_is_killed_with_its_children(cli: Runner, suite: Path) -> None:
    (suite / "zeroclaw.toml").write_text("[eval]\ncase_timeout_secs = 1\n", encoding="utf-8")
    started = time.perf_counter()
    case = run(cli, suite, "--break", "spawn")
    assert time.perf_counter() - started < 10  # killed at the timeout, not waited for
    assert (
        case["error"]["message"]
        == "turn 1 timed out after 1s (case_timeout_secs); the agent asked the model nothing in that turn"
    )
    found = re.search(r"child pid (\d+)", case["error"]["traceback"])
    assert found is not None
    child = int(found.group(1))
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the agent's child outlived its case"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by init) is not alive
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def test_a_oneshot_agent_gets_the_input_as_an_argument(cli: Runner, tmp_path: Path) -> None:
    one = {**NOTES, "turns": NOTES["turns"][:1], "expects": {"tools_used": ["echo"]}}
    write_fixture(tmp_path / "evals" / "regression", "one.json", one)
    result = cli(
        "eval",
        "run",
        "--format",
        "json",
        "--details",
        "all",
        "--agent-cmd",
        agent("--oneshot"),
        "--agent-io",
        "oneshot",
        cwd=tmp_path,
    )
    assert result.code == 0, result.stdout
    assert result.json()["cases"][0]["record"]["turns"][0]["response"] == "The echo tool said: hello"


def test_a_oneshot_agent_cannot_take_a_second_turn(cli: Runner, suite: Path) -> None:
    case = run(cli, suite, "--oneshot", extra=("--agent-io", "oneshot"))
    assert case["error"]["message"].startswith("turn 2: a oneshot agent answers single-turn cases")


def test_the_command_runs_in_the_workspace_with_the_case_in_its_environment(
    cli: Runner, tmp_path: Path
) -> None:
    # Relative paths in the command are the project's; the working directory is the case's own.
    (tmp_path / "whoami.py").write_text(
        "import json, os, sys, urllib.request\n"
        "body = {'model': 'm', 'messages': [{'role': 'user', 'content': sys.argv[-1]}]}\n"
        "request = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions',"
        " json.dumps(body).encode(), {'Content-Type': 'application/json'})\n"
        "reply = json.load(urllib.request.urlopen(request))['choices'][0]['message']['content']\n"
        "print(reply, os.environ['ZEROCLAW_EVAL_CASE'], os.environ['ZEROCLAW_EVAL_MODEL'],"
        " os.path.basename(os.getcwd()).startswith('zeroclaw-eval-'), os.environ['OPENAI_API_KEY'])\n",
        encoding="utf-8",
    )
    case = {
        "model_name": "who",
        "turns": [{"user_input": "who are you?", "steps": [text("I am")]}],
        "expects": {"response_contains": ["I am who.json who True zeroclaw-replay"]},
    }
    write_fixture(tmp_path / "evals" / "regression", "who.json", case)
    (tmp_path / "zeroclaw.toml").write_text(
        f'[eval]\nagent_cmd = "{sys.executable} whoami.py"\nagent_io = "oneshot"\n', encoding="utf-8"
    )
    result = cli("eval", "run", cwd=tmp_path)
    assert result.code == 0, result.stdout


def test_the_machines_aws_credentials_never_reach_the_agent(
    cli: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # boto3 would sign with a profile or a session token it inherited, not the dummies.
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.setenv(name, "the-machines-own")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIA-the-machines-own")
    (tmp_path / "aws.py").write_text(
        "import os\n"
        "names = ('AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_SHARED_CREDENTIALS_FILE')\n"
        "print([n for n in names if n in os.environ], os.environ['AWS_ACCESS_KEY_ID'],"
        " os.environ['AWS_ENDPOINT_URL_BEDROCK_RUNTIME'].startswith('http://127.0.0.1:'))\n",
        encoding="utf-8",
    )
    case = {
        "model_name": "aws",
        "turns": [{"user_input": "who signs?", "steps": []}],
        "expects": {"response_contains": ["[] zeroclaw-replay True"]},
    }
    write_fixture(tmp_path / "evals" / "regression", "aws.json", case)
    (tmp_path / "zeroclaw.toml").write_text(
        f'[eval]\nagent_cmd = "{sys.executable} aws.py"\nagent_io = "oneshot"\n', encoding="utf-8"
    )
    result = cli("eval", "run", cwd=tmp_path)
    assert result.code == 0, result.stdout


def test_jobs_run_agent_commands_at_once(cli: Runner, suite: Path) -> None:
    folder = suite / "evals" / "regression"
    for name in ("second.json", "third.json"):
        (folder / name).write_bytes((folder / "notes.json").read_bytes())
    result = cli(
        "eval",
        "run",
        "--format",
        "json",
        "--details",
        "all",
        "--jobs",
        "3",
        "--agent-cmd",
        agent("--stream"),
        cwd=suite,
    )
    assert result.code == 0, result.stdout
    assert [c["name"] for c in result.json()["cases"]] == ["notes.json", "second.json", "third.json"]


def test_the_agents_own_tools_are_admitted_and_vacuity_knows_it(cli: Runner, tmp_path: Path) -> None:
    own = {**NOTES, "tools": ["search_orders"], "expects": {"tools_used": ["search_orders"]}}
    write_fixture(tmp_path / "evals" / "regression", "own.json", own)
    assert "unknown tool 'search_orders'" in cli("eval", "vacuity", cwd=tmp_path).stdout
    assert cli("eval", "vacuity", "--agent-cmd", "anything", cwd=tmp_path).code == 0


def test_doubles_cannot_answer_an_agent_command(cli: Runner, suite: Path) -> None:
    doubled = {**NOTES, "tool_doubles": {"echo": [{"result": "doubled"}]}}
    write_fixture(suite / "evals" / "regression", "notes.json", doubled)
    case = run(cli, suite)
    assert case["error"]["field"]["pointer"] == "/tool_doubles"
    assert "tool_doubles cannot answer an agent command's tool calls" in case["error"]["message"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--agent-io", "oneshot"), "--agent-io says how to talk to --agent-cmd; give the command too"),
        (("--agent-cmd", ""), "--agent-cmd is empty"),
        (("--agent-cmd", "python 'unclosed"), '--agent-cmd "python \'unclosed": No closing quotation'),
        (("--agent-cmd", sys.executable, "--mode", "live"), "--agent-cmd runs in replay only"),
        (("--agent-cmd", "no-such-agent-binary --x"), "cannot find the program 'no-such-agent-binary'"),
    ],
)
def test_an_agent_command_that_cannot_run_is_a_usage_error(
    cli: Runner, suite: Path, args: tuple[str, ...], words: str
) -> None:
    (suite / "zeroclaw.toml").write_text(
        '[eval]\nlive_provider = "p"\n'
        '[providers.models.p]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n',
        encoding="utf-8",
    )
    result = cli("eval", "run", *args, cwd=suite)
    assert result.code == 2
    assert words in result.stderr


def test_results_are_recorded_once_each_when_a_history_leaves_out_the_closing_answers(
    cli: Runner, suite: Path
) -> None:
    # The next turn's first request then carries the last turn's results right before its
    # user message: they belong to the turn that is over and were recorded with it.
    case = run(cli, suite, "--break", "terse")
    assert case["status"] == "passed", case
    assert [(call["turn"], call["name"]) for call in case["record"]["calls"]] == [
        (0, "echo"),
        (1, "write_note"),
    ]


def test_a_call_id_reused_by_a_later_step_still_records_both_results(cli: Runner, suite: Path) -> None:
    # Both steps of a turn call with id c1; the second call's failure must not hide
    # behind the first one's success.
    reused = {
        **NOTES,
        "turns": [
            {
                "user_input": "Echo hello, then save it",
                "steps": [
                    call("echo", {"message": "hello"}, "c1"),
                    call("write_note", {"text": "hello"}, "c1"),
                    text("Done."),
                ],
            }
        ],
        "expects": {"all_tools_succeeded": True},
    }
    write_fixture(suite / "evals" / "regression", "notes.json", reused)
    case = run(cli, suite, "--break", "fail")
    assert [(call["name"], call["success"]) for call in case["record"]["calls"]] == [
        ("echo", True),
        ("write_note", False),
    ]
    assert case["status"] == "failed"


def test_a_request_after_the_last_answer_is_a_run_error_and_records_nothing(cli: Runner, suite: Path) -> None:
    case = run(cli, suite, "--break", "extra")
    assert case["status"] == "error"
    assert case["error"]["message"].startswith(
        "the agent asked the model 1 more time(s) after its last answer"
    )
    assert case["error"]["field"]["pointer"] == "/turns/1/steps"
    assert len(case["record"]["steps"]) == 4  # the late request was refused, not recorded


def test_noise_on_stdout_and_stderr_neither_blocks_nor_breaks_the_protocol(cli: Runner, suite: Path) -> None:
    # Not UTF-8, a JSON log line with an error key, and 40 MB after each answer on both
    # pipes: both are drained the whole time, so the agent never blocks on a full pipe.
    case = run(cli, suite, "--break", "noisy")
    assert case["status"] == "passed", case["error"]


def test_the_agent_gets_time_to_exit_once_its_stdin_closes(cli: Runner, suite: Path) -> None:
    case = run(cli, suite, "--break", "linger")
    assert case["status"] == "passed"
    assert (suite / "exited-cleanly").read_text(encoding="utf-8") == "yes"


def test_an_agent_that_fails_after_its_last_answer_is_a_run_error(cli: Runner, suite: Path) -> None:
    # Every turn answered as scripted; then it raised as it wound down. It passed.
    case = run(cli, suite, "--break", "fail-after")
    assert case["status"] == "error"
    assert case["error"]["message"].startswith("the agent command exited with code 1 after its last answer")
    assert case["error"]["field"]["pointer"] == "/turns/1"
    assert "RuntimeError: could not save the conversation" in case["error"]["traceback"]


def test_mutation_grades_the_run_an_agent_command_recorded(cli: Runner, suite: Path) -> None:
    # The agent runs its own tools, so its calls are seen at the HTTP boundary; mutants of
    # that record are graded like any other, files it wrote included.
    result = cli("eval", "mutate", "--format", "json", "--agent-cmd", agent(), cwd=suite)
    assert result.code in (0, 1), result.stderr
    (fixture,) = result.json()["fixtures"]
    assert fixture["problem"] is None
    names = {m["name"]: m for m in fixture["mutants"]}
    assert names["drop_call[turn 1, call 0]"]["killed_by"]  # tools_used: echo
    assert names["alter_turn_order[turns 1 and 2]"]["killed"]
    assert names["skip_write[note.txt]"]["killed_by"] == ['workspace.file_contains["note.txt"][0]']
    assert not names["alter_argument[turn 1, call 0, /message]"]["killed"]  # nothing pins it


@pytest.mark.parametrize(
    ("suite_says", "fixture_says", "passes"),
    [
        (None, None, False),
        ("contains", None, True),
        (None, "contains", True),
        ("contains", "exact", False),  # the fixture's own word wins
        ("exact", "contains", True),
    ],
)
def test_an_agent_that_wraps_the_input_passes_where_user_input_match_is_contains(
    cli: Runner, tmp_path: Path, suite_says: str | None, fixture_says: str | None, passes: bool
) -> None:
    fixture = {**NOTES, "user_input_match": fixture_says} if fixture_says else NOTES
    write_fixture(tmp_path / "evals" / "regression", "notes.json", fixture)
    if suite_says:
        (tmp_path / "zeroclaw.toml").write_text(f'[eval]\nuser_input_match = "{suite_says}"\n')
    case = run(cli, tmp_path, "--wrap")
    if passes:
        assert case["status"] == "passed", case["error"] or case["grades"]
        return
    assert case["status"] == "error"
    assert case["error"]["field"]["pointer"] == "/turns/0/steps/0"  # the step it asked for
    message = case["error"]["message"]
    assert "Current Task: Echo hello" in message
    assert 'set user_input_match = "contains"' in message


def test_under_contains_an_agent_that_sends_an_earlier_turns_input_still_fails(
    cli: Runner, tmp_path: Path
) -> None:
    write_fixture(tmp_path / "evals" / "regression", "notes.json", {**NOTES, "user_input_match": "contains"})
    case = run(cli, tmp_path, "--wrap", "--break", "stale-input")
    assert case["status"] == "error"
    assert case["error"]["field"]["pointer"] == "/turns/1/steps/0"
    assert 'which does not contain it (user_input_match is "contains")' in case["error"]["message"]


def test_an_answer_line_with_keys_of_its_own_is_refused_at_once_saying_which(
    cli: Runner, suite: Path
) -> None:
    # Refused when printed, not after the turn's whole timeout (then the error would be one).
    case = run(cli, suite, "--break", "answer-extra")
    assert case["status"] == "error"
    message = case["error"]["message"]
    assert "the agent printed an answer line with other keys ('session')" in message
    assert "timed out" not in message


def test_a_shell_script_must_name_project_files_through_the_project_variable(
    cli: Runner, suite: Path
) -> None:
    # The command runs in the case workspace: a relative path in a `sh -c` script, which
    # is not made absolute as an argument is, would not be found there.
    shutil.copy(AGENT, suite / "agent.py")
    refused = cli("eval", "run", "--agent-cmd", f"sh -c '{sys.executable} agent.py'", cwd=suite)
    assert refused.code == 2
    assert "the shell script" in refused.stderr
    assert "names 'agent.py', a file of the project, by a relative path" in refused.stderr
    assert 'Write "$ZEROCLAW_EVAL_PROJECT/agent.py"' in refused.stderr
    fixed = f"""sh -c '{sys.executable} "$ZEROCLAW_EVAL_PROJECT/agent.py" | cat'"""
    case = full_json_report(cli, suite, "--agent-cmd", fixed)["cases"][0]
    assert case["status"] == "passed", case["error"]


def test_call_index_counts_in_the_models_order_whatever_order_the_results_come_back_in(
    cli: Runner, tmp_path: Path
) -> None:
    fixture = {
        "model_name": "two-echoes",
        "tools": ["echo"],
        "turns": [
            {
                "user_input": "Echo a and b",
                "steps": [
                    tools_step(
                        tool_call("echo", {"message": "a"}, "c1"), tool_call("echo", {"message": "b"}, "c2")
                    ),
                    text("a and b"),
                ],
            }
        ],
        "expects": {
            "tool_results_contain": [
                {"tool": "echo", "needle": "a", "call_index": 0},
                {"tool": "echo", "needle": "b", "call_index": 1},
            ]
        },
    }
    write_fixture(tmp_path / "evals" / "regression", "two.json", fixture)
    case = run(cli, tmp_path, "--break", "reverse-results")
    assert case["status"] == "passed", case["error"] or case["grades"]
    assert [call["call_id"] for call in case["record"]["calls"]] == ["c1", "c2"]
