"""A trace that cannot replay as it was recorded is refused, each refusal said whole:
naming the trace, the span (and its name) and the attribute a user looks at in their
tracing UI, and why, so the trace can be fixed at its source; a model call that failed
with no reply, or a request the trace also answers elsewhere, is no step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.importing.otlp_docs import (
    ANSWER,
    CALL,
    QUESTION,
    RESULT,
    TRACE,
    chat,
    document,
    execute_tool,
    message,
    span,
    text,
    tool_call,
    tool_response,
    weather_spans,
)
from tests.support.invoke import Result, invoke

ROOT, FIRST, TOOL, LAST = "a1a1a1a1a1a1a1a1", "b2b2b2b2b2b2b2b2", "c3c3c3c3c3c3c3c3", "d4d4d4d4d4d4d4d4"
CAPTURE = (
    "is message content capture on? (for OpenTelemetry's GenAI instrumentations,"
    " OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)"
)


def _import(tmp_path: Path, spans: list[dict[str, Any]]) -> Result:
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(document(spans)), encoding="utf-8")
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))


def _refused(tmp_path: Path, spans: list[dict[str, Any]]) -> str:
    """The one refusal line the import of `spans` says (nothing written)."""
    result = _import(tmp_path, spans)
    assert result.code == 1, result.stderr
    assert not list((tmp_path / "out").glob("*.json"))
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("refused: ")]
    return line


def _root() -> dict[str, Any]:
    return span(
        ROOT, "invoke_agent", 0, {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"}
    )


def test_a_trace_of_tool_runs_only_says_to_capture_message_content(tmp_path: Path) -> None:
    spans = [_root(), execute_tool(TOOL, 20, "call_1", "get_weather", {"city": "Paris"}, "sunny")]
    assert _refused(tmp_path, spans) == f"refused: trace {TRACE}: no model call with its messages: {CAPTURE}"


def test_a_model_call_that_recorded_nothing_says_to_capture_message_content(tmp_path: Path) -> None:
    bare = span(FIRST, "chat gpt-4o", 1, {"gen_ai.operation.name": "chat"})
    assert _refused(tmp_path, [bare]) == (
        f"refused: trace {TRACE}: span {FIRST} (chat gpt-4o): gen_ai.output.messages: the model call"
        f" recorded neither its messages nor its reply: {CAPTURE}"
    )


def test_a_trace_whose_every_model_call_failed_with_no_reply_is_refused(tmp_path: Path) -> None:
    failed = chat(FIRST, 1, [QUESTION], None)
    failed["status"] = {"code": 2, "message": "429 Too Many Requests"}
    again = {**chat(LAST, 40, [QUESTION], None), "status": {"code": 2}}
    assert _refused(tmp_path, [_root(), failed, again]) == (
        f"refused: trace {TRACE}: span {FIRST} (chat gpt-4o): every model call of the trace failed"
        " with no reply"
    )


def test_a_failed_request_with_a_reply_is_still_a_step(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[3]["status"] = {"code": 2}
    result = _import(tmp_path, spans)
    assert result.code == 0, result.stderr
    (path,) = (tmp_path / "out").glob("*.json")
    steps = json.loads(path.read_text(encoding="utf-8"))["turns"][0]["steps"]
    assert [step["response"]["type"] for step in steps] == ["tool_calls", "text"]


def test_a_request_without_a_user_message_is_refused(tmp_path: Path) -> None:
    system = message("system", text("You are terse."))
    spans = [_root(), chat(FIRST, 1, [system], [ANSWER])]
    assert _refused(tmp_path, spans) == (
        f"refused: trace {TRACE}: span {FIRST} (chat gpt-4o): input messages: the request holds no user"
        " message to start from"
    )


def test_a_request_that_carries_other_calls_than_the_trace_recorded_is_refused(tmp_path: Path) -> None:
    other = message("assistant", tool_call("call_9", "get_weather", {"city": "Paris"}))
    fed = message("tool", tool_response("call_9", "sunny, 21C"))
    spans = [_root(), chat(FIRST, 1, [QUESTION], [CALL]), chat(LAST, 40, [QUESTION, other, fed], [ANSWER])]
    assert _refused(tmp_path, spans) == (
        f"refused: trace {TRACE}: span {LAST} (chat gpt-4o): input messages: model reply 1 of the request"
        " calls ['call_9'], but the trace recorded calls ['call_1']: a model call is missing from the trace"
    )


def test_a_request_that_carries_calls_without_ids_is_compared_by_nothing_else(tmp_path: Path) -> None:
    nameless = message("assistant", tool_call("", "get_weather", {"city": "Paris"}))
    fed = message("tool", tool_response("", "sunny, 21C"))
    spans = [_root(), chat(FIRST, 1, [QUESTION], [CALL]), chat(LAST, 40, [QUESTION, nameless, fed], [ANSWER])]
    result = _import(tmp_path, spans)
    assert result.code == 0, result.stderr


def test_a_turn_cut_off_before_its_answer_is_refused_naming_its_last_call(tmp_path: Path) -> None:
    spans = [_root(), *weather_spans()[1:3]]
    assert _refused(tmp_path, spans) == (
        f"refused: trace {TRACE}: span {FIRST} (chat gpt-4o): turn 1 ends without the model's text answer:"
        " the trace was cut off"
    )


def test_a_tool_call_with_no_result_anywhere_is_refused_naming_its_id(tmp_path: Path) -> None:
    unnamed = message("assistant", tool_call("", "get_weather", {"city": "Paris"}))
    spans = [_root(), chat(FIRST, 1, [QUESTION], [unnamed]), chat(LAST, 40, [QUESTION], [ANSWER])]
    assert _refused(tmp_path, spans) == (
        f"refused: trace {TRACE}: span {FIRST} (chat gpt-4o): output messages: the tool call get_weather"
        " (id none) has no result: no later model call carries it and no tool span recorded one (the trace"
        " was cut off?)"
    )


def test_a_tool_span_that_never_ended_is_refused_naming_it(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[2]["endTimeUnixNano"] = "0"
    assert _refused(tmp_path, spans) == (
        f"refused: trace {TRACE}: span {TOOL} (get_weather): the tool span never ended: the trace was cut off"
        " mid-run"
    )


def test_a_model_span_that_never_ended_is_refused_naming_it(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[3]["endTimeUnixNano"] = "0"
    assert _refused(tmp_path, spans) == (
        f"refused: trace {TRACE}: span {LAST} (chat gpt-4o): the span never ended: the trace was cut off"
        " mid-run"
    )


def test_cut_arguments_are_refused_naming_the_tool_span_that_has_them(tmp_path: Path) -> None:
    cut = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": '{"city": "Pa'}],
    }
    spans = weather_spans()
    spans[1] = chat(FIRST, 1, [QUESTION], [cut])
    spans[3] = chat(LAST, 40, [QUESTION, cut, RESULT], [ANSWER])
    assert _refused(tmp_path, spans) == (
        f"refused: trace {TRACE}: span {FIRST} (chat gpt-4o): output messages: the arguments of the tool call"
        f" get_weather are not JSON, while the tool span {TOOL} recorded them whole: were they cut by an"
        " attribute length limit?"
    )


def test_a_user_message_before_the_next_one_with_no_reply_is_the_agents_preamble(tmp_path: Path) -> None:
    preamble = message("user", text("Context: the user is in Europe."))
    earlier = message("user", text("Hi."))
    hello = message("assistant", text("Hello!"))
    spans = [_root(), chat(FIRST, 1, [preamble, earlier, hello, QUESTION], [ANSWER])]
    result = _import(tmp_path, spans)
    assert result.code == 0, result.stderr
    (path,) = (tmp_path / "out").glob("*.json")
    turns = json.loads(path.read_text(encoding="utf-8"))["turns"]
    assert turns == [
        {"user_input": "Hi.", "steps": [{"response": {"type": "text", "content": "Hello!"}}]},
        {
            "user_input": "What is the weather in Paris?",
            "steps": [{"response": {"type": "text", "content": "It is sunny in Paris."}}],
        },
    ]


def test_a_reply_with_text_beside_its_calls_scripts_both_and_only_counted_tokens(tmp_path: Path) -> None:
    said = message("assistant", text("Let me look."), tool_call("call_1", "get_weather", {"city": "Paris"}))
    spans = weather_spans()
    spans[1] = chat(FIRST, 1, [QUESTION], [said], tools=["get_weather"])
    spans[1]["attributes"] += [
        {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "0"}},
        {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "9"}},
    ]
    spans[3] = chat(LAST, 40, [QUESTION, said, RESULT], [ANSWER], tools=["get_weather"])
    result = _import(tmp_path, spans)
    assert result.code == 0, result.stderr
    (path,) = (tmp_path / "out").glob("*.json")
    first = json.loads(path.read_text(encoding="utf-8"))["turns"][0]["steps"][0]["response"]
    assert first == {
        "type": "tool_calls",
        "content": "Let me look.",
        "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}],
        "output_tokens": 9,
    }


def test_a_step_read_from_the_history_leaves_the_tools_offered_unknown(tmp_path: Path) -> None:
    earlier = message("user", text("Hi."))
    hello = message("assistant", text("Hello!"))
    spans = [_root(), chat(FIRST, 1, [earlier, hello, QUESTION], [CALL], tools=["get_weather"])]
    spans += weather_spans()[2:3]
    spans.append(chat(LAST, 40, [earlier, hello, QUESTION, CALL, RESULT], [ANSWER], tools=["get_weather"]))
    result = _import(tmp_path, spans)
    assert result.code == 0, result.stderr
    (path,) = (tmp_path / "out").glob("*.json")
    fixture = json.loads(path.read_text(encoding="utf-8"))
    assert fixture["tools"] == ["get_weather"]
    assert "tools_offered" not in fixture["expects"]
