"""The `github` reporter: annotations read the way the runner reads them, and the step summary."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support.builders import line_col
from tests.support.ci_log import HOSTILE, Command, executed_commands, parse_command
from tests.support.reports import every_status_report, run_every_status_suite, written_fixture_text
from zeroclaw_eval.boundary.record import RunRecord, TurnRecord
from zeroclaw_eval.cases.location import FieldRef, FixtureProblem
from zeroclaw_eval.grading.result import RESPONSE, TOOL, GradeResult
from zeroclaw_eval.report.model import CaseError, CaseReport, SuiteReport
from zeroclaw_eval.reporters.github import (
    SUMMARY_LIMIT,
    escape_data,
    escape_property,
    findings,
    render,
    step_summary,
)
from zeroclaw_eval.reporters.safety import visible


@pytest.fixture(autouse=True)
def _no_workspace(monkeypatch: pytest.MonkeyPatch) -> None:
    # Under GitHub Actions the real workspace is set; each test chooses its own.
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)


def every_line_an_annotation(text: str) -> list[Command]:
    """Every line of `text` parsed as one workflow command; fails on any other line."""
    assert text.endswith("\n")
    lines = text[:-1].split("\n")
    parsed = []
    for line in lines:
        assert "\r" not in line
        command = parse_command(line)
        assert command is not None, line
        assert line.startswith(f"::{command.name} "), line
        assert command.name in ("error", "notice"), line
        parsed.append(command)
    return parsed


def failing(name: str, *checks: tuple[str, FieldRef], path: str | None = None) -> CaseReport:
    grades = [GradeResult(check, RESPONSE, False, f"{name} {check} failed", ref) for check, ref in checks]
    return CaseReport(name, path or f"evals/{name}", name, grades)


def ref(
    line: int | None = 3, col: int | None = 5, end_line: int | None = 3, end_col: int | None = 9
) -> FieldRef:
    return FieldRef("/expects/x", line, col, end_line, end_col)


# Escaping ---------------------------------------------------------------------------------


def actions_core_escape_data(text: str) -> str:
    """`escapeData` of @actions/core (packages/core/src/command.ts), transcribed."""
    return re.sub("\n", "%0A", re.sub("\r", "%0D", re.sub("%", "%25", text)))


def actions_core_escape_property(text: str) -> str:
    """`escapeProperty` of @actions/core, transcribed."""
    return re.sub(",", "%2C", re.sub(":", "%3A", actions_core_escape_data(text)))


@pytest.mark.parametrize(
    ("text", "data", "prop"),
    [
        ("plain", "plain", "plain"),
        ("100%", "100%25", "100%25"),
        ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
        ("%0A", "%250A", "%250A"),
        ("%25", "%2525", "%2525"),
        ("a:b,c", "a:b,c", "a%3Ab%2Cc"),
        ("::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"),
        ("%\r\n:,", "%25%0D%0A:,", "%25%0D%0A%3A%2C"),
    ],
)
def test_escaping_matches_actions_core(text: str, data: str, prop: str) -> None:
    assert escape_data(text) == data == actions_core_escape_data(text)
    assert escape_property(text) == prop == actions_core_escape_property(text)


def test_escaping_matches_actions_core_on_hostile_text() -> None:
    assert escape_data(HOSTILE) == actions_core_escape_data(HOSTILE)
    assert escape_property(HOSTILE) == actions_core_escape_property(HOSTILE)
    assert "\n" not in escape_data(HOSTILE)
    assert "\r" not in escape_data(HOSTILE)
    assert "::" not in escape_property(HOSTILE)


# Annotations ------------------------------------------------------------------------------


def test_every_line_is_one_annotation_that_round_trips_its_text(monkeypatch: pytest.MonkeyPatch) -> None:
    report = every_status_report(root="/repo")
    monkeypatch.setenv("GITHUB_WORKSPACE", "/repo")
    ranked = findings(report)
    parsed = every_line_an_annotation(render(report))
    assert len(parsed) == len(ranked) == 5
    for command, finding in zip(parsed, ranked, strict=True):
        assert command.name == "error"
        # Control characters are shown, not obeyed; everything else reads back as it was.
        assert command.message == visible(finding.message)
        assert command.properties["title"] == f"{finding.case.name}: {finding.check}"
        assert command.properties["file"] == finding.case.path


def test_hostile_text_forges_no_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for report in (every_status_report(root=str(tmp_path)), run_every_status_suite(tmp_path, monkeypatch)):
        monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
        text = render(report)
        parsed = every_line_an_annotation(text)
        executed = executed_commands(text)
        assert [(c.name, c.properties) for c in executed] == [(c.name, c.properties) for c in parsed]
        assert {c.name for c in executed} == {"error"}
        assert all(c.properties["file"].startswith("evals/regression/") for c in executed)
        assert any("::error file=x.py,line=1::forged" in c.message for c in executed)


@pytest.mark.parametrize("total", [11, 13, 40])
def test_at_most_ten_errors_and_a_notice_counting_the_rest(total: int) -> None:
    checks = [(f"check_{i}", ref()) for i in range(total)]
    parsed = every_line_an_annotation(render(SuiteReport("s", "replay", [failing("a.json", *checks)])))
    assert [c.name for c in parsed] == ["error"] * 10 + ["notice"]
    assert re.search(rf"\b{total - 10} more\b", parsed[-1].message)


def test_exactly_ten_failures_need_no_notice() -> None:
    checks = [(f"check_{i}", ref()) for i in range(10)]
    parsed = every_line_an_annotation(render(SuiteReport("s", "replay", [failing("a.json", *checks)])))
    assert [c.name for c in parsed] == ["error"] * 10


def test_failures_are_ranked_by_round_then_rejected_error_failed() -> None:
    failed_a = failing("a.json", ("a1", ref()), ("a2", ref()), ("a3", ref()))
    rejected = CaseReport(
        "b.json",
        "evals/b.json",
        problems=[
            FixtureProblem(FieldRef("/b1", 1, 1, 1, 2), "p1"),
            FixtureProblem(FieldRef("/b2", 2, 1, 2, 2), "p2"),
        ],
    )
    errored = failing("c.json", ("c1", ref()))
    errored.error = CaseError("boom", FieldRef("/turns/0", 1, 1, 1, 2))
    failed_d = failing("d.json", ("d1", ref()))
    passed = CaseReport(
        "e.json", "evals/e.json", "e", [GradeResult("ok", RESPONSE, True, "", FieldRef("/x"))]
    )
    report = SuiteReport("s", "replay", [failed_a, passed, rejected, errored, failed_d])
    titles = [c.properties["title"] for c in every_line_an_annotation(render(report))]
    assert titles == [
        "b.json: rejected /b1",
        "c.json: run error",
        "a.json: a1",
        "d.json: d1",
        "b.json: rejected /b2",
        "c.json: c1",
        "a.json: a2",
        "a.json: a3",
    ]


def test_the_ten_annotated_are_the_first_of_each_failing_case() -> None:
    cases = [failing(f"case{i}.json", *[(f"check{j}", ref()) for j in range(3)]) for i in range(12)]
    parsed = every_line_an_annotation(render(SuiteReport("s", "replay", cases)))
    titles = [c.properties["title"] for c in parsed[:10]]
    assert titles == [f"case{i}.json: check0" for i in range(10)]
    assert re.search(r"\b26 more\b", parsed[10].message)


def test_file_is_relative_to_the_workspace_in_posix_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = SuiteReport(
        "evals", "replay", [failing("x.json", ("c", ref()), path="evals/sub/x.json")], root=str(tmp_path)
    )
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    assert every_line_an_annotation(render(report))[0].properties["file"] == "evals/sub/x.json"
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "evals"))
    assert every_line_an_annotation(render(report))[0].properties["file"] == "sub/x.json"
    link = tmp_path.parent / f"{tmp_path.name}-link"
    link.symlink_to(tmp_path, target_is_directory=True)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(link))
    assert every_line_an_annotation(render(report))[0].properties["file"] == "evals/sub/x.json"


def test_without_a_workspace_the_working_directory_is_the_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = SuiteReport("evals", "replay", [failing("x.json", ("c", ref()), path="evals/x.json")], root="")
    monkeypatch.chdir(tmp_path)
    command = every_line_an_annotation(render(report))[0]
    assert command.properties["file"] == "evals/x.json"
    assert not os.path.isabs(command.properties["file"])


def test_file_is_left_out_for_a_fixture_outside_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = SuiteReport(
        "evals", "replay", [failing("x.json", ("c", ref()), path="evals/x.json")], root=str(tmp_path)
    )
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "elsewhere"))
    command = every_line_an_annotation(render(report))[0]
    assert "file" not in command.properties
    assert not {"line", "col"} & set(command.properties)
    assert command.properties["title"] == "x.json: c"


def test_single_line_field_carries_line_and_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", "/repo")
    report = SuiteReport("e", "replay", [failing("x.json", ("c", ref(4, 7, 4, 19)))], root="/repo")
    properties = every_line_an_annotation(render(report))[0].properties
    assert properties == {
        "file": "evals/x.json",
        "line": "4",
        "endLine": "4",
        "col": "7",
        "endColumn": "19",
        "title": "x.json: c",
    }
    assert list(properties) == ["file", "line", "endLine", "col", "endColumn", "title"]


def test_multi_line_field_drops_the_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", "/repo")
    report = SuiteReport("e", "replay", [failing("x.json", ("c", ref(4, 7, 9, 2)))], root="/repo")
    properties = every_line_an_annotation(render(report))[0].properties
    assert (properties["line"], properties["endLine"]) == ("4", "9")
    assert "col" not in properties
    assert "endColumn" not in properties


def test_field_without_a_position_has_only_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", "/repo")
    report = SuiteReport("e", "replay", [failing("x.json", ("c", ref(None, None, None, None)))], root="/repo")
    properties = every_line_an_annotation(render(report))[0].properties
    assert set(properties) == {"file", "title"}


def test_real_fixture_annotations_point_at_the_failing_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = run_every_status_suite(tmp_path, monkeypatch)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    by_title = {c.properties["title"]: c.properties for c in every_line_an_annotation(render(report))}
    needle = by_title["b_failing.json: response_contains[0]"]
    line, col = line_col(written_fixture_text(tmp_path, "b_failing.json"), '"needle-one"')
    assert needle["file"] == "evals/regression/b_failing.json"
    assert (needle["line"], needle["endLine"], needle["col"]) == (str(line), str(line), str(col))
    entry = by_title["b_failing.json: tool_arguments_contain[0]"]
    line, _ = line_col(written_fixture_text(tmp_path, "b_failing.json"), '"needle": "nope"')
    assert int(entry["line"]) < line < int(entry["endLine"])
    assert "col" not in entry
    rejected = by_title["d_rejected.json: rejected /expects/response_contians"]
    line, col = line_col(written_fixture_text(tmp_path, "d_rejected.json"), '"response_contians"')
    assert (rejected["line"], rejected["col"]) == (str(line), str(col))
    errored = by_title["c_error.json: run error"]
    line, col = line_col(written_fixture_text(tmp_path, "c_error.json"), '"steps"')
    assert (errored["line"], errored["col"]) == (str(line), str(col))


def test_a_long_message_is_cut_below_the_runner_limit() -> None:
    case = CaseReport(
        "x.json",
        "x.json",
        "x",
        [GradeResult("c", RESPONSE, False, "x" * 10_000 + "%\n" * 100, FieldRef("/x"))],
    )
    (command,) = every_line_an_annotation(render(SuiteReport("s", "replay", [case])))
    assert len(command.message) <= 4096


def test_an_empty_suite_is_an_error_annotation() -> None:
    parsed = every_line_an_annotation(render(SuiteReport("evals/empty\n::error::x", "replay", [])))
    assert [c.name for c in parsed] == ["error"]
    assert "evals/empty\n::error::x" in parsed[0].message


def test_a_passing_suite_prints_nothing() -> None:
    passed = CaseReport("a.json", "a.json", "a", [GradeResult("ok", TOOL, True, "", FieldRef("/x"))])
    assert render(SuiteReport("s", "replay", [passed])) == ""


# The step summary -------------------------------------------------------------------------


def table_rows(summary: str) -> list[list[str]]:
    """The cells of the failure table's rows (after its header)."""
    lines = summary.split("\n")
    start = lines.index("| case | check | field | detail |")
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = re.split(r"(?<!\\)\|", line)
        assert cells[0] == ""
        assert cells[-1] == ""
        rows.append([cell.strip() for cell in cells[1:-1]])
    return rows


