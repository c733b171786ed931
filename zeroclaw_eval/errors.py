"""The one exception hierarchy of zeroclaw-eval.

The CLI catches `EvalError` once and maps it to an exit code; nothing below the CLI
prints or exits. Problems inside a single case (a rejected fixture, a run error) are
*data* in the report, not exceptions that escape the suite.
"""

from __future__ import annotations


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

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer
