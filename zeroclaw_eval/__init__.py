"""zeroclaw-eval: a regression gate for tool-calling agents.

Replay JSON trace fixtures through a real agent loop, record what crosses the provider
and tool boundaries, grade it against declarative expectations, and report.

Each folder is a stage of that flow, in the order data moves through it:

    _support/   the ground floor: files, redaction, frozen records, threads, JSON text
    cases/      a fixture file -> an admitted Case, or a RejectedFixture naming each problem
    collect/    the targets of a run -> the fixtures it takes (a suite, -k, a shard)
    boundary/   what crosses the model and tool boundaries, and the RunRecord of it
    tools/      the tools a case may call, the recording ToolBox, the case's workspace
    agent/      a Case through the agent under test, replayed against its script -> a RunRecord
    wire/       the model APIs the harness speaks to an agent, one endpoint
    backends/   how an agent is reached: in-process, as a command, a service, a live model
    grading/    a RunRecord against the fixture's expects -> one GradeResult per check
    report/     every case's grades -> one SuiteReport (and its JSON shape)
    runner/     a suite or a case through all of the above, with one settings object
    mutate/     a case's RunRecord changed as regressions would change it, each graded
    importing/  production traces -> proven fixtures (`zeroclaw eval import`)
    reporters/  a SuiteReport -> table, JSON, JUnit, HTML, GitHub annotations, a PR comment
    publish/    a rendered comment posted where people read it (the pull request)
    serve/      fixtures' scripted steps behind a model endpoint (`zeroclaw eval serve`)
    cli/        the `zeroclaw` command: options in, outputs written, exit code out

`config/` reads the settings, `errors` holds the one exception hierarchy and the exit
codes, `pytest_plugin` makes each fixture a pytest item (opt-in). Imports flow one way,
from a stage to the stages before it, which a test checks (`tests/test_architecture.py`).

The public API is `__all__` below; names are imported on first use, so that
`import zeroclaw_eval` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from zeroclaw_eval._version import __version__

_EXPORTS = {
    # Running cases.
    "run_suite": "zeroclaw_eval.runner.suite",
    "run_case": "zeroclaw_eval.runner.suite",
    "RunOptions": "zeroclaw_eval.runner.options",
    "LiveOptions": "zeroclaw_eval.config.settings",
    "load_config": "zeroclaw_eval.config.load",
    # Fixtures.
    "load_fixture": "zeroclaw_eval.cases.admission",
    "load_suite": "zeroclaw_eval.collect.suite",
    "Case": "zeroclaw_eval.cases.case",
    "RejectedFixture": "zeroclaw_eval.cases.case",
    "LlmTrace": "zeroclaw_eval.cases.model",
    "FieldRef": "zeroclaw_eval.cases.location",
    "FixtureProblem": "zeroclaw_eval.cases.location",
    # What a run records, and how it is graded.
    "RunRecord": "zeroclaw_eval.boundary.record",
    "RecordedCall": "zeroclaw_eval.boundary.record",
    "grade": "zeroclaw_eval.grading.grader",
    "GradeResult": "zeroclaw_eval.grading.result",
    "check_vacuity": "zeroclaw_eval.grading.vacuity",
    "VacuityReport": "zeroclaw_eval.grading.vacuity",
    "VacuousCase": "zeroclaw_eval.grading.vacuity",
    # Mutation testing: does each case catch the regressions it exists for?
    "mutate_suite": "zeroclaw_eval.mutate.engine",
    "MutationReport": "zeroclaw_eval.mutate.report",
    # The report and its formats.
    "SuiteReport": "zeroclaw_eval.report.model",
    "CaseReport": "zeroclaw_eval.report.model",
    "render_report": "zeroclaw_eval.reporters.render",
    "reporter_names": "zeroclaw_eval.reporters.registry",
    # Writing an agent of your own.
    "Agent": "zeroclaw_eval.agent.loop",
    "AgentContext": "zeroclaw_eval.agent.loop",
    "AgentFactory": "zeroclaw_eval.agent.loop",
    "ReferenceAgent": "zeroclaw_eval.agent.loop",
    "SyncAgent": "zeroclaw_eval.agent.loop",
    "ToolDispatcher": "zeroclaw_eval.agent.loop",
    "Provider": "zeroclaw_eval.boundary.provider",
    "Message": "zeroclaw_eval.boundary.provider",
    "ModelResponse": "zeroclaw_eval.boundary.provider",
    "ToolCallRequest": "zeroclaw_eval.boundary.provider",
    "ToolSpec": "zeroclaw_eval.boundary.provider",
    "ToolOutcome": "zeroclaw_eval.tools.tool",
    "openai_http_client": "zeroclaw_eval.backends.in_process",
    "anthropic_http_client": "zeroclaw_eval.backends.in_process",
    "gemini_http_client": "zeroclaw_eval.backends.in_process",
    "ToolChoice": "zeroclaw_eval.boundary.provider",
    "ProjectTool": "zeroclaw_eval.tools.project",
    # Writing the trace file `zeroclaw eval import` reads, from an agent's own process.
    "SpanFileExporter": "zeroclaw_eval.importing.otlp_file",
    "LogFileExporter": "zeroclaw_eval.importing.otlp_file",
    # Serving fixtures to an agent in any language.
    "ReplayServer": "zeroclaw_eval.serve.server",
    # Errors.
    "EvalError": "zeroclaw_eval.errors",
    "UsageError": "zeroclaw_eval.errors",
    "ConfigError": "zeroclaw_eval.errors",
    "RunError": "zeroclaw_eval.errors",
}

__all__ = ["__version__", *sorted(_EXPORTS)]

# What type checkers see (`X as X`: an explicit re-export); at run time `__getattr__`
# imports each name on first use.
if TYPE_CHECKING:
    from zeroclaw_eval.agent.loop import (
        Agent as Agent,
        AgentContext as AgentContext,
        AgentFactory as AgentFactory,
        ReferenceAgent as ReferenceAgent,
        SyncAgent as SyncAgent,
        ToolDispatcher as ToolDispatcher,
    )
    from zeroclaw_eval.backends.in_process import (
        anthropic_http_client as anthropic_http_client,
        gemini_http_client as gemini_http_client,
        openai_http_client as openai_http_client,
    )
    from zeroclaw_eval.boundary.provider import (
        Message as Message,
        ModelResponse as ModelResponse,
        Provider as Provider,
        ToolCallRequest as ToolCallRequest,
        ToolChoice as ToolChoice,
        ToolSpec as ToolSpec,
    )
    from zeroclaw_eval.boundary.record import RecordedCall as RecordedCall, RunRecord as RunRecord
    from zeroclaw_eval.cases.admission import load_fixture as load_fixture
    from zeroclaw_eval.cases.case import Case as Case, RejectedFixture as RejectedFixture
    from zeroclaw_eval.cases.location import FieldRef as FieldRef, FixtureProblem as FixtureProblem
    from zeroclaw_eval.cases.model import LlmTrace as LlmTrace
    from zeroclaw_eval.collect.suite import load_suite as load_suite
    from zeroclaw_eval.config.load import load_config as load_config
    from zeroclaw_eval.config.settings import LiveOptions as LiveOptions
    from zeroclaw_eval.errors import (
        ConfigError as ConfigError,
        EvalError as EvalError,
        RunError as RunError,
        UsageError as UsageError,
    )
    from zeroclaw_eval.grading.grader import grade as grade
    from zeroclaw_eval.grading.result import GradeResult as GradeResult
    from zeroclaw_eval.grading.vacuity import (
        VacuityReport as VacuityReport,
        VacuousCase as VacuousCase,
        check_vacuity as check_vacuity,
    )
    from zeroclaw_eval.importing.otlp_file import (
        LogFileExporter as LogFileExporter,
        SpanFileExporter as SpanFileExporter,
    )
    from zeroclaw_eval.mutate.engine import mutate_suite as mutate_suite
    from zeroclaw_eval.mutate.report import MutationReport as MutationReport
    from zeroclaw_eval.report.model import CaseReport as CaseReport, SuiteReport as SuiteReport
    from zeroclaw_eval.reporters.registry import reporter_names as reporter_names
    from zeroclaw_eval.reporters.render import render_report as render_report
    from zeroclaw_eval.runner.options import RunOptions as RunOptions
    from zeroclaw_eval.runner.suite import run_case as run_case, run_suite as run_suite
    from zeroclaw_eval.serve.server import ReplayServer as ReplayServer
    from zeroclaw_eval.tools.project import ProjectTool as ProjectTool
    from zeroclaw_eval.tools.tool import ToolOutcome as ToolOutcome


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'zeroclaw_eval' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return list(__all__)
