"""Where a finished report goes: the outputs of one `run` or `render` invocation.

One run can write several formats at once (`--format table --report junit=eval.xml
--report html=eval.html`) from the one report, without replaying twice. Under GitHub
Actions the annotations also go to stderr (once, unless turned off), raw text printed to
the log is fenced off from the workflow-command parser, and the step summary is
appended.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.report import SuiteReport
from zeroclaw_eval.reporters import get_reporter, write_output
from zeroclaw_eval.reporters.safety import stop_commands

# Formats whose stdout output is meant for a human reading the log; under GitHub Actions
# they are wrapped in stop-commands, because they quote model text verbatim.
_LOG_FORMATS = frozenset({"table"})


@dataclass(frozen=True)
class Output:
    """One format written to one place (`-` is stdout)."""

    fmt: str
    path: str = "-"


def parse_report_option(spec: str) -> Output:
    """`FORMAT=PATH` or `FORMAT` (stdout), as given to `--report`."""
    fmt, sep, path = spec.partition("=")
    if not fmt or (sep and not path):
        raise UsageError(f"--report {spec!r}: expected FORMAT=PATH (for example junit=reports/eval.xml)")
    return Output(fmt, path if sep else "-")


def plan(primary: Output, extra: list[Output]) -> list[Output]:
    """The outputs to write, checked: known formats, one stdout, no path twice."""
    outputs = [primary, *extra]
    for output in outputs:
        get_reporter(output.fmt)  # an unknown format is a usage error before anything runs
    to_stdout = [o.fmt for o in outputs if o.path == "-"]
    if len(to_stdout) > 1:
        raise UsageError(
            f"only one output can go to stdout, got {', '.join(to_stdout)};"
            " give the others a path (--report FORMAT=PATH)"
        )
    paths = [os.path.abspath(o.path) for o in outputs if o.path != "-"]
    if len(paths) != len(set(paths)):
        raise UsageError("two outputs write to the same file")
    for output in outputs:
        if output.path != "-":
            _check_writable(output)
    return outputs


def _check_writable(output: Output) -> None:
    """Refuse, before anything runs (a live run costs tokens), a path no file can be at."""
    target = Path(output.path)
    if target.is_dir():
        raise UsageError(f"{output.fmt} output {output.path} is a folder; give a file path")
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"{output.fmt} output {output.path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{output.fmt} output {output.path}: {parent} is not writable")


def in_github_actions() -> bool:
    """True inside a GitHub Actions job."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


@dataclass
class Emitted:
    """What `emit` did: the files written, and why any output was not."""

    written: list[tuple[Output, Path]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def emit(report: SuiteReport, outputs: list[Output], *, annotations: bool | None, color: bool) -> Emitted:
    """Render and write every output, then the automatic GitHub annotations and summary.

    `annotations` None means: on when running under GitHub Actions. A reporter that
    raises writes nothing, and the other outputs are still written (nothing is lost).
    """
    emitted = Emitted()
    github = in_github_actions()
    for output in outputs:
        try:
            text = get_reporter(output.fmt)(report, color=color and output.path == "-")
        except Exception as exc:  # a third-party reporter is outside our control
            reason = f"{type(exc).__name__}: {exc}"
            emitted.failed.append(
                f"the {output.fmt} reporter failed, nothing was written to {output.path}: {reason}"
            )
            continue
        if output.path == "-" and github and output.fmt in _LOG_FORMATS:
            text = stop_commands(text)
        try:
            path = write_output(text, output.path)
        except OSError as exc:  # the others are still written: nothing is lost for one bad path
            emitted.failed.append(f"cannot write {output.fmt} to {output.path}: {exc.strerror or exc}")
            continue
        if path is not None:
            emitted.written.append((output, path))
    github_in_log = any(o.fmt == "github" and o.path == "-" for o in outputs)
    if annotations is None:
        annotations = github
    if annotations and not github_in_log:
        # stderr, so they never mix into a report written to stdout.
        sys.stderr.write(get_reporter("github")(report))
        sys.stderr.flush()
    if (annotations or github_in_log) and os.environ.get("GITHUB_STEP_SUMMARY"):
        append_step_summary(report, Path(os.environ["GITHUB_STEP_SUMMARY"]))
    return emitted


def append_step_summary(report: SuiteReport, path: Path) -> None:
    """Append the Markdown summary, keeping the whole file under GitHub's 1 MiB cap."""
    from zeroclaw_eval.reporters.github import SUMMARY_LIMIT, step_summary

    existing = path.stat().st_size if path.exists() else 0
    room = SUMMARY_LIMIT - existing
    if room <= 0:
        return
    with path.open("a", encoding="utf-8", newline="\n") as stream:
        stream.write(step_summary(report, limit=room))
