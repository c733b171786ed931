"""`zeroclaw_eval.cases.admission`, with the rules and messages it applies: fail-closed
loading with pointer, line and column.

Expected positions are computed from the fixture text with `builders.line_col`, an
implementation independent of the package's scanner.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.builders import (
    TURNS_LINE,
    admit,
    admit_case,
    echo_fixture,
    fixture_text,
    line_col,
    minimal_fixture,
    only_problem_at,
    position,
    problems_at,
    reject,
    write_fixture,
)
from zeroclaw_eval._support.json.pointer import join_pointer
from zeroclaw_eval.cases.admission import admit_bytes, load_fixture
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS


def value_position(text: str, key: str, occurrence: int = 1) -> tuple[int, int]:
    """(line, col) of the value that follows `"key": ` in `text`."""
    prefix = f'"{key}": '
    line, col = line_col(text, prefix, occurrence)
    return line, col + len(prefix)


def test_good_fixture_is_admitted(tmp_path: Path) -> None:
    design_example = {
        "model_name": "single-tool-echo",
        "turns": [
            {
                "user_input": "Echo hello for me",
                "steps": [
                    {
                        "response": {
                            "type": "tool_calls",
                            "input_tokens": 30,
                            "output_tokens": 15,
                            "tool_calls": [
                                {"id": "call_1", "name": "echo", "arguments": {"message": "hello"}}
                            ],
                        }
                    },
                    {"response": {"type": "text", "content": "The echo tool said: hello"}},
                ],
            }
        ],
        "expects": {
            "exact_tool_calls": 1,
            "tool_arguments_contain": [{"tool": "echo", "needle": "hello", "call_index": 0}],
            "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
            "all_tools_succeeded": True,
        },
    }
    case = admit_case(tmp_path, design_example, name="single_tool_echo.json")
    assert case.name == "single_tool_echo.json"
    assert case.path == tmp_path / "single_tool_echo.json"
    assert case.trace.model_name == "single-tool-echo"
    assert case.trace.expects.exact_tool_calls == 1
    assert case.trace.expects.tool_arguments_contain[0].call_index == 0
    assert case.trace.turns[0].steps is not None
    assert case.trace.turns[0].steps[0].response.tool_calls[0].arguments == {"message": "hello"}


def test_good_fixture_with_every_optional_part_is_admitted(tmp_path: Path) -> None:
    data = minimal_fixture(
        id="gh-1",
        tools=["file_read", "file_write", "list_dir"],
        setup={"workspace_files": {"notes/today.md": "hello"}},
        expects={
            "response_contains": ["hello"],
            "tools_used": [],
            "workspace": {"file_exists": ["notes/today.md"], "file_contains": {"notes/today.md": ["hel"]}},
            "budget": {"max_total_tokens": 10, "max_llm_calls": 1},
            "response_json": {"/status": "ok"},
            "min_tool_calls": 1,
            "max_tool_calls": 3,
            "exact_tool_calls": 2,
        },
    )
    case = admit_case(tmp_path, data)
    assert case.trace.setup is not None
    assert case.trace.setup.workspace_files == {"notes/today.md": "hello"}
    assert case.trace.tools == ["file_read", "file_write", "list_dir"]


def test_empty_tools_used_beside_real_checks_is_fine(tmp_path: Path) -> None:
    admit_case(tmp_path, minimal_fixture(expects={"tools_used": [], "response_contains": ["hello"]}))


def test_rejection_names_the_fixture(tmp_path: Path) -> None:
    rejected = reject(tmp_path, "[]", name="bad_case.json")
    assert rejected.name == "bad_case.json"
    assert rejected.path == tmp_path / "bad_case.json"


def test_no_turns_is_rejected_at_the_turns_value(tmp_path: Path) -> None:
    text = fixture_text('{"response_contains": ["ok"]}', turns='  "turns": [],\n')
    problem = only_problem_at(reject(tmp_path, text), "/turns")
    assert "turn" in problem.message
    assert position(problem) == value_position(text, "turns")


@pytest.mark.parametrize(
    ("missing", "message_part"),
    [("turns", "turns"), ("expects", "expects"), ("model_name", "model_name")],
)
def test_missing_required_top_level_key_points_at_the_object(
    tmp_path: Path, missing: str, message_part: str
) -> None:
    data = minimal_fixture()
    del data[missing]
    text = "\n\n  " + json.dumps(data)  # the root object starts on line 3, column 3
    problem = only_problem_at(reject(tmp_path, text), f"/{missing}")
    assert message_part in problem.message
    assert "missing" in problem.message
    assert position(problem) == (3, 3)


def test_missing_key_in_a_turn_points_at_the_turn(tmp_path: Path) -> None:
    turns = '  "turns": [\n    {"steps": [{"response": {"type": "text", "content": "ok"}}]}],\n'
    text = fixture_text('{"response_contains": ["ok"]}', turns=turns)
    problem = only_problem_at(reject(tmp_path, text), "/turns/0/user_input")
    assert "user_input" in problem.message
    assert position(problem) == line_col(text, '{"steps"')


@pytest.mark.parametrize(
    "expects",
    [
        "{}",
        '{"response_contains": [], "tools_used": []}',
        '{"tool_arguments_contain": [], "workspace": {}, "budget": {}}',
        '{"workspace": {"file_exists": [], "file_contains": {"a.txt": []}}}',
    ],
)
def test_expects_without_a_check_is_rejected(tmp_path: Path, expects: str) -> None:
    text = fixture_text(expects)
    problem = only_problem_at(reject(tmp_path, text), "/expects")
    assert "no check" in problem.message
    assert position(problem) == value_position(text, "expects")


@pytest.mark.parametrize(
    "family",
    [
        "response_contains",
        "response_not_contains",
        "response_matches",
        "tools_used",
        "tools_not_used",
        "system_prompt_contains",
        "tools_offered",
    ],
)
def test_zero_length_entry_in_a_string_family_is_rejected(tmp_path: Path, family: str) -> None:
    # The fixture also declares a real check, so the empty entry is the only problem.
    text = fixture_text('{\n    "max_tool_calls": 3,\n    "' + family + '": ["x", ""]\n  }')
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, f"/expects/{family}/1")
    assert "zero-length" in problem.message
    assert position(problem) == line_col(text, '""')
    assert len(rejected.problems) == 1


def test_unknown_top_level_key_is_rejected_at_the_key(tmp_path: Path) -> None:
    text = fixture_text('{"response_contains": ["ok"]}', extra='  "extra_key": {"a": 1},\n')
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "/extra_key")
    assert "unknown key" in problem.message
    assert position(problem) == line_col(text, '"extra_key"')
    assert len(rejected.problems) == 1


def test_unknown_expectation_key_suggests_the_close_one(tmp_path: Path) -> None:
    text = fixture_text('{\n    "response_contains": ["ok"],\n    "tool_used": ["echo"]\n  }')
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "/expects/tool_used")
    assert "unknown expectation key" in problem.message
    assert "did you mean tools_used" in problem.message
    assert position(problem) == (6, 5) == line_col(text, '"tool_used"')
    assert len(rejected.problems) == 1


_STEP = '{"response": {"type": "text", "content": "ok"}}'


@pytest.mark.parametrize(
    ("turns", "expects", "extra", "pointer", "bad_key"),
    [
        (
            '  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "text", "content": "ok",'
            ' "contnet": "x"}}]}],\n',
            '{"response_contains": ["ok"]}',
            "",
            "/turns/0/steps/0/response/contnet",
            '"contnet"',
        ),
        (
            '  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "tool_calls", "tool_calls":'
            ' [{"id": "c", "name": "echo", "args": {}}]}}, ' + _STEP + "]}],\n",
            '{"response_contains": ["ok"]}',
            "",
            "/turns/0/steps/0/response/tool_calls/0/args",
            '"args"',
        ),
        (
            '  "turns": [{"user_input": "hi", "steps": [' + _STEP + '], "note": 1}],\n',
            '{"response_contains": ["ok"]}',
            "",
            "/turns/0/note",
            '"note"',
        ),
        (
            '  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "text", "content": "ok"},'
            ' "delay": 1}]}],\n',
            '{"response_contains": ["ok"]}',
            "",
            "/turns/0/steps/0/delay",
            '"delay"',
        ),
        (
            TURNS_LINE,
            '{"tool_arguments_contain": [{"tool": "echo", "needle": "x", "callindex": 0}]}',
            "",
            "/expects/tool_arguments_contain/0/callindex",
            '"callindex"',
        ),
        (
            TURNS_LINE,
            '{"tool_results_contain": [{"tool": "echo", "needle": "x", "exact": true}]}',
            "",
            "/expects/tool_results_contain/0/exact",
            '"exact"',
        ),
        (
            TURNS_LINE,
            '{"response_contains": ["ok"], "workspace": {"file_exist": ["a.txt"]}}',
            "",
            "/expects/workspace/file_exist",
            '"file_exist"',
        ),
        (
            TURNS_LINE,
            '{"response_contains": ["ok"], "budget": {"max_tokens": 10}}',
            "",
            "/expects/budget/max_tokens",
            '"max_tokens"',
        ),
        (
            TURNS_LINE,
            '{"response_contains": ["ok"]}',
            '  "setup": {"workspace_file": {"a.txt": "x"}},\n',
            "/setup/workspace_file",
            '"workspace_file"',
        ),
    ],
    ids=[
        "response",
        "tool_call",
        "turn",
        "step",
        "arguments_check",
        "results_check",
        "workspace",
        "budget",
        "setup",
    ],
)
def test_unknown_key_in_a_nested_object_is_rejected_at_the_key(
    tmp_path: Path, turns: str, expects: str, extra: str, pointer: str, bad_key: str
) -> None:
    text = fixture_text(expects, extra=extra, turns=turns)
    problem = only_problem_at(reject(tmp_path, text), pointer)
    assert "unknown" in problem.message
    assert position(problem) == line_col(text, bad_key)


def test_unknown_nested_key_gets_a_suggestion(tmp_path: Path) -> None:
    text = fixture_text('{"response_contains": ["ok"], "workspace": {"file_exist": ["a.txt"]}}')
    problem = only_problem_at(reject(tmp_path, text), "/expects/workspace/file_exist")
    assert "did you mean file_exists" in problem.message


@pytest.mark.parametrize("family", ["tool_arguments_contain", "tool_results_contain"])
@pytest.mark.parametrize("field", ["tool", "needle"])
def test_empty_tool_or_needle_in_a_dispatch_check_is_rejected(
    tmp_path: Path, family: str, field: str
) -> None:
    entry = {"tool": "echo", "needle": "hello"}
    entry[field] = ""
    text = fixture_text(json.dumps({family: [{"tool": "echo", "needle": "fine"}, entry]}))
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, f"/expects/{family}/1/{field}")
    assert position(problem) == line_col(text, '""')
    assert len(rejected.problems) == 1


def test_min_tool_calls_zero_is_rejected_at_the_value(tmp_path: Path) -> None:
    text = fixture_text('{\n    "response_contains": ["ok"],\n    "min_tool_calls": 0\n  }')
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "/expects/min_tool_calls")
    assert "vacuous" in problem.message
    assert position(problem) == value_position(text, "min_tool_calls")
    assert len(rejected.problems) == 1


@pytest.mark.parametrize(
    ("expects", "later_key"),
    [
        ('{\n    "min_tool_calls": 3,\n    "max_tool_calls": 2\n  }', "max_tool_calls"),
        ('{\n    "max_tool_calls": 2,\n    "min_tool_calls": 3\n  }', "min_tool_calls"),
    ],
)
def test_min_above_max_points_at_the_later_key(tmp_path: Path, expects: str, later_key: str) -> None:
    text = fixture_text(expects)
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, f"/expects/{later_key}")
    assert "3" in problem.message
    assert "2" in problem.message
    assert position(problem) == line_col(text, f'"{later_key}"')
    assert len(rejected.problems) == 1


@pytest.mark.parametrize(
    ("expects", "later_key"),
    [
        ('{\n    "exact_tool_calls": 1,\n    "min_tool_calls": 2\n  }', "min_tool_calls"),
        ('{\n    "min_tool_calls": 2,\n    "exact_tool_calls": 1\n  }', "exact_tool_calls"),
        ('{\n    "max_tool_calls": 2,\n    "exact_tool_calls": 3\n  }', "exact_tool_calls"),
        ('{\n    "exact_tool_calls": 3,\n    "max_tool_calls": 2\n  }', "max_tool_calls"),
    ],
)
def test_exact_outside_bounds_points_at_the_later_key(tmp_path: Path, expects: str, later_key: str) -> None:
    text = fixture_text(expects)
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, f"/expects/{later_key}")
    assert "exact_tool_calls" in problem.message
    assert position(problem) == line_col(text, f'"{later_key}"')
    assert len(rejected.problems) == 1


@pytest.mark.parametrize(
    "expects",
    [
        '{"min_tool_calls": 1, "max_tool_calls": 3, "exact_tool_calls": 2}',
        '{"min_tool_calls": 2, "max_tool_calls": 2, "exact_tool_calls": 2}',
    ],
)
def test_consistent_bounds_are_admitted(tmp_path: Path, expects: str) -> None:
    admit_case(tmp_path, fixture_text(expects))


@pytest.mark.parametrize(
    ("expects", "turns", "pointer", "key"),
    [
        (
            '{"response_contains": ["ok"], "max_tool_calls": null}',
            TURNS_LINE,
            "/expects/max_tool_calls",
            "max_tool_calls",
        ),
        (
            '{"all_tools_succeeded": null, "response_contains": ["ok"]}',
            TURNS_LINE,
            "/expects/all_tools_succeeded",
            "all_tools_succeeded",
        ),
        ('{"response_contains": ["ok"], "budget": null}', TURNS_LINE, "/expects/budget", "budget"),
        (
            '{"tool_results_contain": [{"tool": "echo", "needle": "x", "call_index": null}]}',
            TURNS_LINE,
            "/expects/tool_results_contain/0/call_index",
            "call_index",
        ),
        (
            '{"response_contains": ["ok"]}',
            '  "turns": [{"user_input": "hi", "steps": null}],\n',
            "/turns/0/steps",
            "steps",
        ),
    ],
)
def test_null_value_is_rejected_at_the_value(
    tmp_path: Path, expects: str, turns: str, pointer: str, key: str
) -> None:
    text = fixture_text(expects, turns=turns)
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, pointer)
    assert "null" in problem.message
    assert position(problem) == value_position(text, key)


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ('"2"', "a string"),
        ("true", "a boolean"),
        ("2.0", "a number"),
        ("2.5", "a number"),
        ("[2]", "an array"),
    ],
)
@pytest.mark.parametrize("key", ["max_tool_calls", "exact_tool_calls", "min_tool_calls"])
def test_wrong_type_for_a_count_is_rejected_at_the_value(
    tmp_path: Path, key: str, value: str, found: str
) -> None:
    text = fixture_text('{\n    "response_contains": ["ok"],\n    "' + key + '": ' + value + "\n  }")
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, f"/expects/{key}")
    assert "integer" in problem.message
    assert found in problem.message
    assert position(problem) == value_position(text, key)
    assert len(rejected.problems) == 1


@pytest.mark.parametrize("value", ['"0"', "true", "0.0", "-1"])
def test_wrong_call_index_is_rejected_at_the_value(tmp_path: Path, value: str) -> None:
    text = fixture_text(
        '{"tool_results_contain": [{"tool": "echo", "needle": "x", "call_index": ' + value + "}]}"
    )
    problem = only_problem_at(reject(tmp_path, text), "/expects/tool_results_contain/0/call_index")
    assert position(problem) == value_position(text, "call_index")


@pytest.mark.parametrize(("value", "found"), [("true", "boolean"), ('"30"', "string")])
def test_wrong_type_for_token_count_in_a_step(tmp_path: Path, value: str, found: str) -> None:
    turns = (
        '  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "text", "content": "ok",'
        ' "input_tokens": ' + value + "}}]}],\n"
    )
    text = fixture_text('{"response_contains": ["ok"]}', turns=turns)
    problem = only_problem_at(reject(tmp_path, text), "/turns/0/steps/0/response/input_tokens")
    assert found in problem.message
    assert position(problem) == value_position(text, "input_tokens")


def test_wrong_type_for_tool_call_arguments_names_the_arguments_field(tmp_path: Path) -> None:
    # Arguments are an object (or raw argument text); a number is neither. The problem is
    # about the `arguments` member itself, so that is the pointer a reporter must show.
    turns = (
        '  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "tool_calls", "tool_calls":'
        ' [{"id": "c1", "name": "echo", "arguments": 5}]}}, ' + _STEP + "]}],\n"
    )
    text = fixture_text('{"response_contains": ["ok"]}', turns=turns)
    rejected = reject(tmp_path, text)
    pointer = "/turns/0/steps/0/response/tool_calls/0/arguments"
    assert [p.field.pointer for p in rejected.problems] == [pointer]
    assert position(rejected.problems[0]) == value_position(text, "arguments")


def test_wrong_type_for_response_type_is_rejected(tmp_path: Path) -> None:
    turns = '  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "txt", "content": "ok"}}]}],\n'
    text = fixture_text('{"response_contains": ["ok"]}', turns=turns)
    problem = only_problem_at(reject(tmp_path, text), "/turns/0/steps/0/response/type")
    assert position(problem) == value_position(text, "type")


def test_malformed_json_is_rejected_with_line_and_column(tmp_path: Path) -> None:
    text = '{\n  "model_name": "m",\n  "turns": [] \n  "expects": {}\n}\n'
    rejected = reject(tmp_path, text)
    assert len(rejected.problems) == 1
    problem = rejected.problems[0]
    assert "invalid JSON" in problem.message
    # The parser stops where it wanted a comma: at the `"expects"` key on line 4.
    assert position(problem) == (4, 3) == line_col(text, '"expects"')


def test_malformed_json_after_non_ascii_counts_code_points(tmp_path: Path) -> None:
    text = '{"model_name": "東京😀", "turns": [}'
    problem = reject(tmp_path, text).problems[0]
    assert position(problem) == line_col(text, "}") == (1, 33)
    assert problem.field.col != len(text[: text.index("}")].encode()) + 1


def test_duplicate_key_is_rejected_at_the_second_occurrence(tmp_path: Path) -> None:
    text = fixture_text(
        '{\n    "max_tool_calls": 1,\n    "response_contains": ["ok"],\n    "max_tool_calls": 2\n  }'
    )
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "/expects/max_tool_calls")
    assert "duplicate" in problem.message
    assert position(problem) == line_col(text, '"max_tool_calls"', occurrence=2)
    assert len(rejected.problems) == 1


def test_duplicate_key_in_a_nested_object(tmp_path: Path) -> None:
    turns = '  "turns": [{"user_input": "hi", "user_input": "again", "steps": [' + _STEP + "]}],\n"
    text = fixture_text('{"response_contains": ["ok"]}', turns=turns)
    problem = only_problem_at(reject(tmp_path, text), "/turns/0/user_input")
    assert position(problem) == line_col(text, '"user_input"', occurrence=2)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_rejected(tmp_path: Path, literal: str) -> None:
    text = fixture_text('{\n    "response_json": {"/score": ' + literal + "}\n  }")
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "/expects/response_json/~1score")
    assert literal in problem.message
    assert position(problem) == line_col(text, literal)


def test_non_finite_number_in_a_count_is_rejected(tmp_path: Path) -> None:
    text = fixture_text('{"response_contains": ["ok"], "max_tool_calls": Infinity}')
    problems = problems_at(reject(tmp_path, text), "/expects/max_tool_calls")
    assert problems
    assert all(position(p) == line_col(text, "Infinity") for p in problems)


def test_utf8_bom_is_rejected(tmp_path: Path) -> None:
    raw = b"\xef\xbb\xbf" + json.dumps(minimal_fixture()).encode()
    rejected = reject(tmp_path, raw)
    assert len(rejected.problems) == 1
    assert "BOM" in rejected.problems[0].message
    assert position(rejected.problems[0]) == (1, 1)


def test_invalid_utf8_is_rejected_at_the_bad_byte(tmp_path: Path) -> None:
    prefix = '{\n  "model_name": "m",\n  "turns": [{"user_input": "café 東京 '
    raw = prefix.encode() + b"\xff" + b'"}],\n  "expects": {"response_contains": ["ok"]}\n}\n'
    rejected = reject(tmp_path, raw)
    assert len(rejected.problems) == 1
    problem = rejected.problems[0]
    assert "UTF-8" in problem.message
    # line 3; the bad byte follows the 36 characters (46 bytes) of `  "turns": [{"user_input": "café 東京 `
    assert position(problem) == (3, len(prefix.split("\n")[-1]) + 1) == (3, 37)


@pytest.mark.parametrize("trailer", ["\n{}", " x", "\n\n]"])
def test_trailing_data_after_the_object_is_rejected(tmp_path: Path, trailer: str) -> None:
    body = json.dumps(minimal_fixture())
    text = body + trailer
    rejected = reject(tmp_path, text)
    assert len(rejected.problems) == 1
    problem = rejected.problems[0]
    assert "after" in problem.message
    stripped = trailer.lstrip()
    assert position(problem) == line_col(text, stripped, occurrence=text.count(stripped))


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\ude00\\ud83d", "a\\ud83d b"])
def test_unpaired_surrogate_escape_is_rejected(tmp_path: Path, escape: str) -> None:
    text = fixture_text('{\n    "max_tool_calls": 2,\n    "response_contains": ["ok", "' + escape + '"]\n  }')
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "/expects/response_contains/1")
    assert "surrogate" in problem.message
    assert position(problem) == line_col(text, f'"{escape}"')


def test_valid_surrogate_pair_is_accepted(tmp_path: Path) -> None:
    text = fixture_text('{"response_contains": ["smile \\ud83d\\ude00"]}')
    case = admit_case(tmp_path, text)
    assert case.trace.expects.response_contains == ["smile \U0001f600"]


@pytest.mark.parametrize("text", ["[]", json.dumps([minimal_fixture()]), '"text"', "42", "null"])
def test_top_level_value_that_is_not_an_object_is_rejected(tmp_path: Path, text: str) -> None:
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "")
    assert "object" in problem.message
    assert position(problem) == (1, 1)


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/etc/passwd", "absolute"),
        ("../outside.txt", ".."),
        ("notes/../../outside.txt", ".."),
        ("notes/..", ".."),
    ],
)
def test_setup_workspace_path_leaving_the_workspace_is_rejected(tmp_path: Path, path: str, why: str) -> None:
    setup = json.dumps({"workspace_files": {"ok.txt": "fine", path: "x"}})
    text = fixture_text('{"response_contains": ["ok"]}', extra=f'  "setup": {setup},\n')
    pointer = "/setup/workspace_files/" + path.replace("~", "~0").replace("/", "~1")
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, pointer)
    assert why in problem.message
    assert position(problem) == line_col(text, json.dumps(path))
    assert len(rejected.problems) == 1


def test_unknown_tool_in_tools_is_rejected_at_the_value(tmp_path: Path) -> None:
    text = fixture_text('{"response_contains": ["ok"]}', extra='  "tools": ["file_read", "shell_exec"],\n')
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "/tools/1")
    assert "shell_exec" in problem.message
    assert position(problem) == line_col(text, '"shell_exec"')
    assert len(rejected.problems) == 1


def test_text_response_without_content_points_at_the_response(tmp_path: Path) -> None:
    turns = '  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "text"}}]}],\n'
    text = fixture_text('{"response_contains": ["ok"]}', turns=turns)
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "/turns/0/steps/0/response/content")
    assert "content" in problem.message
    assert position(problem) == line_col(text, '{"type": "text"}')
    assert len(rejected.problems) == 1


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        ('{"type": "tool_calls", "tool_calls": []}', "[]"),
        ('{"type": "tool_calls"}', '{"type": "tool_calls"}'),
    ],
)
def test_tool_calls_response_without_calls_is_rejected(tmp_path: Path, response: str, fragment: str) -> None:
    turns = '  "turns": [{"user_input": "hi", "steps": [{"response": ' + response + "}, " + _STEP + "]}],\n"
    text = fixture_text('{"response_contains": ["ok"]}', turns=turns)
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, "/turns/0/steps/0/response/tool_calls")
    assert "at least one call" in problem.message
    assert position(problem) == line_col(text, fragment)
    assert len(rejected.problems) == 1


def test_several_problems_in_different_places_are_reported_together(tmp_path: Path) -> None:
    text = (
        "{\n"
        '  "model_name": "m",\n'
        '  "bogus": 1,\n'
        '  "turns": [],\n'
        '  "tools": ["no_such_tool"],\n'
        '  "expects": {"response_contains": [""], "tool_used": ["echo"]}\n'
        "}\n"
    )
    rejected = reject(tmp_path, text)
    pointers = {p.field.pointer for p in rejected.problems}
    assert {"/bogus", "/turns", "/tools/0", "/expects/response_contains/0", "/expects/tool_used"} <= pointers
    assert position(only_problem_at(rejected, "/bogus")) == (3, 3)
    assert position(only_problem_at(rejected, "/turns")) == (4, 12)
    # Every problem carries a position, and they come in file order.
    located = [(p.field.line or 0, p.field.col or 0) for p in rejected.problems]
    assert all(line > 0 and col > 0 for line, col in located)
    assert located == sorted(located)


def test_doubles_of_a_tool_not_offered_are_reported_beside_other_problems(tmp_path: Path) -> None:
    # The unknown expectation key makes the fixture invalid; the double's rule still runs.
    data = echo_fixture(
        {"tool_used": ["echo"]}, tool_doubles={"get_weather": [{"result": "sunny"}], "echo": []}
    )
    rejected = reject(tmp_path, data)
    assert "unknown expectation key" in only_problem_at(rejected, "/expects/tool_used").message
    assert "which the case is not offered" in only_problem_at(rejected, "/tool_doubles/get_weather").message
    assert "no double of 'echo'" in only_problem_at(rejected, "/tool_doubles/echo").message


def test_rule_problem_is_reported_beside_a_validation_problem_in_expects(tmp_path: Path) -> None:
    # The zero-length entry fails validation of `expects`; the contradictory bounds are a
    # cross-field rule. Both are independent problems and both must be reported at once.
    text = fixture_text(
        '{\n    "response_contains": [""],\n    "min_tool_calls": 3,\n    "max_tool_calls": 1\n  }'
    )
    rejected = reject(tmp_path, text)
    pointers = [p.field.pointer for p in rejected.problems]
    assert "/expects/response_contains/0" in pointers
    assert "/expects/max_tool_calls" in pointers


def test_columns_count_code_points_before_the_bad_key(tmp_path: Path) -> None:
    text = (
        '{"model_name": "東京へようこそ 🚀 café", "oops": 1, "turns": [{"user_input": "hi", "steps": ['
        + _STEP
        + ']}], "expects": {"response_contains": ["ok"]}}'
    )
    problem = only_problem_at(reject(tmp_path, text), "/oops")
    expected = line_col(text, '"oops"')
    assert position(problem) == expected == (1, 34)
    byte_col = len(text[: text.index('"oops"')].encode("utf-8")) + 1
    assert problem.field.col != byte_col


def test_missing_file_is_a_rejection_not_an_exception(tmp_path: Path) -> None:
    result = load_fixture(tmp_path / "absent.json", BUILTIN_TOOLS)
    assert isinstance(result, RejectedFixture)
    assert "cannot read" in result.problems[0].message


def test_deeply_nested_json_is_a_rejection_not_an_exception(tmp_path: Path) -> None:
    raw = b'{"model_name": "m", "turns": ' + b"[" * 50000 + b"]" * 50000 + b"}"
    result = admit_bytes(raw, tmp_path / "deep.json", BUILTIN_TOOLS)
    assert isinstance(result, RejectedFixture)
    assert result.problems


def test_admit_bytes_and_load_fixture_agree(tmp_path: Path) -> None:
    text = fixture_text('{"tool_used": ["echo"], "response_contains": ["ok"]}')
    path = write_fixture(tmp_path, "case.json", text)
    from_file = load_fixture(path, BUILTIN_TOOLS)
    from_bytes = admit_bytes(text.encode(), path, BUILTIN_TOOLS)
    assert isinstance(from_file, RejectedFixture)
    assert isinstance(from_bytes, RejectedFixture)
    assert from_file.problems == from_bytes.problems


def test_admitted_case_locates_fields(tmp_path: Path) -> None:
    text = fixture_text('{\n    "response_contains": ["ok"]\n  }')
    result = admit(tmp_path, text)
    assert isinstance(result, Case)
    ref = result.locate("/expects/response_contains/0")
    assert (ref.line, ref.col) == line_col(text, '"ok"]')
    key_ref = result.locate("/expects/response_contains", at_key=True)
    assert (key_ref.line, key_ref.col) == line_col(text, '"response_contains"')


def test_null_inside_free_json_values_is_admitted(tmp_path: Path) -> None:
    # `null` is a JSON value a response may hold and an argument may carry; only a null
    # standing for a fixture field is rejected.
    turns = (
        '  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "tool_calls", "tool_calls":'
        ' [{"id": "c1", "name": "echo", "arguments": {"message": null}}]}}, ' + _STEP + "]}],\n"
    )
    case = admit_case(tmp_path, fixture_text('{"response_json": {"/reason": null}}', turns=turns))
    assert case.trace.expects.response_json == {"/reason": None}


def test_null_in_a_nested_fixture_field_is_rejected(tmp_path: Path) -> None:
    text = fixture_text('{\n    "workspace": {"file_contains": {"a.txt": null}}\n  }')
    problem = only_problem_at(reject(tmp_path, text), "/expects/workspace/file_contains/a.txt")
    assert "null" in problem.message
    assert position(problem) == line_col(text, "null")


def test_response_json_key_that_is_not_a_pointer_is_rejected(tmp_path: Path) -> None:
    text = fixture_text('{\n    "response_json": {"status": "ok"}\n  }')
    problem = only_problem_at(reject(tmp_path, text), "/expects/response_json/status")
    assert "pointer" in problem.message
    assert position(problem) == line_col(text, '"status"')


@pytest.mark.parametrize(
    ("expects", "pointer"),
    [
        ('{"tools_used": ["echo"], "tools_not_used": ["file_read", "echo"]}', "/expects/tools_not_used/1"),
        (
            '{"response_contains": ["hello world"], "response_not_contains": ["world"]}',
            "/expects/response_not_contains/0",
        ),
        ('{"tools_used": ["echo", "file_read"], "max_tool_calls": 1}', "/expects/max_tool_calls"),
        ('{"exact_tool_calls": 1, "tools_used": ["echo", "file_read", "echo"]}', "/expects/tools_used"),
    ],
)
def test_checks_that_no_run_can_pass_together_are_rejected(
    tmp_path: Path, expects: str, pointer: str
) -> None:
    rejected = reject(tmp_path, fixture_text(expects))
    problem = only_problem_at(rejected, pointer)
    assert "no run can pass" in problem.message


def test_every_truncation_of_a_fixture_is_rejected_without_raising(tmp_path: Path) -> None:
    raw = fixture_text(
        '{"response_contains": ["東京"], "tool_results_contain": [{"tool": "echo", "needle": "x"}]}'
    )
    data = raw.encode("utf-8")
    for end in range(len(data) - 2):  # the last two bytes are "}\n" and "\n"
        result = admit_bytes(data[:end], tmp_path / "cut.json", BUILTIN_TOOLS)
        assert isinstance(result, RejectedFixture), end
        assert all(p.field.line is not None and p.field.col is not None for p in result.problems)
    assert isinstance(admit_bytes(data, tmp_path / "whole.json", BUILTIN_TOOLS), Case)


@pytest.mark.parametrize(
    ("files", "pointer", "words"),
    [
        ({"a": "x", "a/b": "y"}, "/setup/workspace_files/a", "needs it to be a folder"),
        ({".": "x"}, "/setup/workspace_files/.", "names the workspace itself"),
        ({"notes/": "x"}, "/setup/workspace_files/notes~1", "empty or trailing segment"),
        ({"a//b": "x"}, "/setup/workspace_files/a~1~1b", "empty or trailing segment"),
    ],
)
def test_setup_files_that_cannot_all_be_seeded_are_rejected(
    tmp_path: Path, files: dict[str, str], pointer: str, words: str
) -> None:
    extra = '  "setup": {"workspace_files": ' + json.dumps(files) + "},\n"
    problem = only_problem_at(
        reject(tmp_path, fixture_text('{"response_contains": ["ok"]}', extra=extra)), pointer
    )
    assert words in problem.message


def test_setup_files_in_nested_folders_are_admitted(tmp_path: Path) -> None:
    extra = '  "setup": {"workspace_files": {"./a.txt": "x", "sub/b.txt": "y", "sub/deep/c.txt": "z"}},\n'
    assert isinstance(admit(tmp_path, fixture_text('{"response_contains": ["ok"]}', extra=extra)), Case)


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1.5e400"])
def test_a_number_that_overflows_to_infinity_is_rejected_at_its_position(tmp_path: Path, number: str) -> None:
    text = fixture_text('{\n    "response_json": {"/x": ' + number + "}\n  }")
    problem = only_problem_at(reject(tmp_path, text), "/expects/response_json/~1x")
    assert "too large" in problem.message
    assert position(problem) == value_position(text, "/x")


def test_a_large_but_finite_number_is_admitted(tmp_path: Path) -> None:
    assert isinstance(
        admit(
            tmp_path, fixture_text('{"response_json": {"/x": 1e300, "/y": 123456789012345678901234567890}}')
        ),
        Case,
    )


@pytest.mark.parametrize(
    "expects",
    [
        '{"tools_used": ["echo", "echo"], "max_tool_calls": 1}',  # one tool, named twice
        '{"tools_used": ["echo", "file_read"], "max_tool_calls": 2}',
        '{"tools_used": ["echo"], "exact_tool_calls": 1}',
    ],
)
def test_tools_used_within_the_count_bounds_is_admitted(tmp_path: Path, expects: str) -> None:
    admitted = admit(tmp_path, fixture_text(expects))
    assert isinstance(admitted, Case), getattr(admitted, "problems", None)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(hello)\\\\1", "invalid escape sequence"),  # a backreference, which RE2 leaves out
        ("(?=ahead)", "invalid perl operator"),  # lookaround
        ("(unclosed", "missing )"),
    ],
)
def test_a_pattern_re2_cannot_compile_is_rejected_with_its_reason(
    tmp_path: Path, pattern: str, reason: str
) -> None:
    text = fixture_text('{\n    "response_matches": ["ok", "' + pattern + '"]\n  }')
    problem = only_problem_at(reject(tmp_path, text), "/expects/response_matches/1")
    assert reason in problem.message
    assert "no response can match it" in problem.message
    assert position(problem) == line_col(text, '"' + pattern)


@pytest.mark.parametrize(
    ("workspace", "pointer", "fragment", "why"),
    [
        (
            '{"file_exists": ["ok.txt", "../up.txt"]}',
            "/expects/workspace/file_exists/1",
            '"../up.txt"',
            "'..'",
        ),
        ('{"file_absent": ["/etc/passwd"]}', "/expects/workspace/file_absent/0", '"/etc/passwd"', "absolute"),
        ('{"file_exists": [""]}', "/expects/workspace/file_exists/0", '""', "zero-length"),
        (
            '{"file_contains": {"a/../../b.txt": ["x"]}}',
            "/expects/workspace/file_contains/a~1..~1..~1b.txt",
            '"a/../../b.txt"',
            "'..'",
        ),
    ],
)
def test_a_workspace_check_path_that_leaves_the_workspace_is_rejected(
    tmp_path: Path, workspace: str, pointer: str, fragment: str, why: str
) -> None:
    text = fixture_text('{\n    "workspace": ' + workspace + "\n  }")
    problem = only_problem_at(reject(tmp_path, text), pointer)
    assert why in problem.message
    assert position(problem) == line_col(text, fragment)


def test_an_empty_file_contains_substring_is_rejected(tmp_path: Path) -> None:
    text = fixture_text('{\n    "workspace": {"file_contains": {"a.txt": ["x", ""]}}\n  }')
    problem = only_problem_at(reject(tmp_path, text), "/expects/workspace/file_contains/a.txt/1")
    assert "zero-length entry" in problem.message


@pytest.mark.parametrize("pointer", ["/~a", "/a~2b", "/a/~", "status"])
def test_a_response_json_key_with_a_bad_escape_is_not_a_pointer(tmp_path: Path, pointer: str) -> None:
    text = fixture_text('{\n    "response_json": {"' + pointer + '": 1}\n  }')
    problem = only_problem_at(reject(tmp_path, text), join_pointer("/expects/response_json", pointer))
    assert "not a JSON pointer (RFC 6901)" in problem.message


@pytest.mark.parametrize("pointer", ["", "/", "/a", "/~0tilde", "/~1slash", "/~1a~02b", "/items/0"])
def test_a_response_json_key_that_is_a_pointer_is_admitted(tmp_path: Path, pointer: str) -> None:
    text = fixture_text('{\n    "response_json": {"' + pointer + '": 1}\n  }')
    assert isinstance(admit(tmp_path, text), Case)


@pytest.mark.parametrize("bound", ["min_tool_calls", "max_tool_calls", "exact_tool_calls"])
def test_a_negative_bound_is_rejected(tmp_path: Path, bound: str) -> None:
    text = fixture_text('{\n    "tools_used": ["echo"], "' + bound + '": -1\n  }')
    problem = only_problem_at(reject(tmp_path, text), f"/expects/{bound}")
    assert "must be 0 or more" in problem.message


def test_an_unknown_tool_is_reported_beside_the_other_problems_of_the_fixture(tmp_path: Path) -> None:
    # The tool names are checked whether or not the rest validated: fixing the misspelt
    # key must not be what it takes to hear of the misspelt tool.
    text = fixture_text('{"tool_used": ["echo"]}', extra='  "tools": ["file_read", "file_wirte"],\n')
    rejected = reject(tmp_path, text)
    assert [p.field.pointer for p in rejected.problems] == ["/tools/1", "/expects/tool_used"]
    tool = only_problem_at(rejected, "/tools/1")
    assert tool.message.startswith("unknown tool 'file_wirte'; did you mean file_write? the known tools are:")
    assert position(tool) == line_col(text, '"file_wirte"')
    assert "did you mean tools_used" in only_problem_at(rejected, "/expects/tool_used").message


def test_a_tools_entry_the_model_refuses_is_not_also_an_unknown_tool(tmp_path: Path) -> None:
    text = fixture_text('{"tools_used": ["echo"]}', extra='  "tools": ["", 7, "shel"],\n')
    rejected = reject(tmp_path, text)
    assert [len(problems_at(rejected, f"/tools/{index}")) for index in range(3)] == [1, 1, 1]
    assert "unknown tool" not in " ".join(p.message for p in problems_at(rejected, "/tools/0"))
    assert "unknown tool" not in " ".join(p.message for p in problems_at(rejected, "/tools/1"))
    assert only_problem_at(rejected, "/tools/2").message.startswith("unknown tool 'shel'")


def test_any_tool_name_is_admitted_when_the_agent_runs_its_own_tools(tmp_path: Path) -> None:
    text = fixture_text('{"tool_used": ["echo"]}', extra='  "tools": ["its_own_tool"],\n')
    rejected = load_fixture(write_fixture(tmp_path, "case.json", text), None)
    assert isinstance(rejected, RejectedFixture)
    assert [p.field.pointer for p in rejected.problems] == ["/expects/tool_used"]


def test_an_unknown_tool_suggests_the_known_one_it_misspells(tmp_path: Path) -> None:
    text = fixture_text('{"response_contains": ["ok"]}', extra='  "tools": ["get_wether"],\n')
    rejected = load_fixture(write_fixture(tmp_path, "case.json", text), [*BUILTIN_TOOLS, "get_weather"])
    assert isinstance(rejected, RejectedFixture)
    problem = only_problem_at(rejected, "/tools/0")
    assert problem.message.startswith(
        "unknown tool 'get_wether'; did you mean get_weather? the known tools are:"
    )
    assert "get_weather" in problem.message.split("known tools are:")[1]


DOUBLES = (
    '{"get_weather": [{"when": {"city": "Paris"}, "result": "sunny"}, {"result": "?", "success": false}]}'
)


def test_tool_doubles_of_an_offered_tool_are_admitted(tmp_path: Path) -> None:
    extra = f'  "tools": ["get_weather"],\n  "tool_doubles": {DOUBLES},\n'
    case = load_fixture(
        write_fixture(tmp_path, "case.json", fixture_text('{"tools_used": ["get_weather"]}', extra=extra)),
        [*BUILTIN_TOOLS, "get_weather"],
    )
    assert isinstance(case, Case), case
    first, rest = case.trace.tool_doubles["get_weather"]
    assert (first.when, first.result, first.success) == ({"city": "Paris"}, "sunny", True)
    assert (rest.when, rest.success) == ({}, False)


def test_doubles_of_a_tool_the_case_is_not_offered_are_rejected_at_the_key(tmp_path: Path) -> None:
    text = fixture_text('{"tools_used": ["echo"]}', extra=f'  "tool_doubles": {DOUBLES},\n')
    problem = only_problem_at(reject(tmp_path, text), "/tool_doubles/get_weather")
    assert (
        "which the case is not offered, would never answer a call; add 'get_weather' to tools"
        in problem.message
    )
    assert position(problem) == line_col(text, '"get_weather"')


def test_doubles_of_echo_need_no_listing_but_an_empty_list_is_rejected(tmp_path: Path) -> None:
    echo = fixture_text('{"tools_used": ["echo"]}', extra='  "tool_doubles": {"echo": [{"result": "x"}]},\n')
    assert isinstance(admit(tmp_path, echo), Case)
    empty = fixture_text('{"tools_used": ["echo"]}', extra='  "tool_doubles": {"echo": []},\n')
    problem = only_problem_at(reject(tmp_path, empty), "/tool_doubles/echo")
    assert "every call to it would fail" in problem.message


@pytest.mark.parametrize(
    ("double", "pointer", "words"),
    [
        ('{"wen": {}, "result": "x"}', "/tool_doubles/echo/0/wen", "did you mean when?"),
        ('{"when": {}}', "/tool_doubles/echo/0/result", "missing required key 'result'"),
        ('{"result": 1}', "/tool_doubles/echo/0/result", "expected a string"),
        ('{"result": "x", "success": "no"}', "/tool_doubles/echo/0/success", "expected true or false"),
        ('{"when": [1], "result": "x"}', "/tool_doubles/echo/0/when", "expected an object"),
        ('{"result": "x", "times": 0}', "/tool_doubles/echo/0/times", "must be 1 or more, found 0"),
        ('{"result": "x", "times": 1.5}', "/tool_doubles/echo/0/times", "expected an integer"),
    ],
)
def test_a_malformed_double_is_rejected_at_its_field(
    tmp_path: Path, double: str, pointer: str, words: str
) -> None:
    text = fixture_text('{"tools_used": ["echo"]}', extra=f'  "tool_doubles": {{"echo": [{double}]}},\n')
    assert words in only_problem_at(reject(tmp_path, text), pointer).message


def test_null_inside_a_doubles_when_is_a_json_value(tmp_path: Path) -> None:
    text = fixture_text(
        '{"tools_used": ["echo"]}',
        extra='  "tool_doubles": {"echo": [{"when": {"message": null}, "result": "x"}]},\n',
    )
    assert isinstance(admit(tmp_path, text), Case)
