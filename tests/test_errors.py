"""`zeroclaw_eval.errors`: one hierarchy, exit codes by kind, and the did-you-mean lookup."""

from __future__ import annotations

import ast
import asyncio
import sys
from pathlib import Path

import pytest

from zeroclaw_eval import errors


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (errors.UsageError, 2),
        (errors.ConfigError, 2),
        (errors.AgentLoadError, 2),
        (errors.ReporterError, 2),
        (errors.SystemProblem, 2),
        (errors.RunError, 1),
        (errors.IterationCapReached, 1),
        (errors.ProviderError, 1),
        (errors.Divergence, 1),
        (errors.OutsideWorkspace, 1),
        (errors.InvalidRegex, 1),
        (errors.ToolRefused, 1),
    ],
)
def test_every_error_is_an_eval_error_with_its_exit_code(error: type[errors.EvalError], code: int) -> None:
    assert issubclass(error, errors.EvalError)
    assert error.exit_code == code


def test_every_exception_class_of_the_module_is_in_the_hierarchy() -> None:
    # An error is an `EvalError`; the one other root is `Halt`, which stops code rather
    # than reporting a problem (and so is no `Exception`).
    found = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, BaseException)]
    assert found
    assert all(issubclass(cls, (errors.EvalError, errors.Halt)) for cls in found)
    assert not issubclass(errors.Halt, Exception)


def test_what_interrupts_code_is_told_from_an_agents_failure() -> None:
    class OwnBase(BaseException):
        pass

    # pytest's outcomes end the test that runs the harness (pytest-timeout's signal method).
    outcomes = (pytest.fail.Exception("timeout"), pytest.skip.Exception())
    stops = (KeyboardInterrupt(), GeneratorExit(), errors.Halt(), *outcomes)
    for stop in stops:
        assert errors.is_interruption(stop)
    for failure in (ValueError("x"), SystemExit(3), OwnBase("x")):
        assert not errors.is_interruption(failure)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10 has no Task.cancelling: every cancel stops")
def test_a_cancel_interrupts_only_when_the_task_itself_is_being_cancelled() -> None:
    seen: dict[str, bool] = {}

    async def main() -> None:
        # A CancelledError made by the code itself (one of its own tasks', let out).
        seen["its own"] = errors.is_interruption(asyncio.CancelledError())
        current = asyncio.current_task()
        assert current is not None
        current.cancel()  # the run stopping: this task is cancelled from outside
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError as exc:
            seen["the task's"] = errors.is_interruption(exc)
            current.uncancel()

    asyncio.run(main())
    assert seen == {"its own": False, "the task's": True}


def test_an_exception_is_worded_with_its_class_and_message_if_it_has_one() -> None:
    assert errors.exception_words(ValueError("bad input")) == "ValueError: bad input"
    assert errors.exception_words(ValueError()) == "ValueError"

    class Unspeakable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no words")

    assert errors.exception_words(Unspeakable()) == (
        "Unspeakable: (its message cannot be read: its __str__ fails)"
    )


def test_no_public_exception_is_defined_outside_the_errors_module() -> None:
    # Control flow inside one module may use a private exception; everything else an
    # error of zeroclaw-eval can be belongs to the one hierarchy in errors.py.
    package = Path(errors.__file__).parent
    elsewhere = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "errors.py" and path.parent == package:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {ast.unparse(base) for base in node.bases}
                if any(base.endswith(("Exception", "Error")) for base in bases):
                    elsewhere.append(f"{path.relative_to(package)}: {node.name}")
    assert elsewhere == []


def test_a_run_error_carries_the_pointer_of_its_field() -> None:
    error = errors.ProviderError("the provider answered HTTP 500")
    assert (error.message, error.pointer) == ("the provider answered HTTP 500", "")
    assert errors.RunError("turn 2 timed out", "/turns/1").pointer == "/turns/1"


@pytest.mark.parametrize(
    ("word", "choices", "suggestion"),
    [
        ("tool_used", ["tools_used", "tools_not_used", "max_tool_calls"], "tools_used"),
        ("suite_dirs", ["suite_dir", "mode"], "suite_dir"),
        ("modles", ["models"], "models"),
        ("completely_else", ["tools_used", "suite_dir"], None),
        ("timeout", ["case_timeout_secs", "mode"], "case_timeout_secs"),
        ("max", ["max_tokens", "max_retries"], None),
    ],
)
def test_did_you_mean_suggests_only_a_close_choice(
    word: str, choices: list[str], suggestion: str | None
) -> None:
    assert errors.did_you_mean(word, choices) == suggestion
