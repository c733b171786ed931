"""zeroclaw-eval: a regression gate for tool-calling agents.

Replay JSON trace fixtures through a real agent loop, record what crosses the provider
and tool boundaries, grade it against declarative expectations, and report.

The public API is listed in `__all__`; names are imported on first use so that
`import zeroclaw_eval` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Agent": "zeroclaw_eval.agent",
    "AgentContext": "zeroclaw_eval.agent",
    "ReferenceAgent": "zeroclaw_eval.agent",
    "Case": "zeroclaw_eval.admission",
    "RejectedFixture": "zeroclaw_eval.admission",
    "load_fixture": "zeroclaw_eval.admission",
    "LlmTrace": "zeroclaw_eval.case",
    "EvalError": "zeroclaw_eval.errors",
    "RunError": "zeroclaw_eval.errors",
    "UsageError": "zeroclaw_eval.errors",
    "GradeResult": "zeroclaw_eval.grader",
    "grade": "zeroclaw_eval.grader",
    "FieldRef": "zeroclaw_eval.location",
    "FixtureProblem": "zeroclaw_eval.location",
    "ModelResponse": "zeroclaw_eval.provider",
    "ToolCallRequest": "zeroclaw_eval.provider",
    "RecordedCall": "zeroclaw_eval.record",
    "RunRecord": "zeroclaw_eval.record",
    "CaseReport": "zeroclaw_eval.report",
    "SuiteReport": "zeroclaw_eval.report",
    "RunOptions": "zeroclaw_eval.runner",
    "load_suite": "zeroclaw_eval.runner",
    "run_case": "zeroclaw_eval.runner",
    "run_suite": "zeroclaw_eval.runner",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'zeroclaw_eval' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return list(__all__)
