"""The framework examples (`examples/frameworks/`): one real agent per framework, run as
its own process by `zeroclaw eval run --agent-cmd` and gated by its own suite.

For each framework: the suite passes with the agent streamed and not streamed (and over
each wire the agent speaks), and every case can fail (`zeroclaw eval vacuity`); the
agent's `--stream` flag really switches what goes over the wire (checked against
`ReplayServer`'s request log); and broken copies of the agent fail where they should: a
tool result that never reaches the model, a request that tells the model to call no
tool (`tool_choice: "none"`), garbled results, and per framework a renamed tool, a wrong
answer, a wrong argument, a skipped tool, a dropped history, an ignored turn, calls
echoed back with arguments the model never sent, a model request after the answer.

These runs are opt-in, as they start real frameworks (a second or more each): they run
with ZEROCLAW_REQUIRE_FRAMEWORKS=1, as `nox -s frameworks` sets it, and then a framework
that is not installed fails them (the Node agents need `node` and `npm ci` in their
folders; CrewAI and LlamaIndex, which pin openai below 3, run in an environment of their
own whose Python ZEROCLAW_OPENAI2_PYTHON names). Otherwise they skip, and the default
suite stays quick.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.invoke import Runner
from zeroclaw_eval import Case, ReplayServer, load_config, load_fixture

FRAMEWORKS = Path(__file__).resolve().parents[2] / "examples" / "frameworks"
REQUIRED = os.environ.get("ZEROCLAW_REQUIRE_FRAMEWORKS") == "1"

# A run error: (its fixture pointer, words its message holds).
Error = tuple[str, str]


def _unconsumed(steps: int) -> str:
    return f"the agent finished the turn with {steps} scripted step(s) unconsumed (first: step 2)"


RENAMED = (
    "the script calls get_weather, but the request offers the model no tool named get_weather"
    " (it offers: fetch_weather, save_note)"
)


@dataclass(frozen=True)
class Mutation:
    """A broken copy of the agent: `old` replaced by `new` in its source (each must occur),
    and how each case of the suite must then end: a run error at a pointer, the checks
    that fail, or a pass (a case the bug does not touch: a dropped history in a case of
    one turn), said outright."""

    name: str
    replacements: tuple[tuple[str, str], ...]
    errors: dict[str, Error | list[Error]] = field(default_factory=dict)
    failures: dict[str, list[str]] = field(default_factory=dict)
    passes: tuple[str, ...] = ()
    #: Flags of the agent's command that pick another wire it speaks, for a copy run there.
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Framework:
    folder: str
    #: Python modules the agent imports (none for Node).
    modules: tuple[str, ...]
    #: The command without the mode flag, relative to the folder.
    command: str
    #: The API the agent speaks, as the request log names it.
    api: str
    #: The multi-turn case the wire test replays.
    multi_turn: str
    mutations: tuple[Mutation, ...]
    #: The npm packages a Node agent needs (none for Python).
    packages: tuple[str, ...] = ()
    #: Flags that switch the agent to the other wires it speaks, each gated too.
    wires: tuple[tuple[str, ...], ...] = ()
    #: Its tools run in the harness (its MCP server): a call is recorded when it runs,
    #: whether or not its result then reaches the model.
    harness_tools: bool = False
    #: The environment variable naming the Python interpreter to run the agent with, for a
    #: framework that cannot share this interpreter's environment (`nox -s frameworks`
    #: makes one beside it); empty: `python`, this interpreter.
    python: str = ""
    #: The framework's own tool that ends each turn with the answer (smolagents'
    #: `final_answer`): offered besides the agent's tools, scripted last in every turn,
    #: and never recorded as a dispatch.
    answer_tool: str = ""

    @property
    def path(self) -> Path:
        return FRAMEWORKS / self.folder

    @property
    def source(self) -> str:
        return self.command.split()[-1]

    def cases(self) -> list[str]:
        return sorted(path.name for path in (self.path / "evals").glob("*.json"))

    @property
    def interpreter(self) -> str:
        """The Python that runs the agent: the one `python` names, or this one."""
        return os.environ.get(self.python, "") if self.python else sys.executable

    def spelled(self, *flags: str) -> str:
        """The agent command with `flags`, `python` spelled out where it is another
        environment's interpreter."""
        runner, source = self.command.split()
        if self.python:
            runner = shlex.quote(self.interpreter)
        return " ".join([runner, source, *flags])


def _over(flags: tuple[str, ...], mutations: tuple[Mutation, ...], *names: str) -> tuple[Mutation, ...]:
    """The mutations named `names`, again, with the agent on the wire `flags` pick."""
    wire = "_".join(flag.lstrip("-") for flag in flags[1:])
    return tuple(
        dataclasses.replace(mutation, name=f"{mutation.name}_{wire}", flags=flags)
        for mutation in mutations
        if mutation.name in names
    )


def _renamed(*cases: str) -> Mutation:
    # A refactor renames the tool everywhere in the agent, but the fixtures still script it.
    return Mutation(
        "rename",
        (("get_weather", "fetch_weather"),),
        errors={case: ("/turns/0/steps/0", RENAMED) for case in cases},
    )


def _wrong(old: str, new: str, *cases: str) -> Mutation:
    return Mutation("wrong", ((old, new),), failures={case: ["response_contains[0]"] for case in cases})


NO_TOOL = 'tool_choice is "none": the model may call no tool'


#: The same on Gemini's wire, in its words.
GEMINI_NO_TOOL = 'toolConfig.functionCallingConfig {"mode":"NONE"}: the model may call no tool'


def _no_tools(old: str, new: str, *cases: str, words: str = NO_TOOL) -> Mutation:
    # The agent tells the model to call no tool, while every case's first step calls one.
    return Mutation(
        "tool_choice_none", ((old, new),), errors={case: ("/turns/0/steps/0", words) for case in cases}
    )


def _garbled(old: str, new: str, failures: dict[str, list[str]]) -> Mutation:
    # Each weather result reaches the model reversed: what the gate records is what the
    # model was sent, so the result checks fail (and a failure no longer reads as one).
    return Mutation("garbled_results", ((old, new),), failures=failures)


#: A request the agent makes once it has answered (a title for the conversation), in the
#: broken copies of the agents that make one, and how the gate quotes it.
TITLE = "A title for this conversation: "
#: A case of one turn: the request comes after the run's last answer. Whether the gate
#: sees it once the turn is over ("asked the model 1 more time(s) after its last
#: answer") or while it is winding down ("asked the model for step 4 ... a request the
#: script did not expect") depends on the machine's load; both quote it, at the steps.
LATE: Error = ("/turns/0/steps", f'its last message is user: "{TITLE}')


def _title_for(first_input: str) -> list[Error]:
    """A case of two turns: the request comes when the second turn has begun, and stands
    where that turn's first request should carry the first turn's input; or, on a loaded
    machine, before the harness has begun the second turn (an agent that asks as soon as
    it has written its answer), as a step the first turn does not script."""
    return [
        ("/turns/1/steps/0", f"turn 1's user input is {json.dumps(first_input)}; the request has \"{TITLE}"),
        EARLY_TITLE,
    ]


#: The title request of a case of two turns, come before the second turn began.
EARLY_TITLE: Error = (
    "/turns/0/steps",
    f'a request the script did not expect (its last message is user: "{TITLE}',
)


def _turn_input(second_input: str, sent: str = "") -> Error:
    """The second turn's first request does not carry its input, but what begins with
    `sent` (`user_input_match` is "contains")."""
    return ("/turns/1/steps/0", f"turn 2's user input is {json.dumps(second_input)}; the request has {sent}")


def _then(line: str, after: str) -> tuple[str, str]:
    """A line of the agent's source (its answer written out), and the same line followed
    by `after`, indented alike."""
    indent = line[: len(line) - len(line.lstrip())]
    return (line + "\n", f"{line}\n{indent}{after}\n")


def _echoed(
    call: str, city: str, echoed: str, pointer: str = "/turns/0/steps/1", tool: str = "get_weather"
) -> Error:
    """The request at `pointer` echoes the weather call `call` (of `tool`), scripted with
    `city`, back with the arguments `echoed`: the gate takes the call as the model's."""
    scripted = json.dumps({"city": city}, separators=(",", ":"))
    return (
        pointer,
        f"calls {tool} (id {call}) with the arguments {json.dumps(scripted)}; the request echoes"
        f" that call back with {json.dumps(echoed)}, as if the model had asked for them",
    )


#: The side environment of the frameworks whose pins the session's cannot hold (openai
#: below 3, mcp below 2.2): `nox -s frameworks` makes it and names its Python here.
OPENAI2_PYTHON = "ZEROCLAW_OPENAI2_PYTHON"
#: How the Python agents write each answer out (a line to stdout).
PYTHON_PRINTED = '        print(json.dumps({"answer": text}), flush=True)'
#: The weather lookup of the Python agents, and the same reversed.
PYTHON_WEATHER = '    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")'
PYTHON_GARBLED = (PYTHON_WEATHER, PYTHON_WEATHER + "[::-1]")

PYTHON_ANSWER = (
    'print(json.dumps({"answer": text}), flush=True)',
    'print(json.dumps({"answer": "Sunny!"}), flush=True)',
)

#: Lines that lower-case the city of each weather call in the history the OpenAI Agents
#: SDK agent carries from turn to turn (its `to_input_list()` items).
OPENAI_AGENTS_TIDY = """        for item in history:
            if isinstance(item, dict) and item.get("name") == "get_weather":
                item["arguments"] = item["arguments"].lower()
"""
#: A line that lower-cases the city of each weather call in the LangGraph agent's thread.
LANGGRAPH_TIDY = (
    'agent.update_state(config, {"messages": [m.model_copy(update={"tool_calls": [{**c, "args": {"city":'
    ' c["args"]["city"].lower()}} if c["name"] == "get_weather" else c for c in m.tool_calls]})'
    ' for m in agent.get_state(config).values["messages"] if getattr(m, "tool_calls", None)]})'
)


OPENAI_AGENTS = Framework(
    "openai_agents",
    ("agents",),
    "python agent.py",
    "responses",
    "weather_then_note_over_two_turns.json",
    (
        # The agent asks for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (_then(PYTHON_PRINTED, f'await Runner.run(agent, f"{TITLE}{{text}}")'),),
            errors={
                "unknown_city_fails_then_note_saved.json": LATE,
                "weather_in_two_cities_in_one_step.json": LATE,
                "weather_then_note_over_two_turns.json": _title_for("What is the weather in Lima?"),
            },
        ),
        # Between turns, the history it carries on has each weather call lower-cased: the
        # second turn's request echoes the first turn's call with other arguments.
        Mutation(
            "echoed_arguments",
            (
                (
                    "        text, history = await answer(agent, history, options.stream)\n",
                    "        text, history = await answer(agent, history, options.stream)\n"
                    + OPENAI_AGENTS_TIDY,
                ),
            ),
            errors={
                "weather_then_note_over_two_turns.json": _echoed(
                    "call_lima", "Lima", '{"city":"lima"}', "/turns/1/steps/0"
                )
            },
            passes=("unknown_city_fails_then_note_saved.json", "weather_in_two_cities_in_one_step.json"),
        ),
        _renamed(
            "unknown_city_fails_then_note_saved.json",
            "weather_in_two_cities_in_one_step.json",
            "weather_then_note_over_two_turns.json",
        ),
        # The SDK stops at the first tool's output and returns it as the answer: the model
        # never sees the result, and the script's next step is left unserved.
        Mutation(
            "not_fed_back",
            (('name="Travel desk",', 'name="Travel desk", tool_use_behavior="stop_on_first_tool",'),),
            errors={
                "unknown_city_fails_then_note_saved.json": ("/turns/0/steps/1", _unconsumed(3)),
                "weather_in_two_cities_in_one_step.json": ("/turns/0/steps/1", _unconsumed(1)),
                "weather_then_note_over_two_turns.json": ("/turns/0/steps/1", _unconsumed(1)),
            },
        ),
        _wrong(
            *PYTHON_ANSWER,
            "unknown_city_fails_then_note_saved.json",
            "weather_in_two_cities_in_one_step.json",
            "weather_then_note_over_two_turns.json",
        ),
        _no_tools(
            'name="Travel desk",',
            'name="Travel desk", model_settings=__import__("agents").ModelSettings(tool_choice="none"),',
            "unknown_city_fails_then_note_saved.json",
            "weather_in_two_cities_in_one_step.json",
            "weather_then_note_over_two_turns.json",
        ),
        _garbled(
            *PYTHON_GARBLED,
            {
                "unknown_city_fails_then_note_saved.json": [
                    "all_tools_succeeded",
                    "tool_results_contain[0]",
                    "tool_results_contain[1]",
                ],
                "weather_in_two_cities_in_one_step.json": [
                    "tool_results_contain[0]",
                    "tool_results_contain[1]",
                ],
                "weather_then_note_over_two_turns.json": ["tool_results_contain[0]"],
            },
        ),
    ),
)

