"""The `html` reporter: escaping, CSP, layout of the page; and the JSON round trip of every format."""

from __future__ import annotations

import ast
import base64
import hashlib
import html
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.reporters.html.folding import UNFOLDING, folded_runs, unfolded
from tests.support.ci_log import HOSTILE, command_lines
from tests.support.html_page import Page, Tag, parse
from tests.support.reports import every_status_report, run_every_status_suite
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.report.baseline import Baseline, HistoryPoint, RemovedCase
from zeroclaw_eval.report.codec import report_from_dict, report_to_dict
from zeroclaw_eval.report.compact import compact_case
from zeroclaw_eval.report.model import DETAILS_ALL, DETAILS_FAILING, CaseReport, SuiteReport
from zeroclaw_eval.reporters import builtin_names, get_reporter, write_output
from zeroclaw_eval.reporters.html.page import REPORTER as render


def section(page: str, start: str, end: str) -> str:
    begin = page.index(start)
    return page[begin : page.index(end, begin)]


def test_model_text_cannot_inject_markup_or_script() -> None:
    page = render(every_status_report())
    parsed = parse(page)
    assert [t.attrs for t in parsed.find("script")] == [{}]
    assert not parsed.find("img")
    handlers = [(t.name, k) for t in parsed.tags for k in t.attrs if k.lower().startswith("on")]
    assert handlers == []
    assert "<script>alert(1)" not in page
    assert "<img src=x onerror" not in page
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    text = "".join(parsed.text)
    assert "</script><script>alert(1)</script>" in text
    assert "<img src=x onerror=alert(1)>" in text


def test_content_security_policy_allows_only_the_inline_script_by_hash() -> None:
    page = render(every_status_report())
    parsed = parse(page)
    (meta,) = parsed.find("meta", **{"http-equiv": "Content-Security-Policy"})
    directives = {
        name: values
        for name, *values in (d.split() for d in (meta.attrs["content"] or "").split(";") if d.strip())
    }
    assert directives["default-src"] == ["'none'"]
    (source,) = directives["script-src"]
    (script,) = parsed.scripts
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    assert source == f"'sha256-{digest}'"
    assert "expand-all" in script  # the hash covers our real script, not an empty one
    assert page.index('http-equiv="Content-Security-Policy"') < page.index("<script")


