"""Choosing and stopping in `zeroclaw eval run`: paths, `-k`, `-x`/`--maxfail`, and how
much the table shows (`-q`, `-v`, colour)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import FAILING, PASSING, write_fixture
from tests.support.invoke import Runner


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A suite of five cases: two pass, two fail, one passes and carries an id."""
    folder = tmp_path / "evals" / "regression"
    write_fixture(folder, "a_echo_ok.json", {**PASSING, "model_name": "alpha"})
    write_fixture(folder, "b_echo_wrong.json", {**FAILING, "model_name": "bravo"})
    write_fixture(folder, "c_file_ok.json", {**PASSING, "model_name": "charlie"})
    write_fixture(folder, "d_file_wrong.json", {**FAILING, "model_name": "delta"})
    write_fixture(folder, "e_tracked.json", {**PASSING, "model_name": "echo", "id": "TRACK-12"})
    return tmp_path


def names(result: Any) -> list[str]:
    return [case["name"] for case in result.json()["cases"]]


def test_a_fixture_file_runs_alone_as_a_path_or_as_the_suite(cli: Runner, suite: Path) -> None:
    path = "evals/regression/a_echo_ok.json"
    for args in ([path], ["--suite", path]):
        result = cli("eval", "run", *args, "--format", "json", cwd=suite)
        assert result.code == 0, result.stderr
        assert names(result) == ["a_echo_ok.json"]
        assert result.json()["suite"] == path


def test_several_paths_run_in_the_order_given(cli: Runner, suite: Path) -> None:
    folder = "evals/regression"
    result = cli(
        "eval", "run", f"{folder}/c_file_ok.json", f"{folder}/a_echo_ok.json", "--format", "json", cwd=suite
    )
    assert names(result) == ["c_file_ok.json", "a_echo_ok.json"]


def test_paths_and_suite_together_are_a_usage_error(cli: Runner, suite: Path) -> None:
    result = cli("eval", "run", "evals/regression", "--suite", "evals/regression", cwd=suite)
    assert result.code == 2
    assert "give fixture paths or --suite, not both" in result.stderr


@pytest.mark.parametrize(
    ("expression", "chosen"),
    [
        ("echo", ["a_echo_ok.json", "b_echo_wrong.json", "e_tracked.json"]),  # e by its model_name
        ("echo and not wrong", ["a_echo_ok.json", "e_tracked.json"]),
        ("track-12", ["e_tracked.json"]),  # by id
        ("charlie or delta", ["c_file_ok.json", "d_file_wrong.json"]),
    ],
)
def test_k_selects_by_stem_model_name_and_id(
    cli: Runner, suite: Path, expression: str, chosen: list[str]
) -> None:
    result = cli("eval", "run", "-k", expression, "--format", "json", cwd=suite)
    assert names(result) == chosen
    assert result.json()["deselected"] == 5 - len(chosen)


def test_k_that_matches_nothing_fails_and_says_so(cli: Runner, suite: Path) -> None:
    result = cli("eval", "run", "-k", "nothing_like_this", cwd=suite)
    assert result.code == 1
    assert (
        "FAILED: no case matches -k (a gate that ran nothing certifies nothing); 5 deselected"
        in result.stdout
    )


@pytest.mark.parametrize(("args", "run", "not_run"), [(["-x"], 2, 3), (["--maxfail", "2"], 4, 1)])
def test_the_run_stops_after_enough_cases_did_not_pass(
    cli: Runner, suite: Path, args: list[str], run: int, not_run: int
) -> None:
    result = cli("eval", "run", *args, "--format", "json", cwd=suite)
    assert result.code == 1
    assert len(names(result)) == run
    assert result.json()["not_run"] == not_run
    table = cli("eval", "run", *args, cwd=suite).stdout
    assert f"{not_run} not run (--maxfail reached)" in table


def test_quiet_lists_only_what_did_not_pass_and_verbose_every_check(cli: Runner, suite: Path) -> None:
    quiet = cli("eval", "run", "-q", cwd=suite).stdout
    assert "a_echo_ok.json" not in quiet
    assert "✗ b_echo_wrong.json" in quiet
    normal = cli("eval", "run", cwd=suite).stdout
    assert "✓ a_echo_ok.json" in normal
    assert "✓ exact_tool_calls" not in normal
    verbose = cli("eval", "run", "-v", cwd=suite).stdout
    # A passing check is not located (a green suite skips the position scan): its file only.
    assert "    ✓ exact_tool_calls [tool]  evals/regression/a_echo_ok.json\n" in verbose


