"""`zeroclaw eval compare`: the pull-request comment of two saved JSON reports
(`reporters.pull_request`).

Exit codes: 0 written; 2 a report cannot be read, or unusable flags.
"""

from __future__ import annotations

from pathlib import Path

import click

from zeroclaw_eval.cli.options import CONTEXT, exit_on_error
from zeroclaw_eval.errors import UsageError

_REPORT = click.Path(path_type=Path, dir_okay=False)


def _https(value: str | None, option: str) -> str | None:
    """A link the comment will point at: https, one line, no spaces."""
    if value is None:
        return None
    if not value.startswith("https://") or not value.isprintable() or " " in value:
        raise UsageError(f"{option} must be an https:// URL on one line without spaces; found {value!r}")
    return value.rstrip("/")


def _check_key(key: str) -> None:
    """A marker's key: a short line of printable text (it is the comment's first line)."""
    from zeroclaw_eval.reporters.pull_request import KEY_LIMIT

    if not key or len(key) > KEY_LIMIT or not key.isprintable():
        raise UsageError(f"--key must be 1 to {KEY_LIMIT} printable characters on one line")


@click.command("compare", context_settings=CONTEXT)
@click.argument("reports", nargs=-1, required=True, metavar="[BASE.json] HEAD.json", type=_REPORT)
@click.option(
    "--note",
    metavar="TEXT",
    help="A line the reader sees first: why there is no baseline, or that it is stale.",
)
@click.option(
    "--key", default="zeroclaw-eval", show_default=True, help="The hidden marker's key: one comment per key."
)
@click.option(
    "--blob-url",
    metavar="URL",
    help="Link each failure to its fixture line under this URL: https://github.com/OWNER/REPO/blob/SHA.",
)
@click.option("--artifact-url", metavar="URL", help="Link to the HTML report (the uploaded artifact).")
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
    default="-",
    show_default=True,
    help="Write the comment to PATH ('-': stdout).",
)
def compare_command(
    reports: tuple[Path, ...],
    note: str | None,
    key: str,
    blob_url: str | None,
    artifact_url: str | None,
    output: Path,
) -> None:
    """Write the pull-request comment comparing HEAD.json with BASE.json.

    Both are JSON reports of `zeroclaw eval run` (--report json=FILE): BASE of the
    branch the pull request merges into, HEAD of the pull request. The comment is
    Markdown, under GitHub's size limit for a comment: the verdict and the counts
    (with tokens and time), then the new failures first (each failing check with
    what it expected and what it found, linked to the fixture line), the cases
    fixed, new and removed, those still failing, the flaky ones (--repeat), the
    cases whose tool calls changed, and the largest token changes. It opens with
    a hidden marker (--key) by which `zeroclaw eval comment` finds it again.
    With HEAD.json alone, the run is shown without a baseline (say why with --note).

    \b
    Examples:
      zeroclaw eval compare base.json reports/eval.json -o comment.md
      zeroclaw eval compare reports/eval.json --note "no run of main to compare with yet"
    \b
    Exit codes: 0 written; 2 a report cannot be read, or unusable flags.
    """
    from zeroclaw_eval.report.saved import read_report
    from zeroclaw_eval.reporters.pull_request import COMMENT, Comparison, Links
    from zeroclaw_eval.reporters.render import render

    with exit_on_error():
        if len(reports) > 2:
            raise UsageError("give at most two reports: BASE.json HEAD.json (or HEAD.json alone)")
        links = Links(_https(blob_url, "--blob-url"), _https(artifact_url, "--artifact-url"))
        _check_key(key)
        hint = "give a JSON report that zeroclaw eval run wrote (--report json=FILE)"
        base = read_report(reports[0], role="BASE ", hint=hint) if len(reports) == 2 else None
        head = read_report(reports[-1], role="HEAD ", hint=hint)
        render(COMMENT, Comparison(base, head, key=key, note=note, links=links), str(output))
