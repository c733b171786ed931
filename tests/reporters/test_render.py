"""`zeroclaw_eval.reporters.render`: stdout or a file written whole, and `render_report`."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.support.ci_log import (
    LONE_SURROGATE,
)
from tests.support.reports import every_status_report
from zeroclaw_eval.errors import ReporterError
from zeroclaw_eval.reporters import Reporter, get_reporter, render_report, write_output


def test_write_output_writes_the_file_whole_and_makes_parent_folders(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "deep" / "eval.xml"
    text = "line one\nline 東京 two\n"
    assert write_output(text, str(target)) == target
    assert target.read_bytes() == text.encode("utf-8")
    assert list(target.parent.iterdir()) == [target]


def test_write_output_replaces_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "eval.xml"
    target.write_text("old", encoding="utf-8")
    write_output("new\n", str(target))
    assert target.read_text(encoding="utf-8") == "new\n"
    assert list(tmp_path.iterdir()) == [target]


def test_write_output_dash_is_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert write_output("to stdout\n", "-") is None
    assert capsys.readouterr().out == "to stdout\n"


def test_write_output_failing_half_way_keeps_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "eval.html"
    target.write_text("old report", encoding="utf-8")

    def disk_full(source: str, destination: object) -> None:
        raise OSError(28, "No space left on device")

    # The rename fails after the temporary file was written in full.
    monkeypatch.setattr("zeroclaw_eval._support.files.os.replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_output("x" * 100_000, str(target))
    assert target.read_text(encoding="utf-8") == "old report"
    assert list(tmp_path.iterdir()) == [target]


def test_write_output_makes_a_lone_surrogate_visible_instead_of_failing(tmp_path: Path) -> None:
    target = tmp_path / "eval.json"
    write_output('"a' + LONE_SURROGATE + 'b"', str(target))
    assert target.read_bytes() == b'"a\\ud800b"'
    assert json.loads(target.read_text(encoding="utf-8")) == "a" + LONE_SURROGATE + "b"


def test_render_report_with_a_raising_reporter_writes_nothing(
    tmp_path: Path, install_plugin: Callable[..., None]
) -> None:
    install_plugin({"boom": "boom"})
    out = tmp_path / "out"
    out.mkdir()
    target = out / "eval.txt"
    target.write_text("old report", encoding="utf-8")
    with pytest.raises(ReporterError, match="the boom reporter failed, nothing was written to") as raised:
        render_report(every_status_report(), "boom", str(target))
    assert str(raised.value).endswith("RuntimeError: reporter exploded")
    assert isinstance(raised.value.__cause__, RuntimeError)
    assert target.read_text(encoding="utf-8") == "old report"
    assert list(out.iterdir()) == [target]


def test_render_report_writes_the_rendered_format(tmp_path: Path) -> None:
    report = every_status_report()
    target = tmp_path / "eval.json"
    assert render_report(report, "json", str(target)) == target
    assert target.read_text(encoding="utf-8") == get_reporter("json")(report)


def test_verbose_reaches_a_reporter_whose_signature_cannot_be_read(
    tmp_path: Path, install_plugin: Callable[..., None]
) -> None:
    # A reporter with no signature to inspect (here: a broken `__signature__`, as a C
    # function might have none) is called without `verbose`, not crashed on.
    source = """
class Unreadable:
    __signature__ = "not a signature"

    def __call__(self, report, *, color=False):
        return "rendered\\n"