#: A history processor of pydantic-ai (a `ProcessHistory` capability) that lower-cases
#: the city of each weather call the history keeps (in place: the history is the
#: agent's own from then on).
PYDANTIC_TIDY = """from pydantic_ai.capabilities import ProcessHistory


def tidy(messages):
    for message in messages:
        for part in getattr(message, "parts", ()):
            if getattr(part, "part_kind", "") == "tool-call" and part.tool_name == "get_weather":
                part.args = {"city": part.args_as_dict()["city"].lower()}
    return messages


"""
PYDANTIC_AI = Framework(
    "pydantic_ai",
    ("pydantic_ai",),
    "python agent.py",
    "chat.completions",
    "follow_up_question_keeps_the_conversation.json",
    (
        _renamed(
            "follow_up_question_keeps_the_conversation.json",
            "two_cities_in_one_step_then_noted.json",
            "unknown_city_is_a_failed_call.json",
        ),
        # The weather tool looks the city up but returns nothing: pydantic-ai feeds the
        # empty result back, and the result checks (and the failure the lookup was) fail.
        Mutation(
            "empty_result",
            (
                (
                    '    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")',
                    '    WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")'
                    '\n    return ""',
                ),
            ),
            failures={
                "follow_up_question_keeps_the_conversation.json": ["tool_results_contain[0]"],
                "two_cities_in_one_step_then_noted.json": [
                    "tool_results_contain[0]",
                    "tool_results_contain[1]",
                ],
                "unknown_city_is_a_failed_call.json": ["all_tools_succeeded", "tool_results_contain[0]"],
            },
        ),
        _wrong(
            *PYTHON_ANSWER,
            "follow_up_question_keeps_the_conversation.json",
            "two_cities_in_one_step_then_noted.json",
            "unknown_city_is_a_failed_call.json",
        ),
        # A history processor lower-cases the city of each weather call kept in the
        # history: the tools ran with the model's arguments, the next request echoes others.
        Mutation(
            "echoed_arguments",
            (
                (
                    "instructions=INSTRUCTIONS)",
                    "instructions=INSTRUCTIONS, capabilities=[ProcessHistory(tidy)])",
                ),
                ("agent = Agent(", PYDANTIC_TIDY + "agent = Agent("),
            ),
            errors={
                "follow_up_question_keeps_the_conversation.json": _echoed(
                    "call_oslo", "Oslo", '{"city":"oslo"}'
                ),
                "two_cities_in_one_step_then_noted.json": _echoed("call_paris", "Paris", '{"city":"paris"}'),
                "unknown_city_is_a_failed_call.json": _echoed(
                    "call_atlantis", "Atlantis", '{"city":"atlantis"}'
                ),
            },
        ),
        # The agent asks for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (_then(PYTHON_PRINTED, f'await agent.run(f"{TITLE}{{text}}")'),),
            errors={
                "follow_up_question_keeps_the_conversation.json": _title_for("How is the weather in Oslo?"),
                "two_cities_in_one_step_then_noted.json": LATE,
                "unknown_city_is_a_failed_call.json": LATE,
            },
        ),
        # pydantic-ai sets tool_choice itself; extra_body overrides it in the request.
        _no_tools(
            "instructions=INSTRUCTIONS)",
            'instructions=INSTRUCTIONS, model_settings={"extra_body": {"tool_choice": "none"}})',
            "follow_up_question_keeps_the_conversation.json",
            "two_cities_in_one_step_then_noted.json",
            "unknown_city_is_a_failed_call.json",
        ),
        _garbled(
            *PYTHON_GARBLED,
            {
                "follow_up_question_keeps_the_conversation.json": ["tool_results_contain[0]"],
                "two_cities_in_one_step_then_noted.json": [
                    "tool_results_contain[0]",
                    "tool_results_contain[1]",
                ],
                "unknown_city_is_a_failed_call.json": ["all_tools_succeeded", "tool_results_contain[0]"],
            },
        ),
    ),
    wires=(("--api", "anthropic"),),
)

#: The two broken variants the gate once let pass on Anthropic's wire, run there too.
PYDANTIC_AI = dataclasses.replace(
    PYDANTIC_AI,
    mutations=PYDANTIC_AI.mutations
    + _over(("--api", "anthropic"), PYDANTIC_AI.mutations, "echoed_arguments", "asks_after_answering"),
)

LANGGRAPH = Framework(
    "langgraph",
    ("langchain", "langchain_openai", "langgraph"),
    "python agent.py",
    "chat.completions",
    "weather_then_packing_note_over_two_turns.json",
    (
        # The agent asks for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (_then(PYTHON_PRINTED, f'ChatOpenAI(model=MODEL).invoke(f"{TITLE}{{text}}")'),),
            errors={
                "unknown_city_then_fallback_over_two_rounds.json": LATE,
                "weather_for_two_cities_in_one_step.json": LATE,
                "weather_then_packing_note_over_two_turns.json": _title_for("How cold is Oslo right now?"),
            },
        ),
        # Between turns, the thread's state has each weather call lower-cased: the second
        # turn's request echoes the first turn's call with other arguments.
        Mutation(
            "echoed_arguments",
            (_then(PYTHON_PRINTED, LANGGRAPH_TIDY),),
            errors={
                "weather_then_packing_note_over_two_turns.json": _echoed(
                    "call_oslo", "Oslo", '{"city": "oslo"}', "/turns/1/steps/0"
                )
            },
            passes=(
                "unknown_city_then_fallback_over_two_rounds.json",
                "weather_for_two_cities_in_one_step.json",
            ),
        ),
        _renamed(
            "unknown_city_then_fallback_over_two_rounds.json",
            "weather_for_two_cities_in_one_step.json",
            "weather_then_packing_note_over_two_turns.json",
        ),
        # return_direct: the graph ends at the tool and answers with its output, so the
        # model never sees the result and the script's next step is left unserved.
        Mutation(
            "not_fed_back",
            (("@tool\ndef get_weather", "@tool(return_direct=True)\ndef get_weather"),),
            errors={
                "unknown_city_then_fallback_over_two_rounds.json": ("/turns/0/steps/1", _unconsumed(2)),
                "weather_for_two_cities_in_one_step.json": ("/turns/0/steps/1", _unconsumed(1)),
                "weather_then_packing_note_over_two_turns.json": ("/turns/0/steps/1", _unconsumed(1)),
            },
        ),
        _wrong(
            *PYTHON_ANSWER,
            "unknown_city_then_fallback_over_two_rounds.json",
            "weather_for_two_cities_in_one_step.json",
            "weather_then_packing_note_over_two_turns.json",
        ),
        _no_tools(
            "ChatOpenAI(model=MODEL, streaming=stream)",
            'ChatOpenAI(model=MODEL, streaming=stream, model_kwargs={"tool_choice": "none"})',
            "unknown_city_then_fallback_over_two_rounds.json",
            "weather_for_two_cities_in_one_step.json",
            "weather_then_packing_note_over_two_turns.json",
        ),
        _garbled(
            *PYTHON_GARBLED,
            {
                "unknown_city_then_fallback_over_two_rounds.json": [
                    "all_tools_succeeded",
                    "tool_results_contain[0]",
                    "tool_results_contain[1]",
                ],
                "weather_for_two_cities_in_one_step.json": [
                    "tool_results_contain[0]",
                    "tool_results_contain[1]",
                ],
                "weather_then_packing_note_over_two_turns.json": ["tool_results_contain[0]"],
            },
        ),
    ),
    wires=(("--api", "anthropic"),),
)
LANGGRAPH = dataclasses.replace(
    LANGGRAPH,
    mutations=LANGGRAPH.mutations
    + tuple(
        # Anthropic's tool_use input is an object: the echo is quoted as compact JSON.
        dataclasses.replace(
            mutation,
            errors={
                "weather_then_packing_note_over_two_turns.json": _echoed(
                    "call_oslo", "Oslo", '{"city":"oslo"}', "/turns/1/steps/0"
                )
            },
        )
        if mutation.name.startswith("echoed")
        else mutation
        for mutation in _over(
            ("--api", "anthropic"), LANGGRAPH.mutations, "echoed_arguments", "asks_after_answering"
        )
    ),
)

NODE_OPENAI = Framework(
    "node_openai",
    (),
    "node agent.mjs",
    "chat.completions",
    "weather_then_note_over_two_turns.json",
    (
        _renamed(
            "weather_in_two_cities_in_one_step.json",
            "weather_saved_as_a_note_in_two_rounds.json",
            "weather_then_note_over_two_turns.json",
        ),
        # The loop runs each tool but drops its `tool` message: the next request lacks it.
        Mutation(
            "not_fed_back",
            (
                (
                    'history.push({ role: "tool", tool_call_id: call.id, content: runTool(call) });',
                    "runTool(call);",
                ),
            ),
            errors={
                "weather_in_two_cities_in_one_step.json": (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_oslo),"
                    " get_weather (id call_lima)",
                ),
                "weather_saved_as_a_note_in_two_rounds.json": (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_oslo)",
                ),
                "weather_then_note_over_two_turns.json": (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_paris)",
                ),
            },
        ),
        _wrong(
            "JSON.stringify({ answer: text })",
            'JSON.stringify({ answer: "Sunny!" })',
            "weather_in_two_cities_in_one_step.json",
            "weather_saved_as_a_note_in_two_rounds.json",
            "weather_then_note_over_two_turns.json",
        ),
        _no_tools(
            "const request = { model: MODEL, messages, tools: TOOLS };",
            'const request = { model: MODEL, messages, tools: TOOLS, tool_choice: "none" };',
            "weather_in_two_cities_in_one_step.json",
            "weather_saved_as_a_note_in_two_rounds.json",
            "weather_then_note_over_two_turns.json",
        ),
        _garbled(
            "content: runTool(call) });",
            'content: [...runTool(call)].reverse().join("") });',
            {
                "weather_in_two_cities_in_one_step.json": [
                    "tool_results_contain[0]",
                    "tool_results_contain[1]",
                ],
                "weather_saved_as_a_note_in_two_rounds.json": [
                    "tool_results_contain[0]",
                    "tool_results_contain[1]",
                ],
                "weather_then_note_over_two_turns.json": [
                    "tool_results_contain[0]",
                    "tool_results_contain[1]",
                ],
            },
        ),
    ),
    packages=("openai",),
)

#: The suite of the anthropic SDK and Vercel AI SDK agents (the same three cases).
UNKNOWN = "unknown_city_then_a_known_one.json"
TWO_CITIES = "weather_in_two_cities_in_one_step.json"
TWO_TURNS = "weather_then_note_over_two_turns.json"
SUITE = (UNKNOWN, TWO_CITIES, TWO_TURNS)


def _unreached(*calls: str, left: int = 1, first: int = 2) -> str:
    results = ", ".join(f"get_weather's result (call {call})" for call in calls)
    return (
        f"the agent finished the turn with {left} scripted step(s) unconsumed (first: step {first});"
        f" {results} never reached the model"
    )


#: A lookup that no longer normalises the city: "Oslo" is not a key, so each known city
#: is a failed lookup, and its result the failure.
WRONG_ARGUMENT = {
    UNKNOWN: ["tool_results_contain[1]"],
    TWO_CITIES: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
    TWO_TURNS: ["all_tools_succeeded", "tool_results_contain[0]"],
}

