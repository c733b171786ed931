"""The settings models: `[eval]`, one `[providers.models.NAME]` table, and the live-mode
options they resolve to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


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
    live_provider: str = ""
    live_allowed_tools: list[str] = Field(default_factory=list)
    case_timeout_secs: float = Field(default=120.0, gt=0)
    max_tool_iterations: int = Field(default=10, ge=1)


class ProviderSettings(BaseModel):
    """One `[providers.models.NAME]` table: an OpenAI-compatible chat-completions endpoint.

    The key itself is never in a file: `api_key_env` names the environment variable
    that holds it.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

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


@dataclass(frozen=True)
class LiveOptions:
    """Live mode: the provider table, its key, and the tools live cases may use."""

    provider: ProviderSettings
    api_key: str
    #: `[eval].live_allowed_tools`; `echo` is always allowed.
    allowed_tools: frozenset[str] = frozenset()
