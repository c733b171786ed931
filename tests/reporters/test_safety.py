"""`zeroclaw_eval.reporters.safety`: untrusted text made harmless in XML, HTML, JSON and CI logs."""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

import pytest

from tests.support.ci_log import (
    HOSTILE,
    LONE_SURROGATE,
    NET_WHITESPACE,
    XML_ILLEGAL,
    command_lines,
    executed_commands,
)
from tests.support.reports import every_status_report
from zeroclaw_eval.reporters import builtin_names, get_reporter
from zeroclaw_eval.reporters.github import step_summary
from zeroclaw_eval.reporters.safety import (
    MarkupNeutralizer,
    encodable,
    encoded,
    log_line,
    neutralize_json,
    neutralize_markup,
    one_line,
    shorten,
    shown_lines,
    stop_commands,
    visible,
    xml_safe,
)


@pytest.mark.parametrize(
    "char", list(XML_ILLEGAL + "\ud800\udfff\ufdd0\U0001fffe\U0010ffff"), ids=lambda c: f"U+{ord(c):04X}"
)
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


def test_one_line_joins_every_line_break_into_single_spaces() -> None:
    assert one_line("a\nb\r\nc\rd \t e\u2028f") == "a b c d e f"


def test_one_line_cuts_after_the_limit_with_an_ellipsis() -> None:
    assert one_line("x" * 10, limit=10) == "x" * 10
    cut = one_line("x" * 11, limit=10)
    assert cut == "x" * 9 + "…"
    assert len(cut) == 10


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


def _in_pieces(document: str, cuts: list[int]) -> str:
    """`document` neutralised a piece at a time, cut at `cuts`."""
    neutral = MarkupNeutralizer()
    bounds = [0, *cuts, len(document)]
    return "".join(neutral.feed(document[a:b]) for a, b in itertools.pairwise(bounds)) + neutral.flush()


#: Every sequence the runner reads, each of which could straddle two pieces of a page.
STRADDLING = (
    "<pre>a : kept\r\n::error::crlf\r::error::cr\n \u3000::warning::blanks\n##[error]x ###[y #\n:</pre>\n"
)


@pytest.mark.parametrize("document", [STRADDLING, f"<pre>{HOSTILE}</pre>"], ids=["straddling", "hostile"])
def test_neutralize_markup_in_pieces_equals_the_whole_wherever_the_pieces_break(document: str) -> None:
    # A page is written a piece at a time: a CR LF, a `##[` or a line's blanks and `::`
    # cut in two must be found as in the whole document.
    whole = neutralize_markup(document)
    assert command_lines(whole) == []
    assert "##[" not in whole
    for cut in range(len(document) + 1):
        assert _in_pieces(document, [cut]) == whole, cut
    assert _in_pieces(document, list(range(1, len(document)))) == whole  # a character at a time


def test_neutralize_markup_in_pieces_is_linear_on_a_long_run_of_blanks() -> None:
    document = "<a>\n" + " " * 200_000 + "::error::x</a>"
    neutral = _in_pieces(document, list(range(1, len(document), 7)))
    assert neutral == neutralize_markup(document)
    assert command_lines(neutral) == []


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


# Terminals, surrogates, cutting ------------------------------------------------------------

#: What a terminal would obey: clear screen, set the title (OSC ... BEL), an OSC 8 link,
#: an 8-bit CSI, a bidi override and isolate, a lone surrogate and an undecodable byte.
TERMINAL = (
    "\x1b[2J\x1b]0;pwned\x07\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\"
    "\x9b31m\x85\u202eevil\u2066x\u2069\x00\x7f\ud800\udcff"
)


def test_visible_shows_every_control_character_instead_of_obeying_it() -> None:
    shown = visible(TERMINAL)
    assert shown == (
        "\\x1b[2J\\x1b]0;pwned\\x07\\x1b]8;;https://example.com\\x1b\\link\\x1b]8;;\\x1b\\"
        "\\x9b31m\\x85\\u202eevil\\u2066x\\u2069\\x00\\x7f\\ud800\\udcff"
    )
    assert shown.isprintable()