def test_the_table_ends_with_a_recap_of_what_did_not_pass(cli: Runner, suite: Path) -> None:
    table = cli("eval", "run", cwd=suite).stdout
    recap = table.split("not passed:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split()[0] for line in recap] == ["FAILED", "FAILED"]
    assert recap[0].startswith("FAILED   evals/regression/b_echo_wrong.json:")
    assert 'response_contains[0]: expected the final response to contain "goodbye"' in recap[0]
    assert "\nFAILED: 5 cases (3 passed, 2 failed) in " in table.split("not passed:\n")[1]


def test_counts_are_spelled_with_the_right_plural(cli: Runner, suite: Path) -> None:
    one = cli("eval", "run", "evals/regression/b_echo_wrong.json", cwd=suite).stdout
    assert "(replay, 1 case)" in one
    assert "FAILED: 1 case (0 passed, 1 failed)" in one
    assert "(1 check)" in one


def test_the_fixture_id_shows_in_the_table_and_the_json(cli: Runner, suite: Path) -> None:
    assert "✓ e_tracked.json  echo  [TRACK-12]" in cli("eval", "run", cwd=suite).stdout
    cases = cli("eval", "run", "--format", "json", cwd=suite).json()["cases"]
    assert [case["id"] for case in cases] == [None, None, None, None, "TRACK-12"]


ANSI = re.compile("\x1b\\[[0-9;]*m")


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ([], {}, False),  # not a terminal
        (["--color"], {"NO_COLOR": "1"}, True),  # the flag wins
        ([], {"FORCE_COLOR": "1"}, True),
        ([], {"FORCE_COLOR": "0"}, False),
        ([], {"GITHUB_ACTIONS": "true"}, True),  # GitHub's log renders ANSI colour
        ([], {"GITHUB_ACTIONS": "true", "NO_COLOR": "1"}, False),
        (["--no-color"], {"FORCE_COLOR": "1"}, False),
    ],
)
def test_colour_follows_the_flag_then_force_color_no_color_and_ci(
    cli: Runner, suite: Path, args: list[str], env: dict[str, str], coloured: bool
) -> None:
    result = cli(
        "eval", "run", "evals/regression/a_echo_ok.json", "--no-annotations", *args, cwd=suite, env=env
    )
    assert bool(ANSI.search(result.stdout)) is coloured


def test_a_failed_tool_call_shows_under_the_check_it_explains(cli: Runner, tmp_path: Path) -> None:
    # file_write is not among the case's tools: the downstream failure is a missing file,
    # and the table says why.
    case = {
        "model_name": "write-rome",
        "turns": [
            {
                "user_input": "Save rome",
                "steps": [
                    {
                        "response": {
                            "type": "tool_calls",
                            "tool_calls": [
                                {
                                    "id": "c1",
                                    "name": "file_write",
                                    "arguments": {"path": "out/rome.txt", "content": "x"},
                                }
                            ],
                        }
                    },
                    {"response": {"type": "text", "content": "Saved."}},
                ],
            }
        ],
        "expects": {"workspace": {"file_exists": ["out/rome.txt"]}},
    }
    write_fixture(tmp_path / "evals" / "regression", "rome.json", case)
    table = cli("eval", "run", cwd=tmp_path).stdout
    assert "expected out/rome.txt to exist" in table
    assert (
        "    ✗ tool call file_write (turn 1) failed: unknown tool 'file_write'; available tools: none"
        in table
    )


def test_a_suite_whose_fixtures_sit_in_subfolders_says_so(cli: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path / "evals" / "regression" / "smoke", "a.json", PASSING)
    result = cli("eval", "run", cwd=tmp_path)
    assert result.code == 1
    assert "note: a suite is one folder, not searched recursively: smoke/ under" in result.stderr


def test_list_shows_the_cases_a_run_would_run_without_running_them(cli: Runner, suite: Path) -> None:
    table = cli("eval", "list", "-k", "echo", cwd=suite)
    assert table.code == 0
    assert table.stdout.splitlines() == [
        "evals/regression/a_echo_ok.json  alpha  (2 checks)",
        "evals/regression/b_echo_wrong.json  bravo  (1 check)",
        "evals/regression/e_tracked.json  echo  [TRACK-12]  (2 checks)",
        "",
        "3 cases, 2 deselected",
    ]
    listed = cli("eval", "list", "evals/regression/e_tracked.json", "--format", "json", cwd=suite).json()
    assert listed == [
        {
            "name": "e_tracked.json",
            "path": "evals/regression/e_tracked.json",
            "model_name": "echo",
            "id": "TRACK-12",
            "checks": ["exact_tool_calls", "tool_results_contain[0]"],
            "rejected": [],
        }
    ]


def test_list_flags_a_rejected_fixture_and_exits_one(cli: Runner, suite: Path) -> None:
    write_fixture(
        suite / "evals" / "regression", "f_typo.json", {**PASSING, "expects": {"tool_used": ["echo"]}}
    )
    result = cli("eval", "list", "-k", "typo", cwd=suite)
    assert result.code == 1
    assert (
        "evals/regression/f_typo.json  echo-hello  (rejected: evals/regression/f_typo.json:" in result.stdout
    )
    assert "unknown expectation key; did you mean tools_used?" in result.stdout