ANTHROPIC_SDK = Framework(
    "anthropic_sdk",
    ("anthropic",),
    "python agent.py",
    "messages",
    TWO_TURNS,
    (
        # The agent asks for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (
                _then(
                    "    " + PYTHON_PRINTED,
                    "client.messages.create(model=MODEL, max_tokens=64,"
                    f' messages=[{{"role": "user", "content": f"{TITLE}{{text}}"}}])',
                ),
            ),
            errors={
                UNKNOWN: LATE,
                TWO_CITIES: LATE,
                TWO_TURNS: _title_for("What is the weather in Paris?"),
            },
        ),
        # The tools run, but their results are not added to the conversation.
        Mutation(
            "not_fed_back",
            (
                (
                    '        history.append({"role": "user", "content": [run_tool(call) for call in calls]})',
                    "        [run_tool(call) for call in calls]",
                ),
            ),
            errors={
                UNKNOWN: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id toolu_atlantis)",
                ),
                TWO_CITIES: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id toolu_oslo),"
                    " get_weather (id toolu_lima)",
                ),
                TWO_TURNS: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id toolu_paris)",
                ),
            },
        ),
        Mutation(
            "wrong_argument",
            (("found = WEATHER.get(city.strip().lower())", "found = WEATHER.get(city)"),),
            failures=WRONG_ARGUMENT,
        ),
        # Only the first call of a step runs: the second city's result is never sent.
        Mutation(
            "tool_skipped",
            (("[run_tool(call) for call in calls]", "[run_tool(call) for call in calls[:1]]"),),
            errors={
                TWO_CITIES: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id toolu_lima)",
                )
            },
            passes=(UNKNOWN, TWO_TURNS),
        ),
        # Each turn starts a new conversation: the second turn leaves the script.
        Mutation(
            "history_dropped",
            (
                (
                    '    history.append({"role": "user", "content": user_input})',
                    '    history[:] = [{"role": "user", "content": user_input}]',
                ),
            ),
            errors={
                TWO_TURNS: ("/turns/1/steps/0", 'turn 1\'s user input is "What is the weather in Paris?"')
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        _no_tools(
            '        "tools": TOOLS,\n    }',
            '        "tools": TOOLS,\n        "tool_choice": {"type": "none"},\n    }',
            *SUITE,
        ),
        # is_error still marks the failed lookup, so only the texts fail.
        _garbled(
            '"tool_use_id": block.id, "content": content}',
            '"tool_use_id": block.id, "content": content[::-1]}',
            {
                UNKNOWN: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_TURNS: ["tool_results_contain[0]", "tool_results_contain[1]"],
            },
        ),
    ),
)

#: Lines that lower-case the city of each weather call the google-genai agent keeps in its
#: history, after it ran them with the model's arguments.
GOOGLE_GENAI_TIDY = """        for part in reply.parts or []:
            if part.function_call is not None and part.function_call.name == "get_weather":
                part.function_call.args = {"city": (part.function_call.args or {})["city"].lower()}
"""
GOOGLE_GENAI = Framework(
    "google_genai",
    ("google.genai",),
    "python agent.py",
    "gemini",
    TWO_TURNS,
    (
        # The agent asks for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (
                _then(
                    "    " + PYTHON_PRINTED,
                    f'client.models.generate_content(model=MODEL, contents=f"{TITLE}{{text}}")',
                ),
            ),
            errors={
                UNKNOWN: LATE,
                TWO_CITIES: LATE,
                TWO_TURNS: _title_for("What is the weather in Paris?"),
            },
        ),
        # The functions run, but their responses are not added to the conversation.
        Mutation(
            "not_fed_back",
            (
                (
                    'history.append(types.Content(role="user", parts=[run_tool(call) for call in calls]))',
                    "[run_tool(call) for call in calls]",
                ),
            ),
            errors={
                UNKNOWN: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_atlantis)",
                ),
                TWO_CITIES: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_oslo),"
                    " get_weather (id call_lima)",
                ),
                TWO_TURNS: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_paris)",
                ),
            },
        ),
        Mutation(
            "wrong_argument",
            (("found = WEATHER.get(city.strip().lower())", "found = WEATHER.get(city)"),),
            failures=WRONG_ARGUMENT,
        ),
        # Only the first call of a step runs: the second city's response is never sent.
        Mutation(
            "tool_skipped",
            (("[run_tool(call) for call in calls]", "[run_tool(call) for call in calls[:1]]"),),
            errors={
                TWO_CITIES: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_lima)",
                )
            },
            passes=(UNKNOWN, TWO_TURNS),
        ),
        # Each turn starts a new conversation: the second turn leaves the script.
        Mutation(
            "history_dropped",
            (
                (
                    '    history.append(types.Content(role="user", parts=[types.Part(text=user_input)]))',
                    '    history[:] = [types.Content(role="user", parts=[types.Part(text=user_input)])]',
                ),
            ),
            errors={
                TWO_TURNS: ("/turns/1/steps/0", 'turn 1\'s user input is "What is the weather in Paris?"')
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # The calls kept in the history with each city lower-cased: the next request echoes
        # them with arguments the model never sent.
        Mutation(
            "echoed_arguments",
            (
                (
                    "        history.append(reply)\n",
                    "        history.append(reply)\n" + GOOGLE_GENAI_TIDY,
                ),
            ),
            errors={
                UNKNOWN: _echoed("call_atlantis", "Atlantis", '{"city":"atlantis"}'),
                TWO_CITIES: _echoed("call_oslo", "Oslo", '{"city":"oslo"}'),
                TWO_TURNS: _echoed("call_paris", "Paris", '{"city":"paris"}'),
            },
        ),
        _no_tools(
            "    tools=[TOOLS],\n",
            "    tools=[TOOLS],\n    tool_config=types.ToolConfig(function_calling_config="
            "types.FunctionCallingConfig(mode=types.FunctionCallingConfigMode.NONE)),\n",
            *SUITE,
            words=GEMINI_NO_TOOL,
        ),
        # The error key still marks the failed lookup, so only the texts fail.
        _garbled(
            '    response = {"error": content} if failed else {"result": content}',
            '    response = {"error": content[::-1]} if failed else {"result": content[::-1]}',
            {
                UNKNOWN: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_TURNS: ["tool_results_contain[0]", "tool_results_contain[1]"],
            },
        ),
    ),
    # A chat session of the SDK keeps the conversation.
    wires=(("--chat",),),
)

#: The side environment of Google ADK, which pins google-genai below 3 and the
#: OpenTelemetry SDK below 1.45 (CrewAI's side environment asks for 1.45 or newer):
#: `nox -s frameworks` makes it and names its Python here.
ADK_PYTHON = "ZEROCLAW_ADK_PYTHON"
#: A `before_model_callback` that lower-cases the city of each weather call in the
#: request ADK is about to send: the functions ran with the model's arguments.
ADK_TIDY = """def tidy(callback_context, llm_request):
    for content in llm_request.contents:
        for part in content.parts or []:
            if part.function_call is not None and part.function_call.name == "get_weather":
                part.function_call.args = {"city": part.function_call.args["city"].lower()}
    return None


"""
ADK_AGENT = "agent = LlmAgent("

ADK_PRINTED = '        print(json.dumps({"answer": text}), flush=True)'
GOOGLE_ADK = Framework(
    "google_adk",
    ("google.adk",),
    "python agent.py",
    "gemini",
    TWO_TURNS,
    (
        # ADK hands each function response to an after_tool_callback, which drops it:
        # the model is sent an empty response.
        Mutation(
            "result_dropped",
            (
                (
                    "tools=[get_weather, save_note])",
                    "tools=[get_weather, save_note], after_tool_callback=lambda tool, args, tool_context,"
                    " tool_response: {})",
                ),
            ),
            failures={
                UNKNOWN: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_TURNS: ["tool_results_contain[0]", "tool_results_contain[1]"],
            },
        ),
        Mutation(
            "wrong_argument",
            (("found = WEATHER.get(city.strip().lower())", "found = WEATHER.get(city)"),),
            failures=WRONG_ARGUMENT,
        ),
        # A before_tool_callback answers save_note itself: the note is never written.
        Mutation(
            "tool_skipped",
            (
                (
                    "tools=[get_weather, save_note])",
                    "tools=[get_weather, save_note], before_tool_callback=lambda tool, args, tool_context:"
                    ' {"result": "saved to notes.txt"} if tool.name == "save_note" else None)',
                ),
            ),
            failures={TWO_TURNS: ['workspace.file_contains["notes.txt"][0]']},
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # The answer of the turn before is printed again.
        Mutation(
            "stale_answer",
            (
                (
                    "    loop = asyncio.get_running_loop()\n",
                    '    loop = asyncio.get_running_loop()\n    last = ""\n',
                ),
                (ADK_PRINTED, "        last, text = text, last or text\n" + ADK_PRINTED),
            ),
            failures={TWO_TURNS: ["response_contains[0]"]},
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # Every turn sends the first turn's input again.
        Mutation(
            "turn_ignored",
            (
                (
                    "    loop = asyncio.get_running_loop()\n",
                    "    loop = asyncio.get_running_loop()\n    first = None\n",
                ),
                (
                    '        text = await answer(runner, session.id, json.loads(line)["user_input"],',
                    '        first = first or json.loads(line)["user_input"]\n'
                    "        text = await answer(runner, session.id, first,",
                ),
            ),
            errors={TWO_TURNS: _turn_input("Note for zeroclaw_user: bring sunglasses to Paris.")},
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # Each turn in a session of its own: the history is dropped.
        Mutation(
            "history_dropped",
            (
                (
                    "        text = await answer(runner, session.id,",
                    '        session = await runner.session_service.create_session(app_name="travel_desk",'
                    " user_id=USER)\n        text = await answer(runner, session.id,",
                ),
            ),
            errors={
                TWO_TURNS: ("/turns/1/steps/0", 'turn 1\'s user input is "What is the weather in Paris?"')
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        Mutation(
            "echoed_arguments",
            (
                (
                    "tools=[get_weather, save_note])",
                    "tools=[get_weather, save_note], before_model_callback=tidy)",
                ),
                (ADK_AGENT, ADK_TIDY + ADK_AGENT),
            ),
            errors={
                UNKNOWN: _echoed("call_atlantis", "Atlantis", '{"city":"atlantis"}'),
                TWO_CITIES: _echoed("call_oslo", "Oslo", '{"city":"oslo"}'),
                TWO_TURNS: _echoed("call_paris", "Paris", '{"city":"paris"}'),
            },
        ),
        # The agent asks for a title once the answer is out (a turn of its own session).
        Mutation(
            "asks_after_answering",
            (_then(ADK_PRINTED, f'await answer(runner, session.id, f"{TITLE}{{text}}", options.stream)'),),
            errors={
                UNKNOWN: LATE,
                TWO_CITIES: LATE,
                TWO_TURNS: ("/turns/1/steps/0", f'the request has "{TITLE}'),
            },
        ),
        _renamed(*SUITE),
        _wrong(ADK_PRINTED.strip(), 'print(json.dumps({"answer": "Sunny!"}), flush=True)', *SUITE),
    ),
    python=ADK_PYTHON,
)

#: Lines that lower-case the city of each weather call the boto3 agent keeps.
BOTO3_TIDY = """        for block in content:
            if "toolUse" in block and block["toolUse"]["name"] == "get_weather":
                city = block["toolUse"]["input"]["city"].lower()
                block["toolUse"] = {**block["toolUse"], "input": {"city": city}}
"""
BOTO3_BEDROCK = Framework(
    "boto3_bedrock",
    ("boto3",),
    "python agent.py",
    "converse",
    TWO_TURNS,
    (
        # The agent asks for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (
                _then(
                    "    " + PYTHON_PRINTED,
                    'client.converse(modelId=MODEL, messages=[{"role": "user", "content":'
                    f' [{{"text": f"{TITLE}{{text}}"}}]}}])',
                ),
            ),
            errors={
                UNKNOWN: LATE,
                TWO_CITIES: LATE,
                TWO_TURNS: _title_for("What is the weather in Paris?"),
            },
        ),
        # The tools run, but their results are not added to the conversation.
        Mutation(
            "not_fed_back",
            (
                (
                    'messages.append({"role": "user", "content": [run_tool(use) for use in uses]})',
                    "[run_tool(use) for use in uses]",
                ),
            ),
            errors={
                UNKNOWN: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id tooluse_atlantis)",
                ),
                TWO_CITIES: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id tooluse_oslo),"
                    " get_weather (id tooluse_lima)",
                ),
                TWO_TURNS: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id tooluse_paris)",
                ),
            },
        ),
        Mutation(
            "wrong_argument",
            (("found = WEATHER.get(city.strip().lower())", "found = WEATHER.get(city)"),),
            failures=WRONG_ARGUMENT,
        ),
        # Only the first call of a step runs: the second city's result is never sent.
        Mutation(
            "tool_skipped",
            (("[run_tool(use) for use in uses]", "[run_tool(use) for use in uses[:1]]"),),
            errors={
                TWO_CITIES: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id tooluse_lima)",
                )
            },
            passes=(UNKNOWN, TWO_TURNS),
        ),
        # Each turn starts a new conversation: the second turn leaves the script.
        Mutation(
            "history_dropped",
            (
                (
                    '    messages.append({"role": "user", "content": [{"text": user_input}]})',
                    '    messages[:] = [{"role": "user", "content": [{"text": user_input}]}]',
                ),
            ),
            errors={
                TWO_TURNS: ("/turns/1/steps/0", 'turn 1\'s user input is "What is the weather in Paris?"')
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # The calls kept in the history with each city lower-cased.
        Mutation(
            "echoed_arguments",
            (
                (
                    '        messages.append({"role": "assistant", "content": content})\n',
                    BOTO3_TIDY + '        messages.append({"role": "assistant", "content": content})\n',
                ),
            ),
            errors={
                UNKNOWN: _echoed("tooluse_atlantis", "Atlantis", '{"city":"atlantis"}'),
                TWO_CITIES: _echoed("tooluse_oslo", "Oslo", '{"city":"oslo"}'),
                TWO_TURNS: _echoed("tooluse_paris", "Paris", '{"city":"paris"}'),
            },
        ),
        # The status still marks the failed lookup, so only the texts fail.
        _garbled(
            '"content": [{"text": content}]}',
            '"content": [{"text": content[::-1]}]}',
            {
                UNKNOWN: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_TURNS: ["tool_results_contain[0]", "tool_results_contain[1]"],
            },
        ),
    ),
)

