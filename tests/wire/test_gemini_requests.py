"""`wire.gemini`'s server half: a `generateContent` request read through the endpoint as
the conversation the script follows, in either key spelling google-genai writes, and what
it refuses with a 400."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire import gemini
from zeroclaw_eval.wire.base import WireRequest
from zeroclaw_eval.wire.endpoint import Endpoint

PATH = "/v1beta/models/gemini-x:generateContent"
USER: dict[str, Any] = {"role": "user", "parts": [{"text": "hi"}]}


def _taken(request: dict[str, Any], endpoint: Endpoint | None = None, path: str = PATH) -> WireRequest:
    taken = (endpoint or Endpoint()).take("POST", path, json.dumps(request).encode(), None)
    assert isinstance(taken, WireRequest), taken
    return taken


def test_a_request_reads_as_its_conversation_tools_and_choice() -> None:
    request = {
        "systemInstruction": {"parts": [{"text": "Thinking...", "thought": True}, {"text": "Be brief."}]},
        "contents": [USER],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "echo", "description": "Echo.", "parameters": {"type": "object"}}
                ]
            }
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
    }
    taken = _taken(request)
    assert (taken.api, taken.number, taken.model) == ("gemini", 1, "gemini-x")
    assert taken.messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert taken.tools == [ToolSpec("echo", "Echo.", {"type": "object"})]
    assert (taken.stream, taken.include_usage) == (False, True)
    assert taken.choice == ToolChoice("required")
    assert taken.choice.said == 'toolConfig.functionCallingConfig {"mode":"ANY"}'
    assert taken.body == request


def test_snake_case_keys_read_as_camel_case_ones() -> None:
    request = {
        "system_instruction": "Be brief.",
        "contents": {"parts": [{"text": "Echo x"}]},  # one content, its role left out
        "tools": [
            {
                "function_declarations": [
                    {"name": "echo", "parameters_json_schema": {"type": "object"}, "parameters": {"x": 1}}
                ]
            },
            {"googleSearch": {}},
        ],
        "tool_config": {"function_calling_config": {"mode": "none"}},
    }
    taken = _taken(request)
    assert taken.messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Echo x"},
    ]
    assert taken.tools == [ToolSpec("echo", "", {"type": "object"})]
    assert taken.choice == ToolChoice("none")


def test_a_system_instruction_without_text_adds_no_message() -> None:
    assert _taken({"systemInstruction": {"parts": []}, "contents": [USER]}).messages == [
        {"role": "user", "content": "hi"}
    ]
    assert _taken({"systemInstruction": {"role": "system"}, "contents": [USER]}).messages == [
        {"role": "user", "content": "hi"}
    ]


def test_a_tool_round_reads_as_calls_and_their_results() -> None:
    request = {
        "contents": [
            USER,
            {
                "role": "model",
                "parts": [
                    {"text": "Looking."},
                    {"function_call": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}},
                    {"functionCall": {"id": "c2", "name": "list_dir"}},
                ],
            },
            {
                "role": "function",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c1",
                            "name": "get_weather",
                            "response": {"output": "sunny"},
                        }
                    },
                    {"function_response": {"id": "c2", "name": "list_dir", "response": {"error": "denied"}}},
                    {"text": "Thanks."},
                ],
            },
        ]
    }
    assert _taken(request).messages == [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "denied", "is_error": True},
        {"role": "user", "content": "Thanks."},
    ]


@pytest.mark.parametrize(
    ("response", "content", "failed"),
    [
        ({"result": "sunny"}, "sunny", False),
        ({"output": 21}, '{"output":21}', False),
        ({"answer": "sunny"}, '{"answer":"sunny"}', False),
        ({"error": ""}, "", False),
        ({"error": None}, '{"error":null}', False),
        ({"error": "boom", "detail": "x"}, '{"error":"boom","detail":"x"}', False),
        ({"error": {"code": 1}}, '{"error":{"code":1}}', True),
        (None, "{}", False),
        ("plain", '"plain"', False),
    ],
)
def test_a_function_response_reads_as_its_text_and_only_a_lone_error_fails_the_call(
    response: Any, content: str, failed: bool
) -> None:
    part = {"functionResponse": {"id": "c1", "name": "echo", "response": response}}
    (result,) = _taken({"contents": [{"role": "user", "parts": [part]}]}).messages
    assert result == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": content,
        **({"is_error": True} if failed else {}),
    }


def test_results_without_ids_answer_the_calls_of_their_name_in_order() -> None:
    request = {
        "contents": [
            USER,
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"id": "a1", "name": "echo", "args": {"m": 1}}},
                    {"functionCall": {"id": "b1", "name": "list_dir", "args": {}}},
                    {"functionCall": {"id": "a2", "name": "echo", "args": {"m": 2}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "echo", "response": {"result": "1"}}},
                    {"functionResponse": {"name": "list_dir", "response": {"result": "d"}}},
                    {"functionResponse": {"name": "echo", "response": {"result": "2"}}},
                    {"functionResponse": {"name": "echo", "response": {"result": "3"}}},
                    {"functionResponse": {"name": 7, "response": {"result": "4"}}},
                ],
            },
        ]
    }
    results = _taken(request).messages[2:]
    assert [(m["tool_call_id"], m["content"]) for m in results] == [
        ("a1", "1"),
        ("b1", "d"),
        ("a2", "2"),
        ("echo", "3"),  # more results than calls: named by the function
        ("", "4"),
    ]


def _sent(endpoint: Endpoint, *calls: ToolCallRequest) -> list[dict[str, Any]]:
    """The parts of the endpoint's reply carrying `calls`."""
    first = _taken({"contents": [USER]}, endpoint)
    body = json.loads(endpoint.reply(first, ModelResponse(None, calls)).body)
    parts: list[dict[str, Any]] = body["candidates"][0]["content"]["parts"]
    return parts