def test_vacuity_takes_one_fixture_file_as_its_suite(cli: Runner, suite: Path) -> None:
    result = cli("eval", "vacuity", "--suite", "evals/regression/a_echo_ok.json", cwd=suite)
    assert result.code == 0, result.stdout
    assert "PASSED: 1 fixture, each failing a check against an empty run" in result.stdout


def test_neither_k_nor_maxfail_hides_a_rejected_fixture(cli: Runner, suite: Path) -> None:
    # As pytest never lets -k hide a collection error: a broken fixture fails the gate.
    write_fixture(
        suite / "evals" / "regression", "c_typo.json", {**PASSING, "expects": {"tool_used": ["echo"]}}
    )
    picked = cli("eval", "run", "-k", "alpha", "--format", "json", cwd=suite)
    assert picked.code == 1
    assert [(c["name"], c["status"]) for c in picked.json()["cases"]] == [
        ("a_echo_ok.json", "passed"),
        ("c_typo.json", "rejected"),
    ]
    stopped = cli("eval", "run", "-x", "--format", "json", cwd=suite).json()
    assert "c_typo.json" in [c["name"] for c in stopped["cases"]]
    assert stopped["counts"]["rejected"] == 1


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_maxfail_holds_with_jobs(cli: Runner, suite: Path, jobs: str) -> None:
    result = cli("eval", "run", "--maxfail", "1", "--jobs", jobs, "--format", "json", cwd=suite).json()
    assert result["counts"]["failed"] >= 1
    assert result["counts"]["total"] + result["not_run"] == 5
    assert result["not_run"] >= 1


def test_jobs_auto_is_one_per_cpu_this_process_may_use(
    cli: Runner, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zeroclaw_eval.runner.suite

    asked: list[int] = []
    real = zeroclaw_eval.runner.suite.run_collected

    def spy(collection: Any, options: Any) -> Any:
        asked.append(options.jobs)
        return real(collection, options)

    monkeypatch.setattr(zeroclaw_eval.runner.suite, "run_collected", spy)
    # Three CPUs allowed (a container's share, say), whatever the machine has.
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 2, 5}, raising=False)
    for spelling, jobs in (("auto", 3), ("AUTO", 3), ("2", 2), (" 4 ", 4)):
        result = cli("eval", "run", "--jobs", spelling, "--format", "json", cwd=suite)
        assert result.code == 1, result.stderr  # two cases fail, as in one process
        assert asked.pop() == jobs
        assert names(result) == sorted(names(result))


@pytest.mark.parametrize("spelling", ["0", "-1", "many", "²", "1.5", ""])
def test_jobs_must_be_a_count_or_auto(cli: Runner, suite: Path, spelling: str) -> None:
    result = cli("eval", "run", "--jobs", spelling, cwd=suite)
    assert result.code == 2
    assert f"{spelling!r} is neither a count of at least 1 nor 'auto'" in result.stderr


def test_one_file_named_several_ways_runs_once(cli: Runner, suite: Path) -> None:
    name = "evals/regression/a_echo_ok.json"
    spellings = [name, f"./{name}", str(suite / name), "evals/../evals/regression/a_echo_ok.json"]
    result = cli("eval", "run", *spellings, "--format", "json", cwd=suite)
    assert names(result) == ["a_echo_ok.json"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-x", "--maxfail", "3"], "-x is --maxfail 1; give -x or --maxfail N, not both"),
        (["-v", "-q"], "-v shows more and -q less; give one of them"),
    ],
)
def test_flags_that_contradict_each_other_are_a_usage_error(
    cli: Runner, suite: Path, args: list[str], words: str
) -> None:
    result = cli("eval", "run", *args, cwd=suite)
    assert result.code == 2
    assert words in result.stderr


def test_progress_counts_the_selected_cases(cli: Runner, suite: Path) -> None:
    result = cli("eval", "run", "-k", "alpha or bravo", "--progress", cwd=suite)
    progress = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert [line.split()[0] for line in progress] == ["[1/2]", "[2/2]"]


def test_the_subfolder_hint_skips_hidden_and_tool_folders(cli: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path / ".venv" / "lib", "x.json", PASSING)
    write_fixture(tmp_path / "node_modules" / "pkg", "package.json", PASSING)
    write_fixture(tmp_path / "evals" / "smoke", "a.json", PASSING)
    result = cli("eval", "run", "--suite", ".", cwd=tmp_path)
    assert "note: a suite is one folder, not searched recursively: evals/smoke/ under ." in result.stderr
    assert ".venv" not in result.stderr
    assert "node_modules" not in result.stderr
