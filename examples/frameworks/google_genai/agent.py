"""A travel-desk agent on Google's official `google-genai` SDK, with a tool loop of its
own, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream] [--chat]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The loop asks Gemini's `generateContent`
(`generate_content_stream` with `--stream`, else `generate_content`), runs every function
call the model returns, sends each result back as a function response (`{"error": ...}`
for a failed lookup, as the SDK's own automatic function calling writes one) and stops
at a reply without calls; the conversation is kept from turn to turn (with `--chat`, by
a chat session of the SDK, `client.chats.create`, sent `send_message` or
`send_message_stream`). The client reads
GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY; the model is named by ZEROCLAW_EVAL_MODEL
(the fixture's model_name under the gate).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from google import genai
from google.genai import types
from google.genai.chats import Chat

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gemini-2.5-flash")
SYSTEM = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
MAX_TOOL_ROUNDS = 10
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate

TOOLS = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="The current weather in a city.",
            parameters_json_schema={
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        ),
        types.FunctionDeclaration(
            name="save_note",
            description="Save a note for the traveller (appended to notes.txt).",
            parameters_json_schema={
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        ),
    ]
)
CONFIG = types.GenerateContentConfig(
    system_instruction=SYSTEM,
    tools=[TOOLS],
    # The loop is this agent's own: the SDK runs no function itself.
    automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
)


def get_weather(city: str) -> tuple[str, bool]:
    """The weather in `city`, and whether the lookup failed."""
    found = WEATHER.get(city.strip().lower())
    return (found, False) if found is not None else (f"no weather data for {city}", True)


def save_note(text: str) -> tuple[str, bool]:
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved to {NOTES}", False


#: Each tool by its name: called with the arguments the model sent.
HANDLERS: dict[str, Callable[..., tuple[str, bool]]] = {"get_weather": get_weather, "save_note": save_note}


def run_tool(call: types.FunctionCall) -> types.Part:
    """The function response answering one call; a failure says so, never a crash."""
    handler = HANDLERS.get(call.name or "")
    try:
        content, failed = handler(**(call.args or {})) if handler else (f"no tool named {call.name}", True)
    except (TypeError, ValueError) as exc:
        content, failed = str(exc), True
    response = {"error": content} if failed else {"result": content}
    return types.Part(function_response=types.FunctionResponse(id=call.id, name=call.name, response=response))


def ask(client: genai.Client, history: list[types.Content], stream: bool) -> types.Content:
    """One model reply to the conversation so far."""
    if not stream:
        reply = client.models.generate_content(model=MODEL, contents=history, config=CONFIG)
        content = reply.candidates[0].content if reply.candidates else None
        return content or types.Content(role="model", parts=[])
    return merged(client.models.generate_content_stream(model=MODEL, contents=history, config=CONFIG))


def merged(chunks: Iterable[types.GenerateContentResponse]) -> types.Content:
    """The model's reply put together from a stream's chunks (text pieces joined)."""
    parts: list[types.Part] = []
    for chunk in chunks:
        content = chunk.candidates[0].content if chunk.candidates else None
        for part in content.parts or [] if content is not None else []:
            if part.text is not None and parts and parts[-1].text is not None:
                parts[-1] = types.Part(text=parts[-1].text + part.text)  # a UI would render each piece
            else:
                parts.append(part)
    return types.Content(role="model", parts=parts)


def answer_in_chat(chat: Chat, user_input: str, stream: bool) -> str:
    """Answer one user turn in a chat session, which keeps the conversation itself."""
    message: str | list[types.PartUnionDict] = user_input
    for _round in range(MAX_TOOL_ROUNDS + 1):
        if stream:
            reply = merged(chat.send_message_stream(message))
        else:
            answered = chat.send_message(message)
            reply = (answered.candidates[0].content if answered.candidates else None) or types.Content(
                parts=[]
            )
        calls = [part.function_call for part in reply.parts or [] if part.function_call is not None]
        if not calls:
            return "".join(part.text for part in reply.parts or [] if part.text and not part.thought)
        message = [run_tool(call) for call in calls]
    raise RuntimeError(f"the model still asks for functions after {MAX_TOOL_ROUNDS} rounds")


def answer(client: genai.Client, history: list[types.Content], user_input: str, stream: bool) -> str:
    """Answer one user turn: ask, run the functions asked for, send the results back, repeat."""
    history.append(types.Content(role="user", parts=[types.Part(text=user_input)]))
    for _round in range(MAX_TOOL_ROUNDS + 1):
        reply = ask(client, history, stream)
        history.append(reply)
        calls = [part.function_call for part in reply.parts or [] if part.function_call is not None]
        if not calls:
            return "".join(part.text for part in reply.parts or [] if part.text and not part.thought)
        history.append(types.Content(role="user", parts=[run_tool(call) for call in calls]))
    raise RuntimeError(f"the model still asks for functions after {MAX_TOOL_ROUNDS} rounds")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="use generate_content_stream")
    parser.add_argument("--chat", action="store_true", help="keep the conversation in a chat session")
    options = parser.parse_args()
    client = genai.Client()  # GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY from the environment
    chat = client.chats.create(model=MODEL, config=CONFIG) if options.chat else None
    history: list[types.Content] = []
    for line in sys.stdin:
        if line.strip():
            user_input = json.loads(line)["user_input"]
            if chat is not None:
                text = answer_in_chat(chat, user_input, options.stream)
            else:
                text = answer(client, history, user_input, options.stream)
            print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    main()