def test_a_call_sent_back_without_its_id_gets_the_one_it_was_sent_with() -> None:
    # What the endpoint remembers is the process's: arguments no other test sends.
    target = f"zeroclaw_user_{uuid.uuid4().hex}"
    endpoint = Endpoint()
    sent = ToolCallRequest("call_zeroclaw_77", "zeroclaw_lookup", json.dumps({"q": target}))
    assert _sent(endpoint, sent) == [
        {"functionCall": {"id": "call_zeroclaw_77", "name": "zeroclaw_lookup", "args": {"q": target}}}
    ]
    call = {"functionCall": {"name": "zeroclaw_lookup", "args": {"q": target}}}
    other = {"functionCall": {"id": "", "name": "zeroclaw_lookup", "args": {"q": "example.com"}}}
    request = {"contents": [USER, {"role": "model", "parts": [other, {**call, "id": ""}, call]}]}
    calls = _taken(request, endpoint).messages[1]["tool_calls"]
    # The one sent is taken once; the others are named by the function and their place.
    assert [c["id"] for c in calls] == ["zeroclaw_lookup_0", "call_zeroclaw_77", "zeroclaw_lookup_2"]


def test_a_call_whose_arguments_were_no_object_is_known_by_the_empty_object_sent() -> None:
    name = f"zeroclaw_{uuid.uuid4().hex}"
    endpoint = Endpoint()
    assert _sent(endpoint, ToolCallRequest("call_1", name, "[1,2]")) == [
        {"functionCall": {"id": "call_1", "name": name, "args": {}}}
    ]
    request = {"contents": [USER, {"role": "model", "parts": [{"functionCall": {"name": name, "args": {}}}]}]}
    assert _taken(request, endpoint).messages[1]["tool_calls"][0]["id"] == "call_1"


def test_the_newest_ten_thousand_calls_sent_are_remembered() -> None:
    name = f"zeroclaw_{uuid.uuid4().hex}"
    endpoint = Endpoint()

    def sent_back(number: int) -> str:
        part = {"functionCall": {"name": name, "args": {"n": number}}}
        call_id: str = _taken({"contents": [USER, {"role": "model", "parts": [part]}]}, endpoint).messages[1][
            "tool_calls"
        ][0]["id"]
        return call_id

    _sent(endpoint, *(ToolCallRequest(f"call_{n}", name, json.dumps({"n": n})) for n in range(10_000)))
    assert (sent_back(0), sent_back(9_999)) == ("call_0", "call_9999")
    _sent(endpoint, ToolCallRequest("call_10000", name, json.dumps({"n": 10_000})))
    assert (sent_back(0), sent_back(1), sent_back(10_000)) == (f"{name}_0", "call_1", "call_10000")