#: Lines that lower-case the city of each weather call in the Strands agent's messages.
STRANDS_TIDY = """for message in agent.messages:
                for block in message["content"]:
                    if "toolUse" in block and block["toolUse"]["name"] == "get_weather":
                        block["toolUse"]["input"] = {"city": block["toolUse"]["input"]["city"].lower()}"""
STRANDS = Framework(
    "strands",
    ("strands",),
    "python agent.py",
    "converse",
    TWO_TURNS,
    (
        _renamed(*SUITE),
        # The agent asks for a title once the answer is out (a fresh agent: one request).
        Mutation(
            "asks_after_answering",
            (_then("    " + PYTHON_PRINTED, f'build(options.stream)(f"{TITLE}{{text}}")'),),
            errors={
                UNKNOWN: LATE,
                TWO_CITIES: LATE,
                TWO_TURNS: _title_for("What is the weather in Paris?"),
            },
        ),
        Mutation(
            "wrong_argument",
            (("found = WEATHER.get(city.strip().lower())", "found = WEATHER.get(city)"),),
            failures=WRONG_ARGUMENT,
        ),
        # Each turn asks a new agent: the second turn leaves the script.
        Mutation(
            "history_dropped",
            (("text = str(agent(", "text = str(build(options.stream)("),),
            errors={
                TWO_TURNS: ("/turns/1/steps/0", 'turn 1\'s user input is "What is the weather in Paris?"')
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # Between turns the agent's messages have each weather call lower-cased.
        Mutation(
            "echoed_arguments",
            (_then("    " + PYTHON_PRINTED, STRANDS_TIDY),),
            errors={TWO_TURNS: _echoed("tooluse_paris", "Paris", '{"city":"paris"}', "/turns/1/steps/0")},
            passes=(UNKNOWN, TWO_CITIES),
        ),
        _garbled(
            "    return found\n",
            "    return found[::-1]\n",
            {
                UNKNOWN: ["tool_results_contain[1]"],
                TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_TURNS: ["tool_results_contain[0]"],
            },
        ),
    ),
    python=OPENAI2_PYTHON,
)

VERCEL_WEATHER = (
    "execute: async ({ city }) => WEATHER[city.trim().toLowerCase()] ?? `Error: no weather data for ${city}`,"
)

VERCEL_AI = Framework(
    "vercel_ai",
    (),
    "node agent.mjs",
    "responses",
    TWO_TURNS,
    (
        # Without stopWhen the SDK stops after one step (its default): the tools run, and
        # their results never go back to the model.
        Mutation(
            "not_fed_back",
            ((", stopWhen: isStepCount(10) };", " };"),),
            errors={
                UNKNOWN: ("/turns/0/steps/1", _unreached("call_atlantis", left=2)),
                TWO_CITIES: ("/turns/0/steps/1", _unreached("call_oslo", "call_lima")),
                TWO_TURNS: ("/turns/0/steps/1", _unreached("call_paris")),
            },
        ),
        Mutation(
            "wrong_argument",
            (("WEATHER[city.trim().toLowerCase()]", "WEATHER[city]"),),
            failures=WRONG_ARGUMENT,
        ),
        # A tool without execute is the caller's to run: the SDK ends the turn at its call.
        Mutation(
            "tool_skipped",
            (("    execute: async ({ text }) => {", "    _execute: async ({ text }) => {"),),
            errors={
                TWO_TURNS: (
                    "/turns/1/steps/1",
                    "save_note's result (call call_note) never reached the model, which step 2 needs",
                )
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # ai 7's `response.messages` holds the last step's messages only: an agent that
        # carries its history with it (as ai 6 agents did) loses the tool round.
        Mutation(
            "history_dropped",
            (
                (
                    "history.push(...(await result.responseMessages));",
                    "history.push(...(await result.response).messages);",
                ),
                ("history.push(...result.responseMessages);", "history.push(...result.response.messages);"),
            ),
            errors={
                TWO_TURNS: (
                    "/turns/1/steps/0",
                    "turn 1, step 1 of the script calls get_weather (id call_paris);"
                    " the request echoes back none",
                )
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        _no_tools("tools, stopWhen", 'tools, toolChoice: "none", stopWhen', *SUITE),
        _garbled(
            VERCEL_WEATHER,
            VERCEL_WEATHER.replace("=> WEATHER", "=> [...(WEATHER").replace(
                "${city}`,", '${city}`)].reverse().join(""),'
            ),
            {
                UNKNOWN: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_TURNS: ["tool_results_contain[0]"],
            },
        ),
    ),
    packages=("ai", "@ai-sdk/openai", "@ai-sdk/anthropic", "zod"),
    wires=(("--api", "chat"), ("--api", "anthropic")),
)

PARALLEL_OFF = (
    "the script calls 2 tools in one step (get_weather, get_weather),"
    " but the request's parallel_tool_calls is false"
)

#: A subclass of LlamaIndex's FunctionAgent that lower-cases the city of each weather call
#: in the reply it keeps (the message its scratchpad, then its memory, holds): the tools
#: run with the model's arguments, but the next request echoes the lower-cased ones.
LLAMAINDEX_TIDY = '''class Tidy(FunctionAgent):
    """Lower-cases the city of each weather call in the reply the agent keeps."""

    async def take_step(self, ctx, llm_input, tools, memory):
        output = await super().take_step(ctx, llm_input, tools, memory)
        for block in output.response.blocks:
            if getattr(block, "tool_name", None) == "get_weather":
                kwargs = block.tool_kwargs
                arguments = json.loads(kwargs) if isinstance(kwargs, str) else kwargs
                block.tool_kwargs = json.dumps({**arguments, "city": arguments["city"].lower()})
        return output


def build(stream: bool) -> FunctionAgent:'''

#: LlamaIndex's FunctionAgent: its tools are plain functions; the conversation's memory is
#: passed to every run. Its framework pins openai below 3: it runs in the side environment.
LLAMAINDEX = Framework(
    "llamaindex",
    ("llama_index.core", "llama_index.llms.openai_like"),
    "python agent.py",
    "chat.completions",
    TWO_TURNS,
    (
        _renamed(*SUITE),
        # return_direct: the agent ends the turn at the tool and answers with its output,
        # so the model never sees the result and the script's next step is left unserved.
        Mutation(
            "not_fed_back",
            (
                (
                    "tools=[get_weather, save_note]",
                    'tools=[__import__("llama_index.core.tools", fromlist=["FunctionTool"])'
                    ".FunctionTool.from_defaults(get_weather, return_direct=True), save_note]",
                ),
            ),
            errors={
                UNKNOWN: ("/turns/0/steps/1", _unconsumed(2)),
                TWO_CITIES: ("/turns/0/steps/1", _unconsumed(1)),
                TWO_TURNS: ("/turns/0/steps/1", _unconsumed(1)),
            },
        ),
        # No memory passed: each run starts a fresh one (a Context no longer carries it).
        Mutation(
            "history_dropped",
            (("agent.run(user_msg=user_input, memory=memory)", "agent.run(user_msg=user_input)"),),
            errors={
                TWO_TURNS: (
                    "/turns/1/steps/0",
                    'turn 1\'s user input is "What is the weather in Lima today?"',
                )
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # One call per reply (parallel_tool_calls: false), where the script makes two.
        Mutation(
            "no_parallel_calls",
            (("streaming=stream", "streaming=stream, allow_parallel_tool_calls=False"),),
            errors={TWO_CITIES: ("/turns/0/steps/0", PARALLEL_OFF)},
            passes=(UNKNOWN, TWO_TURNS),
        ),
        Mutation(
            "echoed_arguments",
            (
                ("def build(stream: bool) -> FunctionAgent:", LLAMAINDEX_TIDY),
                ("    return FunctionAgent(", "    return Tidy("),
            ),
            errors={
                UNKNOWN: _echoed("call_el_dorado", "El Dorado", '{"city": "el dorado"}'),
                TWO_CITIES: _echoed("call_oslo", "Oslo", '{"city": "oslo"}'),
                TWO_TURNS: _echoed("call_lima", "Lima", '{"city": "lima"}'),
            },
        ),
        # The LLM asked for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (_then(PYTHON_PRINTED, f'await agent.llm.acomplete(f"{TITLE}{{text}}")'),),
            errors={
                UNKNOWN: LATE,
                TWO_CITIES: LATE,
                TWO_TURNS: _title_for("What is the weather in Lima today?"),
            },
        ),
        _wrong(*PYTHON_ANSWER, *SUITE),
        # initial_tool_choice goes with the first request of each run.
        _no_tools("streaming=stream", 'streaming=stream, initial_tool_choice="none"', *SUITE),
        _garbled(
            *PYTHON_GARBLED,
            {
                UNKNOWN: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_TURNS: ["tool_results_contain[0]"],
            },
        ),
    ),
    python=OPENAI2_PYTHON,
)

#: The suite of the Haystack agent.
HAYSTACK_FOLLOW_UP = "follow_up_question_keeps_the_conversation.json"
HAYSTACK_NOTED = "two_cities_in_one_step_then_noted.json"
HAYSTACK_UNKNOWN = "unknown_city_is_a_failed_call.json"
HAYSTACK_SUITE = (HAYSTACK_FOLLOW_UP, HAYSTACK_NOTED, HAYSTACK_UNKNOWN)

#: A before_tool hook that lower-cases each city in place (the lookup's keys): the tool
#: still finds it, but the history now says the model asked for the lower-cased city.
HAYSTACK_NORMALISE = '''class Normalise:
    """Lower-cases the city of each weather call, in place."""

    def run(self, state: Any) -> None:
        for call in state.data["messages"][-1].tool_calls:
            if "city" in call.arguments:
                call.arguments["city"] = call.arguments["city"].lower()


def build() -> Agent:'''

#: Haystack's Agent component over OpenAIChatGenerator, with function Tools; the
#: history is the messages the last run returned.
HAYSTACK = Framework(
    "haystack",
    ("haystack",),
    "python agent.py",
    "chat.completions",
    HAYSTACK_FOLLOW_UP,
    (
        _renamed(*HAYSTACK_SUITE),
        # The agent exits once get_weather has run: the model never sees its result.
        Mutation(
            "not_fed_back",
            (
                (
                    "system_prompt=SYSTEM_PROMPT)",
                    'system_prompt=SYSTEM_PROMPT, exit_conditions=["text", "get_weather"])',
                ),
            ),
            errors={
                HAYSTACK_FOLLOW_UP: ("/turns/0/steps/1", _unconsumed(1)),
                HAYSTACK_NOTED: ("/turns/0/steps/1", _unconsumed(2)),
                HAYSTACK_UNKNOWN: ("/turns/0/steps/1", _unconsumed(1)),
            },
        ),
        Mutation(
            "history_dropped",
            (
                (
                    "messages=[*history, ChatMessage.from_user(user_input)]",
                    "messages=[ChatMessage.from_user(user_input)]",
                ),
            ),
            errors={
                HAYSTACK_FOLLOW_UP: (
                    "/turns/1/steps/0",
                    'turn 1\'s user input is "How is the weather in Paris?"',
                )
            },
            passes=(HAYSTACK_NOTED, HAYSTACK_UNKNOWN),
        ),
        Mutation(
            "echoed_arguments",
            (
                ("def build() -> Agent:", HAYSTACK_NORMALISE),
                (
                    "system_prompt=SYSTEM_PROMPT)",
                    'system_prompt=SYSTEM_PROMPT, hooks={"before_tool": [Normalise()]})',
                ),
                ("from pathlib import Path", "from pathlib import Path\nfrom typing import Any"),
            ),
            errors={
                HAYSTACK_FOLLOW_UP: _echoed("call_paris", "Paris", '{"city": "paris"}'),
                HAYSTACK_NOTED: _echoed("call_lima", "Lima", '{"city": "lima"}'),
                HAYSTACK_UNKNOWN: _echoed("call_shangri_la", "Shangri-La", '{"city": "shangri-la"}'),
            },
        ),
        # The chat generator asked for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (
                _then(
                    PYTHON_PRINTED,
                    f'agent.chat_generator.run([ChatMessage.from_user(f"{TITLE}{{text}}")])',
                ),
            ),
            errors={
                HAYSTACK_FOLLOW_UP: _title_for("How is the weather in Paris?"),
                HAYSTACK_NOTED: LATE,
                HAYSTACK_UNKNOWN: LATE,
            },
        ),
        Mutation(
            "no_parallel_calls",
            (
                (
                    "OpenAIChatGenerator(model=MODEL)",
                    'OpenAIChatGenerator(model=MODEL, generation_kwargs={"parallel_tool_calls": False})',
                ),
            ),
            errors={HAYSTACK_NOTED: ("/turns/0/steps/0", PARALLEL_OFF)},
            passes=(HAYSTACK_FOLLOW_UP, HAYSTACK_UNKNOWN),
        ),
        _wrong(*PYTHON_ANSWER, *HAYSTACK_SUITE),
        _no_tools(
            "OpenAIChatGenerator(model=MODEL)",
            'OpenAIChatGenerator(model=MODEL, generation_kwargs={"tool_choice": "none"})',
            *HAYSTACK_SUITE,
        ),
        _garbled(
            *PYTHON_GARBLED,
            {
                HAYSTACK_FOLLOW_UP: ["tool_results_contain[0]", "tool_results_contain[1]"],
                HAYSTACK_NOTED: ["tool_results_contain[0]", "tool_results_contain[1]"],
                HAYSTACK_UNKNOWN: ["all_tools_succeeded", "tool_results_contain[0]"],
            },
        ),
    ),
)

#: The Mastra agent's weather tool, where its broken copies change it.
MASTRA_WEATHER = (
    "execute: async ({ city }) => WEATHER[city.trim().toLowerCase()] ?? `Error: no weather data for ${city}`,"
)
#: A tidy-up of the history Mastra's runs return, between turns: each weather call's city
#: lower-cased, so the next turn echoes the call with arguments the model never sent.
MASTRA_TIDY = """/** Lower-cases the city of each weather call kept in the history. */
function tidy(history) {
  for (const message of history) {
    for (const part of Array.isArray(message.content) ? message.content : []) {
      if (part.type === "tool-call" && part.toolName === "get_weather") {
        part.input = { ...part.input, city: part.input.city.toLowerCase() };
      }
    }
  }
}

/** Answer one user turn"""
NODE_PRINTED = "  process.stdout.write(`${JSON.stringify({ answer: text })}\\n`);"

#: The agent of examples/frameworks/mastra: a Mastra `Agent` with `createTool` tools over an
#: OpenAI-compatible model config (`{ id, url, apiKey }`, Chat Completions); its suite has
#: the case names of the anthropic SDK and Vercel AI SDK agents (SUITE).
MASTRA = Framework(
    "mastra",
    (),
    "node agent.mjs",
    "chat.completions",
    TWO_TURNS,
    (
        _renamed(*SUITE),
        # One step per run: Mastra runs the tools the model asks for and ends the run with
        # their results, which never go back to the model.
        Mutation(
            "not_fed_back",
            (("{ maxSteps: 10 }", "{ maxSteps: 1 }"),),
            errors={
                UNKNOWN: ("/turns/0/steps/1", _unreached("call_atlantis", left=2)),
                TWO_CITIES: ("/turns/0/steps/1", _unreached("call_paris", "call_lima")),
                TWO_TURNS: ("/turns/0/steps/1", _unreached("call_lima")),
            },
        ),
        Mutation(
            "wrong_argument",
            (("WEATHER[city.trim().toLowerCase()]", "WEATHER[city]"),),
            failures=WRONG_ARGUMENT,
        ),
        # Each turn sends the new input alone (as an agent with no memory configured does):
        # the second turn leaves the script.
        Mutation(
            "history_dropped",
            (
                ("agent.stream(history, options)", "agent.stream(userInput, options)"),
                ("agent.generate(history, options)", "agent.generate(userInput, options)"),
            ),
            errors={
                TWO_TURNS: ("/turns/1/steps/0", 'turn 1\'s user input is "What is the weather in Lima?"')
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # The history tidied between turns: only a case of two turns echoes an earlier call
        # (within a turn, Mastra sends the calls as the model made them).
        Mutation(
            "echoed_arguments",
            (
                ("/** Answer one user turn", MASTRA_TIDY),
                _then("    history.push(...(await result.response).messages);", "tidy(history);"),
                _then("  history.push(...result.response.messages);", "tidy(history);"),
            ),
            errors={TWO_TURNS: _echoed("call_lima", "Lima", '{"city":"lima"}', "/turns/1/steps/0")},
            passes=(UNKNOWN, TWO_CITIES),
        ),
        # The agent asked for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (_then(NODE_PRINTED, f"await agent.generate(`{TITLE}${{text}}`);"),),
            errors={
                UNKNOWN: LATE,
                TWO_CITIES: LATE,
                TWO_TURNS: _title_for("What is the weather in Lima?"),
            },
        ),
        _wrong("JSON.stringify({ answer: text })", 'JSON.stringify({ answer: "Sunny!" })', *SUITE),
        # toolChoice "none": Mastra's provider then sends the request without its tools (no
        # `tools`, no `tool_choice`), so the script's first call is to a tool not offered.
        Mutation(
            "tool_choice_none",
            (("{ maxSteps: 10 }", '{ maxSteps: 10, toolChoice: "none" }'),),
            errors={
                case: (
                    "/turns/0/steps/0",
                    "the request offers the model no tool named get_weather (it offers: none)",
                )
                for case in SUITE
            },
        ),
        _garbled(
            MASTRA_WEATHER,
            MASTRA_WEATHER.replace("=> WEATHER", "=> [...(WEATHER").replace(
                "${city}`,", '${city}`)].reverse().join(""),'
            ),
            {
                UNKNOWN: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_TURNS: ["tool_results_contain[0]"],
            },
        ),
    ),
    packages=("@mastra/core", "zod"),
)

#: The suite of the LangChain.js agent.
LC_UNKNOWN = "unknown_city_then_fallback_over_two_rounds.json"
LC_TWO_CITIES = "weather_for_two_cities_in_one_step.json"
LC_TWO_TURNS = "weather_then_packing_note_over_two_turns.json"
LC_SUITE = (LC_UNKNOWN, LC_TWO_CITIES, LC_TWO_TURNS)
LC_WEATHER = (
    "  async ({ city }) => WEATHER[city.trim().toLowerCase()] ?? `Error: no weather data for ${city}`,"
)

#: The agent of examples/frameworks/langchain_js: langchain's `createAgent` over
#: @langchain/openai's `ChatOpenAI`, a LangGraph `MemorySaver` keeping the thread.
LANGCHAIN_JS = Framework(
    "langchain_js",
    (),
    "node agent.mjs",
    "chat.completions",
    LC_TWO_TURNS,
    (
        _renamed(*LC_SUITE),
        # returnDirect: the graph ends at the tool and answers with its output, so the
        # model never sees the result and the script's next step is left unserved.
        Mutation(
            "not_fed_back",
            (('{ name: "get_weather",', '{ returnDirect: true, name: "get_weather",'),),
            errors={
                LC_UNKNOWN: ("/turns/0/steps/1", _unconsumed(2)),
                LC_TWO_CITIES: ("/turns/0/steps/1", _unconsumed(1)),
                LC_TWO_TURNS: ("/turns/0/steps/1", _unconsumed(1)),
            },
        ),
        Mutation(
            "wrong_argument",
            (("WEATHER[city.trim().toLowerCase()]", "WEATHER[city]"),),
            failures={
                LC_UNKNOWN: ["tool_results_contain[1]"],
                LC_TWO_CITIES: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
                LC_TWO_TURNS: ["all_tools_succeeded", "tool_results_contain[0]"],
            },
        ),
        # A thread per turn: the checkpointer keeps each turn apart, the second leaves the script.
        Mutation(
            "history_dropped",
            (
                (
                    "await answer(JSON.parse(line).user_input, config);",
                    "await answer(JSON.parse(line).user_input,"
                    " { configurable: { thread_id: `turn-${JSON.parse(line).turn}` } });",
                ),
            ),
            errors={
                LC_TWO_TURNS: (
                    "/turns/1/steps/0",
                    'turn 1\'s user input is "How warm is Paris right now?"',
                )
            },
            passes=(LC_UNKNOWN, LC_TWO_CITIES),
        ),
        # Context editing (langchain's ClearToolUsesEdit) set to clear every tool use but the
        # last, inputs too, past 50 tokens: the next request echoes the model's earlier call
        # back with `{}` for arguments (and its result as "[cleared]").
        Mutation(
            "echoed_arguments",
            (
                (
                    'import { createAgent } from "langchain";',
                    'import { ClearToolUsesEdit, contextEditingMiddleware, createAgent } from "langchain";',
                ),
                (
                    "  checkpointer: new MemorySaver(),\n",
                    "  checkpointer: new MemorySaver(),\n  middleware: [contextEditingMiddleware({ edits: ["
                    "new ClearToolUsesEdit({ trigger: { tokens: 50 }, keep: { messages: 1 },"
                    " clearToolInputs: true })] })],\n",
                ),
            ),
            errors={
                LC_UNKNOWN: _echoed("call_eldorado", "El Dorado", "{}", "/turns/0/steps/2"),
                LC_TWO_CITIES: _echoed("call_oslo", "Oslo", "{}"),
                LC_TWO_TURNS: _echoed("call_paris", "Paris", "{}", "/turns/1/steps/1"),
            },
        ),
        # The model asked for a title once the answer is out (streamed: a streaming
        # ChatOpenAI's `invoke` would fetch tiktoken's tables, see agent.mjs).
        Mutation(
            "asks_after_answering",
            (_then(NODE_PRINTED, f"for await (const _chunk of await model.stream(`{TITLE}${{text}}`));"),),
            errors={
                LC_UNKNOWN: LATE,
                LC_TWO_CITIES: LATE,
                LC_TWO_TURNS: _title_for("How warm is Paris right now?"),
            },
        ),
        _wrong("JSON.stringify({ answer: text })", 'JSON.stringify({ answer: "Sunny!" })', *LC_SUITE),
        _no_tools(
            "new ChatOpenAI({ model: MODEL, streaming: STREAM })",
            'new ChatOpenAI({ model: MODEL, streaming: STREAM, modelKwargs: { tool_choice: "none" } })',
            *LC_SUITE,
        ),
        _garbled(
            LC_WEATHER,
            LC_WEATHER.replace("=> WEATHER", "=> [...(WEATHER").replace(
                "${city}`,", '${city}`)].reverse().join(""),'
            ),
            {
                LC_UNKNOWN: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
                LC_TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                LC_TWO_TURNS: ["tool_results_contain[0]"],
            },
        ),
    ),
    packages=("@langchain/core", "@langchain/langgraph", "@langchain/openai", "langchain", "zod"),
)

#: The suite of the smolagents and CrewAI agents (the same three cases).
TEXT_UNKNOWN = "unknown_city_then_a_known_one.json"
TEXT_TWO_CITIES = "weather_for_two_cities_in_one_step.json"
TEXT_TWO_TURNS = "weather_then_packing_note_over_two_turns.json"
TEXT_SUITE = (TEXT_UNKNOWN, TEXT_TWO_CITIES, TEXT_TWO_TURNS)
TEXT_SECOND_INPUT = "Save a note that I should pack sunglasses for Paris."
#: A lookup that no longer normalises the city (as WRONG_ARGUMENT, in this suite).
TEXT_WRONG_ARGUMENT = {
    TEXT_UNKNOWN: ["tool_results_contain[1]"],
    TEXT_TWO_CITIES: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
    TEXT_TWO_TURNS: ["all_tools_succeeded", "tool_results_contain[0]"],
}
TEXT_GARBLED = {
    TEXT_UNKNOWN: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
    TEXT_TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
    TEXT_TWO_TURNS: ["tool_results_contain[0]"],
}
#: Every turn after the first is sent the first turn's input again.
TEXT_IGNORED: dict[str, Error] = {TEXT_TWO_TURNS: _turn_input(TEXT_SECOND_INPUT)}

#: A step callback that lower-cases the city of each weather call in the step smolagents
#: keeps, once its tools have run: the next request writes the call with that city.
SMOLAGENTS_TIDY = '''def tidy(step, agent=None):
    """Lower-cases the city of each weather call in the step's memory."""
    for call in getattr(step, "tool_calls", None) or []:
        if call.name == "get_weather":
            call.arguments["city"] = call.arguments["city"].lower()


def build(stream: bool) -> ToolCallingAgent:'''
#: A ToolCallingAgent that runs only the first call of each step.
SMOLAGENTS_FIRST_CALL = '''class FirstCallOnly(ToolCallingAgent):
    """Runs only the first of the calls a step makes."""

    def process_tool_calls(self, chat_message, memory_step):
        chat_message.tool_calls = chat_message.tool_calls[:1]
        yield from super().process_tool_calls(chat_message, memory_step)


def build(stream: bool) -> ToolCallingAgent:'''

#: The agent of examples/frameworks/smolagents: a ToolCallingAgent, which writes the
#: conversation as text (`tool_echo = "text"`) and ends each turn with its `final_answer`
#: tool (every step of its fixtures is a tool call; it sends tool_choice "required").
SMOLAGENTS = Framework(
    "smolagents",
    ("smolagents",),
    "python agent.py",
    "chat.completions",
    TEXT_TWO_TURNS,
    (
        Mutation(
            "wrong_argument",
            (("WEATHER.get(city.strip().lower(),", "WEATHER.get(city,"),),
            failures=TEXT_WRONG_ARGUMENT,
        ),
        # Only a step's first call runs, and only it is written into the conversation.
        Mutation(
            "tool_skipped",
            (
                ("def build(stream: bool) -> ToolCallingAgent:", SMOLAGENTS_FIRST_CALL),
                ("    return ToolCallingAgent(", "    return FirstCallOnly("),
            ),
            errors={
                TEXT_TWO_CITIES: (
                    "/turns/0/steps/1",
                    "the script calls get_weather (id call_lima), get_weather (id call_paris);"
                    " the request echoes back get_weather (id call_lima)",
                )
            },
            passes=(TEXT_UNKNOWN, TEXT_TWO_TURNS),
        ),
        _garbled(*PYTHON_GARBLED, TEXT_GARBLED),
        # The second turn is run with the first turn's input again.
        Mutation(
            "turn_ignored",
            (
                (
                    '        user_input = json.loads(line)["user_input"]\n',
                    '        user_input = json.loads(line)["user_input"] if first else user_input\n',
                ),
            ),
            errors=TEXT_IGNORED,
            passes=(TEXT_UNKNOWN, TEXT_TWO_CITIES),
        ),
        _wrong(*PYTHON_ANSWER, *TEXT_SUITE),
        Mutation(
            "echoed_arguments",
            (
                ("def build(stream: bool) -> ToolCallingAgent:", SMOLAGENTS_TIDY),
                (
                    "        logger=logger,\n    )",
                    "        logger=logger,\n        step_callbacks=[tidy],\n    )",
                ),
            ),
            errors={
                TEXT_UNKNOWN: _echoed("call_atlantis", "Atlantis", '{"city":"atlantis"}'),
                TEXT_TWO_CITIES: _echoed("call_lima", "Lima", '{"city":"lima"}'),
                TEXT_TWO_TURNS: _echoed("call_paris", "Paris", '{"city":"paris"}'),
            },
        ),
        # The model asked for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (
                _then(
                    PYTHON_PRINTED,
                    'agent.model.generate([{"role": "user", "content":'
                    f' [{{"type": "text", "text": f"{TITLE}{{text}}"}}]}}])',
                ),
            ),
            errors={
                TEXT_UNKNOWN: LATE,
                TEXT_TWO_CITIES: LATE,
                TEXT_TWO_TURNS: _title_for("What is the weather in Paris?"),
            },
        ),
    ),
    answer_tool="final_answer",
)

CREWAI_PRINTED = '        print(json.dumps({"answer": text}), file=ANSWERS, flush=True)'
CREWAI_HOOKS = (
    "from crewai.tools import tool  # noqa: E402",
    "from crewai.tools import tool  # noqa: E402\n"
    "from crewai.hooks import before_llm_call, before_tool_call  # noqa: E402",
)
#: A before_tool_call hook that blocks every note (a guard left on): CrewAI tells the
#: model the call was blocked, and the note is never written.
CREWAI_GUARD = '''@before_tool_call
def guard(context):
    """Blocks every note."""
    return False if context.tool_name == "save_note" else None


def build(stream: bool) -> Crew:'''
#: A before_llm_call hook that lower-cases the city of each weather call in the
#: conversation CrewAI is about to send, in place.
CREWAI_TIDY = '''@before_llm_call
def tidy(context):
    """Lower-cases the city of each weather call in the conversation."""
    for message in context.messages:
        for call in message.get("tool_calls") or []:
            if call["function"]["name"] == "get_weather":
                call["function"]["arguments"] = call["function"]["arguments"].lower()


def build(stream: bool) -> Crew:'''


def _retried(*calls: str) -> Error:
    """What the gate reports when CrewAI has retried the task its echo got refused: the
    retry's request, which carries the first turn's input alone."""
    return (
        "/turns/0/steps/1",
        "the request carries the conversation only up to turn 1, step 1; step 2 needs the tool"
        f" calls of step 1 ({', '.join(f'get_weather (id {call})' for call in calls)}) echoed back",
    )


#: The agent of examples/frameworks/crewai: a one-agent crew kicked off per turn, each
#: kickoff a conversation of its own (`history = "turn"`). CrewAI pins openai below 3: it
#: runs in the side environment.
CREWAI = Framework(
    "crewai",
    ("crewai",),
    "python agent.py",
    "chat.completions",
    TEXT_TWO_TURNS,
    (
        Mutation(
            "wrong_argument",
            (("WEATHER.get(city.strip().lower(),", "WEATHER.get(city,"),),
            failures=TEXT_WRONG_ARGUMENT,
        ),
        # A guard hook blocks save_note: the model is told so, and no note is written.
        Mutation(
            "tool_skipped",
            (CREWAI_HOOKS, ("def build(stream: bool) -> Crew:", CREWAI_GUARD)),
            failures={TEXT_TWO_TURNS: ["tool_results_contain[1]", 'workspace.file_contains["notes.txt"][0]']},
            passes=(TEXT_UNKNOWN, TEXT_TWO_CITIES),
        ),
        _garbled(*PYTHON_GARBLED, TEXT_GARBLED),
        # Every kickoff is given the first turn's input.
        Mutation(
            "turn_ignored",
            (
                (
                    '    inputs = {"user_input": user_input}\n',
                    '    inputs = {"user_input": history[0]["content"] if history else user_input}\n',
                ),
            ),
            errors=TEXT_IGNORED,
            passes=(TEXT_UNKNOWN, TEXT_TWO_CITIES),
        ),
        _wrong(
            CREWAI_PRINTED,
            '        print(json.dumps({"answer": "Sunny!"}), file=ANSWERS, flush=True)',
            *TEXT_SUITE,
        ),
        # The request that echoes the lower-cased calls is refused "as if the model had asked
        # for them"; CrewAI then retries the task (its agent's max_retry_limit, 2), whose
        # first request carries the turn's input alone and is refused too. The gate's run
        # error is the last refusal, not the first (ReplayProvider.divergence is overwritten
        # by each refusal, though its comment says the first is kept): assert on what it
        # says today, which still points at the step whose request echoed the calls.
        Mutation(
            "echoed_arguments",
            (CREWAI_HOOKS, ("def build(stream: bool) -> Crew:", CREWAI_TIDY)),
            errors={
                TEXT_UNKNOWN: _retried("call_atlantis"),
                TEXT_TWO_CITIES: _retried("call_lima", "call_paris"),
                TEXT_TWO_TURNS: _retried("call_paris"),
            },
        ),
        # The crew's LLM asked for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (_then(CREWAI_PRINTED, f'crew.agents[0].llm.call(f"{TITLE}{{text}}")'),),
            # Each request carries its own turn: the title request stands where the second
            # turn's should carry that turn's input.
            errors={
                TEXT_UNKNOWN: LATE,
                TEXT_TWO_CITIES: LATE,
                TEXT_TWO_TURNS: [_turn_input(TEXT_SECOND_INPUT, f'"{TITLE}'), EARLY_TITLE],
            },
        ),
    ),
    python=OPENAI2_PYTHON,
)

#: The source of the service example's tool loop, where its broken copies change it.
SERVICE_RESULT = (
    '                history.append({"role": "tool", "tool_call_id": call.id, "content": result})'
)
SERVICE_WEATHER = '    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")'
#: Where the service keeps the model's reply, and lines that lower-case the city of each
#: weather call in it first.
SERVICE_KEPT = "            history.append(message.model_dump(exclude_none=True))"
SERVICE_TIDY = """for kept in history[-1].get("tool_calls", []):
                if kept["function"]["name"] == "get_weather":
                    kept["function"]["arguments"] = kept["function"]["arguments"].lower()"""
#: Where the service has its answer, and a background task that asks the model for a
#: title 0.2 s later (the answer is sent meanwhile): after each turn, so a case of two
#: turns asks twice, both once its last turn is over (its turns take far less than that).
SERVICE_ANSWERED = '    output = await desk.answer(str(body["session"]), str(body["input"]), folder)'
SERVICE_TITLE = f"""titles = __import__("asyncio").sleep(0.2)
    async def title() -> None:
        await titles
        await desk.client.chat.completions.create(
            model=MODEL, messages=[{{"role": "user", "content": "{TITLE}" + output}}]
        )
    request.app.state.title = __import__("asyncio").ensure_future(title())"""

#: An agent that runs as an HTTP service (`--agent-service`, its zeroclaw.toml's
#: `agent_service`): a starlette app over the `openai` client, started once per run.
STARLETTE_SERVICE = Framework(
    "starlette_service",
    ("starlette", "uvicorn", "openai"),
    "python app.py",
    "chat",
    TWO_TURNS,
    (
        Mutation(
            "not_fed_back",
            ((SERVICE_RESULT, "                pass"),),
            errors={
                UNKNOWN: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_atlantis)",
                ),
                TWO_CITIES: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_oslo),"
                    " get_weather (id call_lima)",
                ),
                TWO_TURNS: (
                    "/turns/0/steps/1",
                    "the request does not carry the results of get_weather (id call_paris)",
                ),
            },
        ),
        _no_tools(
            "messages=history, tools=TOOLS)", 'messages=history, tools=TOOLS, tool_choice="none")', *SUITE
        ),
        _garbled(
            SERVICE_WEATHER,
            SERVICE_WEATHER + "[::-1]",
            {
                UNKNOWN: ["all_tools_succeeded", "tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_CITIES: ["tool_results_contain[0]", "tool_results_contain[1]"],
                TWO_TURNS: ["tool_results_contain[0]"],
            },
        ),
        _renamed(*SUITE),
        Mutation(
            "wrong_argument",
            (("WEATHER.get(city.strip().lower(),", "WEATHER.get(city,"),),
            failures=WRONG_ARGUMENT,
        ),
        # Each turn starts a new conversation: the session is not kept.
        Mutation(
            "history_dropped",
            (
                (
                    'history = self.sessions.setdefault(session, [{"role": "system", "content": SYSTEM}])',
                    'history = [{"role": "system", "content": SYSTEM}]',
                ),
            ),
            errors={
                TWO_TURNS: ("/turns/1/steps/0", 'turn 1\'s user input is "What is the weather in Paris?"')
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        _wrong('                return message.content or ""', '                return "Sunny!"', *SUITE),
        # The history keeps each weather call with its city lower-cased: the tools ran
        # with the model's arguments, the next request echoes others.
        Mutation(
            "echoed_arguments",
            (_then(SERVICE_KEPT, SERVICE_TIDY),),
            errors={
                UNKNOWN: _echoed("call_atlantis", "Atlantis", '{"city":"atlantis"}'),
                TWO_CITIES: _echoed("call_oslo", "Oslo", '{"city":"oslo"}'),
                TWO_TURNS: _echoed("call_paris", "Paris", '{"city":"paris"}'),
            },
        ),
        # A title for the conversation, asked in the background a moment after each answer
        # (inside agent_service_quiet_secs): the case it comes after fails for it.
        Mutation(
            "asks_after_answering",
            (_then(SERVICE_ANSWERED, SERVICE_TITLE),),
            errors={
                UNKNOWN: LATE,
                TWO_CITIES: LATE,
                TWO_TURNS: ("/turns/1/steps", "asked the model 2 more time(s) after its last answer"),
            },
        ),
    ),
)

#: The agent of examples/frameworks/a2a_agent: an a2a-sdk server whose executor runs the
#: starlette service's tool loop, one conversation per A2A context; its answer a task's
#: artifact. Where it has its answer, and the same background title request.
A2A_ANSWERED = "        output = await self.answer(task.context_id, context.get_user_input(), folder)"
A2A_TITLE = f"""titles = __import__("asyncio").sleep(0.2)

        async def title() -> None:
            await titles
            await self.client.chat.completions.create(
                model=MODEL, messages=[{{"role": "user", "content": "{TITLE}" + output}}]
            )

        self.title = __import__("asyncio").ensure_future(title())"""
A2A_AGENT = Framework(
    "a2a_agent",
    ("a2a", "openai", "uvicorn"),
    "python agent.py",
    "chat",
    TWO_TURNS,
    (
        # Its tool loop is the starlette service's, line for line: broken the same ways.
        *(
            mutation
            for mutation in STARLETTE_SERVICE.mutations
            if mutation.name
            in ("not_fed_back", "garbled_results", "rename", "wrong_argument", "wrong", "echoed_arguments")
        ),
        # The context is not kept: each message starts a new conversation.
        Mutation(
            "history_dropped",
            (
                (
                    "history = self.conversations.setdefault(context_id,"
                    ' [{"role": "system", "content": SYSTEM}])',
                    'history = [{"role": "system", "content": SYSTEM}]',
                ),
            ),
            errors={
                TWO_TURNS: ("/turns/1/steps/0", 'turn 1\'s user input is "What is the weather in Paris?"')
            },
            passes=(UNKNOWN, TWO_CITIES),
        ),
        Mutation(
            "asks_after_answering",
            (_then(A2A_ANSWERED, A2A_TITLE),),
            errors={
                UNKNOWN: LATE,
                TWO_CITIES: LATE,
                TWO_TURNS: ("/turns/1/steps", "asked the model 2 more time(s) after its last answer"),
            },
        ),
    ),
)

#: The agent of examples/frameworks/openai_agents_mcp: the Agents SDK with no tools of its
#: own, taking get_weather and save_note from the MCP server the harness serves (mcp =
#: true), whose calls the fixtures double.
MCP_SUITE = (
    "unknown_city_fails_then_note_saved.json",
    "weather_in_two_cities_in_one_step.json",
    "weather_then_note_over_two_turns.json",
)
OPENAI_AGENTS_MCP = Framework(
    "openai_agents_mcp",
    ("agents", "mcp"),
    "python agent.py",
    "responses",
    "weather_then_note_over_two_turns.json",
    (
        Mutation(
            "not_fed_back",
            (('name="Travel desk",', 'name="Travel desk", tool_use_behavior="stop_on_first_tool",'),),
            errors={
                MCP_SUITE[0]: ("/turns/0/steps/1", "get_weather's result (call call_atlantis) never reached"),
                MCP_SUITE[1]: ("/turns/0/steps/1", "get_weather's result (call call_paris)"),
                MCP_SUITE[2]: ("/turns/0/steps/1", "get_weather's result (call call_lima) never reached"),
            },
        ),
        _no_tools(
            'name="Travel desk",',
            'name="Travel desk", model_settings=__import__("agents").ModelSettings(tool_choice="none"),',
            *MCP_SUITE,
        ),
        # The MCP client filters get_weather out: the model is never offered it.
        Mutation(
            "tool_filtered",
            (
                (
                    "cache_tools_list=True)",
                    'cache_tools_list=True, tool_filter=__import__("agents.mcp", fromlist=["x"])'
                    '.create_static_tool_filter(blocked_tool_names=["get_weather"]))',
                ),
            ),
            errors={
                case: (
                    "/turns/0/steps/0",
                    "the request offers the model no tool named get_weather (it offers: save_note)",
                )
                for case in MCP_SUITE
            },
        ),
        # The agent is not connected to the MCP server at all.
        Mutation(
            "no_server",
            (("mcp_servers=[tools]", "mcp_servers=[]"),),
            errors={
                case: (
                    "/turns/0/steps/0",
                    "the request offers the model no tool named get_weather (it offers: none)",
                )
                for case in MCP_SUITE
            },
        ),
        Mutation(
            "history_dropped",
            (
                (
                    '            history.append({"role": "user", "content": json.loads(line)["user_input"]})',
                    '            history = [{"role": "user", "content": json.loads(line)["user_input"]}]',
                ),
            ),
            errors={
                MCP_SUITE[2]: ("/turns/1/steps/0", 'turn 1\'s user input is "What is the weather in Lima?"')
            },
            passes=MCP_SUITE[:2],
        ),
        _wrong(
            'print(json.dumps({"answer": str(result.final_output)}), flush=True)',
            'print(json.dumps({"answer": "Sunny!"}), flush=True)',
            *MCP_SUITE,
        ),
    ),
    harness_tools=True,
)

#: The agent of examples/frameworks/pydantic_ai_mcp: pydantic-ai with no tools of its own,
#: taking them from the `mcpServers` file's `travel` server (the MCP server the harness
#: serves), which `load_mcp_toolsets` offers the model prefixed: travel_get_weather.
PYDANTIC_MCP_SUITE = MCP_SUITE
PYDANTIC_MCP_TOOLSETS = "toolsets=load_mcp_toolsets(SERVERS),"
PYDANTIC_MCP = Framework(
    "pydantic_ai_mcp",
    ("pydantic_ai", "fastmcp"),
    "python agent.py",
    "chat.completions",
    "weather_then_note_over_two_turns.json",
    (
        # The toolset filters the weather tool out: the model is never offered it.
        Mutation(
            "tool_filtered",
            (
                (
                    PYDANTIC_MCP_TOOLSETS,
                    "toolsets=[toolset.filtered(lambda ctx, tool: tool.name != 'travel_get_weather')"
                    " for toolset in load_mcp_toolsets(SERVERS)],",
                ),
            ),
            errors={
                case: (
                    "/turns/0/steps/0",
                    "the request offers the model no tool named travel_get_weather"
                    " (it offers: travel_save_note)",
                )
                for case in PYDANTIC_MCP_SUITE
            },
        ),
        # The agent is not connected to the MCP server at all.
        Mutation(
            "no_server",
            ((PYDANTIC_MCP_TOOLSETS, "toolsets=[],"),),
            errors={
                case: (
                    "/turns/0/steps/0",
                    "the request offers the model no tool named travel_get_weather (it offers: none)",
                )
                for case in PYDANTIC_MCP_SUITE
            },
        ),
        Mutation(
            "tool_choice_none",
            (
                (
                    "instructions=INSTRUCTIONS,",
                    'instructions=INSTRUCTIONS, model_settings={"extra_body": {"tool_choice": "none"}},',
                ),
            ),
            errors={case: ("/turns/0/steps/0", NO_TOOL) for case in PYDANTIC_MCP_SUITE},
        ),
        # Each turn starts a new conversation: the history is not kept.
        Mutation(
            "history_dropped",
            (("text, history = await answer(", "text, _kept = await answer("),),
            errors={
                PYDANTIC_MCP_SUITE[2]: (
                    "/turns/1/steps/0",
                    'turn 1\'s user input is "What is the weather in Lima?"',
                )
            },
            passes=PYDANTIC_MCP_SUITE[:2],
        ),
        _wrong(*PYTHON_ANSWER, *PYDANTIC_MCP_SUITE),
        # A history processor lower-cases the city of each weather call kept in the
        # history: the MCP server ran the model's arguments, the next request echoes others.
        Mutation(
            "echoed_arguments",
            (
                (
                    "instructions=INSTRUCTIONS,",
                    "instructions=INSTRUCTIONS, capabilities=[ProcessHistory(tidy)],",
                ),
                (
                    "agent = Agent(",
                    PYDANTIC_TIDY.replace('"get_weather"', '"travel_get_weather"') + "agent = Agent(",
                ),
            ),
            errors={
                PYDANTIC_MCP_SUITE[0]: _echoed(
                    "call_atlantis", "Atlantis", '{"city":"atlantis"}', tool="travel_get_weather"
                ),
                PYDANTIC_MCP_SUITE[1]: _echoed(
                    "call_paris", "Paris", '{"city":"paris"}', tool="travel_get_weather"
                ),
                PYDANTIC_MCP_SUITE[2]: _echoed(
                    "call_lima", "Lima", '{"city":"lima"}', tool="travel_get_weather"
                ),
            },
        ),
        # The agent asks for a title once the answer is out.
        Mutation(
            "asks_after_answering",
            (
                _then(
                    PYTHON_PRINTED.replace("        ", "            ", 1),
                    f'await agent.run(f"{TITLE}{{text}}")',
                ),
            ),
            errors={
                PYDANTIC_MCP_SUITE[0]: LATE,
                PYDANTIC_MCP_SUITE[1]: LATE,
                PYDANTIC_MCP_SUITE[2]: _title_for("What is the weather in Lima?"),
            },
        ),
    ),
    harness_tools=True,
)

ALL = (
    OPENAI_AGENTS,
    PYDANTIC_AI,
    LANGGRAPH,
    NODE_OPENAI,
    ANTHROPIC_SDK,
    GOOGLE_GENAI,
    GOOGLE_ADK,
    BOTO3_BEDROCK,
    STRANDS,
    VERCEL_AI,
    LLAMAINDEX,
    HAYSTACK,
    MASTRA,
    LANGCHAIN_JS,
    SMOLAGENTS,
    CREWAI,
)
IDS = [framework.folder for framework in ALL]
#: Every example: the agent commands, and the agent services.
EXAMPLES = (*ALL, STARLETTE_SERVICE, A2A_AGENT, OPENAI_AGENTS_MCP, PYDANTIC_MCP)
#: The examples gated by their zeroclaw.toml as it is (no --stream flag to switch).
AS_CONFIGURED = (STARLETTE_SERVICE, A2A_AGENT, OPENAI_AGENTS_MCP, PYDANTIC_MCP)
MUTATIONS = [(framework, mutation) for framework in EXAMPLES for mutation in framework.mutations]
MUTATION_IDS = [f"{framework.folder}-{mutation.name}" for framework, mutation in MUTATIONS]


def _missing(framework: Framework) -> str | None:
    """Why the framework cannot run here, if it cannot."""
    if framework.packages:
        if shutil.which("node") is None:
            return "node is not on PATH"
        absent = [
            name for name in framework.packages if not (framework.path / "node_modules" / name).is_dir()
        ]
        if absent:
            return f"npm packages not installed ({', '.join(absent)}): run `npm ci` in {framework.path}"
        return None
    if framework.python:
        return _missing_there(framework)
    absent = [name for name in framework.modules if importlib.util.find_spec(name) is None]
    return f"not installed: {', '.join(absent)}" if absent else None


def _missing_there(framework: Framework) -> str | None:
    """Why the interpreter of the framework's own environment cannot run it, if it cannot."""
    python = framework.interpreter
    if not python:
        return f"{framework.python} is not set: it names the Python of the environment that has the framework"
    if not os.access(python, os.X_OK):
        return f"{framework.python}={python}: no such interpreter"
    check = "import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in sys.argv[1:]))"
    done = subprocess.run(
        [python, "-c", check, *framework.modules], capture_output=True, timeout=60, check=False
    )
    if done.returncode != 0:
        return f"not installed for {python}: {', '.join(framework.modules)}"
    return None


def _require(framework: Framework) -> None:
    if not REQUIRED:
        pytest.skip("opt-in: `nox -s frameworks` (or ZEROCLAW_REQUIRE_FRAMEWORKS=1) runs the frameworks")
    why = _missing(framework)
    if why is not None:
        pytest.fail(f"{framework.folder}: {why} (ZEROCLAW_REQUIRE_FRAMEWORKS=1 allows no skip)")


@pytest.fixture(autouse=True)
def this_python_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """`python` in an agent command is this interpreter (its environment has the frameworks)."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")


def _run(cli: Runner, folder: Path, *extra: str) -> dict[str, Any]:
    result = cli("eval", "run", "--format", "json", "--details", "all", "--jobs", "3", *extra, cwd=folder)
    assert result.code in (0, 1), result.stdout + result.stderr
    report: dict[str, Any] = result.json()
    return report


def _script(path: Path) -> dict[str, Any]:
    """A fixture as plain JSON."""
    script: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return script


def _scripted_calls(framework: Framework, path: Path, through: int | None = None) -> list[str]:
    """The ids of the tool calls a fixture scripts that the agent's tools answer (not the
    framework's own answer tool), in every turn or up to turn `through`."""
    return [
        call["id"]
        for turn in _script(path)["turns"][: None if through is None else through + 1]
        for step in turn["steps"]
        for call in step["response"].get("tool_calls", [])
        if call["name"] != framework.answer_tool
    ]


def _describe(case: dict[str, Any]) -> str:
    """A failing case, for an assertion message."""
    failed = [grade["check_id"] for grade in case["grades"] if not grade["passed"]]
    return json.dumps({"status": case["status"], "error": case["error"], "failed": failed}, indent=1)[:4000]


def test_every_framework_folder_is_tested_and_in_the_readme() -> None:
    folders = sorted(path.parent.name for path in FRAMEWORKS.glob("*/zeroclaw.toml"))
    assert folders == sorted(example.folder for example in EXAMPLES)
    readme = (FRAMEWORKS / "README.md").read_text(encoding="utf-8")
    assert f"| `{STARLETTE_SERVICE.folder}/` |" in readme
    assert f"(cd examples/frameworks/{STARLETTE_SERVICE.folder} && zeroclaw eval run)\n" in readme
    for framework in ALL:
        assert f"| `{framework.folder}/` |" in readme
        # The one command per framework, in both modes.
        assert (
            f"(cd examples/frameworks/{framework.folder} && zeroclaw eval run"
            f' && zeroclaw eval run --agent-cmd "{framework.command}")\n'
        ) in readme


#: Each framework over its default wire (flags ()) and each other wire it speaks.
WIRES = [(framework, wire) for framework in ALL for wire in ((), *framework.wires)]
WIRE_IDS = [" ".join([framework.folder, *wire]).replace(" --api ", "-") for framework, wire in WIRES]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize(("framework", "wire"), WIRES, ids=WIRE_IDS)
def test_the_agent_passes_its_suite(
    cli: Runner, framework: Framework, wire: tuple[str, ...], stream: bool
) -> None:
    _require(framework)
    # Streamed: the command of the folder's zeroclaw.toml; plain: the same without --stream.
    configured = (framework.path / "zeroclaw.toml").read_text(encoding="utf-8")
    assert f'agent_cmd = "{framework.command} --stream"\n' in configured
    command = framework.spelled(*wire, *(["--stream"] if stream else []))
    as_configured = stream and not wire and not framework.python
    report = _run(cli, framework.path, *(() if as_configured else ("--agent-cmd", command)))
    cases = {case["name"]: case for case in report["cases"]}
    assert sorted(cases) == framework.cases()
    for name, case in cases.items():
        assert case["status"] == "passed", f"{name}: {_describe(case)}"
    assert report["counts"]["passed"] == report["counts"]["total"] >= 2
    # Every tool call the script makes came back as a result the agent's own tool returned.
    own = [framework.answer_tool] if framework.answer_tool else []
    offered = sorted(["get_weather", "save_note", *own])
    for case in report["cases"]:
        record = case["record"]
        scripted = _scripted_calls(framework, framework.path / "evals" / case["name"])
        assert [call["call_id"] for call in record["calls"]] == scripted
        assert all(call["result"] for call in record["calls"])
        assert all(sorted(step["offered_tools"]) == offered for step in record["steps"])


#: The examples gated as configured, and those whose configured command streams also
#: without the flag (the command line's --agent-cmd).
CONFIGURED_RUNS = [
    (example, stream)
    for example in AS_CONFIGURED
    for stream in (
        (True, False)
        if f'"{example.command} --stream"' in (example.path / "zeroclaw.toml").read_text(encoding="utf-8")
        else (False,)
    )
]


@pytest.mark.parametrize(
    ("example", "streamed"),
    CONFIGURED_RUNS,
    ids=[f"{example.folder}-{'streamed' if streamed else 'plain'}" for example, streamed in CONFIGURED_RUNS],
)
def test_the_example_passes_its_suite_as_configured(cli: Runner, example: Framework, streamed: bool) -> None:
    _require(example)
    configured = (example.path / "zeroclaw.toml").read_text(encoding="utf-8")
    streams = f'"{example.command} --stream"\n' in configured
    assert streams or f'"{example.command}"\n' in configured
    report = _run(cli, example.path, *(("--agent-cmd", example.command) if streams and not streamed else ()))
    for case in report["cases"]:
        assert case["status"] == "passed", f"{case['name']}: {_describe(case)}"
    assert sorted(case["name"] for case in report["cases"]) == example.cases()
    # Every tool call the script makes was dispatched once: by the service's own tool,
    # or by the harness's MCP server (its double), its id taken over from the model's,
    # under the tool's own name however the client named it to the model.
    for case in report["cases"]:
        scripted = [
            (call["id"], call["name"].removeprefix("travel_"))
            for turn in _script(example.path / "evals" / case["name"])["turns"]
            for step in turn["steps"]
            for call in step["response"].get("tool_calls", [])
        ]
        recorded = [(call["call_id"], call["name"]) for call in case["record"]["calls"]]
        assert sorted(recorded) == sorted(scripted)


@pytest.mark.parametrize("framework", EXAMPLES, ids=[example.folder for example in EXAMPLES])
def test_every_case_can_fail(cli: Runner, framework: Framework) -> None:
    # Vacuity runs no agent, so it needs no framework.
    vacuity = cli("eval", "vacuity", cwd=framework.path)
    assert vacuity.code == 0, vacuity.stdout + vacuity.stderr
    assert f"PASSED: {len(framework.cases())} fixtures, each failing a check" in vacuity.stdout


def _answer(framework: Framework, response: dict[str, Any]) -> str:
    """The answer a turn's last scripted step gives: its text, or the answer it passes
    the framework's answer tool."""
    if framework.answer_tool:
        (call,) = response["tool_calls"]
        assert call["name"] == framework.answer_tool
        answer: str = call["arguments"]["answer"]
        return answer
    text: str = response["content"]
    return text


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("framework", ALL, ids=IDS)
def test_the_stream_flag_decides_what_goes_over_the_wire(
    framework: Framework, stream: bool, tmp_path: Path
) -> None:
    _require(framework)
    path = framework.path / "evals" / framework.multi_turn
    turns = _script(path)["turns"]
    case = load_fixture(path)
    assert isinstance(case, Case)
    assert len(turns) >= 2
    # The folder's settings say how its agent writes the conversation.
    settings = load_config(framework.path / "zeroclaw.toml").settings
    server = ReplayServer(
        [case],
        user_input_match=settings.user_input_match,
        tool_echo=settings.tool_echo,
        per_turn=settings.history == "turn",
    ).start()
    try:
        runner, source = framework.command.split()
        program = framework.interpreter if runner == "python" else runner
        argv = [program, str(framework.path / source), *(["--stream"] if stream else [])]
        lines = "".join(
            json.dumps({"turn": n, "user_input": t["user_input"]}) + "\n" for n, t in enumerate(turns)
        )
        environment = {
            **os.environ,
            "OPENAI_BASE_URL": server.url,
            "OPENAI_API_KEY": "placeholder",
            "ANTHROPIC_BASE_URL": server.url.removesuffix("/v1"),
            "ANTHROPIC_API_KEY": "placeholder",
            "GOOGLE_GEMINI_BASE_URL": server.url.removesuffix("/v1"),
            "GEMINI_API_KEY": "placeholder",
            "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": server.url.removesuffix("/v1"),
            "AWS_ACCESS_KEY_ID": "placeholder",
            "AWS_SECRET_ACCESS_KEY": "placeholder",
            "AWS_DEFAULT_REGION": "us-east-1",
            "ZEROCLAW_EVAL_MODEL": _script(path)["model_name"],
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }
        done = subprocess.run(
            argv,
            input=lines,
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        log = server.requests()
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    answers = [
        json.loads(line)["answer"] for line in done.stdout.splitlines() if line.startswith('{"answer"')
    ]
    assert answers == [_answer(framework, turn["steps"][-1]["response"]) for turn in turns]
    assert [(entry["status"], entry["api"], entry["stream"]) for entry in log] == [
        (200, framework.api, stream)
    ] * sum(len(turn["steps"]) for turn in turns)
    assert [(entry["turn"], entry["step"]) for entry in log] == [
        (n, s) for n, turn in enumerate(turns) for s in range(len(turn["steps"]))
    ]


@pytest.mark.parametrize(("framework", "mutation"), MUTATIONS, ids=MUTATION_IDS)
def test_a_broken_agent_fails_where_it_should(
    cli: Runner, framework: Framework, mutation: Mutation, tmp_path: Path
) -> None:
    _require(framework)
    copy = tmp_path / framework.folder
    shutil.copytree(framework.path, copy, ignore=shutil.ignore_patterns("node_modules"))
    if (framework.path / "node_modules").is_dir():
        (copy / "node_modules").symlink_to(framework.path / "node_modules", target_is_directory=True)
    source = copy / framework.source
    text = source.read_text(encoding="utf-8")
    for old, new in mutation.replacements:
        assert old in text, f"{framework.source} no longer holds {old!r}: update the mutation"
        text = text.replace(old, new)
    source.write_text(text, encoding="utf-8")

    # The streamed agent of zeroclaw.toml (its interpreter spelled out, for another
    # environment's; its flags added, for another wire).
    spelled = framework.python or mutation.flags
    report = _run(
        cli, copy, *(("--agent-cmd", framework.spelled(*mutation.flags, "--stream")) if spelled else ())
    )
    assert report["exit_code"] == 1
    cases = {case["name"]: case for case in report["cases"]}
    said = {**mutation.errors, **mutation.failures, **dict.fromkeys(mutation.passes)}
    assert sorted(cases) == sorted(said) == framework.cases()
    for name in mutation.passes:
        assert cases[name]["status"] == "passed", f"{name}: {_describe(cases[name])}"
    for name, said_error in mutation.errors.items():
        case = cases[name]
        assert case["status"] == "error", f"{name}: {_describe(case)}"
        # The one error said, or the first of its alternatives at the pointer reported.
        alternatives = said_error if isinstance(said_error, list) else [said_error]
        reported = case["error"]["field"]["pointer"]
        pointer, words = next((alt for alt in alternatives if alt[0] == reported), alternatives[0])
        assert reported == pointer, f"{name}: {_describe(case)}"
        assert words in case["error"]["message"], f"{name}: {_describe(case)}"
        # Not every scripted call's result reached the model (in a later turn, none did);
        # a call the agent's own tool ran is seen only when its result does. A request
        # after a turn's answer (the pointer is that turn's steps) came when every result
        # of that turn and those before had.
        calls = len(_scripted_calls(framework, copy / "evals" / name))
        if pointer.endswith("/steps"):
            through = int(pointer.split("/")[2])
            assert len(case["record"]["calls"]) == len(
                _scripted_calls(framework, copy / "evals" / name, through)
            )
        else:
            assert len(case["record"]["calls"]) < calls or framework.harness_tools, name
        assert all(call["turn"] <= int(pointer.split("/")[2]) for call in case["record"]["calls"]), name
    for name, checks in mutation.failures.items():
        case = cases[name]
        assert case["status"] == "failed", f"{name}: {_describe(case)}"
        assert [grade["check_id"] for grade in case["grades"] if not grade["passed"]] == checks, name
