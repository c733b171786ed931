"""The pull-request comment (`zeroclaw eval compare`), read as a reviewer reads it: its
title, the lines above the counts, the counts, each case list and table, and how it is
cut to stay under GitHub's limit. The golden file (`test_golden.py`) holds one whole
comment; these state one behaviour each."""

from __future__ import annotations

import re

import pytest

from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord
from zeroclaw_eval.cases.location import FieldRef, FixtureProblem
from zeroclaw_eval.grading.result import RESPONSE, GradeResult
from zeroclaw_eval.report.model import CaseError, CaseReport, RepeatStats, SuiteReport, XfailMark
from zeroclaw_eval.reporters.pull_request import COMMENT, Comparison, Links, pull_request_comment

#: The repository the runs ran in (what annotation paths are relative to).
REPO = "/repo"
BLOB = "https://github.com/zeroclaw_user/agent/blob/0123abc"


@pytest.fixture(autouse=True)
def _workspace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", REPO)


def _record(tokens: tuple[int, int], calls: tuple[str, ...]) -> RunRecord:
    return RunRecord(
        steps=[ModelStep(0, "done", [], *tokens)],
        calls=[RecordedCall(0, f"call_{n}", name, {}, "ok", True) for n, name in enumerate(calls)],
    )


def passing(name: str, *, tokens: tuple[int, int] = (10, 2), calls: tuple[str, ...] = ()) -> CaseReport:
    grade = GradeResult("response_contains[0]", RESPONSE, True, "found it", FieldRef("/expects/rc/0"))
    return CaseReport(name, f"evals/{name}", "model", [grade], record=_record(tokens, calls))


def failing(
    name: str,
    *,
    check: str = "response_contains[0]",
    detail: str = 'expected the final response to contain "pong"; found "ping"',
    line: int | None = 3,
    tokens: tuple[int, int] = (10, 2),
) -> CaseReport:
    grade = GradeResult(check, RESPONSE, False, detail, FieldRef("/expects/rc/0", line))
    return CaseReport(name, f"evals/{name}", "model", [grade], record=_record(tokens, ()))


def marked(case: CaseReport, *, strict: bool = True, line: int = 7) -> CaseReport:
    """`case` under an `xfail` mark at `line` of its fixture."""
    case.xfail = XfailMark("refunds over 100 are refused", strict, FieldRef("/xfail", line))
    return case


def rejected(
    name: str, pointer: str = "/expects/tool_used", message: str = "unknown expectation key"
) -> CaseReport:
    problem = FixtureProblem(FieldRef(pointer, 6), message)
    return CaseReport(name, f"evals/{name}", problems=[problem])


def run(*cases: CaseReport, suite: str = "evals", duration_ms: float = 0.0, root: str = REPO) -> SuiteReport:
    return SuiteReport(suite, "replay", list(cases), duration_ms, "1.0", root)


def title(comment: str) -> str:
    return next(line for line in comment.splitlines() if line.startswith("## "))


def section(comment: str, heading: str) -> str:
    """The section under `heading`, up to the next heading (or the end)."""
    start = comment.index(heading)
    following = comment.find("\n### ", start + 1)
    return comment[start : following + 1 if following != -1 else len(comment)]


# The head: title, the lines above the counts, the counts -----------------------------------


def test_without_a_baseline_or_a_note_the_comment_says_the_run_is_shown_alone() -> None:
    comment = pull_request_comment(None, run(passing("a.json")))
    assert "\n> No baseline report: this run is shown alone.\n\n" in comment
    noted = pull_request_comment(None, run(passing("a.json")), note="the base branch has no report yet")
    assert "> `the base branch has no report yet`\n\n" in noted
    assert "No baseline report" not in noted  # the note says why instead


def test_without_a_baseline_a_green_run_is_titled_all_cases_passed() -> None:
    comment = pull_request_comment(None, run(passing("a.json"), passing("b.json")))
    assert title(comment) == "## ✅ zeroclaw eval: all cases passed in `evals`"


