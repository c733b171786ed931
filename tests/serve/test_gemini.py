"""The Gemini API wire (`wire.gemini`) over real HTTP, spoken by Google's own SDK,
`google-genai`: a conversation plain and streamed under both API versions the SDKs use,
a call sent back without its id, the SDK's automatic function calling in a chat, and
what serve refuses, in the shape the SDK raises."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import errors, types

from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.serve.server import ReplayServer

ECHO = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="echo",
            description="Echo.",
            parameters_json_schema={"type": "object", "properties": {"message": {"type": "string"}}},
        )
    ]
)
MANUAL = types.AutomaticFunctionCallingConfig(disable=True)


def gemini(server: ReplayServer, version: str = "v1beta") -> genai.Client:
    """google-genai pointed at `server`, as `GOOGLE_GEMINI_BASE_URL` would point it."""
    options = types.HttpOptions(base_url=server.url.removesuffix("/v1"), api_version=version)
    return genai.Client(api_key="x", http_options=options)


@pytest.mark.parametrize("version", ["v1beta", "v1"])
def test_google_genai_follows_the_script_streamed_then_plain(
    two_turns: Case, serve: Callable[..., ReplayServer], version: str
) -> None:
    server = serve([two_turns])
    client = gemini(server, version)
    config = types.GenerateContentConfig(tools=[ECHO], automatic_function_calling=MANUAL)
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="Echo hello")])]
    chunks = list(client.models.generate_content_stream(model="two_turns", contents=contents, config=config))
    (call,) = [part.function_call for chunk in chunks for part in chunk.candidates[0].content.parts]
    assert (call.id, call.name, call.args) == ("call_1", "echo", {"message": "hello"})
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    # The call sent back with its id (the SDK keeps it), the result without one.
    contents += [
        types.Content(role="model", parts=[types.Part(function_call=call)]),
        types.Content(
            role="user", parts=[types.Part.from_function_response(name="echo", response={"result": "hello"})]
        ),
    ]
    second = client.models.generate_content(model="two_turns", contents=contents, config=config)
    assert second.text == "The echo tool said: hello"
    log = server.requests()
    assert [(e["api"], e["status"], e["stream"], e["step"]) for e in log] == [
        ("gemini", 200, True, 0),
        ("gemini", 200, False, 1),
    ]
    assert log[1]["tool_results"] == [{"call_id": "call_1", "name": "echo", "content": "hello"}]


def test_a_call_sent_back_without_its_id_is_the_call_sent_with_it(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    # A client that drops ids (a hand-written one, an older SDK) sends the call back by
    # name and arguments only: it is the call this endpoint sent, id and all.
    server = serve([two_turns])
    client = gemini(server)  # held: a client collected closes its connections
    config = types.GenerateContentConfig(tools=[ECHO], automatic_function_calling=MANUAL)
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="Echo hello")])]
    first = client.models.generate_content(model="two_turns", contents=contents, config=config)
    (call,) = first.function_calls or []
    bare = types.FunctionCall(name=call.name, args=call.args)
    contents += [
        types.Content(role="model", parts=[types.Part(function_call=bare)]),
        types.Content(
            role="user", parts=[types.Part.from_function_response(name="echo", response={"output": "hello"})]
        ),
    ]
    second = client.models.generate_content(model="two_turns", contents=contents, config=config)
    assert second.text == "The echo tool said: hello"


def test_the_sdks_own_tool_loop_in_a_chat_follows_the_script(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    # google-genai's automatic function calling runs the Python function and sends its
    # result back itself; the chat keeps the conversation for the next turn.
    server = serve([two_turns])
    said: list[str] = []

    def echo(message: str) -> str:
        """Echo."""
        said.append(message)
        return message

    client = gemini(server)  # held: a client collected closes its connections
    chat = client.chats.create(model="two_turns", config=types.GenerateContentConfig(tools=[echo]))
    assert chat.send_message("Echo hello").text == "The echo tool said: hello"
    assert said == ["hello"]
    assert [entry["status"] for entry in server.requests()] == [200, 200]


def test_a_stream_without_sse_is_one_json_array_of_responses(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Echo hello"}]}],
        "tools": [{"functionDeclarations": [{"name": "echo"}]}],
    }
    url = server.url.removesuffix("/v1") + "/v1beta/models/two_turns:streamGenerateContent"
    answer = httpx.post(url, json=body)
    assert answer.status_code == 200, answer.text
    chunks = answer.json()
    assert isinstance(chunks, list)
    assert chunks[-1]["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"id": "call_1", "name": "echo", "args": {"message": "hello"}}}
    ]
    assert chunks[-1]["usageMetadata"]["totalTokenCount"] >= 0


def test_a_request_that_left_the_script_is_refused_in_googles_shape(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = gemini(server)  # held: a client collected closes its connections
    config = types.GenerateContentConfig(tools=[ECHO], automatic_function_calling=MANUAL)
    with pytest.raises(errors.ClientError) as raised:
        client.models.generate_content(model="two_turns", contents="Echo goodbye", config=config)
    assert raised.value.code == 400
    assert raised.value.status == "INVALID_ARGUMENT"
    assert "Echo hello" in (raised.value.message or "")


def test_a_request_whose_function_calling_config_forbids_the_step_is_refused(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = gemini(server)  # held: a client collected closes its connections
    none = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(mode=types.FunctionCallingConfigMode.NONE)
    )
    config = types.GenerateContentConfig(tools=[ECHO], tool_config=none, automatic_function_calling=MANUAL)
    with pytest.raises(errors.ClientError) as raised:
        client.models.generate_content(model="two_turns", contents="Echo hello", config=config)
    # In Gemini's words: the setting as the request wrote it, not OpenAI's tool_choice.
    assert (
        'the script calls echo, but the request\'s toolConfig.functionCallingConfig {"mode":"NONE"}:'
        " the model may call no tool"
    ) in (raised.value.message or "")


def test_a_request_without_contents_is_refused_as_the_api_refuses_it(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    url = server.url.removesuffix("/v1") + "/v1beta/models/two_turns:generateContent"
    answer = httpx.post(url, json={"contents": []})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert (error["code"], error["status"]) == (400, "INVALID_ARGUMENT")
    assert "contents is not specified" in error["message"]
    assert json.loads(answer.content)  # a body google-genai reads


@pytest.mark.parametrize(
    ("mode", "names", "words"),
    [
        ("ANY", ["other"], "echo"),
        ("AUTO", ["other"], "echo"),
    ],
)
def test_allowed_function_names_that_leave_out_the_scripted_call_are_refused(
    two_turns: Case, serve: Callable[..., ReplayServer], mode: str, names: list[str], words: str
) -> None:
    server = serve([two_turns])
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Echo hello"}]}],
        "tools": [{"functionDeclarations": [{"name": "echo"}, {"name": "other"}]}],
        "toolConfig": {"functionCallingConfig": {"mode": mode, "allowedFunctionNames": names}},
    }
    url = server.url.removesuffix("/v1") + "/v1beta/models/two_turns:generateContent"
    answer = httpx.post(url, json=body)
    assert answer.status_code == 400, answer.text
    assert words in answer.json()["error"]["message"]
    assert "toolConfig.functionCallingConfig {" in answer.json()["error"]["message"]
    assert "tool_choice" not in answer.json()["error"]["message"]
    allowed = {
        **body,
        "toolConfig": {"functionCallingConfig": {"mode": mode, "allowedFunctionNames": ["echo"]}},
    }
    assert httpx.post(url, json=allowed).status_code == 200
