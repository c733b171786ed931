"""A travel-desk agent on LangChain and LangGraph, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream] [--api chat|anthropic]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The agent is LangChain's `create_agent` (a LangGraph graph)
over `ChatOpenAI`, or with `--api anthropic` over `ChatAnthropic` (langchain-anthropic):
`invoke`, or with `--stream` a streaming model driven by `stream(stream_mode="messages")`.
A LangGraph checkpointer keeps the conversation from turn to turn (one thread).
`ChatOpenAI` reads OPENAI_BASE_URL and OPENAI_API_KEY, `ChatAnthropic` ANTHROPIC_BASE_URL
and ANTHROPIC_API_KEY; the model is named by ZEROCLAW_EVAL_MODEL (the fixture's
model_name under the gate).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from langchain.agents import AgentState, create_agent
from langchain.agents.middleware import InputAgentState, OutputAgentState
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gpt-4.1-mini")
SYSTEM_PROMPT = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate

#: What `create_agent` builds: a compiled LangGraph graph.
Graph = CompiledStateGraph[AgentState[Any], None, InputAgentState, OutputAgentState[Any]]


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")


@tool
def save_note(text: str) -> str:
    """Save a note for the traveller (appended to notes.txt)."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved to {NOTES}"


def build(stream: bool, api: str = "chat") -> Graph:
    model: BaseChatModel = ChatOpenAI(model=MODEL, streaming=stream)
    if api == "anthropic":
        from langchain_anthropic import ChatAnthropic

        model = ChatAnthropic(model_name=MODEL, streaming=stream, timeout=None, stop=None)
    return create_agent(
        model, [get_weather, save_note], system_prompt=SYSTEM_PROMPT, checkpointer=InMemorySaver()
    )


def answer(agent: Graph, user_input: str, config: RunnableConfig, stream: bool) -> str:
    """Run one turn on the conversation's thread; the last message's text."""
    turn: InputAgentState = {"messages": [HumanMessage(user_input)]}
    if stream:
        for _token, _metadata in agent.stream(turn, config, stream_mode="messages"):
            pass  # a UI would render the tokens here
        messages: list[BaseMessage] = agent.get_state(config).values["messages"]
    else:
        messages = agent.invoke(turn, config)["messages"]
    return messages[-1].text


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="stream the model's tokens")
    parser.add_argument("--api", default="chat", choices=["chat", "anthropic"], help="the model's API")
    options = parser.parse_args()
    agent = build(options.stream, options.api)
    config: RunnableConfig = {"configurable": {"thread_id": "zeroclaw_user"}}
    for line in sys.stdin:
        text = answer(agent, json.loads(line)["user_input"], config, options.stream)
        print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    main()