def test_a_result_sent_before_any_call_is_named_by_its_function() -> None:
    part = {"functionResponse": {"id": "", "name": "echo", "response": {"result": "x"}}}
    assert _taken(
        {"contents": [{"role": "tool", "parts": [part, {"text": "a"}, {"text": "b"}]}]}
    ).messages == [
        {"role": "tool", "tool_call_id": "echo", "content": "x"},
        {"role": "user", "content": "ab"},
    ]


def test_a_model_turn_in_several_contents_after_earlier_turns_joins_its_own_message() -> None:
    def call(call_id: str) -> dict[str, Any]:
        return {"functionCall": {"id": call_id, "name": "echo", "args": {}}}

    result = {"functionResponse": {"id": "c1", "name": "echo", "response": {"result": "x"}}}
    request = {
        "systemInstruction": "Be brief.",
        "contents": [
            {"role": "model", "parts": [{"text": "Hello."}]},
            USER,
            {"role": "model", "parts": [call("c1")]},
            {"role": "user", "parts": [result]},
            {"role": "model", "parts": [call("c2")]},
            {"role": "model", "parts": [{"text": "Both."}, call("c3")]},
        ],
    }
    assert _taken(request).messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
        {
            "role": "assistant",
            "content": "Both.",
            "tool_calls": [
                {"id": "c2", "type": "function", "function": {"name": "echo", "arguments": "{}"}},
                {"id": "c3", "type": "function", "function": {"name": "echo", "arguments": "{}"}},
            ],
        },
    ]


@pytest.mark.parametrize(
    ("request_body", "words"),
    [
        ({}, "contents is not specified: the request needs one content at least"),
        ({"contents": []}, "contents is not specified: the request needs one content at least"),
        ({"contents": "hi"}, "contents is not specified: the request needs one content at least"),
        ({"contents": [USER, "hi"]}, "contents[1] must be a content object"),
        (
            {"contents": [{"role": "system", "parts": []}]},
            "contents[0].role must be user or model, not 'system'",
        ),
        (
            {"contents": [{"role": "user", "parts": {"text": "hi"}}]},
            "contents[].parts must be a list of parts",
        ),
        ({"contents": [{"role": "user", "parts": ["hi"]}]}, "contents[].parts must be a list of parts"),
        (
            {"contents": [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}]},
            "a functionCall part names no function",
        ),
        (
            {"contents": [{"role": "model", "parts": [{"functionCall": {"name": ""}}]}]},
            "a functionCall part names no function",
        ),
        (
            {"contents": [USER], "toolConfig": {"functionCallingConfig": {"mode": "sometimes"}}},
            "functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED, not 'SOMETIMES'",
        ),
    ],
)
def test_a_request_the_api_would_refuse_is_a_400(request_body: dict[str, Any], words: str) -> None:
    with pytest.raises(WireError) as raised:
        gemini.parse(request_body, 1, "gemini-x", Endpoint())
    assert (raised.value.status, raised.value.message) == (400, words)


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, ToolChoice("auto")),
        ({"mode": 3}, ToolChoice("auto")),
        ({"mode": "MODE_UNSPECIFIED", "allowedFunctionNames": []}, ToolChoice("auto")),
        ({"mode": "auto", "allowedFunctionNames": ["a", 3]}, ToolChoice("auto", allowed=frozenset({"a"}))),
        (
            {"mode": "VALIDATED", "allowed_function_names": ["b"]},
            ToolChoice("required", allowed=frozenset({"b"})),
        ),
        ({"mode": "NONE", "allowedFunctionNames": ["a"]}, ToolChoice("none")),
    ],
)
def test_function_calling_config_reads_as_what_the_model_may_do(
    config: dict[str, Any], expected: ToolChoice
) -> None:
    choice = gemini.tool_choice_of({"toolConfig": {"functionCallingConfig": config}})
    assert choice == expected
    # A divergence quotes the setting as sent.
    assert choice.said == "toolConfig.functionCallingConfig " + json.dumps(config, separators=(",", ":"))


def test_no_function_calling_config_lets_the_model_do_anything() -> None:
    assert gemini.tool_choice_of({"toolConfig": {}}) == ToolChoice()
    assert gemini.tool_choice_of({"toolConfig": {}}).said == ""


def test_declarations_that_are_not_functions_are_skipped() -> None:
    tools = [
        {"functionDeclarations": "echo"},
        {"functionDeclarations": [{"description": "No name."}]},
        "junk",
    ]
    assert gemini.offered({"tools": tools}) == []
    assert gemini.offered({"tools": {"functionDeclarations": []}}) == []
