"""`zeroclaw_eval.grading.vacuity`: a fixture that an empty run already satisfies is found and named."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import admit_case, echo_fixture, line_of, write_fixture
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.collect.suite import display_path
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.grading.vacuity import VacuousCase, check_vacuity, empty_run_grades, find_vacuous


def probe(tmp_path: Path, expects: dict[str, Any], name: str = "probe.json", **extra: Any) -> Case:
    """The echo fixture with `expects`, admitted."""
    return admit_case(tmp_path, echo_fixture(expects, **extra), name)


SEEDED = {"setup": {"workspace_files": {"notes/seeded.txt": "seeded content"}}}


VACUOUS: dict[str, tuple[dict[str, Any], dict[str, Any], list[str]]] = {
    "lone max_tool_calls 0": ({"max_tool_calls": 0}, {}, ["max_tool_calls"]),
    "lone exact_tool_calls 0": ({"exact_tool_calls": 0}, {}, ["exact_tool_calls"]),
    "only negative checks": (
        {
            "response_not_contains": ["error"],
            "tools_not_used": ["file_write"],
            "workspace": {"file_absent": ["out.txt"]},
        },
        {},
        ["response_not_contains[0]", "tools_not_used[0]", "workspace.file_absent[0]"],
    ),
    "all_tools_succeeded true alone": ({"all_tools_succeeded": True}, {}, ["all_tools_succeeded"]),
    "request checks only": (
        {"system_prompt_contains": ["Be brief"], "tools_offered": ["echo"]},
        {},
        ["system_prompt_contains[0]", "tools_offered[0]"],
    ),
    "file_absent alone": ({"workspace": {"file_absent": ["out.txt"]}}, {}, ["workspace.file_absent[0]"]),
    "budget caps only": (
        {
            "budget": {
                "max_input_tokens": 100,
                "max_output_tokens": 100,
                "max_total_tokens": 200,
                "max_duration_ms": 5000,
                "max_llm_calls": 2,
            }
        },
        {},
        [
            "budget.max_input_tokens",
            "budget.max_output_tokens",
            "budget.max_total_tokens",
            "budget.max_duration_ms",
            "budget.max_llm_calls",
        ],
    ),
    "regex that matches the empty response": ({"response_matches": ["^.*$"]}, {}, ["response_matches[0]"]),
    "file_exists on a seeded file": (
        {"workspace": {"file_exists": ["notes/seeded.txt", "notes"]}},
        SEEDED,
        ["workspace.file_exists[0]", "workspace.file_exists[1]"],
    ),
    "file_contains on seeded content": (
        {"workspace": {"file_contains": {"notes/seeded.txt": ["seeded"]}}},
        SEEDED,
        ['workspace.file_contains["notes/seeded.txt"][0]'],
    ),
}


@pytest.mark.parametrize(("expects", "extra", "check_ids"), VACUOUS.values(), ids=VACUOUS.keys())
def test_vacuous_fixture_is_found_with_every_check(
    tmp_path: Path, expects: dict[str, Any], extra: dict[str, Any], check_ids: list[str]
) -> None:
    found = find_vacuous(probe(tmp_path, expects, **extra))
    assert isinstance(found, VacuousCase)
    assert found.name == "probe.json"
    assert found.path == tmp_path / "probe.json"
    assert found.model_name == "echo-hello"
    assert found.check_ids == check_ids
    assert all(check.passed for check in found.checks)


POSITIVE: dict[str, dict[str, Any]] = {
    "tools_used": {"tools_used": ["echo"]},
    "min_tool_calls": {"min_tool_calls": 1},
    "exact_tool_calls": {"exact_tool_calls": 1},
    "tool_arguments_contain": {"tool_arguments_contain": [{"tool": "echo", "needle": "hello"}]},
    "tool_results_contain": {"tool_results_contain": [{"tool": "echo", "needle": "hello"}]},
    "all_tools_succeeded false": {"all_tools_succeeded": False},
    "response_contains": {"response_contains": ["hello"]},
    "response_matches": {"response_matches": ["\\w+"]},
    "response_json": {"response_json": {"/status": "ok"}},
    "file_exists on a file the agent makes": {"workspace": {"file_exists": ["out.txt"]}},
    "file_contains on a file the agent makes": {"workspace": {"file_contains": {"out.txt": ["hi"]}}},
    "one positive beside negative checks": {
        "max_tool_calls": 0,
        "tools_not_used": ["file_write"],
        "all_tools_succeeded": True,
        "response_contains": ["hello"],
    },
}


@pytest.mark.parametrize("expects", POSITIVE.values(), ids=POSITIVE.keys())
def test_a_check_an_empty_run_fails_makes_the_fixture_not_vacuous(
    tmp_path: Path, expects: dict[str, Any]
) -> None:
    assert find_vacuous(probe(tmp_path, expects)) is None


def test_setup_is_applied_and_nothing_else(tmp_path: Path) -> None:
    case = probe(
        tmp_path,
        {"workspace": {"file_exists": ["notes/seeded.txt", "notes/made.txt"]}},
        **SEEDED,
    )
    grades = {g.check_id: g.passed for g in empty_run_grades(case.trace)}
    assert grades == {"workspace.file_exists[0]": True, "workspace.file_exists[1]": False}


def test_the_empty_run_spends_nothing(tmp_path: Path) -> None:
    bounds = {key: 0 for key in ("max_input_tokens", "max_output_tokens", "max_total_tokens")}
    case = probe(tmp_path, {"budget": {**bounds, "max_duration_ms": 0, "max_llm_calls": 0}})
    assert [g.actual for g in empty_run_grades(case.trace)] == [0, 0, 0, 0, 0]


def test_the_empty_run_leaves_no_workspace_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = probe(tmp_path / "suite", {"workspace": {"file_exists": ["notes/seeded.txt"]}}, **SEEDED)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert find_vacuous(case) is not None
    assert list(scratch.iterdir()) == []


def test_vacuous_checks_point_at_their_fixture_field(tmp_path: Path) -> None:
    case = probe(tmp_path, {"response_not_contains": ["error"], "max_tool_calls": 3})
    found = find_vacuous(case)
    assert found is not None
    text = case.path.read_text(encoding="utf-8")
    lines = {check.check_id: check.field.line for check in found.checks}
    assert lines == {
        "response_not_contains[0]": line_of(text, '"error"'),
        "max_tool_calls": line_of(text, '"max_tool_calls"'),
    }


def test_check_vacuity_lists_vacuous_and_rejected_fixtures_apart(tmp_path: Path) -> None:
    probe(tmp_path, {"max_tool_calls": 0}, name="b_lone_cap.json")
    probe(tmp_path, {"tools_used": ["echo"]}, name="c_real.json")
    probe(tmp_path, {"all_tools_succeeded": True}, name="a_lone_success.json")
    write_fixture(tmp_path, "d_typo.json", echo_fixture({"tool_used": ["echo"]}))
    report = check_vacuity(tmp_path)
    assert [case.name for case in report.vacuous] == ["a_lone_success.json", "b_lone_cap.json"]
    assert [fixture.name for fixture in report.rejected] == ["d_typo.json"]
    assert (report.checked, report.total) == (3, 4)
    assert report.exit_code() == 1


@pytest.mark.parametrize(
    ("fixtures", "code"),
    [
        ({"real.json": {"tools_used": ["echo"]}}, 0),
        ({"real.json": {"tools_used": ["echo"]}, "lone.json": {"max_tool_calls": 0}}, 1),
        ({"real.json": {"tools_used": ["echo"]}, "typo.json": {"tool_used": ["echo"]}}, 1),
        ({}, 1),
    ],
    ids=["all-can-fail", "one-vacuous", "one-rejected", "empty-suite"],
)
def test_check_vacuity_exit_code(tmp_path: Path, fixtures: dict[str, dict[str, Any]], code: int) -> None:
    for name, expects in fixtures.items():
        write_fixture(tmp_path, name, echo_fixture(expects))
    assert check_vacuity(tmp_path).exit_code() == code


def test_check_vacuity_of_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such fixture file or suite folder"):
        check_vacuity(tmp_path / "missing")


def test_a_setup_that_cannot_be_seeded_is_no_concern_without_workspace_checks(tmp_path: Path) -> None:
    # Nothing runs in the empty run: a workspace is made only for workspace checks, so a
    # setup file the machine cannot create (a name too long) does not stop the check.
    unseedable = {"workspace_files": {"n" * 300 + ".txt": "x"}}
    case = probe(tmp_path, {"tools_used": ["echo"]}, setup=unseedable)
    assert find_vacuous(case) is None


def test_check_vacuity_admits_as_a_run_does_tools_and_size_and_names_every_target(tmp_path: Path) -> None:
    # A fixture that lists a project's own tool is admitted when that tool is known (as a
    # run with the project's tools configured admits it) and refused otherwise; a fixture
    # over the size bound is refused, as a run refuses it.
    first, second = tmp_path / "first", tmp_path / "second"
    lister = echo_fixture({"tools_used": ["echo"]})
    lister["tools"] = ["echo", "lookup_order"]
    write_fixture(first, "lister.json", lister)
    write_fixture(second, "real.json", echo_fixture({"tools_used": ["echo"]}))
    known = check_vacuity([first, second], ["echo", "lookup_order"])
    assert (known.checked, known.total, [f.name for f in known.rejected]) == (2, 2, [])
    assert known.suite == f"{display_path(first)} {display_path(second)}"
    unknown = check_vacuity([first, second])
    assert [f.name for f in unknown.rejected] == ["lister.json"]
    small = check_vacuity([first, second], None, max_fixture_bytes=64)
    assert sorted(f.name for f in small.rejected) == ["lister.json", "real.json"]