def test_visible_keeps_newlines_and_tabs_on_many_lines_and_shows_them_on_one() -> None:
    assert visible("a\tb\r\nc\rd\ne") == "a\tb\nc\\rd\ne"
    assert visible("a\tb\r\nc\rd\ne", multiline=False) == "a\\tb\\r\\nc\\rd\\ne"
    assert visible("é 東京 \U0001f600 ::error::x") == "é 東京 \U0001f600 ::error::x"


def test_log_line_is_one_line_that_forges_no_command() -> None:
    line = log_line("x\n::error::FORGED.json ##[error]y\r::add-mask::z" + TERMINAL)
    assert "\n" not in line
    assert "\r" not in line
    assert "\x1b" not in line
    assert executed_commands(f"[1/2] ✗ {line}\n") == []
    assert line.isprintable()


#: What shows as nothing: two names holding these look alike unless they are shown.
HIDDEN = "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u00ad\u061c"


def test_visible_shows_what_would_show_as_nothing() -> None:
    assert visible("a" + HIDDEN + "b") == "a\\u200b\\u200c\\u200d\\u200e\\u200f\\u2060\\ufeff\\xad\\u061cb"


def test_shown_lines_keeps_its_lines_and_forges_no_command_on_any() -> None:
    message = "Error: bad value\n  ::error::FORGED\n\u00a0::add-mask::x\n##[group]y" + TERMINAL + HIDDEN
    shown = shown_lines(message)
    assert shown.split("\n")[:2] == ["Error: bad value", "  \\x3a:error::FORGED"]
    assert executed_commands(shown + "\n") == []
    assert "##[" not in shown
    assert all(line.replace("\u00a0", " ").isprintable() for line in shown.split("\n"))


def test_neutralize_json_shows_what_a_terminal_would_obey_as_the_same_string() -> None:
    data = {"name": "\x9b2J\x85\u202eevil\u2066" + HIDDEN + "\u2028 \x7f"}
    text = neutralize_json(json.dumps(data, ensure_ascii=False))
    assert json.loads(text) == data
    assert text.isprintable()


def test_encodable_writes_lone_surrogates_as_escapes_that_read_back_in_json() -> None:
    assert encodable("a\ud800b\udcffc 東京") == "a\\ud800b\\udcffc 東京"
    text = json.dumps({"k": "a\ud800b"}, ensure_ascii=False)
    assert json.loads(encodable(text)) == {"k": "a\ud800b"}


@pytest.mark.parametrize("text", ["a\ud800b\udcffc 東京", "\udbff\udfff", "plain", ""])
def test_encoded_is_the_encodable_text_in_utf8(text: str) -> None:
    # Files are written with `encoded`, in one pass: the same bytes as `encodable`'s text.
    assert encoded(text) == encodable(text).encode("utf-8")


def test_shorten_cuts_with_an_ellipsis_and_says_how_much_was_cut() -> None:
    assert shorten("x" * 10, 10) == "x" * 10
    assert shorten("x" * 11, 10) == "x" * 9 + "…"
    assert shorten("x" * 2000, 10, " [{cut} cut]") == "x" * 9 + "… [1,991 cut]"


# Linear on pathological input: each of these would take the quadratic rule minutes ------

PATHOLOGICAL = {
    "newlines": "\n" * 200_000,
    "spaces": " " * 200_000,
    "colons": ":" * 200_000,
    "space-newline": " \n" * 100_000,
    "carriage-returns": "\r" * 200_000,
    "blank-colon-lines": " :\n" * 70_000,
}


@pytest.mark.parametrize("text", list(PATHOLOGICAL.values()), ids=list(PATHOLOGICAL))
def test_neutralize_markup_is_linear_and_still_defuses(text: str) -> None:
    # The run ends in no colon: the quadratic rule rescanned the rest of it from each line.
    document = f"<a>{text}x\n  ::error::x</a>"
    assert command_lines(neutralize_markup(document)) == []