def test_summary_counts_the_cases() -> None:
    summary = step_summary(every_status_report())
    assert summary.startswith("## zeroclaw eval FAILED: `evals/regression` (replay)\n")
    assert (
        "| cases | passed | failed | run errors | rejected |\n"
        "|---:|---:|---:|---:|---:|\n| 4 | 1 | 1 | 1 | 1 |\n" in summary
    )


def test_summary_lists_every_failure_with_its_file_and_line() -> None:
    report = every_status_report()
    rows = table_rows(step_summary(report))
    ranked = findings(report)
    assert len(rows) == len(ranked) == 5
    for row, finding in zip(rows, ranked, strict=True):
        assert len(row) == 4
        # Names and locations are inline code: literal, never links or markup.
        assert row[0] == f"`{finding.case.name}`"
        assert row[2] == f"`{finding.case.path}:{finding.field.line}`"


def test_summary_cells_escape_pipes_and_html() -> None:
    report = every_status_report()
    report.cases[1].grades[0] = GradeResult(
        "c|x",
        RESPONSE,
        False,
        "a | b <b>bold</b> & <script>x</script>\n::error::y",
        FieldRef("/x", 1, 1, 1, 2),
    )
    summary = step_summary(report)
    row = next(r for r in table_rows(summary) if r[1].startswith("`c"))
    assert row[1] == "`c\\|x`"
    # In a code span HTML is literal text: GFM shows `<b>` as written, never as markup.
    assert row[3] == "`a \\| b <b>bold</b> & <script>x</script> ::error::y`"


