"""`zeroclaw_eval.reporters.safety`: untrusted text made harmless in XML, HTML, JSON and CI logs."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

import pytest

from tests.ci_log import (
    HOSTILE,
    LONE_SURROGATE,
    NET_WHITESPACE,
    XML_ILLEGAL,
    command_lines,
    executed_commands,
)
from zeroclaw_eval.reporters.safety import (
    neutralize_json,
    neutralize_markup,
    one_line,
    stop_commands,
    xml_safe,
)


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
