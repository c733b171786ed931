"""The fixture format (`LlmTrace`) as strict pydantic models.

Every object is strict: unknown keys are rejected (a typo must never disable a check),
values are not coerced (`"1"` is not `1`, `true` is not `1`), and an explicit `null` is
rejected rather than read as "not declared". Rules that span several fields (an empty
`expects`, contradictory bounds) live in `rules.py`; `messages.py` turns validation
errors into positioned problems. Each key's description is what `schema.py` publishes in
the fixture JSON Schema, so editors show the same words.
"""

# No `from __future__ import annotations`: pydantic would compile each annotation string
# back into a type, at every start.
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from zeroclaw_eval.cases.limits import MAX_COUNT


def _rule(kind: str, message: str) -> AfterValidator:
    def check(value: str) -> str:
        if not value:
            raise PydanticCustomError(kind, message)
        return value

    return AfterValidator(check)


# What `_rule` admits, said to editors: the validator itself is invisible to the schema.
_FILLED = WithJsonSchema({"type": "string", "minLength": 1})


Substring = Annotated[
    str,
    _rule(
        "zero_length_entry",
        "zero-length entry: an empty string occurs in every text, so this check can never"
        " fail; remove the entry or give it text",
    ),
    _FILLED,
]
ToolName = Annotated[str, _rule("empty_tool", "empty tool name; name the tool this check is about"), _FILLED]
Needle = Annotated[
    str,
    _rule("empty_needle", "empty needle: it matches every call, so this check can never fail"),
    _FILLED,
]
NonEmpty = Annotated[str, _rule("empty_string", "must not be empty"), _FILLED]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]


# Functions, not `list` and `dict`: pydantic reads a default factory's signature, and a
# builtin's is parsed from its text (a tokenizer run, a regex compiled first), which cost
# a tenth of building these models.
def _empty_list() -> list[Any]:
    return []


def _empty_dict() -> dict[str, Any]:
    return {}


def _listed(description: str) -> Any:
    """A list field, empty when left out."""
    return Field(default_factory=_empty_list, description=description)


def _mapped(description: str) -> Any:
    """An object field of free keys, empty when left out."""
    return Field(default_factory=_empty_dict, description=description)


def _optional(description: str, alias: str | None = None) -> Any:
    """A field that may be left out (but never set to null: admission rejects that)."""
    return Field(None, description=description, alias=alias)


#: The built-in tool a case may call without listing it in `tools` (fixtures written for
#: the upstream harness do): it is offered to a case whose script calls it, or to every
#: case under `[eval].builtin_tools = "always"` (`tools.builtin.tools_for_case`).
ECHO_TOOL = "echo"


class Strict(BaseModel):
    """Base of every fixture object: unknown keys and coercion are rejected.

    An explicit `null` for an optional key passes the models but is rejected by
    admission (`messages.null_problems`); a per-field Python validator would cost a
    call per field of every fixture.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _object_or_text(value: Any) -> Any:
    # One check rather than a `dict | str` union, whose errors would come once per member.
    if not isinstance(value, (dict, str)):
        raise PydanticCustomError(
            "arguments_type",
            "expected an object (or raw argument text as a string), found {found}",
            {
                "found": "an array"
                if isinstance(value, list)
                else "a boolean"
                if isinstance(value, bool)
                else "a number"
            },
        )
    return value


class ToolCallSpec(Strict):
    """One tool call a scripted model response asks for."""

    id: str = Field("", description="The call id the model gives the call; its result is fed back under it.")
    name: NonEmpty = Field(description="The tool the model asks to run.")
    arguments: Annotated[
        Any, AfterValidator(_object_or_text), WithJsonSchema({"type": ["object", "string"]})
    ] = Field(
        default_factory=_empty_dict,
        description="The call's arguments: an object, or the raw argument text a provider sent"
        " (which may not parse: that is how a fixture scripts malformed arguments).",
    )


class Response(Strict):
    """A scripted model response: a text answer, or a request for tool calls."""

    type: Literal["text", "tool_calls"] = Field(
        description='"text": the model answers with content; "tool_calls": it asks for tool calls.'
    )
    content: str | None = _optional("The answer text (required for a text response).")
    tool_calls: list[ToolCallSpec] = _listed("The calls a tool_calls response asks for (at least one).")
    input_tokens: Count = Field(0, description="Input tokens the step counts as, for budget checks.")
    output_tokens: Count = Field(0, description="Output tokens the step counts as, for budget checks.")


class Step(Strict):
    """One scripted provider reply within a turn."""

    response: Response = Field(description="What the model replies at this step.")


class Turn(Strict):
    """One user message and the model responses scripted for it."""

    user_input: str = Field(description="What the user says to the agent in this turn.")
    # A live case may omit steps; in replay, a turn without steps is a run error.
    steps: list[Step] | None = _optional(
        "The provider replies scripted for this turn, in order; the turn must consume exactly"
        " these. Live cases may leave them out."
    )


class Setup(Strict):
    """What the case workspace holds before the first turn."""

    workspace_files: dict[str, str] = _mapped(
        "Path (relative to the case workspace) -> text, written before the first turn."
    )


class TurnCheck(Strict):
    """A needle one turn's answer must contain: `{turn, needle}`."""

    turn: Count = Field(description="The turn, 0-based (a fixture's first turn is 0).")
    needle: Needle = Field(description="A plain substring that turn's answer must contain.")


