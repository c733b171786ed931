"""The one exception hierarchy of zeroclaw-eval, the exit codes, and how an error
suggests a fix.

`ExitCode` is the only place the process's exit statuses are spelled. The CLI catches
`EvalError` once and exits with its `exit_code`; nothing below the CLI prints or exits.
Problems inside a single case (a rejected fixture, a run error, a failed check) are
*data* in the report, not exceptions that escape the suite.

    EvalError                    ExitCode.FAILED
    ├── UsageError               ExitCode.USAGE_ERROR: the command line or configuration cannot work
    │   ├── ConfigError
    │   ├── AgentLoadError
    │   └── TargetNotFound       a fixture file or suite folder named that is not there
    ├── ReporterError            ExitCode.USAGE_ERROR: a reporter raised; its output was not written
    ├── SystemProblem            ExitCode.USAGE_ERROR: the machine refused a file, a folder, a port
    ├── RunError                 a case could not run to completion (at a fixture field)
    │   ├── IterationCapReached
    │   └── ProviderError
    ├── Divergence               a request of the agent left the script
    ├── WireError                a request the OpenAI-compatible endpoints cannot take
    ├── OutsideWorkspace         a path that would leave the case workspace
    ├── ToolRefused              a tool cannot do what a call asks (the model is told)
    ├── InvalidRegex             a pattern RE2 cannot compile
    ├── UnfaithfulTrace          a trace `zeroclaw eval import` cannot make a faithful case of
    ├── JudgeError               a judge model that cannot be asked, or whose reply is no verdict
    └── CommentError             GitHub's API refused or failed the pull request comment
        └── NotAllowed           the token may not comment (a fork's read-only token)

    Halt (a BaseException)       the harness stops code it runs: a turn past its time limit,
                                 a signal outside the run of the cases
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Iterable
from pathlib import Path


class ExitCode(enum.IntEnum):
    """How a zeroclaw-eval process ended, as its exit status: a `zeroclaw` command (an
    `int`, as pytest's `ExitCode` is, so `sys.exit` takes it as it is), or a forked worker
    of `--jobs N`, which ends `OK` or `FAILED`."""

    #: The gate passed: every case passed (every fixture admitted, every one can fail, ...).
    OK = 0
    #: The gate failed: a check failed, a run errored, a fixture was rejected, or there was
    #: nothing to gate (an empty suite certifies nothing).
    FAILED = 1
    #: The command or its configuration cannot work (usage, configuration, a reporter that
    #: raised, a file or port the machine refused).
    USAGE_ERROR = 2
    #: Stopped by SIGINT: 128 + its number, as a shell reports a process a signal stopped.
    INTERRUPTED = 130
    #: Stopped by SIGTERM: 128 + its number.
    TERMINATED = 143

    @classmethod
    def gate(cls, passed: bool) -> ExitCode:
        """`OK` when the gate passed, else `FAILED`."""
        return cls.OK if passed else cls.FAILED

    @classmethod
    def stopped_by(cls, signal_name: str) -> ExitCode:
        """The exit code of a run a stop signal ended (`SIGINT` or `SIGTERM`)."""
        return STOPPED_BY[signal_name]


#: The signals that stop a run cleanly, and the exit code each one ends it with.
STOPPED_BY = {"SIGINT": ExitCode.INTERRUPTED, "SIGTERM": ExitCode.TERMINATED}


class Halt(BaseException):
    """Raised by the harness into code it runs, to stop it. A `BaseException`, as
    `KeyboardInterrupt` is, so that no `except Exception` on the way swallows it."""


def is_interruption(exc: BaseException) -> bool:
    """Whether `exc` stops the code it reaches rather than failing it: Ctrl-C, the cancel
    of the running task, a generator's close, the harness's own `Halt`, pytest's outcomes
    (a test that runs the harness failed or skipped from inside it). Every other
    exception an agent (or its tools) raises, a `BaseException` subclass of its own
    included, is that agent's failure, and a run error of its case, never a crash of the
    run. So is a `CancelledError` the agent raised while nobody cancelled its task (one
    of its own tasks' cancels, let out), where Python can tell (3.11's `cancelling`)."""
    if isinstance(exc, (KeyboardInterrupt, GeneratorExit, Halt)):
        return True
    # pytest's own outcomes (`pytest.fail`, `pytest.skip`, pytest-timeout's signal method)
    # end the test that runs the harness, wherever they are raised. Looked up, not
    # imported, as asyncio is below: where pytest is not imported, nothing raised one.
    outcomes = sys.modules.get("_pytest.outcomes")
    if outcomes is not None and isinstance(exc, outcomes.OutcomeException):
        return True
    # This module is on `zeroclaw --help`'s path, which leaves asyncio out; where asyncio
    # is not imported, no task was cancelled.
    asyncio = sys.modules.get("asyncio")
    if asyncio is None or not isinstance(exc, asyncio.CancelledError):
        return False
    return task_cancelling() is not False  # where Python cannot tell, a cancel stops


def task_cancelling() -> bool | None:
    """Whether the task running here is being cancelled (a cancel asked of it and not
    withdrawn); None where Python cannot tell: 3.10 (no `Task.cancelling`), or no task
    running on this thread."""
    asyncio = sys.modules.get("asyncio")  # not imported: see `is_interruption`
    if asyncio is None:
        return None
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no loop running on this thread
        return None
    cancelling = getattr(task, "cancelling", None)
    return None if cancelling is None else cancelling() > 0


def exception_words(exc: BaseException) -> str:
    """`exc` as a report says it: its class and message (`ValueError: bad`), or the class
    alone when the message is empty (a bare `raise CancelledError()`)."""
    try:
        message = str(exc)
    except Exception:  # an agent's exception whose `__str__` raises, or returns no str
        message = "(its message cannot be read: its __str__ fails)"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


class EvalError(Exception):
    """Base of every error zeroclaw-eval raises on purpose."""

    #: Process exit code the CLI uses when this error reaches it.
    exit_code: ExitCode = ExitCode.FAILED


class UsageError(EvalError):
    """The command line or configuration asks for something that cannot be done."""

    exit_code = ExitCode.USAGE_ERROR


class ConfigError(UsageError):
    """A configuration file is malformed or holds an unknown or invalid setting."""


class AgentLoadError(UsageError):
    """`[eval].agent` names a factory that cannot be imported or called."""


class TargetNotFound(UsageError):
    """A fixture file or suite folder a command was given (or configured) is not there:
    `target` says which, so a front end can say how to start a suite there."""

    def __init__(self, message: str, target: Path) -> None:
        super().__init__(message)
        self.target = target


class ReporterError(EvalError):
    """A reporter raised while rendering; its output was not written."""

    exit_code = ExitCode.USAGE_ERROR


class SystemProblem(EvalError):
    """The machine refused something the command needed (a file, a folder, a port)."""

    exit_code = ExitCode.USAGE_ERROR


class ReportShapeError(EvalError, ValueError):
    """A saved report that is not one this version of zeroclaw-eval reads: `field` names
    where (`cases[3].grades[0].category`), the message says what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


class ReplyValueError(EvalError, ValueError):
    """A provider's reply of its API's shape that holds a value no real reply holds (a
    token count of `Infinity`); the message names the field and the value."""


class A2AError(EvalError, ValueError):
    """What an agent reached over A2A sent that the harness cannot take: a card it cannot
    talk to, or a reply that is no answer to the turn; in words, for the turn's run error."""


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


class ToolRefused(EvalError):
    """A tool cannot do what a call asks (a missing argument, a path outside the
    workspace). Never raised past the tool: the model gets the message back as a failed
    result (`Tool.invoke`)."""


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


class UnfaithfulTrace(EvalError):
    """A trace that cannot become a fixture that replays what it recorded: it names the
    trace, the span and the attribute, so a user can find it in their tracing UI."""

    def __init__(self, trace_id: str, span: str | None, attribute: str | None, reason: str) -> None:
        self.trace_id, self.span, self.attribute, self.reason = trace_id, span, attribute, reason
        where = [f"trace {trace_id}"]
        if span:
            where.append(f"span {span}")
        if attribute:
            where.append(attribute)
        super().__init__(f"{': '.join(where)}: {reason}")


class JudgeError(EvalError):
    """A judge model that could not be asked, or whose reply is no verdict."""


class CommentError(EvalError):
    """GitHub's API refused or failed a request of the pull request comment (what, and
    the status it answered)."""


class NotAllowed(CommentError):
    """The token may not comment on the pull request (a fork's pull request gets a
    read-only token)."""
