"""`zeroclaw eval import` on traces at the edges of size and depth: a conversation of
thousands of messages carried on from one trace to the next imports whole, and values
nested deeper than Python recurses are walked (scrubbed), their tool-call arguments
refused past the depth a fixture holds, never a `RecursionError`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.otlp_docs import (
    CALL,
    OTHER_TRACE,
    QUESTION,
    RESULT,
    TRACE,
    chat,
    document,
    execute_tool,
    message,
    text,
    tool_call,
    weather_spans,
)
from tests.support.invoke import Result, invoke
from zeroclaw_eval._support.json.depth import MAX_DEPTH


def _import(tmp_path: Path, data: Any) -> Result:
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(data))
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"), cwd=tmp_path)


def _fixture(tmp_path: Path) -> dict[str, Any]:
    (path,) = (tmp_path / "out").glob("*.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_a_long_conversation_carried_on_by_another_trace_imports_whole(tmp_path: Path) -> None:
    """Two thousand turns before the question, in a trace of one model call that a
    second trace carries on (each beginning of each request is indexed to find it)."""
    history = []
    for number in range(2000):
        history.append(message("user", text(f"Question {number}: is item {number} in stock?")))
        history.append(message("assistant", text(f"Answer {number}: item {number} is in stock.")))
    asked = [*history, QUESTION]
    spans = [
        chat("b1b1b1b1b1b1b1b1", 1, asked, [CALL], trace=TRACE),
        chat(
            "b2b2b2b2b2b2b2b2",
            40,
            [*asked, CALL, RESULT],
            [message("assistant", text("It is sunny in Paris."))],
            trace=OTHER_TRACE,
        ),
    ]
    result = _import(tmp_path, document(spans))
    assert result.code == 0, result.stderr
    assert f"trace {TRACE} is the start of trace {OTHER_TRACE}'s run, imported with it" in result.stderr
    fixture = _fixture(tmp_path)
    turns = fixture["turns"]
    assert len(turns) == 2001
    assert turns[1999]["user_input"] == "Question 1999: is item 1999 in stock?"
    assert turns[1999]["steps"] == [
        {"response": {"type": "text", "content": "Answer 1999: item 1999 is in stock."}}
    ]
    assert turns[-1]["user_input"] == "What is the weather in Paris?"
    assert [step["response"]["type"] for step in turns[-1]["steps"]] == ["tool_calls", "text"]
    assert fixture["provenance"]["span_ids"] == ["b1b1b1b1b1b1b1b1", "b2b2b2b2b2b2b2b2"]


def _nested(levels: int) -> dict[str, Any]:
    """An object that nests `levels` objects, itself the first."""
    value: dict[str, Any] = {"city": "Paris"}
    for _ in range(levels - 1):
        value = {"where": value}
    return value


def _calling(arguments: Any) -> list[dict[str, Any]]:
    """A run whose model calls `get_weather` with `arguments`."""
    call = message("assistant", tool_call("call_1", "get_weather", arguments))
    return [
        chat("b2b2b2b2b2b2b2b2", 1, [QUESTION], [call]),
        chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, call, RESULT], [message("assistant", text("Sunny."))]),
    ]


@pytest.mark.parametrize("as_text", [False, True], ids=["object", "json-text"])
def test_arguments_nested_deeper_than_python_recurses_are_refused_saying_so(
    tmp_path: Path, as_text: bool
) -> None:
    arguments = _nested(600)
    result = _import(tmp_path, document(_calling(json.dumps(arguments) if as_text else arguments)))
    assert result.code == 1
    assert (
        f"refused: trace {TRACE}: span b2b2b2b2b2b2b2b2 (chat gpt-4o): arguments: tool-call arguments"
        f" nest objects and arrays more than {MAX_DEPTH} levels deep, deeper than a fixture holds"
    ) in result.stderr
    assert "Traceback" not in result.stderr
    assert not list((tmp_path / "out").glob("*.json"))


def test_a_tool_spans_arguments_nested_too_deep_are_refused_naming_it(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[2] = execute_tool("c3c3c3c3c3c3c3c3", 20, "call_1", "get_weather", _nested(600), "sunny, 21C")
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert "span c3c3c3c3c3c3c3c3 (get_weather): arguments: tool-call arguments nest" in result.stderr


def test_arguments_as_deep_as_a_fixture_holds_import_and_one_level_more_is_refused(tmp_path: Path) -> None:
    deepest = _nested(MAX_DEPTH)
    assert _import(tmp_path, document(_calling(deepest))).code == 0
    assert _fixture(tmp_path)["expects"]["trajectory"]["calls"][0]["args"] == deepest
    deeper = tmp_path / "deeper"
    deeper.mkdir()
    result = _import(deeper, document(_calling(_nested(MAX_DEPTH + 1))))
    assert result.code == 1
    assert f"more than {MAX_DEPTH} levels deep" in result.stderr


def test_a_message_part_nested_deeper_than_python_recurses_is_walked_not_recursed(tmp_path: Path) -> None:
    deep: Any = "alice@corp.com"
    for _ in range(600):
        deep = [deep]
    asked = message("user", {"type": "blob", "content": deep})
    result = _import(
        tmp_path, document([chat("b2b2b2b2b2b2b2b2", 1, [asked], [message("assistant", text("Hi."))])])
    )
    assert result.code == 1  # scrubbed, then refused as a message with no text
    assert "a user message holds no text" in result.stderr


def test_a_nameless_tool_spans_arguments_nested_too_deep_are_refused_naming_its_id(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[2] = execute_tool("c3c3c3c3c3c3c3c3", 20, "call_1", "", _nested(600), "sunny, 21C")
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert (
        f"refused: trace {TRACE}: span c3c3c3c3c3c3c3c3: arguments: tool-call arguments nest objects and"
        f" arrays more than {MAX_DEPTH} levels deep, deeper than a fixture holds (its JSON values nest"
        f" {MAX_DEPTH} levels at most), so no fixture of it would load\n"
    ) in result.stderr
