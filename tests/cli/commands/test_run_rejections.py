"""`zeroclaw eval run` on rejected fixtures: every admission rule, through the command.

One suite holds one bad fixture per rule plus a good one; it is run once and each test
reads its case out of the JSON report, so the whole module costs one run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import TURNS_LINE, fixture_text, line_of
from tests.support.invoke import Result, invoke

# name -> (fixture text or bytes, pointer, snippet on the reported line or a line number,
#          words the message must hold)
REJECTIONS: dict[str, tuple[str | bytes, str, str | int, str]] = {
    "regex_rejected": (
        fixture_text('{\n    "response_matches": ["(hello)\\\\1"]\n  }'),
        "/expects/response_matches/0",
        '"(hello)',
        "RE2 cannot compile this pattern",
    ),
    "workspace_check_path_escapes": (
        fixture_text('{\n    "workspace": {"file_exists": ["../outside.txt"]}\n  }'),
        "/expects/workspace/file_exists/0",
        '"../outside.txt"',
        "no run can pass this check",
    ),
    "typo_key": (
        fixture_text('{\n    "response_contains": ["hello"],\n    "tool_used": ["echo"]\n  }'),
        "/expects/tool_used",
        '"tool_used"',
        "did you mean tools_used?",
    ),
    "no_turns": (
        fixture_text('{"response_contains": ["hello"]}', turns='  "turns": [],\n'),
        "/turns",
        '"turns"',
        "no conversation turns",
    ),
    "missing_turns": (
        '{\n  "model_name": "case",\n  "expects": {"response_contains": ["x"]}\n}\n',
        "/turns",
        1,
        "missing required key 'turns'",
    ),
    "missing_expects": (
        '{\n  "model_name": "case",\n' + TURNS_LINE.rstrip(",\n") + "\n}\n",
        "/expects",
        1,
        "missing required key 'expects'",
    ),
    "empty_expects": (fixture_text("{}"), "/expects", '"expects"', "declares no check"),
    "only_empty_lists": (
        fixture_text('{"tools_used": [], "response_contains": []}'),
        "/expects",
        '"expects"',
        "declares no check",
    ),
    "zero_length_response_contains": (
        fixture_text('{\n    "response_contains": [""]\n  }'),
        "/expects/response_contains/0",
        '[""]',
        "zero-length entry",
    ),
    "zero_length_response_not_contains": (
        fixture_text('{\n    "response_contains": ["x"],\n    "response_not_contains": ["a", ""]\n  }'),
        "/expects/response_not_contains/1",
        '"a", ""',
        "zero-length entry",
    ),
    "zero_length_response_matches": (
        fixture_text('{\n    "response_matches": [""]\n  }'),
        "/expects/response_matches/0",
        '[""]',
        "zero-length entry",
    ),
    "zero_length_tools_used": (
        fixture_text('{\n    "tools_used": [""]\n  }'),
        "/expects/tools_used/0",
        '[""]',
        "zero-length entry",
    ),
    "zero_length_tools_not_used": (
        fixture_text('{\n    "response_contains": ["x"],\n    "tools_not_used": [""]\n  }'),
        "/expects/tools_not_used/0",
        '"tools_not_used"',
        "zero-length entry",
    ),
    "unknown_top_level_key": (
        fixture_text('{"response_contains": ["x"]}', extra='  "notes": "typo",\n'),
        "/notes",
        '"notes"',
        "unknown key",
    ),
    "unknown_nested_key": (
        fixture_text(
            '{"response_contains": ["x"]}',
            turns='  "turns": [{"user_input": "hi",\n    "stepz": []}],\n',
        ),
        "/turns/0/stepz",
        '"stepz"',
        "did you mean steps?",
    ),
    "empty_tool": (
        fixture_text('{\n    "tool_arguments_contain": [{"tool": "", "needle": "x"}]\n  }'),
        "/expects/tool_arguments_contain/0/tool",
        '"tool": ""',
        "empty tool name",
    ),
    "empty_needle": (
        fixture_text('{\n    "tool_results_contain": [{"tool": "echo", "needle": ""}]\n  }'),
        "/expects/tool_results_contain/0/needle",
        '"needle": ""',
        "empty needle",
    ),
    "vacuous_min_tool_calls": (
        fixture_text('{\n    "response_contains": ["x"],\n    "min_tool_calls": 0\n  }'),
        "/expects/min_tool_calls",
        '"min_tool_calls"',
        "vacuous",
    ),
    "min_above_max_points_at_later_key": (
        fixture_text('{\n    "max_tool_calls": 1,\n    "min_tool_calls": 3\n  }'),
        "/expects/min_tool_calls",
        '"min_tool_calls"',
        "greater than max_tool_calls",
    ),
    "exact_above_max": (
        fixture_text('{\n    "exact_tool_calls": 4,\n    "max_tool_calls": 2\n  }'),
        "/expects/max_tool_calls",
        '"max_tool_calls"',
        "above max_tool_calls",
    ),
    "null_value": (
        fixture_text('{\n    "response_contains": ["x"],\n    "max_tool_calls": null\n  }'),
        "/expects/max_tool_calls",
        "null",
        "null is not allowed",
    ),
    "string_for_integer": (
        fixture_text('{\n    "max_tool_calls": "1"\n  }'),
        "/expects/max_tool_calls",
        '"1"',
        "expected an integer, found a string",
    ),
    "malformed_json": (
        '{\n  "model_name": "case"\n  "turns": []\n}\n',
        "",
        '"turns"',
        "invalid JSON",
    ),
    "duplicate_key": (
        fixture_text('{\n    "max_tool_calls": 1,\n    "max_tool_calls": 2\n  }'),
        "/expects/max_tool_calls",
        '"max_tool_calls": 2',
        "duplicate key",
    ),
    "nan_constant": (
        fixture_text('{\n    "response_json": {"/x": NaN}\n  }'),
        "/expects/response_json/~1x",
        "NaN",
        "NaN is not valid JSON",
    ),
    "byte_order_mark": (
        b"\xef\xbb\xbf" + fixture_text('{"response_contains": ["x"]}').encode(),
        "",
        1,
        "byte order mark",
    ),
    "invalid_utf8": (
        fixture_text('{\n    "response_contains": ["caf\xff"]\n  }'.replace("\xff", "@@"))
        .encode()
        .replace(b"@@", b"\xff"),
        "",
        '"response_contains"',
        "invalid UTF-8",
    ),
    "trailing_data": (
        fixture_text('{"response_contains": ["x"]}') + "{}\n",
        "",
        fixture_text('{"response_contains": ["x"]}').count("\n") + 1,
        "after the end",
    ),
    "workspace_setup_path_escapes": (
        fixture_text(
            '{"response_contains": ["x"]}',
            extra='  "setup": {"workspace_files": {\n    "../outside.txt": "x"}},\n',
        ),
        "/setup/workspace_files/..~1outside.txt",
        '"../outside.txt"',
        "contains '..'",
    ),
    "unknown_tool_in_tools": (
        fixture_text('{"response_contains": ["x"]}', extra='  "tools": ["shell"],\n'),
        "/tools/0",
        '"shell"',
        "unknown tool 'shell'",
    ),
}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, dict[str, Any], Path]:
    suite = tmp_path_factory.mktemp("rejections")
    for name, (content, *_rest) in REJECTIONS.items():
        path = suite / f"{name}.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    (suite / "good.json").write_text(fixture_text('{"response_contains": ["ok"]}'), encoding="utf-8")
    result = invoke("eval", "run", "--suite", str(suite), "--format", "json")
    return result, {case["name"]: case for case in result.json()["cases"]}, suite


@pytest.mark.parametrize("name", sorted(REJECTIONS))
def test_rejection_names_pointer_and_line(name: str, report: tuple[Result, dict[str, Any], Path]) -> None:
    _result, cases, _suite = report
    content, pointer, where, words = REJECTIONS[name]
    case = cases[f"{name}.json"]
    assert case["status"] == "rejected", case
    problem = next((p for p in case["problems"] if p["field"]["pointer"] == pointer), None)
    assert problem is not None, f"no problem at {pointer!r}: {case['problems']}"
    assert words in problem["message"]
    if isinstance(where, int):
        expected_line = where
    else:
        text = content.decode("utf-8", errors="replace") if isinstance(content, bytes) else content
        expected_line = line_of(text, where)
    assert problem["field"]["line"] == expected_line
    assert problem["field"]["col"] >= 1


def test_rejected_fixtures_fail_the_suite_but_good_ones_still_run(
    report: tuple[Result, dict[str, Any], Path],
) -> None:
    result, cases, _suite = report
    assert result.code == 1
    assert cases["good.json"]["status"] == "passed"
    assert result.json()["counts"]["rejected"] == len(REJECTIONS)


def test_all_problems_of_one_fixture_are_reported_together(tmp_path: Path) -> None:
    text = fixture_text(
        '{\n    "tool_used": ["echo"],\n    "response_contains": [""],\n    "budget": {"max_tokens": 1}\n  }',
        extra='  "colour": "blue",\n',
    )
    (tmp_path / "many.json").write_text(text, encoding="utf-8")
    result = invoke("eval", "run", "--suite", str(tmp_path), "--format", "json")
    pointers = {p["field"]["pointer"] for p in result.json()["cases"][0]["problems"]}
    assert pointers == {
        "/colour",
        "/expects/tool_used",
        "/expects/response_contains/0",
        "/expects/budget/max_tokens",
    }


def test_table_names_fixture_pointer_and_line_of_typo(tmp_path: Path) -> None:
    """The issue's acceptance check: a `tool_used` typo beside a good fixture."""
    typo = fixture_text('{\n    "response_contains": ["hello"],\n    "tool_used": ["echo"]\n  }')
    (tmp_path / "typo.json").write_text(typo, encoding="utf-8")
    (tmp_path / "good.json").write_text(fixture_text('{"response_contains": ["ok"]}'), encoding="utf-8")
    result = invoke("eval", "run", "--suite", str(tmp_path), cwd=tmp_path)
    assert result.code == 1
    line = line_of(typo, '"tool_used"')
    assert f"typo.json:{line}:5: /expects/tool_used: unknown expectation key; did you mean tools_used?" in (
        result.stdout
    )
    good_line = next(x for x in result.stdout.splitlines() if "good.json" in x)
    assert good_line.startswith("✓")
