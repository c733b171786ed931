"""The one exception hierarchy of zeroclaw-eval, and how an error suggests a fix.

The CLI catches `EvalError` once and maps it to an exit code (`exit_code`); nothing
below the CLI prints or exits. Problems inside a single case (a rejected fixture, a run
error, a failed check) are *data* in the report, not exceptions that escape the suite.

    EvalError                    exit 1
    ├── UsageError               exit 2: the command line or configuration cannot work
    │   ├── ConfigError
    │   └── AgentLoadError
    ├── ReporterError            exit 2: a reporter raised; its output was not written
    ├── SystemProblem            exit 2: the machine refused a file, a folder, a port
    ├── RunError                 a case could not run to completion (at a fixture field)
    │   ├── IterationCapReached
    │   └── ProviderError
    ├── Divergence               a request of the agent left the script
    ├── WireError                a request the OpenAI-compatible endpoints cannot take
    ├── OutsideWorkspace         a path that would leave the case workspace
    └── InvalidRegex             a pattern RE2 cannot compile
"""

from __future__ import annotations

from collections.abc import Iterable


class EvalError(Exception):
    """Base of every error zeroclaw-eval raises on purpose."""

    #: Process exit code the CLI uses when this error reaches it.
    exit_code = 1


class UsageError(EvalError):
    """The command line or configuration asks for something that cannot be done."""

    exit_code = 2


class ConfigError(UsageError):
    """A configuration file is malformed or holds an unknown or invalid setting."""


class AgentLoadError(UsageError):
    """`[eval].agent` names a factory that cannot be imported or called."""


class ReporterError(EvalError):
    """A reporter raised while rendering; its output was not written."""

    exit_code = 2


class SystemProblem(EvalError):
    """The machine refused something the command needed (a file, a folder, a port)."""

    exit_code = 2


class RunError(EvalError):
    """A case could not run to completion (replay divergence, iteration cap, crash).

    `pointer` names the fixture field the error is about (for example the turn whose
    script ran out), so reporters can point at it like at a failing check.
    """

    def __init__(self, message: str, pointer: str = "", traceback: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer
        #: Where the agent's own code raised, when it did (its frames only).
        self.traceback = traceback


class IterationCapReached(RunError):
    """The model kept asking for tools past `max_tool_iterations` rounds in one turn."""


class ProviderError(RunError):
    """The live provider could not answer; the case fails with this message."""


class Divergence(EvalError):
    """A request of the agent does not follow the fixture's script: in replay (where it
    becomes the case's run error) or sent to `zeroclaw eval serve` (an HTTP 400)."""

    def __init__(self, message: str, fixture: str | None = None, pointer: str = "") -> None:
        super().__init__(message)
        #: The fixture whose script the request was checked against, once known.
        self.fixture = fixture
        #: The fixture field the request left the script at ("" when none is apt).
        self.pointer = pointer


class WireError(EvalError):
    """A request an OpenAI-compatible endpoint cannot take (not JSON, an item it does not
    know, too large): the HTTP status and error type to answer with."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind


class OutsideWorkspace(EvalError):
    """A path that is absolute, climbs with `..`, or resolves outside the workspace."""


class InvalidRegex(EvalError):
    """A pattern RE2 cannot compile (bad syntax, or a feature RE2 leaves out)."""


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The choice `word` most likely misspells, if any is close enough to suggest; else
    the one choice holding `word` as a `_`-separated part (`timeout`: `case_timeout_secs`),
    since a setting is often guessed by its last-remembered word, too short for difflib."""
    import difflib  # here: every command imports this module, few ever suggest a name

    options = list(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if close:
        return close[0]
    holding = [choice for choice in options if word in choice.split("_")]
    return holding[0] if len(holding) == 1 else None
