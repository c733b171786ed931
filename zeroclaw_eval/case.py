"""The fixture format (`LlmTrace`) as strict pydantic models.

Every object is strict: unknown keys are rejected (a typo must never disable a check),
values are not coerced (`"1"` is not `1`, `true` is not `1`), and an explicit `null` is
rejected rather than read as "not declared". Rules that span several fields (an empty
`expects`, contradictory bounds) live in `admission.py`, which also turns validation
errors into positioned problems.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError


def _rule(kind: str, message: str) -> AfterValidator:
    def check(value: str) -> str:
        if not value:
            raise PydanticCustomError(kind, message)
        return value

    return AfterValidator(check)


Substring = Annotated[
    str,
    _rule(
        "zero_length_entry",
        "zero-length entry: an empty string occurs in every text, so this check can never"
        " fail; remove the entry or give it text",
    ),
]
ToolName = Annotated[str, _rule("empty_tool", "empty tool name; name the tool this check is about")]
Needle = Annotated[
    str,
    _rule("empty_needle", "empty needle: it matches every call, so this check can never fail"),
]
NonEmpty = Annotated[str, _rule("empty_string", "must not be empty")]
Count = Annotated[int, Field(ge=0)]


class Strict(BaseModel):
    """Base of every fixture object: unknown keys and coercion are rejected.

    An explicit `null` for an optional key passes the models but is rejected by
    admission (`admission.null_problems`); a per-field Python validator would cost a
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

    id: str = ""
    name: NonEmpty
    #: An object, or the raw argument text a provider sent (which may not parse: that
    #: is how a fixture scripts malformed arguments).
    arguments: Annotated[Any, AfterValidator(_object_or_text)] = Field(default_factory=dict)


class Response(Strict):
    """A scripted model response: a text answer, or a request for tool calls."""

    type: Literal["text", "tool_calls"]
    content: str | None = None
    tool_calls: list[ToolCallSpec] = Field(default_factory=list)
    input_tokens: Count = 0
    output_tokens: Count = 0


class Step(Strict):
    """One scripted provider reply within a turn."""

    response: Response


class Turn(Strict):
    """One user message and the model responses scripted for it."""

    user_input: str
    # A live case may omit steps; in replay, a turn without steps is a run error.
    steps: list[Step] | None = None


class Setup(Strict):
    """What the case workspace holds before the first turn."""

    workspace_files: dict[str, str] = Field(default_factory=dict)


class DispatchCheck(Strict):
    """`{tool, needle, call_index?}`: a needle that calls to `tool` must contain."""

    tool: ToolName
    needle: Needle
    call_index: Count | None = None


class WorkspaceExpects(Strict):
    """Side effects on the case workspace."""

    file_exists: list[Substring] = Field(default_factory=list)
    file_absent: list[Substring] = Field(default_factory=list)
    file_contains: dict[str, list[Substring]] = Field(default_factory=dict)


class BudgetExpects(Strict):
    """Inclusive upper bounds on what the run spent."""

    max_input_tokens: Count | None = None
    max_output_tokens: Count | None = None
    max_total_tokens: Count | None = None
    max_duration_ms: Count | None = None
    max_llm_calls: Count | None = None


class Expects(Strict):
    """The declarative checks of a case; each declared entry is one graded check."""

    response_contains: list[Substring] = Field(default_factory=list)
    response_not_contains: list[Substring] = Field(default_factory=list)
    response_matches: list[Substring] = Field(default_factory=list)
    response_json: dict[str, Any] = Field(default_factory=dict)
    tools_used: list[Substring] = Field(default_factory=list)
    tools_not_used: list[Substring] = Field(default_factory=list)
    min_tool_calls: Count | None = None
    max_tool_calls: Count | None = None
    exact_tool_calls: Count | None = None
    all_tools_succeeded: bool | None = None
    tool_arguments_contain: list[DispatchCheck] = Field(default_factory=list)
    tool_results_contain: list[DispatchCheck] = Field(default_factory=list)
    workspace: WorkspaceExpects | None = None
    budget: BudgetExpects | None = None

    def declares_a_check(self) -> bool:
        """True when at least one check is declared (empty lists declare nothing)."""
        scalars = (self.min_tool_calls, self.max_tool_calls, self.exact_tool_calls)
        if any(v is not None for v in scalars) or self.all_tools_succeeded is not None:
            return True
        lists = (
            self.response_contains,
            self.response_not_contains,
            self.response_matches,
            self.response_json,
            self.tools_used,
            self.tools_not_used,
            self.tool_arguments_contain,
            self.tool_results_contain,
        )
        if any(lists):
            return True
        ws = self.workspace
        if ws and (ws.file_exists or ws.file_absent or any(ws.file_contains.values())):
            return True
        budget = self.budget
        return budget is not None and any(v is not None for v in budget.model_dump().values())


class LlmTrace(Strict):
    """A whole fixture: a scripted conversation and what must hold after it."""

    model_name: NonEmpty
    id: str | None = None
    tools: list[NonEmpty] = Field(default_factory=list)
    setup: Setup | None = None
    turns: list[Turn]
    expects: Expects

    def needs_workspace(self, workspace_tools: frozenset[str]) -> bool:
        """Whether running or grading this case touches a workspace at all."""
        if self.setup is not None and self.setup.workspace_files:
            return True
        if self.expects.workspace is not None:
            return True
        return any(tool in workspace_tools for tool in self.tools)