def test_without_a_baseline_the_title_counts_the_cases_not_passing() -> None:
    comment = pull_request_comment(None, run(passing("a.json"), failing("b.json"), rejected("c.json")))
    assert title(comment) == "## ❌ zeroclaw eval: 2 not passing in `evals`"


def test_without_a_baseline_the_title_adds_the_cases_expected_to_fail() -> None:
    comment = pull_request_comment(None, run(passing("a.json"), marked(failing("b.json"))))
    assert title(comment) == "## ✅ zeroclaw eval: all cases passed (1 expected to fail) in `evals`"


def test_with_a_baseline_and_no_new_failure_the_title_is_green() -> None:
    comment = pull_request_comment(run(passing("a.json")), run(passing("a.json")))
    assert title(comment) == "## ✅ zeroclaw eval: no new failures in `evals`"


def test_a_run_of_no_cases_is_titled_as_such() -> None:
    assert title(pull_request_comment(None, run(suite="evals/empty"))) == (
        "## ❌ zeroclaw eval: no cases ran in `evals/empty`"
    )


@pytest.mark.parametrize("cases", [(), (passing("a.json"),)], ids=["no cases", "some cases"])
def test_the_title_cuts_a_suite_name_after_200_characters(cases: tuple[CaseReport, ...]) -> None:
    name = "s" * 250
    shown = title(pull_request_comment(None, run(*cases, suite=name)))
    assert shown.endswith(f" in `{'s' * 199}…`")


def test_a_baseline_of_another_suite_is_named_above_the_counts() -> None:
    comment = pull_request_comment(run(passing("a.json"), suite="evals/old|v1"), run(passing("a.json")))
    # Not a table cell: the `|` is literal, no backslash shows.
    assert "\n> The baseline is a run of another suite, `evals/old|v1`.\n\n| | base |" in comment


def test_the_baseline_suites_name_is_cut_after_200_characters() -> None:
    comment = pull_request_comment(run(passing("a.json"), suite="b" * 250), run(passing("a.json")))
    assert f"> The baseline is a run of another suite, `{'b' * 199}…`.\n" in comment


def test_a_run_that_stopped_short_says_its_cases_not_run_are_listed_as_removed() -> None:
    head = run(passing("a.json"))
    head.not_run = 1
    comment = pull_request_comment(run(passing("a.json"), passing("b.json")), head)
    assert (
        "\n> The run stopped before it ran every case: the cases it did not run are listed as"
        " removed, and nothing here certifies them.\n\n"
    ) in comment
    assert "### Removed cases (1)\n\n- `evals/b.json` (was passed)\n" in comment


def test_a_note_is_quoted_literally_pipes_and_all() -> None:
    comment = pull_request_comment(
        run(passing("a.json")), run(passing("a.json")), note="stale base | rerun it"
    )
    assert "\n> `stale base | rerun it`\n\n" in comment


def test_the_counts_add_rows_for_xfail_outcomes_when_a_case_is_marked() -> None:
    base = run(passing("a.json"), failing("b.json"))
    head = run(passing("a.json"), marked(failing("b.json")))
    comment = pull_request_comment(base, head)
    assert (
        "| | base | head | change |\n|---|---:|---:|---:|\n"
        "| cases | 2 | 2 | = |\n"
        "| passed | 1 | 1 | = |\n"
        "| failed | 1 | 0 | -1 (-100%) |\n"
        "| run errors | 0 | 0 | = |\n"
        "| rejected | 0 | 0 | = |\n"
        "| expected to fail (xfail) | 0 | 1 | +1 |\n"
        "| passed though xfail | 0 | 0 | = |\n"
    ) in comment
    unmarked = pull_request_comment(base, run(passing("a.json"), failing("b.json")))
    assert "xfail" not in unmarked


