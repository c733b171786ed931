"""The OpenAI Agents SDK's runs as Logfire records them (`data/captured`), with one thing
changed: a tool span's result read when the agent did not send it back, a tool span that
ran other arguments, a Responses API reply of several parts and items, an output the
model span left empty."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.otlp_docs import any_value
from tests.importing.test_captured_variants import (
    PARIS,
    SUNNY,
    _attribute,
    _change,
    _import,
    _load,
    _refused,
    _spans,
)


def _span(data: dict[str, Any], template: str, index: int = 0) -> dict[str, Any]:
    """The `index`-th span of `data` whose template starts with `template`."""
    found = [
        item
        for item in _spans(data)
        if str((_attribute(item, "logfire.msg_template") or {}).get("stringValue", "")).startswith(template)
    ]
    return found[index]


def _set(item: dict[str, Any], key: str, value: Any) -> None:
    item["attributes"] = [pair for pair in item["attributes"] if pair["key"] != key]
    item["attributes"].append({"key": key, "value": any_value(value)})


def test_a_tool_spans_result_answers_a_call_the_agent_did_not_send_back(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    last = _span(data, "Chat completion with", 1)
    sent = json.loads(_attribute(last, "input")["stringValue"])
    _set(last, "input", json.dumps([message for message in sent if message.get("role") != "tool"]))
    fixture = _import(tmp_path, data)
    assert fixture["tool_doubles"] == {"get_weather": [{"when": PARIS, "result": SUNNY}]}
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": PARIS, "status": "ok"}
    ]


def test_a_tool_span_that_ran_other_arguments_proves_nothing_of_the_call(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    _change(data, "Function:", input=json.dumps({"city": "Lyon"}))
    fixture = _import(tmp_path, data)
    # The result the agent sent back answers the call; no span of it says how it went.
    assert fixture["expects"]["trajectory"]["calls"] == [{"tool": "get_weather", "args": PARIS}]
    assert fixture["tool_doubles"] == {"get_weather": [{"when": PARIS, "result": SUNNY}]}
    assert "all_tools_succeeded" not in fixture["expects"]


def test_a_model_span_whose_output_is_empty_recorded_no_reply(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    last = _span(data, "Chat completion with", 1)
    _set(last, "output", "[]")
    stderr = _refused(tmp_path, data)
    assert f"span {last['spanId']} (Chat completion with {{gen_ai.request.model!r}}): " in stderr
    assert "the model call recorded no reply, so there is no step to script" in stderr
    assert "Traceback" not in stderr


@pytest.mark.xfail(
    strict=True,
    reason="bug: an Agents SDK model span's reply is read from `output`, but a span that also holds"
    " `request_data` (as the captured one does) is refused naming `response_data`, which it does not hold",
)
def test_a_model_span_whose_output_is_empty_is_refused_naming_its_output(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    last = _span(data, "Chat completion with", 1)
    _set(last, "output", "[]")
    stderr = _refused(tmp_path, data)
    assert f"span {last['spanId']} (Chat completion with {{gen_ai.request.model!r}}): output: " in stderr


def _response(item: dict[str, Any]) -> dict[str, Any]:
    response: dict[str, Any] = json.loads(_attribute(item, "response")["stringValue"])
    return response


def test_a_responses_reply_is_the_text_of_its_output_text_parts_in_order(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents_responses")
    last = _span(data, "Responses API with", 1)
    response = _response(last)
    message = response["output"][0]
    message["content"] = [
        {"type": "output_text", "text": "It is sunny"},
        {"type": "refusal", "refusal": "I cannot say."},
        "not a part",
        {"type": "output_text", "text": " in Paris."},
    ]
    response["output"] = ["not an item", {"type": "reasoning", "summary": []}, message]
    _set(last, "response", json.dumps(response))
    fixture = _import(tmp_path, data)
    assert fixture["turns"][0]["steps"][-1]["response"]["content"] == "It is sunny in Paris."
    assert fixture["expects"]["response_contains"] == ["It is sunny in Paris."]


def test_a_responses_function_call_without_an_id_is_answered_by_its_place(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents_responses")
    first = _span(data, "Responses API with", 0)
    response = _response(first)
    del response["output"][0]["call_id"]
    _set(first, "response", json.dumps(response))
    fixture = _import(tmp_path, data)
    assert fixture["turns"][0]["steps"][0]["response"]["tool_calls"] == [
        {"id": "", "name": "get_weather", "arguments": PARIS}
    ]
    assert fixture["tool_doubles"]["get_weather"][0]["result"] == SUNNY


def test_a_responses_function_call_without_a_name_is_refused_not_named(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents_responses")
    first = _span(data, "Responses API with", 0)
    response = _response(first)
    del response["output"][0]["name"]
    _set(first, "response", json.dumps(response))
    stderr = _refused(tmp_path, data)
    assert "the fixture made of it is not admitted:" in stderr
    assert "/turns/0/steps/0/response/tool_calls/0/name: must not be empty" in stderr
