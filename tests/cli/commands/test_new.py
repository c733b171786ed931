"""`zeroclaw eval new` (`zeroclaw_eval.cli.commands.new`): the file it writes is admitted, can fail,
and passes `zeroclaw eval run`; it never overwrites, and refuses flags that make no case."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import admitted
from tests.support.invoke import Runner
from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.grading.vacuity import find_vacuous

ECHO_FLAGS = ("--input", "Echo hi", "--tool", "echo", "--args", '{"message": "hi"}', "--answer", "hi")


@pytest.mark.parametrize("flags", [(), ECHO_FLAGS], ids=["no-flags", "echo-call"])
def test_the_new_fixture_is_admitted_can_fail_and_passes_the_run(
    cli: Runner, tmp_path: Path, flags: tuple[str, ...]
) -> None:
    result = cli("eval", "new", "fresh_case", *flags, cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert result.stderr == "Wrote evals/regression/fresh_case.json\n"
    path = tmp_path / "evals" / "regression" / "fresh_case.json"
    case = admitted(path)
    assert case.trace.model_name == "fresh_case"
    assert find_vacuous(case) is None
    assert cli("eval", "check", cwd=tmp_path).code == 0
    run = cli("eval", "run", "--format", "json", cwd=tmp_path)
    assert run.code == 0, run.stdout + run.stderr
    assert run.json()["counts"]["passed"] == 1


def test_the_tool_case_grades_the_call(cli: Runner, tmp_path: Path) -> None:
    assert cli("eval", "new", "echo_hi", *ECHO_FLAGS, cwd=tmp_path).code == 0
    fixture = json.loads((tmp_path / "evals" / "regression" / "echo_hi.json").read_text(encoding="utf-8"))
    assert fixture["turns"][0]["user_input"] == "Echo hi"
    assert fixture["expects"]["tool_arguments_contain"] == [{"tool": "echo", "needle": "hi", "call_index": 0}]


def test_where_it_goes_suite_config_or_output(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nsuite_dir = "cases"\n', encoding="utf-8")
    assert cli("eval", "new", "a", cwd=tmp_path).code == 0
    assert (tmp_path / "cases" / "a.json").is_file()
    assert cli("eval", "new", "b.json", "--suite", "other", cwd=tmp_path).code == 0
    assert (tmp_path / "other" / "b.json").is_file()
    result = cli("eval", "new", "c", "--output", "drafts/case_c.json", cwd=tmp_path)
    assert result.code == 0
    assert result.stderr == "Wrote drafts/case_c.json\n"
    assert admitted(tmp_path / "drafts" / "case_c.json").trace.model_name == "c"


def test_an_existing_file_is_never_overwritten(cli: Runner, tmp_path: Path) -> None:
    path = tmp_path / "evals" / "regression" / "mine.json"
    path.parent.mkdir(parents=True)
    path.write_text("my own work", encoding="utf-8")
    result = cli("eval", "new", "mine", cwd=tmp_path)
    assert result.code == 2
    assert result.stderr == (
        "Error: evals/regression/mine.json exists already; pick another NAME or --output,"
        " or remove it first\n"
    )
    assert path.read_text(encoding="utf-8") == "my own work"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["x", "--tool", "get_weather"], "/tools/0: unknown tool 'get_weather'"),
        (["x", "--needle", ""], "/expects/response_contains/0: zero-length entry"),
        (["x", "--answer", "It is Paris.", "--needle", "Rome"], "does not contain the needle 'Rome'"),
        (["x", "--args", "{}"], "name the tool with --tool"),
        (["x", "--tool", "echo", "--args", "[1]"], "--args must be a JSON object"),
        (["x", "--suite", "s", "--output", "o.json"], "--suite and --output both say where"),
        (["a/b"], "NAME 'a/b' must be a plain file name"),
        ([".json"], "must be a plain file name"),
        (["a\nb"], "NAME 'a\\nb' must be a plain file name"),
        (["a\x1b[31mb"], "NAME 'a\\x1b[31mb' must be a plain file name"),
        # Shows as "echohello": two fixtures could look alike.
        (["echo\u200bhello"], "must be a plain file name"),
        (["\ufeffecho"], "must be a plain file name"),
        ([], "Missing argument 'NAME'"),
    ],
    ids=[
        "unknown-tool",
        "empty-needle",
        "needle-not-in-answer",
        "args-without-tool",
        "args-not-object",
        "two-places",
        "path-as-name",
        "empty-name",
        "newline-in-name",
        "escape-in-name",
        "zero-width-space-in-name",
        "bom-in-name",
        "no-name",
    ],
)
def test_flags_that_make_no_case_exit_two_and_write_nothing(
    cli: Runner, tmp_path: Path, args: list[str], words: str
) -> None:
    result = cli("eval", "new", *args, cwd=tmp_path)
    assert result.code == 2
    assert words in result.stderr
    assert "Traceback" not in result.stderr
    assert not list(tmp_path.rglob("*.json"))


def test_a_project_tool_is_known_through_the_config(
    cli: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = "zc_tools_test_new"  # a name of this test's own, forgotten after it
    (tmp_path / f"{module}.py").write_text(
        "from zeroclaw_eval import ProjectTool\n\n"
        "def weather(city):\n"
        "    raise RuntimeError('a scaffold reached the real weather service')\n\n"
        "def tools():\n"
        "    return [ProjectTool('get_weather', 'The weather.', weather)]\n",
        encoding="utf-8",
    )
    (tmp_path / "zeroclaw.toml").write_text(f'[eval]\ntools = "{module}:tools"\n', encoding="utf-8")
    monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the config's folder is put on it
    result = cli(
        "eval", "new", "weather", "--tool", "get_weather", "--args", '{"city": "Paris"}', cwd=tmp_path
    )
    assert result.code == 0, result.stderr
    fixture = json.loads((tmp_path / "evals" / "regression" / "weather.json").read_text(encoding="utf-8"))
    assert fixture["tools"] == ["get_weather"]
    # A project tool may reach a real service: the scaffold doubles it, so neither the
    # check replay nor any later run calls it.
    assert fixture["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "get_weather answered"}]
    }
    run = cli("eval", "run", cwd=tmp_path)
    assert run.code == 0, run.stdout + run.stderr
    mutate = cli("eval", "mutate", cwd=tmp_path)
    assert mutate.code == 0, mutate.stdout


#: Each form of `new`: no tool, a tool with and without arguments, a tool that writes.
FORMS = {
    "no-flags": (),
    "echo-args": ("--tool", "echo", "--args", '{"message":"hi"}'),
    "echo-no-args": ("--tool", "echo"),
    "echo-all-flags": ECHO_FLAGS,
    "list-dir": ("--tool", "list_dir"),
    "file-write": ("--tool", "file_write", "--args", '{"path": "a.txt", "content": "x"}'),
    "needle": ("--input", "Time?", "--answer", "Hello. It is 12 o'clock.", "--needle", "Hello"),
}


@pytest.mark.parametrize("flags", FORMS.values(), ids=FORMS.keys())
def test_mutate_passes_a_fresh_scaffold(cli: Runner, tmp_path: Path, flags: tuple[str, ...]) -> None:
    # A new case joins a gate as it is: mutate is part of the gate, so it must pass it too.
    result = cli("eval", "new", "fresh", *flags, cwd=tmp_path)
    assert (result.code, result.stderr) == (0, "Wrote evals/regression/fresh.json\n")
    mutate = cli("eval", "mutate", "evals/regression/fresh.json", cwd=tmp_path)
    assert mutate.code == 0, mutate.stdout
    assert "PASSED" in mutate.stdout
    # And it is still a case: admitted, passing in replay, failing against an empty run.
    assert find_vacuous(admitted(tmp_path / "evals" / "regression" / "fresh.json")) is None
    assert cli("eval", "run", cwd=tmp_path).code == 0
    assert cli("eval", "vacuity", cwd=tmp_path).code == 0


def test_the_checks_added_pin_what_the_tool_answered_and_the_answer(cli: Runner, tmp_path: Path) -> None:
    assert (
        cli("eval", "new", "echo_hi", "--tool", "echo", "--args", '{"message":"hi"}', cwd=tmp_path).code == 0
    )
    expects = json.loads((tmp_path / "evals" / "regression" / "echo_hi.json").read_text(encoding="utf-8"))[
        "expects"
    ]
    assert expects == {
        "tools_used": ["echo"],
        "exact_tool_calls": 1,
        "tool_arguments_contain": [{"tool": "echo", "needle": "hi", "call_index": 0}],
        "all_tools_succeeded": True,
        "tool_results_contain": [{"tool": "echo", "needle": "hi", "call_index": 0}],
        "response_contains": ["The echo tool has answered."],
        "budget": {"max_llm_calls": 2},
    }


def test_a_scaffold_mutate_would_still_fail_is_written_with_a_note(
    cli: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No scaffold known today leaves an operator unkilled; should one, the user is told.
    from zeroclaw_eval.mutate import strengthen
    from zeroclaw_eval.mutate.report import FixtureMutation, MutantOutcome

    async def weak(
        data: dict[str, Any], path: Path, options: object
    ) -> tuple[dict[str, Any], FixtureMutation]:
        survivor = MutantOutcome("inflate_budget", "llm_calls", "1 LLM calls", "2 LLM calls", ())
        return data, FixtureMutation("x.json", path, "x", FieldRef("/expects"), (survivor,))

    monkeypatch.setattr(strengthen, "strengthen", weak)
    result = cli("eval", "new", "weak", cwd=tmp_path)
    assert result.code == 0
    assert result.stderr == (
        "Wrote evals/regression/weak.json\n"
        "note: no check kills a mutant of inflate_budget in this case, so zeroclaw eval mutate fails it;"
        " run `zeroclaw eval mutate evals/regression/weak.json` to see the survivors\n"
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ["--tool", "file_read", "--args", '{"path": "notes.txt"}'],
            "file_read failed: no such file: notes.txt",
        ),
        (["--tool", "echo", "--args", '{"message": 5}'], "echo failed:"),
    ],
)
def test_a_scaffold_that_would_not_replay_to_a_pass_is_not_written(
    cli: Runner, tmp_path: Path, args: list[str], words: str
) -> None:
    result = cli("eval", "new", "broken", *args, cwd=tmp_path)
    assert result.code == 2
    assert "these flags make a case that does not pass in replay, so it was not written" in result.stderr
    assert words in result.stderr
    assert not list(tmp_path.rglob("*.json"))


def test_help_teaches_with_examples(cli: Runner) -> None:
    result = cli("eval", "new", "--help")
    assert result.code == 0
    assert "zeroclaw eval new echo_hi --input" in result.stdout
    assert "Exit codes:" in result.stdout