def fenced_blocks(summary: str) -> list[tuple[str, str]]:
    """(fence, content) of each fenced block that opens with ```text."""
    blocks = []
    for match in re.finditer(r"^(`{3,})text\n", summary, re.MULTILINE):
        fence = match.group(1)
        end = summary.index(f"\n{fence}\n", match.end() - 1)
        blocks.append((fence, summary[match.end() : end]))
    return blocks


def test_summary_fences_final_responses_longer_than_any_backtick_run() -> None:
    report = every_status_report()
    hostile = HOSTILE + "\n" + "`" * 11 + "\n```\n"
    assert report.cases[1].record is not None
    report.cases[1].record.turns[0].response = hostile
    blocks = fenced_blocks(step_summary(report))
    fence, content = blocks[0]
    # Line ends are normalised: a lone CR would otherwise start a line of its own.
    assert content == visible(hostile.replace("\r\n", "\n").replace("\r", "\n"))
    longest = max(len(run) for run in re.findall("`+", hostile))
    assert len(fence) > longest
    for line in re.split(r"\r\n|\r|\n", content):
        assert not (line.strip().startswith(fence) and set(line.strip()) == {"`"})


def test_summary_fits_a_small_limit_and_says_what_was_left_out() -> None:
    report = every_status_report()
    full = step_summary(report)
    assert "left out" not in full
    size = len(full.encode("utf-8"))
    assert step_summary(report, limit=2 * size) == full
    for limit in range(700, size, 23):
        cut = step_summary(report, limit=limit)
        assert len(cut.encode("utf-8")) <= limit, limit
        assert "| 4 | 1 | 1 | 1 | 1 |" in cut
        assert re.search(r"\d+ part\(s\) left out", cut), limit