class DispatchCheck(Strict):
    """A needle that calls to a tool must contain: `{tool, needle, call_index?}`."""

    tool: ToolName = Field(description="The tool whose calls are searched.")
    needle: Needle = Field(description="A plain substring the call must contain.")
    call_index: Count | None = _optional(
        "0-based among calls to this tool, in dispatch order; without it any call may match."
    )


class TrajectoryCall(Strict):
    """One call a trajectory expects: the tool, and optionally its arguments and outcome."""

    tool: ToolName = Field(description="The tool the call is to.")
    args: dict[str, Any] | None = _optional(
        "The arguments, compared with those the tool received as args_match says (equal as JSON)."
    )
    args_match: Literal["exact", "subset", "superset", "ignore"] | list[NonEmpty] | None = _optional(
        "exact (the default with args): the same arguments; subset: each of args is among them;"
        " superset: each of them is among args; ignore (the default without args); or a list of"
        " field names: those fields alone, exactly."
    )
    status: Literal["ok", "error"] | None = _optional(
        "ok: the call succeeded; error: it failed; left out: either."
    )


class Trajectory(Strict):
    """The sequence of dispatched calls, against an expected list."""

    mode: Literal["strict", "unordered", "subset", "superset"] = Field(
        "strict",
        description="strict: exactly these calls, in this order; unordered: exactly these, in any order;"
        " subset: at least one call, each one of these (some may be left out); superset: each of these,"
        " among other calls maybe, in any order.",
    )
    calls: list[TrajectoryCall] = _listed("The expected calls.")


#: A SHA-256 digest, as a verdict names what it judged: 64 lowercase hex digits.
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class JudgeVerdict(Strict):
    """What a judge model said of one answer under one rubric, recorded so that a replay
    grades the same answer the same way, offline."""

    text_sha256: Digest = Field(description="SHA-256 of the judged text (the final response, UTF-8).")
    rubric_sha256: Digest = Field(description="SHA-256 of the rubric it was judged under (UTF-8).")
    model: NonEmpty = Field(description="The judge model that said it ([providers.models] table: its model).")
    verdict: Literal["yes", "no", "unknown"] = Field(
        description="The judge's answer to the rubric (for a scored check: unknown, or yes when it gave a"
        " score); unknown (it could not tell) never passes."
    )
    score: float | None = Field(
        None,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="For a check with a threshold: the judge's score of the answer, from 0 to 1.",
    )
    dimension: NonEmpty | None = _optional("For a check with dimensions: the dimension this verdict judged.")
    reason: str = Field("", description="Why, in the judge's words.")


class JudgeCheck(Strict):
    """A model-graded check of the final response: a rubric a judge model answers yes or
    no (or scores from 0 to 1, with a `threshold`), graded from the recorded verdict of
    this very answer and rubric; with `dimensions`, once per dimension."""

    rubric: Substring = Field(
        description="The yes-or-no question the judge answers about the final response (with a threshold:"
        " what it scores)."
    )
    pass_if: Literal["yes", "no"] = Field("yes", description="The verdict that passes the check.")
    threshold: float | None = Field(
        None,
        gt=0,  # from 0, every score would pass: a check that cannot fail
        le=1,
        allow_inf_nan=False,
        description="Ask the judge for a score from 0 to 1 rather than yes or no; the check passes from"
        " this score on.",
    )
    dimensions: list[NonEmpty] = _listed(
        "Named dimensions of the rubric, each judged and graded on its own (judge[N].NAME)."
    )
    scope: Literal["response", "conversation"] = Field(
        "response",
        description="What the judge reads: the final response, or the whole conversation (every turn's"
        " user message and answer: a simulated user's too).",
    )
    judge: NonEmpty | None = _optional(
        "The [providers.models] table of the judge model (default: [eval].judge_provider)."
    )
    verdicts: list[JudgeVerdict] = _listed(
        "Recorded verdicts (written by --record and --rejudge); the one for this answer and rubric grades."
    )


