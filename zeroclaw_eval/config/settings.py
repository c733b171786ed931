"""The settings models: `[eval]`, one `[providers.models.NAME]` table, and the live-mode
options they resolve to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from zeroclaw_eval.errors import ConfigError


def _no_tools() -> list[str]:
    # Not `list`: pydantic reads a default factory's signature, and a builtin's is parsed
    # from its text, which costs a run's start-up more than the rest of this model.
    return []


class EvalSettings(BaseModel):
    """The `[eval]` table and its defaults."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

    suite_dir: str = "evals/regression"
    mode: Literal["replay", "live"] = "replay"
    #: `module:callable` of an agent factory; empty means the reference agent loop.
    agent: str = ""
    #: `module:callable` of a factory returning the project's own tools; empty: none.
    tools: str = ""
    #: The command line of an agent that runs as its own process, in place of `agent`.
    agent_cmd: str = ""
    #: How the harness talks to that process: JSON lines, or one argument and stdout.
    agent_io: Literal["jsonl", "oneshot"] = "jsonl"
    #: The command line of an agent that runs as an HTTP service, started once per run.
    agent_service: str = ""
    #: How a turn reaches it: `json` ({"session", "input"} -> {"output"}), `chat` (an
    #: OpenAI Chat Completions request with the conversation so far) or `a2a` (an A2A
    #: message in the case's context, to the endpoint its agent card names).
    agent_service_protocol: Literal["json", "chat", "a2a"] = "json"
    #: The path turns are POSTed to; empty: `/turn` (json) or `/v1/chat/completions` (chat);
    #: an A2A agent's card says its own.
    agent_service_path: str = ""
    #: A path answered 2xx once the service is ready; empty: the port accepting.
    agent_service_ready_path: str = ""
    agent_service_startup_secs: float = Field(default=30.0, gt=0)
    #: How long a case stays open after its last answer, its model requests still its
    #: own: a background call the service makes then fails that case. (At most 10 s: an
    #: agent's closing is bounded by 15.)
    agent_service_quiet_secs: float = Field(default=0.5, ge=0, le=10)
    #: How each turn's user message must carry its scripted input, for the cases whose
    #: fixture does not say: `exact`, or `contains` (inside a framework's own template).
    user_input_match: Literal["exact", "contains"] = "exact"
    #: How the agent echoes its tool calls to the model: as `tool_calls` (messages), or
    #: written in its text with results sent back as user messages (smolagents).
    tool_echo: Literal["messages", "text"] = "messages"
    #: Which cases are offered the built-in `echo` tool: those that name it (list it in
    #: `tools` or script a call to it), or every case (`always`, for an agent that has
    #: an echo tool of its own in production).
    builtin_tools: Literal["named", "always"] = "named"
    #: What each request carries: the whole conversation (`full`), or its own turn only
    #: (`turn`: a framework that starts each turn afresh, a CrewAI crew per turn).
    history: Literal["full", "turn"] = "full"
    #: Serve each case's tools as an MCP server too (ZEROCLAW_EVAL_MCP_URL), for agents
    #: that take their tools from MCP servers.
    mcp: bool = False
    #: The streamable-HTTP URL of the project's own MCP server: in live mode with `mcp`,
    #: its tools are proxied (and `--record` writes their calls as doubles).
    mcp_upstream: str = ""
    live_provider: str = ""
    #: The [providers.models] table whose model answers `judge` checks (live mode and
    #: `--rejudge`); empty: the live provider's.
    judge_provider: str = ""
    #: Which judge checks decide a case: `calibrated` (those whose judge model a person's
    #: labels calibrated on the rubric, in `calibration_dir`, at `judge_min_agreement` or
    #: more; the others are reported as diagnostic), `always` or `never`.
    judge_gate: Literal["calibrated", "always", "never"] = "calibrated"
    #: Where `zeroclaw eval calibrate finalize` writes calibration files and the gate reads them.
    calibration_dir: str = "evals/calibration"
    #: The least agreement with a person a calibrated judge needs to gate.
    judge_min_agreement: float = Field(default=0.85, ge=0, le=1)
    live_allowed_tools: list[str] = Field(default_factory=_no_tools)
    case_timeout_secs: float = Field(default=120.0, gt=0)
    max_tool_iterations: int = Field(default=10, ge=1)
    #: The largest fixture file admitted, in bytes (16 MiB, `fixtures.limits.DEFAULT_MAX_FIXTURE_BYTES`).
    max_fixture_bytes: int = Field(default=16 * 1024 * 1024, ge=1)


