"""The checks an import suggests, read off the recorded run: the needles of the final
answer, of each earlier turn's answer and of each tool's result (the first line that says
something, cut to 120 characters, without what scrubbing wrote; a JSON result's first
string value), the raw arguments no trajectory can compare, the doubles in the order a
replay must find them, and what provenance says of when the run started."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.otlp_docs import (
    ANSWER,
    QUESTION,
    TRACE,
    chat,
    document,
    execute_tool,
    message,
    span,
    text,
    tool_call,
    tool_response,
)
from tests.importing.test_scrubbing import FIRST, LAST, _import, _run_saying, _written


def _fixture(tmp_path: Path, spans: list[dict[str, Any]]) -> dict[str, Any]:
    result = _import(tmp_path, document(spans))
    assert result.code == 0, result.stderr
    fixture: dict[str, Any] = json.loads(_written(tmp_path))
    return fixture


def test_the_answers_needle_is_its_first_line_that_says_something_cut_to_120_characters(
    tmp_path: Path,
) -> None:
    answer = "--\n  " + "word " * 40 + "\nThe second line."
    fixture = _fixture(tmp_path, _run_saying("Look it up.", {"q": "x"}, "found", answer))
    assert fixture["expects"]["response_contains"] == [("word " * 24).rstrip()]


def test_the_answers_needle_leaves_out_what_scrubbing_wrote(tmp_path: Path) -> None:
    answer = "Sent it to ana@corp.io."
    fixture = _fixture(tmp_path, _run_saying("Send it.", {"q": "x"}, "sent", answer))
    assert fixture["turns"][0]["steps"][1]["response"]["content"] == "Sent it to zeroclaw_user@example.com."
    assert fixture["expects"]["response_contains"] == ["Sent it to"]


def test_an_answer_with_nothing_to_say_suggests_no_needle(tmp_path: Path) -> None:
    fixture = _fixture(tmp_path, _run_saying("Look it up.", {"q": "x"}, "found", "OK\n:)"))
    assert "response_contains" not in fixture["expects"]
    assert fixture["expects"]["tools_used"] == ["lookup"]


@pytest.mark.parametrize(
    ("result", "needle"),
    [
        ('{"temp": 21, "sky": {"summary": "sunny and warm"}}', "sunny and warm"),
        ('{"summary": "sunny and warm", "detail": {"note": "a nested note"}}', "sunny and warm"),
        ('  ["sunny, 21C", 3]', "sunny, 21C"),
        ("\n  ok\nsunny, 21C in Paris\nwindy", "sunny, 21C in Paris"),
        ("{not json} sunny", "{not json} sunny"),
        ("x" * 130, "x" * 120),
    ],
    ids=[
        "json-object",
        "outermost-first",
        "json-array",
        "first-line-that-says-something",
        "braced-text",
        "cut-to-120",
    ],
)
def test_a_tool_results_needle_is_its_first_text_that_says_something(
    tmp_path: Path, result: str, needle: str
) -> None:
    fixture = _fixture(tmp_path, _run_saying("Look it up.", {"q": "x"}, result))
    assert fixture["expects"]["tool_results_contain"] == [
        {"tool": "lookup", "needle": needle, "call_index": 0}
    ]
    assert fixture["tool_doubles"]["lookup"] == [{"when": {"q": "x"}, "result": result}]


@pytest.mark.parametrize("result", ['{"temp": 21}', '{"id": "ab", "temp": 21}', "[[]]", "ok"])
def test_a_tool_result_with_nothing_to_say_suggests_no_needle(tmp_path: Path, result: str) -> None:
    fixture = _fixture(tmp_path, _run_saying("Look it up.", {"q": "x"}, result))
    assert "tool_results_contain" not in fixture["expects"]
    assert fixture["tool_doubles"]["lookup"] == [{"when": {"q": "x"}, "result": result}]


def test_a_json_result_written_with_escapes_imports_with_a_needle_its_text_holds(tmp_path: Path) -> None:
    result = '{"city": "Z\\u00fcrich", "sky": "sunny"}'
    fixture = _fixture(tmp_path, _run_saying("Look it up.", {"q": "x"}, result))
    assert fixture["tool_doubles"]["lookup"] == [{"when": {"q": "x"}, "result": result}]
    # The needle is a value the result's text holds as written: `Zürich` it does not.
    expected = [{"tool": "lookup", "needle": "sunny", "call_index": 0}]
    assert fixture["expects"]["tool_results_contain"] == expected


def _two_calls(first: Any, second: Any, results: tuple[str, str] = ("one", "two")) -> list[dict[str, Any]]:
    """A run whose model calls `lookup` with `first`, then with `second`, each answered."""
    asked = message("user", text("Look both up."))
    one = message("assistant", tool_call("call_1", "lookup", first))
    two = message("assistant", tool_call("call_2", "lookup", second))
    fed_one = message("tool", tool_response("call_1", results[0]))
    fed_two = message("tool", tool_response("call_2", results[1]))
    root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"}
    return [
        span("a1a1a1a1a1a1a1a1", "invoke_agent", 0, root),
        chat(FIRST, 1, [asked], [one]),
        chat("c3c3c3c3c3c3c3c3", 20, [asked, one, fed_one], [two]),
        chat(LAST, 40, [asked, one, fed_one, two, fed_two], [ANSWER]),
    ]


def test_doubles_asking_for_more_arguments_come_first(tmp_path: Path) -> None:
    fixture = _fixture(tmp_path, _two_calls({"city": "Paris"}, {"city": "Paris", "unit": "C"}))
    assert fixture["tool_doubles"]["lookup"] == [
        {"when": {"city": "Paris", "unit": "C"}, "result": "two"},
        {"when": {"city": "Paris"}, "result": "one"},
    ]
    assert fixture["expects"]["tool_results_contain"] == [
        {"tool": "lookup", "needle": "one", "call_index": 0},
        {"tool": "lookup", "needle": "two", "call_index": 1},
    ]


def test_the_same_answer_twice_in_a_row_is_one_double(tmp_path: Path) -> None:
    fixture = _fixture(tmp_path, _two_calls({"city": "Paris"}, {"city": "Paris"}, ("same", "same")))
    assert fixture["tool_doubles"]["lookup"] == [{"when": {"city": "Paris"}, "result": "same"}]


def test_raw_argument_text_is_a_needle_cut_to_120_characters(tmp_path: Path) -> None:
    raw = "first " + "y" * 130
    fixture = _fixture(tmp_path, _run_saying("Look it up.", {}, "found", raw=raw))
    assert fixture["expects"]["tool_arguments_contain"] == [
        {"tool": "lookup", "needle": raw[:120], "call_index": 0}
    ]
    # Text is no object: the trajectory names the tool only, the needle holds the text.
    assert fixture["expects"]["trajectory"]["calls"] == [{"tool": "lookup"}]


def test_each_earlier_turns_answer_is_a_needle_of_its_own(tmp_path: Path) -> None:
    first = message("user", text("Hi."))
    hello = message("assistant", text("Hello, how can I help?"))
    fine = message("user", text("Fine."))
    ok = message("assistant", text("OK"))
    root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"}
    spans = [
        span("a1a1a1a1a1a1a1a1", "invoke_agent", 0, root),
        chat(FIRST, 1, [first], [hello]),
        chat("c3c3c3c3c3c3c3c3", 20, [first, hello, fine], [ok]),
        chat(LAST, 40, [first, hello, fine, ok, QUESTION], [ANSWER]),
    ]
    fixture = _fixture(tmp_path, spans)
    assert [turn["user_input"] for turn in fixture["turns"]] == [
        "Hi.",
        "Fine.",
        "What is the weather in Paris?",
    ]
    # The second turn's answer says nothing a needle could hold: no check of it.
    assert fixture["expects"]["turn_response_contains"] == [{"turn": 0, "needle": "Hello, how can I help?"}]
    assert fixture["expects"]["response_contains"] == ["It is sunny in Paris."]
    # Nothing was dispatched, and nothing must be.
    assert fixture["expects"]["exact_tool_calls"] == 0
    assert "tools_used" not in fixture["expects"]
    assert "tool_doubles" not in fixture


def test_a_start_no_calendar_holds_is_left_out_of_the_provenance(tmp_path: Path) -> None:
    spans = _run_saying("Look it up.", {"q": "x"}, "found")
    for item in spans:
        item["startTimeUnixNano"] = 10**22 + int(item["startTimeUnixNano"])
        item["endTimeUnixNano"] = item["startTimeUnixNano"] + 10
    provenance = _fixture(tmp_path, spans)["provenance"]
    assert provenance == {
        "format": "otel-genai",
        "source": str(tmp_path / "traces.json"),
        "trace_id": TRACE,
        "span_ids": [FIRST, LAST],
        "service": "weather-service",
        "provider": "openai",
    }


def test_the_trace_provenance_names_each_span_once_in_the_order_used(tmp_path: Path) -> None:
    asked = message("user", text("Send it."))
    call = message("assistant", tool_call("call_1", "send", {"to": "x"}))
    root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"}
    spans = [
        span("a1a1a1a1a1a1a1a1", "invoke_agent", 0, root),
        chat(FIRST, 1, [asked], [call]),
        execute_tool("c3c3c3c3c3c3c3c3", 20, "call_1", "send", {"to": "x"}, "sent"),
        chat(LAST, 40, [asked, call, message("tool", tool_response("call_1", "sent"))], [ANSWER]),
    ]
    provenance = _fixture(tmp_path, spans)["provenance"]
    assert provenance["span_ids"] == [FIRST, "c3c3c3c3c3c3c3c3", LAST]
    assert provenance["started"] == "2026-12-01T09:00:00.000Z"