@pytest.mark.parametrize(
    ("base_ms", "head_ms", "row"),
    [
        (100_000.0, 2_000.0, "| duration (s) | 100.0 | 2.0 | -98.0 (-98%) |"),
        # Shown to a tenth of a second, and compared as shown: 1.04 s is 1.0 s again.
        (1_000.0, 1_040.0, "| duration (s) | 1.0 | 1.0 | = |"),
        # In digits however long, never in a float's exponent notation (1e+17).
        (0.0, 1e20, "| duration (s) | 0.0 | 100,000,000,000,000,000.0 | +100,000,000,000,000,000.0 |"),
    ],
)
def test_the_durations_are_compared_in_seconds_to_a_tenth(base_ms: float, head_ms: float, row: str) -> None:
    comment = pull_request_comment(
        run(passing("a.json"), duration_ms=base_ms), run(passing("a.json"), duration_ms=head_ms)
    )
    assert f"\n{row}\n" in comment


def priced(name: str, cost: float | None, judges: float | None = None) -> CaseReport:
    """A passing case whose requests cost `cost` and its judges `judges` (None: unpriced)."""
    case = passing(name)
    case.cost_usd, case.judge_cost_usd = cost, judges
    return case


@pytest.mark.parametrize(
    ("then", "now", "row"),
    [
        (1.5, 3.0, "| $1.5000 | $3.0000 | +$1.5000 (+100%) |"),
        (3.0, 0.75, "| $3.0000 | $0.7500 | -$2.2500 (-75%) |"),
        (0.25, 0.25, "| $0.2500 | $0.2500 | = |"),
        (0.0, 0.01, "| $0.0000 | $0.0100 | +$0.0100 |"),  # no share of nothing
        (None, 0.01, "| | $0.0100 | |"),  # the base unpriced: nothing to compare
        (2.0, None, "| $2.0000 | | |"),
    ],
)
def test_the_costs_of_the_agents_and_of_the_judges_are_compared_where_both_are_priced(
    then: float | None, now: float | None, row: str
) -> None:
    agents = pull_request_comment(run(priced("a.json", then)), run(priced("a.json", now)))
    assert f"\n| cost (USD) {row}\n" in agents
    assert "judges' cost" not in agents
    judges = pull_request_comment(run(priced("a.json", None, then)), run(priced("a.json", None, now)))
    assert f"\n| judges' cost (USD) {row}\n" in judges
    assert "| cost (USD)" not in judges


def test_without_a_baseline_the_costs_are_the_heads_alone() -> None:
    comment = pull_request_comment(None, run(priced("a.json", 1.5, 0.035), priced("b.json", 0.5)))
    assert "\n| cost (USD) | | $2.0000 | |\n| judges' cost (USD) | | $0.0350 | |\n" in comment


def test_a_run_priced_on_neither_side_has_no_cost_rows() -> None:
    comment = pull_request_comment(run(passing("a.json")), run(passing("a.json")))
    assert "cost" not in comment


def test_the_comment_reporter_marks_the_comment_with_its_key() -> None:
    comment = COMMENT(Comparison(None, run(passing("a.json")), key="nightly"))
    assert comment.startswith("<!-- zeroclaw-eval comment: nightly -->\n## ✅ ")


# Failures: where each one is, in what words ---------------------------------------------------


def test_a_failure_is_linked_at_its_path_in_the_repository_when_the_run_was_in_a_subfolder() -> None:
    head = run(failing("b.json"), root=f"{REPO}/agent")
    comment = pull_request_comment(run(passing("b.json")), head, links=Links(blob=BLOB))
    where = f"[`agent/evals/b.json:3`]({BLOB}/agent/evals/b.json#L3)"
    assert f"  - `response_contains[0]` at {where}: " in comment


def test_a_failure_outside_the_repository_is_shown_by_its_report_path_without_a_link() -> None:
    head = run(failing("b.json"), root="/elsewhere")
    comment = pull_request_comment(run(passing("b.json")), head, links=Links(blob=BLOB))
    assert "  - `response_contains[0]` at `evals/b.json:3`: " in comment
    assert BLOB not in comment


def test_a_failure_at_a_field_without_a_line_links_the_file_without_an_anchor() -> None:
    comment = pull_request_comment(
        run(passing("b.json")), run(failing("b.json", line=None)), links=Links(blob=BLOB)
    )
    assert f"  - `response_contains[0]` at [`evals/b.json`]({BLOB}/evals/b.json): " in comment
    unlinked = pull_request_comment(run(passing("b.json")), run(failing("b.json", line=None)))
    assert "  - `response_contains[0]` at `evals/b.json`: " in unlinked