def test_a_huge_summary_is_cut_under_one_mebibyte() -> None:
    cases = []
    for i in range(300):
        answer = f"答え {i} " + "東京 ``` " * 700  # about 8 KB of UTF-8 per case
        cases.append(
            CaseReport(
                f"case{i:03}.json",
                f"evals/case{i:03}.json",
                f"m{i}",
                [
                    GradeResult(
                        "response_contains[0]",
                        RESPONSE,
                        False,
                        f"found {answer[:300]}",
                        FieldRef("/x", 2, 3, 2, 9),
                    )
                ],
                record=RunRecord(turns=[TurnRecord(0, "q", answer)]),
            )
        )
    summary = step_summary(SuiteReport("evals", "replay", cases))
    size = len(summary.encode("utf-8"))
    assert SUMMARY_LIMIT * 0.9 < size <= SUMMARY_LIMIT
    assert re.search(r"\d+ part\(s\) left out", summary)
    assert len(table_rows(summary)) == 300  # the table of failures comes before the responses


def test_a_suite_name_of_megabytes_leaves_the_summary_under_the_limit() -> None:
    # The head is cut last (whole lines, when even it does not fit); what it quotes is cut first.
    huge = "evals/" + "x" * (3 * 1024 * 1024)
    summary = step_summary(SuiteReport(huge, "replay", [CaseReport("a.json", "evals/a.json", "m")]))
    assert len(summary.encode("utf-8")) <= SUMMARY_LIMIT
    assert summary.startswith("## zeroclaw eval FAILED: `evals/xxx")
    assert "…" in summary.splitlines()[0]


