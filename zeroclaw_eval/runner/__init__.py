"""Running cases: a suite or one case through every stage (admit, run, grade, report),
with the settings a run is asked for (`options`), the project's agent and tools as its
configuration names them (`project`), forked `workers` for `--jobs N`, and a clean stop on
SIGINT and SIGTERM (`signals`).

The only stage below the CLI that imports every stage before it.
"""

from zeroclaw_eval.runner.options import CaseDone, RunOptions, refuse_live_agent_cmd
from zeroclaw_eval.runner.suite import run_case, run_suite

__all__ = ["CaseDone", "RunOptions", "refuse_live_agent_cmd", "run_case", "run_suite"]
