"""Where a finished report goes: the outputs of one `run`, `render` or `merge`, planned
and checked before anything runs (`plan_outputs`), then written (`emit`).

One run can write several formats at once (`--format table --report junit=eval.xml
--report html=eval.html`) from the one report, without replaying twice. Under GitHub
Actions the annotations also go to stderr (once, unless turned off), raw text printed to
the log is fenced off from the workflow-command parser, and the step summary is
appended.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import ReporterError, UsageError
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters.registry import get_reporter
from zeroclaw_eval.reporters.render import render_report


@dataclass(frozen=True)
class Output:
    """One format written to one place (`-` is stdout)."""

    fmt: str
    path: str = "-"


def parse_report_option(spec: str) -> Output:
    """`FORMAT=PATH` or `FORMAT` (stdout), as given to `--report`."""
    fmt, sep, path = spec.partition("=")
    if not sep and ("/" in fmt or "." in fmt):  # a path given alone: say which format it wants
        guess = _FORMAT_OF_SUFFIX.get(Path(fmt).suffix.lower(), "junit")
        raise UsageError(f"--report {spec!r}: expected FORMAT=PATH, for example --report {guess}={spec}")
    if not fmt or (sep and not path):
        raise UsageError(f"--report {spec!r}: expected FORMAT=PATH (for example junit=reports/eval.xml)")
    return Output(fmt, path if sep else "-")


#: The format a file name suggests, for the hint when `--report` gets a bare path.
_FORMAT_OF_SUFFIX = {".xml": "junit", ".html": "html", ".htm": "html", ".json": "json", ".txt": "table"}


@dataclass(frozen=True)
class Outputs:
    """Every output one command writes, checked: each format and where it goes, the GitHub
    annotations and step summary (None: on under GitHub Actions), and how much the table
    shows, in colour or not (None: on a terminal and in a CI log)."""

    targets: list[Output]
    annotations: bool | None = None
    verbose: bool = False
    quiet: bool = False
    color: bool | None = None
    #: `--otlp-endpoint`: the collector the report is sent to as well (`publish.otlp`).
    otlp_endpoint: str | None = None

    def show_passing_details(self) -> bool:
        """Whether an output shows what a passing case's details hold: `-v`, or a format
        that shows them (a plugin's; every built-in format shows what `--details` keeps).
        Otherwise the run keeps passing cases compact in memory."""
        return self.verbose or any(get_reporter(target.fmt).passing_details for target in self.targets)


def plan_outputs(
    fmt: str = "table",
    output: str = "-",
    reports: tuple[str, ...] = (),
    *,
    annotations: bool | None = None,
    verbose: bool = False,
    quiet: bool = False,
    color: bool | None = None,
    otlp_endpoint: str | None = None,
) -> Outputs:
    """The outputs `--format`/`--output` and each `--report FORMAT=PATH` ask for, checked
    (with how much the table shows: `-v` and `-q` say opposite things)."""
    if verbose and quiet:
        raise UsageError("-v shows more and -q less; give one of them")
    targets = plan(Output(fmt, output), [parse_report_option(spec) for spec in reports])
    if otlp_endpoint is not None:
        from zeroclaw_eval.publish.otlp import traces_url

        traces_url(otlp_endpoint)  # a URL that cannot work is a usage error before anything runs
    return Outputs(targets, annotations, verbose, quiet, color, otlp_endpoint)


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
    seen: dict[str, Output] = {}
    for output in outputs:
        if output.path == "-":
            continue
        same = seen.setdefault(os.path.abspath(output.path), output)
        if same is not output:
            raise UsageError(
                f"the {same.fmt} and {output.fmt} outputs both write to {output.path}; give each its own file"
            )
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


def use_color(flag: bool | None = None) -> bool:
    """Whether stdout gets colour: `--color`/`--no-color` when given; else FORCE_COLOR
    (set and not 0) says yes and NO_COLOR (https://no-color.org) says no; else yes in a
    GitHub Actions log (which renders ANSI colour, unless stdout is redirected to a file)
    or on a terminal."""
    if flag is not None:
        return flag
    force = os.environ.get("FORCE_COLOR")
    if force is not None and force not in ("", "0"):
        return True
    if os.environ.get("NO_COLOR"):
        return False
    in_ci_log = os.environ.get("GITHUB_ACTIONS") == "true" and not _stdout_is_a_file()
    return in_ci_log or sys.stdout.isatty()


def _stdout_is_a_file() -> bool:
    """stdout redirected to a regular file (`run > table.txt`), where colour codes are noise."""
    try:
        return stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):  # no file behind it (a test's capture)
        return False


def in_github_actions() -> bool:
    """True inside a GitHub Actions job."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def emit(report: SuiteReport, outputs: Outputs) -> None:
    """Render and write every output, then the automatic GitHub annotations and summary,
    then announce each file written on stderr.

    A reporter that raises writes nothing, and the other outputs are still written
    (nothing is lost); then a `ReporterError` lists what failed.
    """
    failed: list[str] = []
    written: list[tuple[Output, Path]] = []
    github = in_github_actions()
    # Colour only on stdout, never in a file.
    painted = use_color(outputs.color)
    for output in outputs.targets:
        try:
            path = render_report(
                report,
                output.fmt,
                output.path,
                color=painted and output.path == "-",
                verbose=outputs.verbose,
                quiet=outputs.quiet,
                in_ci_log=github,
            )
        except ReporterError as exc:
            failed.append(str(exc))
        except OSError as exc:  # the others are still written: nothing is lost for one bad path
            failed.append(f"cannot write {output.fmt} to {output.path}: {exc.strerror or exc}")
        else:
            if path is not None:
                written.append((output, path))
    github_in_log = any(o.fmt == "github" and o.path == "-" for o in outputs.targets)
    annotations = github if outputs.annotations is None else outputs.annotations
    if annotations and not github_in_log:
        # stderr, so they never mix into a report written to stdout.
        sys.stderr.write(get_reporter("github")(report))
        sys.stderr.flush()
    if (annotations or github_in_log) and os.environ.get("GITHUB_STEP_SUMMARY"):
        append_step_summary(report, Path(os.environ["GITHUB_STEP_SUMMARY"]))
    for output, path in written:
        say(f"Wrote {output.fmt} to {path}")
    if outputs.otlp_endpoint is not None:
        from zeroclaw_eval.publish.otlp import export, shown
        from zeroclaw_eval.reporters.otlp import pieces

        warning = export(pieces(report), outputs.otlp_endpoint)
        say(
            f"warning: {warning} (the gate's verdict stands)"
            if warning
            else f"Sent otlp to {shown(outputs.otlp_endpoint)}"
        )
    if failed:
        raise ReporterError("\n".join(failed))


def append_step_summary(report: SuiteReport, path: Path) -> None:
    """Append the Markdown summary, keeping the whole file under GitHub's 1 MiB cap."""
    from zeroclaw_eval.reporters.github import SUMMARY_LIMIT, step_summary
    from zeroclaw_eval.reporters.render import append_summary

    append_summary(path, lambda room: step_summary(report, limit=room), SUMMARY_LIMIT)
