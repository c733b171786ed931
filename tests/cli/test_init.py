"""`zeroclaw_eval.cli` (the command group): what every command gets before it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from zeroclaw_eval.cli import _GC_THRESHOLDS

#: Runs `zeroclaw eval schema` as the console script does and prints the collector's
#: thresholds afterwards (in a fresh interpreter: the tests' own must not change).
PROBE = """
import gc, json, sys
from zeroclaw_eval.cli import main
before = gc.get_threshold()
try:
    main(["eval", "schema"], prog_name="zeroclaw")
except SystemExit:
    pass
print(json.dumps({"before": before, "after": gc.get_threshold()}))
"""


def test_a_command_runs_with_the_collector_run_less_often_than_pythons_default() -> None:
    # With Python's defaults the collector walks the growing heap of case reports again
    # and again: a third of a 10,000-case run went to it.
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"before": [700, 10, 10], "after": list(_GC_THRESHOLDS)}
    assert _GC_THRESHOLDS[0] > 700


#: Runs the command (the arguments after `-c PROBE -`) as the console script does
#: (`entry`) or as a host program would (`main`), as `HOW` says, and prints, from an
#: exit handler registered before (so run after the command's own), how often the heap
#: was frozen at exit (`gc.freeze` counted in place of the real one).
EXIT_PROBE = """
import atexit, gc, os, sys
from zeroclaw_eval import cli
frozen = []
gc.freeze = lambda: frozen.append(1)
atexit.register(lambda: print(len(frozen)))
sys.argv = ["zeroclaw", *sys.argv[2:]]
try:
    cli.entry() if os.environ["HOW"] == "entry" else cli.main()
except SystemExit:
    pass
"""


@pytest.mark.parametrize("argv", [("eval", "schema"), ("--help",)], ids=["eval schema", "--help"])
@pytest.mark.parametrize(("how", "frozen"), [("entry", "1"), ("main", "0")])
def test_at_exit_the_console_script_skips_the_heap_the_command_leaves(
    argv: tuple[str, ...], how: str, frozen: str
) -> None:
    # The interpreter's last collections walk every object still alive (modules, models,
    # the report): a sixth of a short run, spared by freezing them. A process that calls
    # `main` itself (a host program, a test runner) keeps its own exit collection.
    done = subprocess.run(
        [sys.executable, "-c", EXIT_PROBE, "-", *argv],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HOW": how},
    )
    assert done.stdout.strip().splitlines()[-1] == frozen
