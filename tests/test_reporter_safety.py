"""Unit tests for `zeroclaw_eval.reporters.safety`, the reporter registry and `write_output`.

This module also holds what the other reporter tests share: hostile text, a model of how
the GitHub runner reads a log (written from actions/runner, not from the package), and
two reports with a passing, a failing, an errored and a rejected case: one built from
objects, one run for real from fixtures on disk.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest

from tests.builders import line_col
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.fixtures.location import FieldRef, FixtureProblem
from zeroclaw_eval.grading.result import RESPONSE, TOOL, GradeResult
from zeroclaw_eval.report.model import CaseError, CaseReport, SuiteReport
from zeroclaw_eval.reporters import (
    builtin_names,
    get_reporter,
    render_report,
    reporter_names,
    reset_registry,
    write_output,
)
from zeroclaw_eval.reporters.safety import (
    neutralize_json,
    neutralize_markup,
    one_line,
    stop_commands,
    xml_safe,
)
from zeroclaw_eval.run.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.runner import run_suite

# Shared: hostile text -------------------------------------------------------------------

#: What .NET's `string.TrimStart()` removes (`char.IsWhiteSpace`): the runner strips it
#: before looking for `::` (actions/runner `ActionCommand.TryParseV2`).
NET_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)
#: Every character XML 1.0 cannot hold that a model could plausibly emit (no surrogates).
XML_ILLEGAL = (
    "".join(chr(c) for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]) + "\ufffe\uffff"
)
LONE_SURROGATE = "\ud800"
HOSTILE = (
    "::error file=x.py,line=1::forged\n"
    "::stop-commands::abc\n"
    "  ::add-mask::secret\n"
    "##[error]x\n"
    "cr\r::error file=cr.py,line=2::lone-cr-forged\r\n"
    "\u00a0::error file=nbsp.py::nbsp-forged\n"
    "\u3000::warning::ideographic-forged\n"
    "literal %0A and %25 and a,b:c\n"
    "</script><script>alert(1)</script>\n"
    "<img src=x onerror=alert(1)>\n"
    f"ctl[{XML_ILLEGAL}] nel[\x85]\n"
    "ticks ```` and `` here"
)


def runner_lines(text: str) -> list[str]:
    """The lines the runner reads (`TextReader.ReadLine`: `\\r\\n`, `\\n` or a lone `\\r`)."""
    return re.split(r"\r\n|\r|\n", text)


def command_lines(text: str) -> list[str]:
    """Lines the runner would try as `::` workflow commands."""
    return [line for line in runner_lines(text) if line.lstrip(NET_WHITESPACE).startswith("::")]


_UNESCAPES = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}


def _unescape(text: str, *, prop: bool) -> str:
    keys = "%25|%0D|%0A|%3A|%2C" if prop else "%25|%0D|%0A"
    return re.sub(keys, lambda m: _UNESCAPES[m.group()], text)


@dataclass
class Command:
    """One workflow command as the runner parses it."""

    name: str
    properties: dict[str, str] = field(default_factory=dict)
    message: str = ""


def parse_command(line: str) -> Command | None:
    """A `::name k=v,k=v::message` line parsed as `TryParseV2` does, else None."""
    trimmed = line.lstrip(NET_WHITESPACE)
    if not trimmed.startswith("::"):
        return None
    end = trimmed.find("::", 2)
    if end < 0:
        return None
    name, _, listed = trimmed[2:end].partition(" ")
    properties: dict[str, str] = {}
    for entry in listed.split(","):
        if entry:
            key, _, value = entry.partition("=")
            properties[key] = _unescape(value, prop=True)
    return Command(name, properties, _unescape(trimmed[end + 2 :], prop=False))


def executed_commands(log: str) -> list[Command]:
    """Every command the runner would execute reading `log`, honouring stop-commands.

    A line that is no `::` command but holds `##[` anywhere counts as a legacy command.
    """
    executed: list[Command] = []
    resume: str | None = None
    for line in runner_lines(log):
        command = parse_command(line)
        if resume is not None:
            if command is not None and command.name == resume:
                resume = None
            continue
        if command is None:
            if "##[" in line:
                executed.append(Command("##[", message=line))
            continue
        if command.name == "stop-commands":
            resume = command.message
        executed.append(command)
    return executed


# Shared: a report with every status, built from objects ---------------------------------

PASSING_SOURCE = """{
  "model_name": "passing-model",
  "expects": {
    "response_contains": [
      "pong"
    ]
  }
}
"""
FAILING_SOURCE = """{
  "model_name": "failing-model",
  "expects": {
    "response_contains": [
      "needle-one",
      "needle-two"
    ],
    "tool_arguments_contain": [
      {
        "tool": "echo",
        "needle": "nope"
      }
    ]
  }
}
"""
ERROR_SOURCE = """{
  "model_name": "erroring-model",
  "turns": [
    {
      "user_input": "Read todo.txt",
      "steps": []
    }
  ],
  "expects": {
    "response_contains": [
      "needle-err"
    ]
  }
}
"""
REJECTED_SOURCE = """{
  "model_name": "rejected-model",
  "expects": {
    "response_contians": [
      "x"
    ]
  }
}
"""
SUITE = "evals/regression"


def at(source: str, fragment: str, pointer: str) -> FieldRef:
    """The field `fragment` (on one line) of `source`, located independently."""
    line, col = line_col(source, fragment)
    return FieldRef(pointer, line, col, line, col + len(fragment))


def spanning(source: str, first: str, last: str, pointer: str) -> FieldRef:
    """A field from `first` to the end of the next `last` after it (several lines)."""
    start = source.index(first)
    end = source.index(last, start) + len(last)

    def position(offset: int) -> tuple[int, int]:
        before = source[:offset]
        return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1

    return FieldRef(pointer, *position(start), *position(end))


def every_status_report(hostile: str = HOSTILE, root: str = "/nonexistent/repo") -> SuiteReport:
    """Cases in order: passing, failing (hostile text everywhere), errored, rejected."""
    passing = CaseReport(
        "a_passing.json",
        f"{SUITE}/a_passing.json",
        "passing-model",
        [GradeResult("response_contains[0]", RESPONSE, True, "found it", FieldRef("/expects/rc/0"), "pong")],
        duration_ms=3.25,
        record=RunRecord(turns=[TurnRecord(0, "ping?", "pong")], steps=[ModelStep(0, "pong", [], 3, 1)]),
    )
    arguments = {"message": hostile}
    failing = CaseReport(
        "b_failing.json",
        f"{SUITE}/b_failing.json",
        "failing-model",
        [
            GradeResult(
                "response_contains[0]",
                RESPONSE,
                False,
                f'expected the final response to contain "needle-one"; found {hostile}',
                at(FAILING_SOURCE, '"needle-one"', "/expects/response_contains/0"),
                "needle-one",
                hostile,
            ),
            GradeResult(
                "response_contains[1]", RESPONSE, True, "ok", FieldRef("/expects/response_contains/1")
            ),
            GradeResult(
                "tool_arguments_contain[0]",
                TOOL,
                False,
                f'expected the arguments of call 0 to echo to contain "nope"; found {hostile}',
                spanning(FAILING_SOURCE, '{\n        "tool"', "}", "/expects/tool_arguments_contain/0"),
                "nope",
                [arguments],
            ),
        ],
        duration_ms=12.5,
        record=RunRecord(
            turns=[TurnRecord(0, f"Echo {hostile}", hostile)],
            steps=[
                ModelStep(
                    0, None, [{"id": "call_1", "name": "echo", "arguments": json.dumps(arguments)}], 40, 12
                ),
                ModelStep(0, hostile, [], 58, 10),
            ],
            calls=[RecordedCall(0, "call_1", "echo", arguments, hostile, True)],
            duration_ms=12.5,
        ),
        source=FAILING_SOURCE,
    )
    errored = CaseReport(
        "c_error.json",
        f"{SUITE}/c_error.json",
        "erroring-model",
        [
            GradeResult(
                "response_contains[0]",
                RESPONSE,
                False,
                "expected the final response to contain needle-err; the final response is empty",
                at(ERROR_SOURCE, '"needle-err"', "/expects/response_contains/0"),
                "needle-err",
                "",
            )
        ],
        CaseError(
            f"turn 1: the agent raised ValueError: {hostile}", at(ERROR_SOURCE, '"steps"', "/turns/0/steps")
        ),
        duration_ms=7.0,
        record=RunRecord(
            turns=[TurnRecord(0, "Read todo.txt", None)],
            steps=[
                ModelStep(
                    0,
                    None,
                    [{"id": "call_9", "name": "file_read", "arguments": '{"path": "todo.txt"}'}],
                    20,
                    8,
                )
            ],
            calls=[
                RecordedCall(0, "call_9", "file_read", {"path": "todo.txt"}, "no such file: todo.txt", False)
            ],
            duration_ms=7.0,
        ),
        source=ERROR_SOURCE,
    )
    rejected = CaseReport(
        "d_rejected.json",
        f"{SUITE}/d_rejected.json",
        "rejected-model",
        problems=[
            FixtureProblem(
                at(REJECTED_SOURCE, '"response_contians"', "/expects/response_contians"),
                f"unknown expectation key; {hostile}",
            )
        ],
        source=REJECTED_SOURCE,
    )
    return SuiteReport(SUITE, "replay", [passing, failing, errored, rejected], 30.0, "9.9.9", root)


# Shared: a report with every status, run for real ---------------------------------------


def _text_step(content: str) -> dict[str, Any]:
    return {"response": {"type": "text", "content": content}}


def _echo_step(message: str) -> dict[str, Any]:
    call = {"id": "call_1", "name": "echo", "arguments": {"message": message}}
    return {"response": {"type": "tool_calls", "tool_calls": [call]}}


REAL_FIXTURES: dict[str, dict[str, Any]] = {
    "a_passing.json": {
        "model_name": "a-passing",
        "turns": [{"user_input": "Echo pong", "steps": [_echo_step("pong"), _text_step("pong")]}],
        "expects": {"tool_results_contain": [{"tool": "echo", "needle": "pong", "call_index": 0}]},
    },
    "b_failing.json": {
        "model_name": "b-failing",
        "turns": [{"user_input": f"Echo {HOSTILE}", "steps": [_echo_step(HOSTILE), _text_step(HOSTILE)]}],
        "expects": {
            "tools_used": ["echo"],
            "response_contains": ["needle-one"],
            "tool_arguments_contain": [{"tool": "echo", "needle": "nope", "call_index": 0}],
        },
    },
    "c_error.json": {
        "model_name": "c-error",
        "turns": [{"user_input": "Echo twice", "steps": [_echo_step("once")]}],
        "expects": {"response_contains": ["needle-err"]},
    },
    "d_rejected.json": {
        "model_name": "d-rejected",
        "turns": [{"user_input": "hi", "steps": [_text_step("hi")]}],
        "expects": {"response_contians": ["hi"]},
    },
}


def run_every_status_suite(repo: Path, monkeypatch: pytest.MonkeyPatch) -> SuiteReport:
    """Write `REAL_FIXTURES` into `repo/evals/regression` and run them from `repo`."""
    suite = repo / SUITE
    suite.mkdir(parents=True, exist_ok=True)
    for name, data in REAL_FIXTURES.items():
        (suite / name).write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    monkeypatch.chdir(repo)
    report = run_suite(Path(SUITE))
    assert [c.status for c in report.cases] == ["passed", "failed", "error", "rejected"]
    return report


def fixture_text(repo: Path, name: str) -> str:
    """The text of a fixture written by `run_every_status_suite`."""
    return (repo / SUITE / name).read_text(encoding="utf-8")


# xml_safe ---------------------------------------------------------------------------------


@pytest.mark.parametrize("char", list(XML_ILLEGAL + "\ud800\udfff\ufdd0"), ids=lambda c: f"U+{ord(c):04X}")
def test_xml_safe_makes_each_illegal_character_visible(char: str) -> None:
    assert xml_safe(f"a{char}b") == f"a#x{ord(char):02X}b"


def test_xml_safe_keeps_legal_text_and_normalises_line_ends() -> None:
    legal = "tab\t nel\x85 bmp\ud7ff\ue000\ufffd astral\U0001f600 é 東京 <&>"
    assert xml_safe(legal) == legal
    assert xml_safe("a\r\nb\rc\nd") == "a\nb\nc\nd"


def test_xml_safe_output_always_parses_as_xml() -> None:
    text = HOSTILE + LONE_SURROGATE + "\udfff"
    safe = xml_safe(text)
    element = ET.fromstring(f"<a t={json.dumps(escape(safe))}>{escape(safe)}</a>".encode())
    assert element.text == safe
    assert "\r" not in safe


# one_line ---------------------------------------------------------------------------------


def test_one_line_joins_every_line_break_into_single_spaces() -> None:
    assert one_line("a\nb\r\nc\rd \t e\u2028f") == "a b c d e f"


def test_one_line_cuts_after_the_limit_with_an_ellipsis() -> None:
    assert one_line("x" * 10, limit=10) == "x" * 10
    cut = one_line("x" * 11, limit=10)
    assert cut == "x" * 9 + "…"
    assert len(cut) == 10


# neutralize_markup ------------------------------------------------------------------------


def _text_of(document: str) -> str:
    return "".join(ET.fromstring(document.encode("utf-8")).itertext())


def test_neutralize_markup_defuses_line_start_commands_and_legacy_commands() -> None:
    body = "ok\n::error file=x.py::forged\n  ::add-mask::secret\n\t::stop-commands::abc\nx ##[error]y ###[z"
    document = f"<a>{escape(body)}</a>"
    assert command_lines(document)  # the test text is hostile to begin with
    neutral = neutralize_markup(document)
    assert command_lines(neutral) == []
    assert "##[" not in neutral
    assert _text_of(neutral) == _text_of(document)


def test_neutralize_markup_leaves_commands_inside_a_line_alone() -> None:
    document = "<a>text ::error:: inside a line</a>"
    assert neutralize_markup(document) == document


def test_neutralize_markup_keeps_the_meaning_of_carriage_returns() -> None:
    # XML and HTML parsers read a raw CR LF or lone CR as LF; the document must read back
    # the same after neutralising (a character reference `&#13;` would read back as CR).
    document = "<a>one\r\n::error::two\rthree\r::error::four</a>"
    neutral = neutralize_markup(document)
    assert _text_of(neutral) == _text_of(document) == "one\n::error::two\nthree\n::error::four"
    assert command_lines(neutral) == []


def test_neutralize_markup_defuses_a_command_after_a_lone_carriage_return() -> None:
    # The runner splits lines on a lone \r too (TextReader.ReadLine).
    document = "<pre>answer\r::error file=x.py,line=1::forged</pre>"
    assert command_lines(neutralize_markup(document)) == []


def test_neutralize_markup_defuses_a_command_behind_any_whitespace_the_runner_trims() -> None:
    # TryParseV2 calls TrimStart(), which strips all of char.IsWhiteSpace, not just space/tab.
    survivors = []
    for blank in NET_WHITESPACE:
        document = f"<pre>answer\n{blank}::error file=x.py::forged</pre>"
        if command_lines(neutralize_markup(document)):
            survivors.append(f"U+{ord(blank):04X}")
    assert survivors == []


# neutralize_json --------------------------------------------------------------------------


def test_neutralize_json_keeps_the_document_equal_and_defuses_commands() -> None:
    data = {
        "##[error]key": ["##[warning]value", "::error file=x.py::forged\n::add-mask::s"],
        "nested": {"a": "x ##[ y", "b": "\r::stop-commands::abc"},
    }
    for indent in (None, 2):
        text = neutralize_json(json.dumps(data, indent=indent, ensure_ascii=False))
        assert json.loads(text) == data
        assert "##[" not in text
        assert command_lines(text) == []


# stop_commands ----------------------------------------------------------------------------


def test_stop_commands_uses_a_fresh_unguessable_token_each_call() -> None:
    first, second = stop_commands("x"), stop_commands("x")
    tokens = [re.match(r"::stop-commands::([0-9a-f]+)\n", text) for text in (first, second)]
    assert tokens[0] is not None
    assert tokens[1] is not None
    assert len(tokens[0].group(1)) >= 32
    assert tokens[0].group(1) != tokens[1].group(1)


@pytest.mark.parametrize("ending", ["", "\n", "\r", "::"])
def test_stop_commands_keeps_the_text_from_running_anything_and_resumes_after_it(ending: str) -> None:
    text = HOSTILE + "\n::abc::\n::stop-commands::other\n::other::\n::error::still-stopped" + ending
    log = "::notice::before\n" + stop_commands(text) + "::notice::after\n"
    executed = executed_commands(log)
    assert [c.name for c in executed] == ["notice", "stop-commands", "notice"]
    assert [c.message for c in executed if c.name == "notice"] == ["before", "after"]
    assert text in log  # the text itself is printed unchanged


# The registry -----------------------------------------------------------------------------


@pytest.fixture
def fresh_registry() -> Any:
    """The plugin registry forgotten before and after the test."""
    reset_registry()
    yield
    reset_registry()


PLUGIN_MODULE = "zc_eval_test_plugin"


def install_plugin(folder: Path, monkeypatch: pytest.MonkeyPatch, entries: dict[str, str]) -> None:
    """A distribution with reporters `entries` (name -> attribute of PLUGIN_MODULE) on sys.path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{PLUGIN_MODULE}.py").write_text(
        "def render(report, *, color=False):\n"
        "    return f'TAP {len(report.cases)} cases\\n'\n"
        "def boom(report, *, color=False):\n"
        "    raise RuntimeError('reporter exploded')\n",
        encoding="utf-8",
    )
    info = folder / "zc_eval_test_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: zc-eval-test-plugin\nVersion: 1.0\n", encoding="utf-8"
    )
    lines = "".join(f"{name} = {PLUGIN_MODULE}:{target}\n" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[zeroclaw_eval.reporters]\n{lines}", encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, PLUGIN_MODULE, raising=False)


@pytest.mark.parametrize("name", ["table", "json", "junit", "html", "github"])
def test_get_reporter_returns_each_builtin_renderer(name: str) -> None:
    module = importlib.import_module(f"zeroclaw_eval.reporters.{'json_report' if name == 'json' else name}")
    assert name in builtin_names()
    assert get_reporter(name) is module.render
    text = get_reporter(name)(every_status_report())
    assert isinstance(text, str)
    assert text


@pytest.mark.usefixtures("fresh_registry")
def test_unknown_format_is_a_usage_error_listing_the_choices() -> None:
    with pytest.raises(UsageError) as raised:
        get_reporter("nope")
    message = str(raised.value)
    assert "'nope'" in message
    for name in builtin_names():
        assert name in message


@pytest.mark.usefixtures("fresh_registry")
def test_entry_point_plugin_is_discovered_listed_and_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(tmp_path / "site", monkeypatch, {"tap": "render"})
    assert reporter_names() == [*builtin_names(), "tap"]
    assert get_reporter("tap")(every_status_report()) == "TAP 4 cases\n"
    with pytest.raises(UsageError, match="tap"):
        get_reporter("nope")


@pytest.mark.usefixtures("fresh_registry")
def test_a_plugin_cannot_override_a_builtin_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(tmp_path / "site", monkeypatch, {"table": "boom", "junit": "render"})
    from zeroclaw_eval.reporters import junit, table

    assert get_reporter("table") is table.render
    assert get_reporter("junit") is junit.render
    assert reporter_names() == builtin_names()


@pytest.mark.usefixtures("fresh_registry")
def test_a_plugin_that_fails_to_load_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(tmp_path / "site", monkeypatch, {"broken": "no_such_attribute"})
    with pytest.raises(UsageError, match="broken"):
        get_reporter("broken")


@pytest.mark.usefixtures("fresh_registry")
def test_reset_registry_forgets_discovered_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "tap" not in reporter_names()
    install_plugin(tmp_path / "site", monkeypatch, {"tap": "render"})
    assert "tap" not in reporter_names()  # looked up once, then kept
    reset_registry()
    assert "tap" in reporter_names()
    monkeypatch.undo()
    reset_registry()
    assert reporter_names() == builtin_names()


# write_output -----------------------------------------------------------------------------


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
    monkeypatch.setattr("zeroclaw_eval.files.os.replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_output("x" * 100_000, str(target))
    assert target.read_text(encoding="utf-8") == "old report"
    assert list(tmp_path.iterdir()) == [target]


def test_write_output_makes_a_lone_surrogate_visible_instead_of_failing(tmp_path: Path) -> None:
    target = tmp_path / "eval.json"
    write_output('"a' + LONE_SURROGATE + 'b"', str(target))
    assert target.read_bytes() == b'"a\\ud800b"'
    assert json.loads(target.read_text(encoding="utf-8")) == "a" + LONE_SURROGATE + "b"


@pytest.mark.usefixtures("fresh_registry")
def test_render_report_with_a_raising_reporter_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(tmp_path / "site", monkeypatch, {"boom": "boom"})
    out = tmp_path / "out"
    out.mkdir()
    target = out / "eval.txt"
    target.write_text("old report", encoding="utf-8")
    with pytest.raises(RuntimeError, match="reporter exploded"):
        render_report(every_status_report(), "boom", str(target))
    assert target.read_text(encoding="utf-8") == "old report"
    assert list(out.iterdir()) == [target]


def test_render_report_writes_the_rendered_format(tmp_path: Path) -> None:
    report = every_status_report()
    target = tmp_path / "eval.json"
    assert render_report(report, "json", str(target)) == target
    assert target.read_text(encoding="utf-8") == get_reporter("json")(report)