class TokenPrices(BaseModel):
    """`[providers.models.NAME.prices]`: what the provider bills, in US dollars per
    million tokens. On the provider, not by model name: the same model costs differently
    through another endpoint (a cloud's, a router's), and no price is shipped, since a
    stale default would be a wrong cost said with confidence."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    #: Input read from the prompt cache; left out: billed as `input`.
    cached_input: float | None = Field(default=None, ge=0)


class ProviderSettings(BaseModel):
    """One `[providers.models.NAME]` table: an OpenAI-compatible chat-completions endpoint
    (`kind = "openai"`, the default), Anthropic's Messages API (`kind = "anthropic"`),
    Gemini's `generateContent` (`kind = "gemini"`) or Bedrock's Converse (`kind = "bedrock"`).

    The key itself is never in a file: `api_key_env` names the environment variable
    that holds it.
    """

    # Built when first validated: only a configuration with providers pays for it.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False, defer_build=True)

    #: The API the endpoint speaks: `openai` (POST {base_url}/chat/completions),
    #: `anthropic` (POST {base_url}/v1/messages, or {base_url}/messages when base_url
    #: already ends in /v1) or `gemini` (POST {base_url}/v1beta/models/MODEL:generateContent,
    #: or under the version base_url ends in) or `bedrock` (POST
    #: {base_url}/model/MODEL/converse, signed with AWS Signature Version 4: `api_key_env`
    #: names the secret access key's variable, `AWS_ACCESS_KEY_ID` gives its id).
    kind: Literal["openai", "anthropic", "gemini", "bedrock"] = "openai"
    base_url: str = Field(min_length=1)
    model: str = Field(min_length=1)
    api_key_env: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    temperature: float | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=1)
    #: Seconds one HTTP request may take; the turn as a whole is bounded by case_timeout_secs.
    request_timeout_secs: float = Field(default=60.0, gt=0)
    #: Retries after a 429, a 5xx or a dropped connection, with backoff.
    max_retries: int = Field(default=3, ge=0)
    #: The most requests sent to it at once: a run starts at two and adapts, growing while
    #: requests succeed and halving when the provider throttles (`backends.concurrency`).
    max_concurrency: int = Field(default=16, ge=1)
    #: What it bills (None: unpriced, and the runs it answers have no cost).
    prices: TokenPrices | None = None


@dataclass(frozen=True)
class LiveOptions:
    """Live mode: the provider table, its key, and the tools live cases may use."""

    provider: ProviderSettings
    api_key: str
    #: `[eval].live_allowed_tools`; `echo` is allowed wherever a case names it.
    allowed_tools: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        problem = api_key_problem(self.api_key)
        if problem is not None:
            variable = self.provider.api_key_env
            where = (
                f"${variable} (api_key_env of the live provider)" if variable else "the live provider's key"
            )
            fix = f"export {variable}=\"$(tr -d '[:space:]' < KEYFILE)\"" if variable else "strip it"
            # The key itself is never shown: this message goes to the terminal and CI logs.
            raise ConfigError(
                f"the API key in {where} {problem}; an HTTP header cannot carry it, and it is not"
                f" the key as issued (a paste or a file read with its line ending?). Remove it, e.g.: {fix}"
            )


def api_key_problem(key: str) -> str | None:
    """What makes `key` unusable as an API key, without quoting it; None when it is usable.

    Keys are printable ASCII without spaces. A control character (the newline of a key
    file, a CR) would make the HTTP client refuse the header, and the key would no longer
    match itself in text, so the scrubber could miss it.
    """
    if key != key.strip():
        where = "ends" if key[:1] == key.lstrip()[:1] else "starts"
        return f"{where} with whitespace ({_named(key[-1] if where == 'ends' else key[0])})"
    for index, char in enumerate(key):
        if not ("!" <= char <= "~"):
            return f"holds {_named(char)} at character {index + 1} of {len(key)}"
    return None


def _named(char: str) -> str:
    names = {"\n": "a newline", "\r": "a carriage return", "\t": "a tab", " ": "a space"}
    if char in names:
        return names[char]
    if char.isprintable():
        return f"the non-ASCII character U+{ord(char):04X}"
    return f"the control character U+{ord(char):04X}"
