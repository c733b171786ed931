"""`zeroclaw_eval.grading.details`: how observed calls are written into a detail, and
`ToolCalls`, which writes each tool's calls once per run."""

from __future__ import annotations

import pytest

from tests.support.builders import record_of, run_grades
from zeroclaw_eval.boundary.record import RecordedCall
from zeroclaw_eval.grading import details
from zeroclaw_eval.grading.details import ToolCalls, describe_calls, number_text


def _call(name: str, message: str, result: str = "ok", success: bool = True) -> RecordedCall:
    return RecordedCall(0, "", name, {"message": message}, result, success)


CALLS = [_call("echo", "a"), _call("file_read", "b"), _call("echo", "c", "boom", success=False)]


def test_calls_to_a_tool_are_those_calls_in_the_order_they_were_made() -> None:
    by_tool = ToolCalls(CALLS)
    assert by_tool.to("echo") == [CALLS[0], CALLS[2]]
    assert by_tool.to("file_read") == [CALLS[1]]
    assert by_tool.to("shell") == []
    assert by_tool.calls is CALLS


@pytest.mark.parametrize("results", [False, True])
def test_a_tools_description_is_describe_calls_of_its_calls(results: bool) -> None:
    by_tool = ToolCalls(CALLS)
    expected = describe_calls([CALLS[0], CALLS[2]], results=results)
    assert by_tool.described("echo", results=results) == expected
    assert by_tool.described("shell", results=results) == "no tool was called"


def test_a_case_of_many_dispatch_checks_describes_each_tool_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every check on a tool shows all its calls: k checks would describe them k times
    # over (quadratic in a case's calls) if the description were not kept.
    written: list[tuple[str, ...]] = []
    original = details.describe_calls

    def counting(calls: list[RecordedCall], *, results: bool = False) -> str:
        written.append(tuple(call.name for call in calls))
        return original(calls, results=results)

    monkeypatch.setattr(details, "describe_calls", counting)
    calls = [_call("echo", f"message {n}") for n in range(20)]
    checks = [{"tool": "echo", "needle": f"absent {n}"} for n in range(20)]
    grades = run_grades(
        {"tool_arguments_contain": checks, "tool_results_contain": checks}, record_of("x", calls)
    )
    assert len(grades) == 40
    assert not any(g.passed for g in grades.values())
    assert "[19] echo: " in grades["tool_arguments_contain[7]"].detail
    assert written == [("echo",) * 20, ("echo",) * 20]  # once for arguments, once for results


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (2**64 - 1, "18446744073709551615"),  # the largest 64-bit amount: its digits
        (2**64, "a number of about 20 digits"),  # one past it: how many digits it has
        (12.5, "12.5"),
    ],
)
def test_an_amount_is_written_in_digits_up_to_64_bits(amount: float, shown: str) -> None:
    assert number_text(amount) == shown