def test_page_fetches_nothing_from_the_network() -> None:
    page = render(every_status_report())
    parsed = parse(page)
    assert not parsed.find("link")
    assert not parsed.find("iframe")
    for tag in parsed.tags:
        for name in ("src", "href", "action", "srcset", "poster", "data"):
            value = tag.attrs.get(name)
            if value is not None:
                assert value.startswith("#"), (tag.name, name, value)
    for style in re.findall(r"<style>(.*?)</style>", page, re.DOTALL):
        assert "url(" not in style
        assert "@import" not in style
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*(https?:|//)", page, re.IGNORECASE)


def test_failing_cases_are_open_and_passing_ones_folded_closed_with_their_bodies_in_templates() -> None:
    page = render(every_status_report())
    live = [t for t in parse(page).find("details") if "case" in (t.attrs.get("class") or "").split()]
    assert [(t.attrs["data-status"], "open" in t.attrs) for t in live] == [
        ("failed", True),
        ("error", True),
        ("rejected", True),
    ]
    # The passing case is folded: a comment the script unfolds, in a run that names it.
    ((attributes, folded),) = folded_runs(page)
    assert attributes == ' data-first="0" data-last="0" style="--cases: 1"'
    assert [(t.attrs["id"], "open" in t.attrs) for t in parse(folded).find("details")] == [("case-0", False)]
    # Its body waits in a template (out of the document until the case opens); an open
    # case's body is in the document.
    assert re.fullmatch(
        r'\n  <details class="case" id="case-0" data-status="passed">.*</summary>\n'
        r'    <template><div class="body">\n.*</div></template>\n  </details>\n  ',
        folded,
        re.DOTALL,
    )
    assert unfolded(page).count('<template><div class="body">') == 1
    shown = parse(unfolded(page))
    assert [t.attrs["id"] for t in shown.find("details") if t.attrs.get("id")] == [
        f"case-{n}" for n in range(4)
    ]


def _passing_copies(count: int) -> list[CaseReport]:
    passing = every_status_report().cases[0]
    return [replace(passing, name=f"p{n}.json", path=f"evals/p{n}.json") for n in range(count)]


def test_runs_of_closed_cases_end_at_an_open_case_and_at_their_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from zeroclaw_eval.reporters.html import page as html_page

    failing = every_status_report().cases[1]
    report = SuiteReport("s", "replay", [*_passing_copies(5), failing, *_passing_copies(2)])
    monkeypatch.setattr(html_page, "RUN_CASES", 3)
    page = render(report)
    assert [attributes for attributes, _ in folded_runs(page)] == [
        ' data-first="0" data-last="2" style="--cases: 3"',
        ' data-first="3" data-last="4" style="--cases: 2"',
        ' data-first="6" data-last="7" style="--cases: 2"',
    ]
    assert [t.attrs["id"] for t in parse(page).find("details") if t.attrs.get("id")] == ["case-5"]
    shown = parse(unfolded(page))
    assert [t.attrs["id"] for t in shown.find("details") if t.attrs.get("id")] == [
        f"case-{n}" for n in range(8)
    ]
    monkeypatch.setattr(html_page, "RUN_CHARS", 1)  # a run is cut after the case that fills it
    assert len(folded_runs(render(report))) == 7


def test_model_text_in_a_folded_case_stays_text_in_its_comment_and_template() -> None:
    report = replace(every_status_report(), details=DETAILS_ALL)  # the passing case whole
    passing = report.cases[0]
    assert passing.record is not None
    passing.record.turns[0].response = UNFOLDING
    passing.id = UNFOLDING
    page = render(report)
    ((_, folded),) = folded_runs(page)
    assert folded.count(html.escape(UNFOLDING)) == 2  # the case's id and the answer, whole
    assert folded.rstrip().endswith("</details>")
    for markup in (page, unfolded(page)):  # as the parser reads the page, and the script a run
        parsed = parse(markup)
        assert [t.attrs for t in parsed.find("script")] == [{}]
        assert not parsed.find("img")
        assert not [(t.name, k) for t in parsed.tags for k in t.attrs if k.lower().startswith("on")]
    assert "".join(parse(unfolded(page)).text).count(UNFOLDING) == 2


def test_a_closed_case_whose_markup_could_end_a_comment_is_written_unfolded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No markup of a case holds `-->` today; one that did would end its run's comment early.
    from zeroclaw_eval.reporters.html import page as html_page

    written = html_page.case_html
    monkeypatch.setattr(
        html_page,
        "case_html",
        lambda index, case: written(index, case).replace("<summary>", "<summary title=-->"),
    )
    report = SuiteReport("s", "replay", _passing_copies(3))
    page = render(report)
    assert folded_runs(page) == []
    cases = [t for t in parse(page).find("details") if t.attrs.get("id")]
    assert [(t.attrs["id"], "open" in t.attrs) for t in cases] == [(f"case-{n}", False) for n in range(3)]
    assert page.count('<template><div class="body">') == 3


def test_counts_and_verdict_head_the_page() -> None:
    page = render(every_status_report())
    counts = section(page, '<ul class="counts"', "</ul>")
    numbers = re.findall(r"<b>(\d+)</b>(\w[\w ]*)<", counts)
    assert numbers == [
        ("4", "cases"),
        ("1", "passed"),
        ("1", "failed"),
        ("1", "run errors"),
        ("1", "rejected"),
    ]
    assert '<span class="verdict-failed">failed</span>' in page


def source_rows(parsed: Page, anchor: str) -> dict[int, Tag]:
    """The fixture source rows of one case, by line number."""
    prefix = f"{anchor}-L"
    rows = {}
    for tag in parsed.find("tr"):
        row_id = tag.attrs.get("id") or ""
        if row_id.startswith(prefix):
            rows[int(row_id[len(prefix) :])] = tag
    return rows


def test_failing_fields_are_highlighted_and_linked_in_the_source() -> None:
    report = every_status_report()
    page = render(report)
    parsed = parse(page)
    for index, case in enumerate(report.cases):
        anchor = f"case-{index}"
        fields = [g.field for g in case.failed_grades] + [p.field for p in case.problems]
        fields += [case.error.field] if case.error else []
        marked: set[int] = set()
        for ref in fields:
            assert ref.line is not None
            assert parsed.find("a", href=f"#{anchor}-L{ref.line}"), (case.name, ref)
            marked.update(range(ref.line, (ref.end_line or ref.line) + 1))
        rows = source_rows(parsed, anchor)
        assert sorted(rows) == list(range(1, len((case.source or "").splitlines()) + 1))
        highlighted = {n for n, tag in rows.items() if tag.attrs.get("class") == "failing"}
        assert highlighted == marked, case.name
    failing_rows = re.findall(
        r'<tr id="case-1-L(\d+)" class="failing"><td class="n">\d+</td><td>(.*?)</td>', page
    )
    assert [(int(n), html.unescape(text).strip()) for n, text in failing_rows] == [
        (5, '"needle-one",'),
        (9, "{"),
        (10, '"tool": "echo",'),
        (11, '"needle": "nope"'),
        (12, "}"),
    ]


def test_failing_check_shows_expected_and_found_side_by_side() -> None:
    page = render(every_status_report())
    first = page.index('<div class="check failing-check">')
    check = page[first : page.index('<div class="check failing-check">', first + 1)]
    assert '<span class="id">response_contains[0]</span>' in check
    assert '<pre class="expected">needle-one</pre>' in check
    found = re.search(r'<pre class="found">(.*?)</pre>', check, re.DOTALL)
    assert found is not None
    # An HTML parser reads CR LF and a lone CR as LF; the page keeps that meaning.
    assert html.unescape(found.group(1)) == HOSTILE.replace("\r\n", "\n").replace("\r", "\n")


def test_timeline_shows_turns_steps_and_dispatches() -> None:
    report = every_status_report()
    report.cases[1].record = RunRecord(
        turns=[TurnRecord(0, "Please echo ping", "echoed ping"), TurnRecord(1, "Now read todo.txt", None)],
        steps=[
            ModelStep(
                0,
                "Calling echo",
                [{"id": "call_1", "name": "echo", "arguments": '{"message": "ping"}'}],
                11,
                4,
                ["system", "user"],
                ["echo", "file_read"],
                "Answer in one line.",
            ),
            ModelStep(0, "echoed ping", [], 15, 3, ["system", "user", "assistant", "tool"], []),
            ModelStep(
                1, None, [{"id": "call_2", "name": "file_read", "arguments": '{"path": "todo.txt"}'}], 21, 5
            ),
        ],
        calls=[
            RecordedCall(0, "call_1", "echo", {"message": "ping"}, "ping-result", True),
            RecordedCall(1, "call_2", "file_read", {"path": "todo.txt"}, "no such file: todo.txt", False),
        ],
    )
    page = render(report)
    timeline = html.unescape(
        re.sub(
            r"<[^>]+>",
            " ",
            section(section(page, 'id="case-1"', "</details>\n  <details"), '<ol class="timeline">', "</ol>"),
        )
    )
    words = " ".join(timeline.split())
    expected_in_order = [
        "turn 1 · user Please echo ping",
        "agent → model sent system, user · offered echo, file_read Answer in one line.",
        "model 11 in / 4 out tokens Calling echo",
        "→ echo call call_1",
        '{"message": "ping"}',
        "← result ping-result",
        "agent → model sent system, user, assistant, tool · offered no tool",
        "model 15 in / 3 out tokens echoed ping",
        "answer echoed ping",
        "turn 2 · user Now read todo.txt",
        "→ file_read call call_2",
        '{"path": "todo.txt"}',
        "← failed no such file: todo.txt",
        "answer none (the turn did not finish)",
    ]
    position = 0
    for item in expected_in_order:
        found = words.find(item, position)
        assert found >= 0, f"{item!r} missing after position {position} in {words!r}"
        position = found + len(item)
    # The third step recorded nothing sent (as in a report of format 2): no "sent nothing".
    assert words.count("agent → model") == 2
    assert 'class="who ok">← result' in page
    assert 'class="who bad">← failed' in page


def test_rejected_fixture_shows_its_field() -> None:
    report = every_status_report()
    problem = report.cases[3].problems[0]
    block = section(render(report), 'id="case-3"', '<details class="source"')
    assert "Rejected at admission" in block
    assert f'href="#case-3-L{problem.field.line}"' in block
    assert f"evals/regression/d_rejected.json:{problem.field.line}:{problem.field.col}" in block
    assert '<span class="id">/expects/response_contians</span>' in block


def test_page_starts_no_workflow_command_line() -> None:
    # The page may be printed to a CI log (--format html to stdout).
    page = render(every_status_report())
    assert "##[" not in page
    assert command_lines(page) == []


def test_page_renders_an_empty_suite() -> None:
    page = render(SuiteReport("evals/empty", "replay", []))
    assert "No fixtures found in evals/empty" in page
    assert parse(page).scripts


# Rendering a saved report is byte-identical, in every format ------------------------------


@pytest.fixture
def real_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SuiteReport:
    return run_every_status_suite(tmp_path, monkeypatch)


@pytest.mark.parametrize("fmt", ["table", "json", "junit", "html", "github"])
def test_a_saved_report_renders_byte_identical(
    fmt: str, real_report: SuiteReport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", real_report.root)
    assert fmt in builtin_names()
    reporter = get_reporter(fmt)
    saved_file = tmp_path / "saved" / "eval.json"
    for whole in (real_report, every_status_report(root=real_report.root)):
        # With every detail kept, the saved report is the report; by default its passing
        # cases are kept compact, and the saved report is the report so kept.
        compact = replace(whole, cases=[compact_case(case) for case in whole.cases], details=DETAILS_FAILING)
        assert compact.cases != whole.cases  # the suite has passing cases to keep compact
        for report, details in ((whole, DETAILS_ALL), (whole, DETAILS_FAILING), (compact, DETAILS_FAILING)):
            report = replace(report, details=details)
            expected = compact if details == DETAILS_FAILING else report
            write_output(get_reporter("json")(report), str(saved_file))  # what `eval run` saves
            reloaded = report_from_dict(json.loads(saved_file.read_text(encoding="utf-8")))
            assert reloaded == expected
            assert report_from_dict(report_to_dict(report)) == expected
            assert reporter(reloaded) == reporter(expected)
            assert reporter(reloaded, color=True) == reporter(expected, color=True)


def test_source_lines_follow_the_positions_even_after_a_unicode_line_separator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Positions count LF-separated lines; U+2028 inside a string must not shift the rows.
    monkeypatch.chdir(tmp_path)
    suite = tmp_path / "suite"
    suite.mkdir()
    text = (
        '{\n  "model_name": "ls",\n  "turns": [{"user_input": "a\u2028b", "steps": [\n'
        '    {"response": {"type": "text", "content": "hello"}}]}],\n'
        '  "expects": {\n    "response_contains": ["goodbye"]\n  }\n}\n'
    )
    (suite / "ls.json").write_text(text, encoding="utf-8")
    from zeroclaw_eval.runner import run_suite

    report = run_suite(Path("suite"))
    line = report.cases[0].failed_grades[0].field.line
    assert line == 6
    failing = re.findall(
        r'<tr id="case-0-L(\d+)" class="failing"><td class="n">\d+</td><td>(.*?)</td>', render(report)
    )
    assert [(int(n), html.unescape(t).strip()) for n, t in failing] == [
        (6, '"response_contains": ["goodbye"]')
    ]


def test_the_page_script_is_inserted_whole_after_the_text_is_defused() -> None:
    from zeroclaw_eval.reporters.html.page import _SCRIPT_SLOT, _script

    report = every_status_report()
    assert report.cases[1].record is not None
    report.cases[1].record.turns[0].response = "a model repeating the slot: " + _SCRIPT_SLOT
    page = render(report)
    script = _script()
    assert page.count(script) == 1
    assert page.index(script) > page.index("a model repeating the slot")
    assert "<script>" + script + "</script>" in page


def _static_case_markup() -> str:
    """Every string constant of the case markup's source (f-strings' literal parts too)."""
    from zeroclaw_eval.reporters.html import case as html_case

    tree = ast.parse(Path(html_case.__file__).read_text(encoding="utf-8"))
    return "".join(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def test_the_static_css_and_script_hold_nothing_the_runner_would_execute() -> None:
    # The script goes into the page untouched (its CSP hash must match); the CSS is
    # defused with the rest, where a line starting with ':' would change its meaning.
    from zeroclaw_eval.reporters.html.page import _environment, _script

    environment = _environment()
    template = environment.loader.get_source(environment, "report.html.j2")[0]
    for static in (_script(), template, _static_case_markup()):
        assert "##[" not in static
        assert not [line for line in static.splitlines() if line.lstrip().startswith(":")]


def test_a_run_error_shows_where_the_agent_raised_escaped() -> None:
    page = render(every_status_report())
    block = section(page, '<pre class="traceback">', "</pre>")
    assert "File &#34;/home/zeroclaw_user/agent.py&#34;, line 12, in run_turn" in block
    assert "<script>" not in block


def test_the_found_box_of_an_indexed_call_shows_that_call() -> None:
    # With call_index, "found" is the call the check read, not the one most like the needle.
    report = every_status_report()
    failing = report.cases[1]
    grade = next(g for g in failing.grades if g.check_id.startswith("tool_arguments_contain"))
    failing.grades[failing.grades.index(grade)] = replace(
        grade, expected="TICKET-42", actual={"path": "out/b.txt", "content": "TICKET-41"}
    )
    page = render(report)
    start = page.index(f'<span class="id">{grade.check_id}</span>')
    found = re.search(r'<pre class="found">(.*?)</pre>', page[start:], re.DOTALL)
    assert found is not None
    assert json.loads(html.unescape(found.group(1))) == {"path": "out/b.txt", "content": "TICKET-41"}


def test_a_case_id_shows_beside_its_model_name() -> None:
    report = every_status_report()
    report.cases[0].id = "TRACK-7"
    assert '<span class="model case-id">[TRACK-7]</span>' in render(report)


#: Text from a baseline file (paths, a version) that tries to be markup.
_MARKUP = "</td><script>alert(1)</script><img src=x onerror=alert(1)>"


def _compared_report() -> SuiteReport:
    """The every-status report compared with a baseline: the passing case is fixed, the
    failing one a new failure, the errored one still failing, the rejected one new; a
    removed case has a hostile path."""
    report = every_status_report()
    for case, change in zip(report.cases, ["fixed", "new_failure", "still_failing", "new"], strict=True):
        case.change = change
    removed = [RemovedCase(f"gone {_MARKUP}.json", f"evals/gone {_MARKUP}.json", None, "passed")]
    report.baseline = Baseline(
        f"reports/{_MARKUP}.json", "sha256:" + "ab" * 32, f"1.0 {_MARKUP}", "any", removed
    )
    return report


def test_changes_since_baseline_open_the_page_linked_to_each_case() -> None:
    page = render(_compared_report())
    changes = section(page, '<section class="panel baseline" id="baseline">', "</section>")
    assert page.index('id="baseline"') < page.index('class="controls"') < page.index('id="case-0"')
    assert "1 new failure, 1 fixed, 1 still failing, 1 new, 1 removed" in changes
    rows = re.findall(
        r'<span class="change change-(\w+)">([\w ]+)</span></td>\s*<td class="name">(.*?)</td>', changes
    )
    assert rows == [
        ("new_failure", "new failure", '<a href="#case-1">evals/regression/b_failing.json</a>'),
        ("fixed", "fixed", '<a href="#case-0">evals/regression/a_passing.json</a>'),
        ("new", "new", '<a href="#case-3">evals/regression/d_rejected.json</a>'),
        ("removed", "removed", html.escape(f"evals/gone {_MARKUP}.json")),
    ]
    assert "sha256:" + "ab" * 32 in changes


def test_each_changed_case_wears_its_change_and_the_unchanged_do_not() -> None:
    page = render(_compared_report())
    summaries = [section(page, f'id="case-{index}"', "</summary>") for index in range(4)]
    badges = [re.findall(r'class="change change-(\w+)"', summary) for summary in summaries]
    assert badges == [["fixed"], ["new_failure"], [], ["new"]]


def test_baseline_text_cannot_inject_markup() -> None:
    page = render(_compared_report())
    parsed = parse(page)
    assert [t.attrs for t in parsed.find("script")] == [{}]
    assert not parsed.find("img")
    assert "<script>alert(1)" not in page
    assert not [(t.name, k) for t in parsed.tags for k in t.attrs if k.lower().startswith("on")]
    text = "".join(parsed.text)
    assert f"reports/{_MARKUP}.json" in text
    assert f"evals/gone {_MARKUP}.json" in text
    assert f"zeroclaw-eval 1.0 {_MARKUP}" in text


def test_a_page_without_a_baseline_or_history_has_neither_section() -> None:
    page = render(every_status_report())
    assert 'id="baseline"' not in page
    assert 'id="trend"' not in page
    assert "<svg" not in page


def test_the_pass_rate_trend_is_an_inline_svg_of_numbers() -> None:
    report = every_status_report()  # this run: 1 of 4 passed
    report.history = [HistoryPoint(0, 4), HistoryPoint(2, 4), HistoryPoint(4, 4)]
    page = render(report)
    parsed = parse(page)
    (svg,) = parsed.find("svg")
    assert page.index('id="trend"') < page.index('class="controls"')
    (line,) = parsed.find("polyline")
    points = [tuple(map(float, pair.split(","))) for pair in (line.attrs["points"] or "").split()]
    xs, ys = [x for x, _ in points], [y for _, y in points]
    assert xs == sorted(xs)
    assert len(set(xs)) == 4
    top, bottom = ys[2], ys[0]  # 100 % and 0 %
    assert top < ys[1] < ys[3] < bottom  # y grows downwards: 25 % lies below 50 %
    assert ys[1] == pytest.approx((top + bottom) / 2)
    circles = parsed.find("circle")
    assert [(c.attrs["cx"], c.attrs["cy"]) for c in circles] == [(f"{x:.1f}", f"{y:.1f}") for x, y in points]
    assert "current" in (circles[-1].attrs["class"] or "")
    chart = section(page, "<svg", "</svg>")
    assert re.findall(r"<title>(.*?)</title>", chart) == [
        "run 1 of 4: 0/4 passed (0%)",
        "run 2 of 4: 2/4 passed (50%)",
        "run 3 of 4: 4/4 passed (100%)",
        "this run: 1/4 passed (25%)",
    ]
    assert "pass rate over the last 4 runs: 0% → 25%" in page
    chart_tags = parse(chart + "</svg>").tags
    assert {t.name for t in chart_tags} == {"svg", "line", "text", "polyline", "circle", "title"}
    assert not [k for t in chart_tags for k in t.attrs if k.lower().startswith("on") or "href" in k]
    assert svg.attrs["role"] == "img"


def test_a_history_of_no_earlier_run_charts_this_run_alone() -> None:
    report = every_status_report()
    report.history = []
    page = render(report)
    assert len(parse(page).find("circle")) == 1
    assert "pass rate: 25% (no earlier run in the history)" in page


def test_a_saved_report_with_a_huge_field_span_marks_only_the_source_it_has() -> None:
    # `render` reads report files, which may say anything: a field that "ends" at line
    # 10**9 must not make the page walk a billion lines (it ran out of memory).
    from zeroclaw_eval.cases.location import FieldRef
    from zeroclaw_eval.grading.result import GradeResult
    from zeroclaw_eval.report.model import CaseReport

    far = FieldRef("/expects", line=2, col=1, end_line=10**9, end_col=1)
    case = CaseReport(
        "c.json", "c.json", "c", grades=[GradeResult("x", "tool", False, "d", far)], source="{\n}\n"
    )
    from zeroclaw_eval.reporters.html.case import lines_to_mark

    assert lines_to_mark(case, 2) == {2: "failing"}
    page = render(SuiteReport("s", "replay", [case]))
    assert page.count(' class="failing"><td class="n">') == 1


@pytest.mark.parametrize(
    "value", [HOSTILE, "<a href='x' title=\"y\">&amp;</a>", "", 42, 1.5, None, True], ids=repr
)
def test_the_case_markup_escapes_as_the_templates_autoescape_does(value: object) -> None:
    # The cases are written in Python, the page around them by jinja2: one escaping.
    from markupsafe import escape

    from zeroclaw_eval.reporters.html.case import text

    assert text(value) == str(escape(value))


def test_the_page_written_to_a_file_a_case_at_a_time_is_the_whole_page(tmp_path: Path) -> None:
    from zeroclaw_eval.reporters import render_report
    from zeroclaw_eval.reporters.safety import neutralize_markup

    report = _compared_report()
    report.history = [HistoryPoint(1, 4)]
    report.suite += " \ud800"  # a lone surrogate, which the writer escapes
    target = tmp_path / "eval.html"
    render_report(report, "html", str(target))
    page = render(report)
    assert target.read_bytes() == page.encode("utf-8")
    # Defused piece by piece, the page is as defused as when it was defused whole.
    assert neutralize_markup(page) == page