def test_the_words_of_a_failure_are_cut_after_300_characters() -> None:
    error = CaseError("e" * 400, FieldRef("/turns/0", 4))
    errored = CaseReport("c.json", "evals/c.json", "model", error=error)
    comment = pull_request_comment(run(passing("c.json")), run(errored))
    assert f"  - `run error` at `evals/c.json:4`: `{'e' * 299}…`\n" in comment


def test_failure_lines_outside_a_table_keep_their_pipes_without_a_backslash() -> None:
    check = 'workspace.file_contains["a|b.txt"][0]'
    broken = failing("f|x.json", check=check, detail='expected a|b.txt to contain "x"; found "y | z"')
    errored = CaseReport(
        "e.json", "evals/e.json", "model", error=CaseError("raised a|b", FieldRef("/turns/0", 4))
    )
    bad = rejected("r.json", pointer="/expects/a|b", message="unknown expectation key a|b")
    base = run(passing("f|x.json"), passing("e.json"), passing("r.json"))
    comment = pull_request_comment(base, run(broken, errored, bad))
    failures = section(comment, "### New failures (3)")
    assert failures == (
        "### New failures (3)\n\n"
        "- `evals/f|x.json` (failed)\n"
        f'  - `{check}` at `evals/f|x.json:3`: `expected a|b.txt to contain "x"; found "y | z"`\n'
        "- `evals/e.json` (error)\n"
        "  - `run error` at `evals/e.json:4`: `raised a|b`\n"
        "- `evals/r.json` (rejected)\n"
        "  - `rejected /expects/a|b` at `evals/r.json:6`: `unknown expectation key a|b`\n"
        "\n"
    )


def test_case_lists_keep_their_pipes_without_a_backslash() -> None:
    base = run(failing("f|x.json"), passing("r|x.json"))
    head = run(passing("f|x.json"), passing("n|x.json"))
    comment = pull_request_comment(base, head)
    assert "### Fixed (1)\n\n- `evals/f|x.json`\n\n" in comment
    assert "### New cases (1)\n\n- `evals/n|x.json`\n\n" in comment
    assert "### Removed cases (1)\n\n- `evals/r|x.json` (was passed)\n\n" in comment
    assert "\\|" not in comment


# The case lists -------------------------------------------------------------------------------


def test_a_new_case_that_passes_is_listed_as_new() -> None:
    comment = pull_request_comment(run(passing("a.json")), run(passing("a.json"), passing("b.json")))
    assert section(comment, "### New cases") == "### New cases (1)\n\n- `evals/b.json`\n\n"


def test_without_a_baseline_every_case_not_passing_is_listed_as_still_failing() -> None:
    head = run(passing("a.json"), failing("b.json"), marked(failing("c.json")))
    comment = pull_request_comment(None, head)
    still = section(comment, "### Still failing")
    assert still.startswith("### Still failing (1)\n\n- `evals/b.json` (failed)\n")
    assert "a.json" not in still
    assert "c.json" not in still  # expected to fail: listed apart
    assert section(comment, "### Expected to fail (xfail)") == (
        "### Expected to fail (xfail) (1)\n\n- `evals/c.json`\n\n"
    )


def test_a_case_that_passed_under_a_strict_xfail_mark_points_at_the_mark() -> None:
    base = run(marked(failing("x.json")))
    head = run(marked(passing("x.json"), line=9))
    comment = pull_request_comment(base, head, links=Links(blob=BLOB))
    mark = f"[`evals/x.json:9`]({BLOB}/evals/x.json#L9)"
    assert section(comment, "### New failures") == (
        "### New failures (1)\n\n"
        "- `evals/x.json` (xpassed)\n"
        f"  - it passed, but its strict `xfail` mark at {mark} expects it to fail\n"
        "\n"
    )