# Every reporter, every hostile text -------------------------------------------------------

CORPUS = {
    "hostile": HOSTILE,
    "terminal": TERMINAL,
    "surrogates": "x\ud800y \udcff z \udfff",
    "urls": "see https://tracker.example.com/p.png www.example.com zeroclaw_user@example.com",
    # A tenth of the size below: the properties are the same, and slow to check on more.
    **{name: f"{text[: len(text) // 10]}::error::x" for name, text in PATHOLOGICAL.items()},
}


def _reports() -> list[object]:
    return [pytest.param(text, id=name) for name, text in CORPUS.items()]


def _rendered(text: str) -> dict[str, str]:
    report = every_status_report(text)
    report.suite = f"evals/{text[:40]}"
    outputs = {name: get_reporter(name)(report) for name in builtin_names()}
    outputs["summary"] = step_summary(report)
    return outputs


@pytest.mark.parametrize("text", list(PATHOLOGICAL.values()), ids=list(PATHOLOGICAL))
def test_every_reporter_renders_pathological_text_in_linear_time(text: str) -> None:
    # Completing is the test: the quadratic rule of old took minutes on each of these.
    for output in _rendered(text).values():
        output.encode("utf-8")


@pytest.mark.parametrize("text", _reports())
def test_every_reporter_keeps_any_text_harmless(text: str) -> None:
    # One rendering per text, every property checked on it: the pathological texts are
    # big, and would take the quadratic rule of old minutes per reporter.
    outputs = _rendered(text)
    _encodable_utf8(text, outputs)
    _no_command_but_the_reporters_own(outputs)
    _junit_parses_with_lxml_and_junitparser(outputs["junit"])
    _html_holds_no_live_injected_markup(outputs["html"])
    _summary_links_nothing(outputs["summary"])


def _encodable_utf8(text: str, outputs: dict[str, str]) -> None:
    for name, output in outputs.items():
        output.encode("utf-8")  # strict: a lone surrogate is never left in
        if "\ud800" in text:
            assert "\\ud800" in output or "#xD800" in output, name


def _no_command_but_the_reporters_own(outputs: dict[str, str]) -> None:
    # (The step summary is a file GitHub renders as Markdown, never read as a log.)
    for name in ("json", "junit", "html"):
        assert executed_commands(outputs[name]) == [], name
    # The table quotes model text verbatim: in a CI log it is fenced off (`render_report`).
    assert [c.name for c in executed_commands(stop_commands(outputs["table"]))] == ["stop-commands"]
    annotations = outputs["github"]
    assert len(executed_commands(annotations)) == annotations.count("\n")
    assert all(line.startswith(("::error ", "::notice ")) for line in annotations.splitlines())


def _junit_parses_with_lxml_and_junitparser(junit: str) -> None:
    from junitparser import JUnitXml
    from lxml import etree

    xml = junit.encode("utf-8")
    assert etree.fromstring(xml).tag == "testsuites"  # no huge_tree: the default limits
    assert len(list(next(iter(JUnitXml.fromstring(xml))))) == 4


def _html_holds_no_live_injected_markup(html: str) -> None:
    from tests.support.html_page import parse

    page = parse(html)
    # The template's own word-diff marks are the only tags text may add.
    assert {tag.name for tag in page.tags} <= _BENIGN_TAGS | {"del", "ins"}
    assert len(page.scripts) == 1
    assert not [tag for tag in page.tags if any(key.startswith("on") for key in tag.attrs)]


def _summary_links_nothing(summary: str) -> None:
    outside_code = re.sub(r"(`+)(?:(?!\1).)*?\1", "", summary.split("<details>")[0])
    for autolinked in ("http", "www.", "@example"):
        assert autolinked not in outside_code


def _tag_names(text: str) -> set[str]:
    from tests.support.html_page import parse

    return {tag.name for tag in parse(get_reporter("html")(every_status_report(text))).tags}


_BENIGN_TAGS = _tag_names("plain words")