def test_summary_cells_cannot_become_links_or_images() -> None:
    report = every_status_report()
    report.cases[1].grades[0] = GradeResult(
        "response_contains[0]",
        RESPONSE,
        False,
        "found ![](https://tracker.example.com/pixel.png) and [click](https://example.com) **bold**",
        FieldRef("/x", 1, 1, 1, 2),
    )
    row = next(r for r in table_rows(step_summary(report)) if "tracker" in r[3])
    assert row[3] == (
        "`found ![](https://tracker.example.com/pixel.png) and [click](https://example.com) **bold**`"
    )


def test_an_annotation_of_a_run_error_holds_its_message_not_the_agents_traceback() -> None:
    (errored,) = [
        c
        for c in every_line_an_annotation(render(every_status_report()))
        if "run error" in c.properties["title"]
    ]
    assert errored.message.startswith("turn 1: the agent raised ValueError")
    assert "Traceback" not in errored.message


def test_an_annotation_title_carries_the_case_id(monkeypatch: pytest.MonkeyPatch) -> None:
    report = every_status_report(root="/repo")
    monkeypatch.setenv("GITHUB_WORKSPACE", "/repo")
    failing = next(case for case in report.cases if case.status == "failed")
    failing.id = "TRACK-7"
    titles = [command.properties["title"] for command in every_line_an_annotation(render(report))]
    assert f"{failing.name} [TRACK-7]: {failing.failed_grades[0].check_id}" in titles


def test_the_step_summary_names_files_as_the_annotations_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Run from a subfolder of the repository: report paths are relative to the working
    # directory, annotations (and now the summary) to GITHUB_WORKSPACE.
    report = every_status_report(root=str(tmp_path / "sub"))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    summary = step_summary(report)
    failing = next(case for case in report.cases if case.status == "failed")
    assert f"`sub/{failing.path}:" in summary
    annotated = {command.properties["file"] for command in every_line_an_annotation(render(report))}
    assert f"sub/{failing.path}" in annotated