def test_a_rejected_fixture_under_an_xfail_mark_is_listed_as_rejected_not_as_a_pass() -> None:
    comment = pull_request_comment(run(passing("a.json")), run(passing("a.json"), marked(rejected("r.json"))))
    failures = section(comment, "### New failures")
    assert "- `evals/r.json` (rejected)\n" in failures
    assert "xfail" not in failures


def test_a_flaky_case_is_listed_with_its_runs_in_a_section_of_its_own() -> None:
    flaky = passing("a|b.json")
    flaky.repeats = RepeatStats(5, 3, {})
    comment = pull_request_comment(None, run(flaky))
    # The last section here: its list ends in a blank line, and so does the comment.
    listed = re.search(r"\n### Flaky \(passed some of their runs\) \(1\)\n\n(.*)\n\n\Z", comment)
    assert listed is not None, comment
    assert listed[1].startswith("- `evals/a|b.json`: passed 3 of 5 runs")


# The tables of changes ------------------------------------------------------------------------


def test_a_changed_case_shows_every_call_of_each_run_in_order() -> None:
    base = run(passing("a.json", calls=("lookup_order",)))
    head = run(passing("a.json", calls=("lookup_order", "refund")))
    comment = pull_request_comment(base, head)
    assert "| `evals/a.json` | `lookup_order` | `lookup_order, refund` |\n" in comment


def test_token_changes_are_listed_largest_first_then_by_path() -> None:
    # c and a changed by 10 tokens each, b by 30; the head lists them c, a, b.
    base = run(
        passing("c.json", tokens=(50, 0)),
        passing("a.json", tokens=(100, 0)),
        passing("b.json", tokens=(10, 0)),
    )
    head = run(
        passing("c.json", tokens=(60, 0)),
        passing("a.json", tokens=(110, 0)),
        passing("b.json", tokens=(40, 0)),
    )
    rows = [
        line
        for line in section(pull_request_comment(base, head), "### Token changes").splitlines()
        if "`" in line
    ]
    assert rows == [
        "| `evals/b.json` | 10 | 40 | +30 (+300%) | 0 → 0 |",
        "| `evals/a.json` | 100 | 110 | +10 (+10%) | 0 → 0 |",
        "| `evals/c.json` | 50 | 60 | +10 (+20%) | 0 → 0 |",
    ]


def test_a_new_case_or_one_without_tokens_does_not_hide_the_token_changes_after_it() -> None:
    base = run(rejected("r.json"), passing("z.json", tokens=(10, 0)))
    head = run(passing("n.json"), rejected("r.json"), passing("z.json", tokens=(25, 0)))
    comment = pull_request_comment(base, head)
    assert "### Token changes (the 1 largest of 1)" in comment
    assert "| `evals/z.json` | 10 | 25 | +15 (+150%) | 0 → 0 |" in comment


# Diagnostic checks: reported, deciding nothing ------------------------------------------------


def judged(
    name: str,
    *,
    passed: bool = False,
    check: str = "judge[0]",
    detail: str = "the judge said no",
    line: int | None = 5,
) -> CaseReport:
    """A case whose one check, a diagnostic judge check, passed or failed."""
    grade = GradeResult(check, RESPONSE, passed, detail, FieldRef("/expects/judge/0", line), diagnostic=True)
    return CaseReport(name, f"evals/{name}", "model", [grade], record=_record((10, 2), ()))


def test_failed_diagnostic_checks_are_listed_folded_each_where_it_is_and_what_it_found() -> None:
    # A dimension's name is any text, a judge's words too: pipes kept, as outside any table.
    check, detail = "judge[0].tone|clarity", "curt | vague"
    head = run(
        judged("a|b.json", check=check, detail=detail), judged("ok.json", passed=True), passing("p.json")
    )
    comment = pull_request_comment(run(judged("a|b.json")), head, links=Links(blob=BLOB))
    where = f"[`evals/a|b.json:5`]({BLOB}/evals/a%7Cb.json#L5)"
    assert (
        "<details><summary>Diagnostic checks that failed, deciding nothing (1)</summary>\n\n"
        "- `evals/a|b.json` (passed)\n"
        f"  - `{check}` at {where}: `{detail}`\n"
        "\n</details>\n\n"
    ) in comment
    assert "ok.json`" not in comment.split("deciding nothing (1)")[1]


