"""A travel-desk agent on CrewAI, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The agent is a CrewAI `Agent` with two tools, given one `Task`
in a one-agent `Crew` that is kicked off once per turn, over CrewAI's native OpenAI
provider (`LLM(model="openai/<model>", base_url=...)`, Chat Completions); `--stream`
makes the LLM stream. Each kickoff is a conversation of its own: the earlier turns are
carried the way CrewAI's own `crewai chat` carries them, their user inputs and answers
as the `crew_chat_messages` input, which CrewAI appends to the task as text. So the
gate reads its requests with `history = "turn"` (see zeroclaw.toml).

OPENAI_BASE_URL and OPENAI_API_KEY come from the environment; the model is named by
ZEROCLAW_EVAL_MODEL (the fixture's model_name under the gate). Telemetry and tracing are
off, and CrewAI's console output goes to stderr, so stdout carries only the answer lines.
"""

from __future__ import annotations

import os
import tempfile

# Answers go to the real stdout; everything else written to fd 1 (CrewAI's consoles,
# bound to stdout when they are made) goes to stderr.
ANSWERS = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)

# CrewAI keeps each kickoff's task outputs in a SQLite file under ~/.local/share/<name>,
# the name being the working directory's unless CREWAI_STORAGE_DIR says; an absolute
# path there is used as it is: a folder of this process's own, removed when it exits.
STORAGE = tempfile.TemporaryDirectory(prefix="crewai-travel-desk-")

# Before crewai is imported: no telemetry, no tracing, no prompt for either.
for _name, _value in {
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "OTEL_SDK_DISABLED": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "CREWAI_STORAGE_DIR": STORAGE.name,
}.items():
    os.environ.setdefault(_name, _value)

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from crewai import LLM, Agent, Crew, CrewOutput, Process, Task  # noqa: E402
from crewai.tools import tool  # noqa: E402

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gpt-4.1-mini")
BACKSTORY = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate


@tool("get_weather")
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")


@tool("save_note")
def save_note(text: str) -> str:
    """Save a note for the traveller (appended to notes.txt)."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved to {NOTES}"


def build(stream: bool) -> Crew:
    llm = LLM(
        model=f"openai/{MODEL}",
        base_url=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
        stream=stream,
    )
    agent = Agent(
        role="Travel desk",
        goal="Answer the traveller's questions about the weather and keep their notes.",
        backstory=BACKSTORY,
        tools=[get_weather, save_note],
        llm=llm,
        allow_delegation=False,
        verbose=False,
    )
    task = Task(
        description="{user_input}",
        expected_output="A short answer to the traveller's request.",
        agent=agent,
    )
    return Crew(agents=[agent], tasks=[task], process=Process.sequential, verbose=False)


def answer(crew: Crew, history: list[dict[str, str]], user_input: str) -> str:
    """Kick the crew off for one turn, told the earlier turns; the answer."""
    inputs = {"user_input": user_input}
    if history:
        inputs["crew_chat_messages"] = json.dumps(history)
    result = crew.kickoff(inputs=inputs)
    if not isinstance(result, CrewOutput):  # a crew made with stream=True streams its output
        raise TypeError(f"expected the crew's output, got {type(result).__name__}")
    history += [{"role": "user", "content": user_input}, {"role": "assistant", "content": result.raw}]
    return result.raw


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="stream the model's tokens")
    options = parser.parse_args()
    crew = build(options.stream)
    history: list[dict[str, str]] = []  # the earlier turns: user inputs and answers
    for line in sys.stdin:
        text = answer(crew, history, json.loads(line)["user_input"])
        print(json.dumps({"answer": text}), file=ANSWERS, flush=True)


if __name__ == "__main__":
    main()