render = Unreadable()
"""
    install_plugin({"opaque": "render"}, source)
    target = tmp_path / "out.txt"
    assert render_report(every_status_report(), "opaque", str(target), verbose=True) == target
    assert target.read_text(encoding="utf-8") == "rendered\n"


STREAMED = {"json": "json_report", "junit": "junit", "html": "html.page"}


@pytest.mark.parametrize("fmt", sorted(STREAMED))
def test_a_streamed_file_failing_half_way_is_a_reporter_error_and_keeps_the_old_file(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # These formats are written a case at a time: a failure after the first piece must
    # still leave nothing, as for a reporter that raises before returning its text.
    module = importlib.import_module(f"zeroclaw_eval.reporters.{STREAMED[fmt]}")

    def half_then_fail(report: object) -> Iterator[str]:
        yield "the head of the output"
        raise ValueError("Out of range float values are not JSON compliant: nan")

    target = tmp_path / "eval.out"
    target.write_text("old report", encoding="utf-8")
    monkeypatch.setattr(module, "REPORTER", Reporter.streaming(fmt, half_then_fail))
    with pytest.raises(ReporterError, match=f"the {fmt} reporter failed, nothing was written to") as raised:
        render_report(every_status_report(), fmt, str(target))
    assert isinstance(raised.value.__cause__, ValueError)
    assert target.read_text(encoding="utf-8") == "old report"
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize("fmt", sorted(STREAMED))
def test_a_streamed_format_is_written_as_its_reporter_writes_it(fmt: str, tmp_path: Path) -> None:
    module = importlib.import_module(f"zeroclaw_eval.reporters.{STREAMED[fmt]}")
    report = every_status_report()
    whole = module.REPORTER(report)
    target = tmp_path / "eval.out"
    render_report(report, fmt, str(target))
    assert target.read_bytes() == whole.encode("utf-8")


@pytest.mark.parametrize("output", ["file", "-"])
def test_a_streamed_format_is_never_held_whole(
    output: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    # A 10,000-case page or JUnit file held whole (and again as bytes) was most of a
    # run's memory: a file, or stdout (`--format junit > eval.xml`), gets the pieces in
    # writes of about a MiB as they are made. Here each piece is made only once what came
    # before it has reached the output.
    from zeroclaw_eval.reporters import junit
    from zeroclaw_eval.reporters.render import _Encoded

    piece = "x" * _Encoded.CHUNK
    target = tmp_path / "eval.xml"
    seen = [0]  # bytes that reached stdout so far

    def written() -> int:
        if output == "-":
            seen[0] += len(capfdbinary.readouterr().out)
            return seen[0]
        temporary = [path for path in tmp_path.iterdir() if path.name != target.name]
        return temporary[0].stat().st_size if temporary else 0

    def pieces(report: object) -> Iterator[str]:
        for made in range(3):
            assert written() >= made * len(piece)
            yield piece

    monkeypatch.setattr(junit, "REPORTER", Reporter.streaming("junit", pieces))
    render_report(every_status_report(), "junit", str(target) if output == "file" else "-")
    assert (target.stat().st_size if output == "file" else written()) == 3 * len(piece)


@pytest.mark.parametrize(
    ("written", "words"), [(0, "nothing was written to -"), (3, "its output on stdout stops")]
)
def test_a_streamed_format_failing_on_stdout_says_what_it_left(
    written: int, words: str, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # Written to stdout in writes of about a MiB: a failure before the first leaves
    # nothing there, one after it leaves what was written, and each says so.
    from zeroclaw_eval.reporters import junit
    from zeroclaw_eval.reporters.render import _Encoded

    def pieces_then_fail(report: object) -> Iterator[str]:
        for _ in range(written):
            yield "x" * (_Encoded.CHUNK // 2)
        yield "<testsuites>"
        raise ValueError("a case it cannot write")

    monkeypatch.setattr(junit, "REPORTER", Reporter.streaming("junit", pieces_then_fail))
    with pytest.raises(ReporterError, match=f"the junit reporter failed, {words}"):
        render_report(every_status_report(), "junit", "-")
    out = capsysbinary.readouterr().out
    assert out == b"x" * ((_Encoded.CHUNK // 2) * 2 if written else 0)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("fmt", sorted(builtin for builtin in ("json", "junit", "html", "table", "github")))
def test_a_write_the_output_refuses_is_a_write_failure_not_the_reporters(fmt: str) -> None:
    # /dev/full refuses every write (ENOSPC), as a full disk does mid-way: the error of
    # writing, which `emit` reports as "cannot write FORMAT to PATH", never a reporter
    # failure. A large report fills the write buffer, so some writes fail mid-stream.
    report = every_status_report()
    big = replace(report, cases=report.cases * 400)
    with pytest.raises(OSError, match="No space left") as raised:
        render_report(big, fmt, "/dev/full")
    assert not isinstance(raised.value, ReporterError)


@pytest.mark.parametrize("levels", [990, 3_000])
def test_tool_arguments_nested_past_what_json_recurses_through_are_cut_in_every_format(
    tmp_path: Path, levels: int
) -> None:
    # What a live model can send (a fixture cannot: admission bounds its JSON at 64
    # levels); decoded as the tool box decodes it, then recorded and shown by every format.
    from lxml import etree

    from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
    from zeroclaw_eval.cases.location import FieldRef
    from zeroclaw_eval.grading.result import TOOL, GradeResult
    from zeroclaw_eval.report.model import CaseReport, SuiteReport

    deep: object = 1
    for _ in range(levels):
        deep = {"a": deep}
    text = '{"a":' * levels + "1" + "}" * levels
    step = ModelStep(0, None, [{"id": "c", "name": "echo", "arguments": text}], 1, 1)
    calls = [RecordedCall(0, "c", "echo", deep, "r", True)]
    record = RunRecord([TurnRecord(0, "hi", "x")], [step], calls, 1.0)
    grade = GradeResult("tool_x", TOOL, False, "d", FieldRef("/x", 1, 1, 1, 1), "n", [deep])
    case = CaseReport("a.json", "a.json", "m", [grade], record=record, source="{}\n")
    report = SuiteReport("s", "live", [case], 1.0, "1", "/r")
    for fmt in ("json", "html", "junit"):
        render_report(report, fmt, str(tmp_path / f"out.{fmt}"))
    json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    etree.parse(str(tmp_path / "out.junit"))
    assert "levels deep: not written" in (tmp_path / "out.html").read_text(encoding="utf-8")


def test_every_kind_of_report_is_written_through_the_one_render(tmp_path: Path) -> None:
    """A vacuity verdict, a mutation verdict and a pull-request comment are reports like a
    suite's: their reporters write through `render`, which makes the folders and replaces
    the file whole, and a reporter of theirs that raises writes nothing."""
    from tests.support.builders import scripted_fixture, text_step, write_fixture
    from zeroclaw_eval.grading.vacuity import check_vacuity
    from zeroclaw_eval.mutate.engine import mutate_suite
    from zeroclaw_eval.reporters import mutation, vacuity
    from zeroclaw_eval.reporters.pull_request import COMMENT, Comparison
    from zeroclaw_eval.reporters.render import render
    from zeroclaw_eval.runner import RunOptions

    suite = tmp_path / "suite"
    write_fixture(
        suite,
        "hi.json",
        scripted_fixture([("hi", [text_step("hello there")])], {"response_contains": ["hello"]}),
    )
    verdicts: list[tuple[Any, Any]] = [
        (vacuity.FORMATS["table"], check_vacuity(suite)),
        (mutation.FORMATS["json"], mutate_suite([suite], RunOptions())),
        (COMMENT, Comparison(None, every_status_report(), note="first run")),
    ]
    for number, (reporter, report) in enumerate(verdicts):
        target = tmp_path / "out" / f"deep{number}" / "report.txt"
        assert render(reporter, report, str(target)) == target
        assert target.read_text(encoding="utf-8") == reporter(report)

        def broken(report: Any, out: Any, **options: bool) -> None:
            out.write("half")
            raise RuntimeError("broken")

        with pytest.raises(ReporterError, match="nothing was written"):
            render(replace(reporter, write=broken), report, str(target))
        assert target.read_text(encoding="utf-8") == reporter(report)  # the old file, whole