class WorkspaceExpects(Strict):
    """Side effects on the case workspace."""

    file_exists: list[Substring] = _listed("Paths that must exist (file or folder) after the run.")
    file_absent: list[Substring] = _listed("Paths that must not exist after the run.")
    file_contains: dict[str, list[Substring]] = _mapped("Path -> substrings the file must contain.")


class BudgetExpects(Strict):
    """Inclusive upper bounds on what the run spent."""

    max_input_tokens: Count | None = _optional("At most this many input tokens in all.")
    max_output_tokens: Count | None = _optional("At most this many output tokens in all.")
    max_total_tokens: Count | None = _optional("At most this many input and output tokens together.")
    max_duration_ms: Count | None = _optional(
        "At most this wall time of the run; keep it generous: it is the one nondeterministic check."
    )
    max_llm_calls: Count | None = _optional("At most this many provider requests.")
    max_cost_usd: float | None = Field(
        None,
        ge=0,
        allow_inf_nan=False,
        description="At most this many US dollars for the agent's model requests, at the live provider's"
        " prices; graded in a live run with a priced provider only (a replay bills nothing).",
    )


class Expects(Strict):
    """The declarative checks of a case; each declared entry is one graded check."""

    response_contains: list[Substring] = _listed("Substrings the final response must each contain.")
    turn_response_contains: list[TurnCheck] = _listed(
        "Needles that a turn's answer must contain: {turn, needle}, the turn 0-based."
    )
    response_not_contains: list[Substring] = _listed("Substrings the final response must not contain.")
    response_matches: list[Substring] = _listed("RE2 regexes that must each match somewhere in the response.")
    response_json: dict[str, Any] = _mapped(
        "JSON pointer -> value that must hold in the final response parsed as JSON."
    )
    tools_used: list[Substring] = _listed("Tools that must have been dispatched.")
    tools_not_used: list[Substring] = _listed("Tools that must not have been dispatched.")
    min_tool_calls: Count | None = _optional("At least this many dispatches (1 or more).")
    max_tool_calls: Count | None = _optional("At most this many dispatches.")
    exact_tool_calls: Count | None = _optional("Exactly this many dispatches.")
    all_tools_succeeded: bool | None = _optional(
        "true: no dispatch failed (holds for zero calls); false: at least one failed."
    )
    tool_arguments_contain: list[DispatchCheck] = _listed("Needles that a call's arguments must contain.")
    tool_results_contain: list[DispatchCheck] = _listed("Needles that a call's result must contain.")
    system_prompt_contains: list[Substring] = _listed(
        "Substrings the system (and developer) messages of every request must contain."
    )
    tools_offered: list[Substring] = _listed("Tools every request must offer the model.")
    trajectory: Trajectory | None = _optional(
        "The calls the run dispatched, in order, against a list:"
        " {mode, calls[{tool, args?, args_match?, status?}]}."
    )
    judge: list[JudgeCheck] = _listed(
        "Model-graded checks of the final response: {rubric, pass_if?, judge?, verdicts}; graded in"
        " replay from the recorded verdict of this answer and rubric (none: the check fails)."
    )
    workspace: WorkspaceExpects | None = _optional("Checks on the case workspace after the run.")
    budget: BudgetExpects | None = _optional("Upper bounds on what the run spent.")

    def declares_a_check(self) -> bool:
        """True when at least one check is declared (empty lists declare nothing, nor do
        a workspace or budget block that hold none): any key, a new one included."""
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, WorkspaceExpects):
                if value.file_exists or value.file_absent or any(value.file_contains.values()):
                    return True
            elif isinstance(value, BudgetExpects):
                if any(bound is not None for bound in value.model_dump().values()):
                    return True
            elif value is not None and value != [] and value != {}:
                return True
        return False