def test_a_run_without_a_failed_diagnostic_check_has_no_such_list() -> None:
    comment = pull_request_comment(None, run(judged("ok.json", passed=True), failing("f.json")))
    assert "Diagnostic checks that failed" not in comment


def test_the_words_of_a_failed_diagnostic_check_are_cut_after_300_characters() -> None:
    comment = pull_request_comment(None, run(judged("a.json", detail="d" * 400)))
    assert f"  - `judge[0]` at `evals/a.json:5`: `{'d' * 299}…`\n" in comment


def test_the_list_of_failed_diagnostic_checks_is_cut_whole_never_left_open() -> None:
    names = [f"case_{n:03}.json" for n in range(40)]
    head = run(*map(judged, names))
    whole = pull_request_comment(None, head)
    middle = len(whole[: whole.index("evals/case_020.json")].encode("utf-8"))  # the limit counts bytes
    comment = pull_request_comment(None, head, limit=middle + 200)
    assert "<details>" not in comment
    assert "left out" in comment


def test_the_counts_say_how_many_judge_checks_were_diagnostic_and_failed() -> None:
    head = run(judged("a.json"), judged("b.json", passed=True), passing("c.json"))
    comment = pull_request_comment(None, head)
    said = (
        "2 judge checks diagnostic, 1 of them failed: a judge no calibration backs (zeroclaw eval"
        " calibrate) is reported but decides no case ([eval].judge_gate).\n\n"
    )
    assert f"|\n\n{said}" in comment  # after the table of counts, as a sentence of its own
    assert "judge check" not in pull_request_comment(None, run(passing("c.json")))


def test_a_case_fixed_only_as_its_failing_judge_check_became_diagnostic_says_so() -> None:
    before = failing("j.json", check="judge[0]")
    base = run(before, failing("f.json"))
    head = run(judged("j.json"), passing("f.json"))
    comment = pull_request_comment(base, head)
    assert (
        "### Fixed (2)\n\n- `evals/j.json` (a judge check that fails is now diagnostic)\n- `evals/f.json`\n\n"
    ) in comment


# Staying under GitHub's limit -----------------------------------------------------------------


def _many_new_failures(count: int) -> tuple[SuiteReport, SuiteReport]:
    names = [f"case_{n:03}.json" for n in range(count)]
    return run(*map(passing, names)), run(*map(failing, names))


def test_a_comment_cut_to_its_limit_says_why_and_how_much_was_left_out() -> None:
    base, head = _many_new_failures(40)
    comment = pull_request_comment(base, head, limit=3_000)
    assert len(comment.encode("utf-8")) <= 3_000
    assert comment.endswith(" part(s) left out._\n")
    assert "\n\n_Cut to stay under GitHub's limit for a comment: " in comment


def test_a_long_list_of_new_failures_is_cut_between_cases_keeping_the_first() -> None:
    base, head = _many_new_failures(40)
    whole = pull_request_comment(base, head)
    middle = len(whole[: whole.index("evals/case_020.json")].encode("utf-8"))  # the limit counts bytes
    comment = pull_request_comment(base, head, limit=middle + 200)
    assert "### New failures (40)\n\n- `evals/case_000.json` (failed)\n" in comment
    assert "evals/case_039.json" not in comment
    assert "left out" in comment


def test_a_folded_list_of_cases_still_failing_is_cut_whole_never_left_open() -> None:
    names = [f"case_{n:03}.json" for n in range(40)]
    base, head = run(*map(failing, names)), run(*map(failing, names))
    whole = pull_request_comment(base, head)
    assert "<details><summary>Still failing (40)</summary>" in whole
    middle = len(whole[: whole.index("evals/case_020.json")].encode("utf-8"))  # the limit counts bytes
    comment = pull_request_comment(base, head, limit=middle + 200)
    assert "<details>" not in comment
    assert "left out" in comment