class ToolDouble(Strict):
    """A scripted answer of a tool, for calls whose arguments hold `when`."""

    when: dict[str, Any] = _mapped(
        "Argument values the call must have (a subset of its arguments, equal as JSON); empty: any call."
    )
    result: str = Field(description="The result text the tool answers with.")
    success: bool = Field(True, description="false: the call is a failed dispatch.")
    times: Annotated[int, Field(ge=1, le=MAX_COUNT)] | None = _optional(
        "Answer at most this many calls; later calls go to the next double that matches"
        " (left out: every call). A tool that answered the same arguments differently"
        " (a failure, then a retry that worked) is doubled in that order."
    )


class Xfail(Strict):
    """A case expected to fail, as pytest's `xfail`: a known bug landed as a case."""

    reason: NonEmpty = Field(description="Why the case is expected to fail (a tracker link, say).")
    strict: bool = Field(
        True,
        description="A pass fails the gate (true, the default: the bug is fixed, remove the mark),"
        " or is only reported (false).",
    )


class SimulatedUser(Strict):
    """A user model that carries a live conversation on past the scripted turns."""

    persona: NonEmpty = Field(description="Who the user is, as the user model plays them.")
    goal: NonEmpty = Field(description="What the user wants from the conversation.")
    max_turns: int = Field(
        ge=1, le=50, description="The most turns of the conversation, the scripted ones included."
    )
    stop_when: NonEmpty | None = _optional(
        "End the conversation once an answer of the agent contains this text (case-insensitive)."
    )
    model: NonEmpty | None = _optional(
        "The [providers.models] table of the user model (default: [eval].live_provider's)."
    )


class Provenance(Strict):
    """Where an imported case came from (`zeroclaw eval import`): kept so that a failure
    can be traced back to the production run it replays. Grading never reads it."""

    format: Literal["otel-genai", "openinference", "langfuse", "langsmith", "mlflow"] = Field(
        description="The trace format it was read from."
    )
    source: NonEmpty = Field(description="The file it was read from, as named on the command line.")
    trace_id: NonEmpty = Field(description="The trace's id, as the tracing system shows it.")
    span_ids: list[NonEmpty] = _listed(
        "The spans (observations, runs) the scripted steps and tool results came from, in order."
    )
    service: str | None = _optional("The service that recorded the trace (service.name).")
    provider: str | None = _optional("The model provider the traced calls went to (gen_ai.provider.name).")
    started: str | None = _optional("When the traced run started (ISO 8601, UTC).")


class LlmTrace(Strict):
    """A zeroclaw-eval fixture: a scripted conversation and what must hold after it."""

    # Admitted so that a fixture can name its schema to an editor from inside the file.
    schema_ref: str | None = _optional(
        "The JSON Schema this file follows, for editors; zeroclaw-eval ignores it.", alias="$schema"
    )
    model_name: NonEmpty = Field(description="The case's display name (may repeat across fixtures).")
    id: str | None = _optional("A tracker id for the case.")
    cluster: NonEmpty | None = _optional(
        "Cases that share a cluster (paraphrases of one task, say) count as one unit in a"
        " suite's pass rate over repeated runs (run --repeat K): they are averaged first."
    )
    tools: list[NonEmpty] = _listed(
        "Tools the case may use: built-in ones (echo, file_read, file_write, list_dir) or the"
        " project's own ([eval].tools); echo need not be listed where the script calls it."
    )
    tool_doubles: dict[str, list[ToolDouble]] = _mapped(
        "Tool name -> scripted answers tried in order, in place of the tool's code."
    )
    setup: Setup | None = _optional("Files written into the case workspace before the first turn.")
    turns: list[Turn] = Field(
        description="The conversation, one user input each (at least one).", json_schema_extra={"minItems": 1}
    )
    expects: Expects = Field(description="What must hold after the run (at least one check).")
    xfail: Xfail | None = _optional(
        "The case is expected to fail: its failure (or run error) is reported as expected and"
        " does not fail the gate; its pass fails the gate unless strict is false."
    )
    user_input_match: Literal["exact", "contains"] | None = _optional(
        "How each turn's user message must carry its user_input: exact, or contains (the"
        " input whole inside it, for agents whose framework wraps the input in a template of"
        " its own, as smolagents and CrewAI do). Left out: [eval].user_input_match, exact by"
        " default."
    )
    provenance: Provenance | None = _optional(
        "Where an imported case came from: the trace format, file, trace id and span ids."
    )
    simulated_user: SimulatedUser | None = _optional(
        "Live mode: after the scripted turns, a user model playing this persona goes on talking"
        " to the agent toward the goal; --record writes the conversation as scripted turns, and a"
        " replay never calls it."
    )
