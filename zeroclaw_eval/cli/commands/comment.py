"""`zeroclaw eval comment`: post (or update) the pull-request comment `zeroclaw eval
compare` wrote (`publish.comment`).

Exit codes: 0 posted or updated, or the token may not comment (a fork's pull request:
the comment goes to the step summary instead); 1 the API failed; 2 unusable flags.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from zeroclaw_eval.cli.options import CONTEXT, exit_on_error
from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import ExitCode, UsageError


def _pull_number(given: int | None) -> int:
    """The pull request: `--pr`, else the one the workflow's event is about."""
    if given is not None:
        return given
    event = os.environ.get("GITHUB_EVENT_PATH")
    number = None
    if event:
        try:
            data = json.loads(Path(event).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        pull = data.get("pull_request") if isinstance(data, dict) else None
        number = pull.get("number") if isinstance(pull, dict) else None
    if not isinstance(number, int):
        raise UsageError("give --pr N: this workflow's event is no pull request (GITHUB_EVENT_PATH)")
    return number


@click.command("comment", context_settings=CONTEXT)
@click.argument(
    "body_file", metavar="COMMENT.md", type=click.Path(path_type=Path, dir_okay=False, exists=True)
)
@click.option("--repo", metavar="OWNER/NAME", help="The repository. [default: $GITHUB_REPOSITORY]")
@click.option("--pr", "number", type=int, metavar="N", help="The pull request. [default: the event's]")
@click.option(
    "--key", default="zeroclaw-eval", show_default=True, help="The marker's key, as given to compare."
)
@click.option(
    "--api-url", metavar="URL", help="The REST API. [default: $GITHUB_API_URL, else https://api.github.com]"
)
@click.option(
    "--author",
    default="github-actions[bot]",
    show_default=True,
    help="Whom the token comments as: only that author's comment is updated (a personal token: your login).",
)
def comment_command(
    body_file: Path, repo: str | None, number: int | None, key: str, api_url: str | None, author: str
) -> None:
    """Post COMMENT.md on the pull request, or update the comment posted before.

    COMMENT.md is what `zeroclaw eval compare` wrote: it starts with a hidden
    marker (--key), by which the comment is found again on the next push and
    updated, never posted twice. Only a comment by --author is updated: anyone
    may write a comment that starts with the marker, and none of theirs is
    taken over. The token is $GITHUB_TOKEN and needs
    `pull-requests: write`. A token that may not comment (a pull request from a
    fork gets a read-only one) is no failure: the comment is appended to the step
    summary ($GITHUB_STEP_SUMMARY) instead, and the command says so.

    \b
    Examples:
      zeroclaw eval compare base.json head.json -o comment.md
      zeroclaw eval comment comment.md
      zeroclaw eval comment comment.md --repo zeroclaw_user/agent --pr 12
    \b
    Exit codes: 0 posted, updated, or shown in the step summary instead; 1 the API
    failed; 2 unusable flags.
    """
    from zeroclaw_eval.errors import CommentError, NotAllowed
    from zeroclaw_eval.publish.comment import PullRequest, post_comment
    from zeroclaw_eval.reporters.pull_request import marker

    with exit_on_error():
        try:
            body = body_file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(
                f"{body_file} is not UTF-8 text (byte {exc.start}); write it with zeroclaw eval compare"
            ) from None
        if not body.startswith(marker(key)):
            raise UsageError(
                f"{body_file} does not start with the marker of --key {key!r}; write it with"
                f" zeroclaw eval compare --key {key!r}"
            )
        token = os.environ.get("GITHUB_TOKEN", "")
        if not token:
            raise UsageError("set GITHUB_TOKEN to a token that may comment on the pull request")
        if not (token.isascii() and token.isprintable()) or " " in token:
            # Never quoted: it is a secret, and this goes to a CI log.
            raise UsageError("GITHUB_TOKEN is no token: it holds a space, a control or a non-ASCII character")
        repository = repo or os.environ.get("GITHUB_REPOSITORY", "")
        try:
            pull = PullRequest(repository, _pull_number(number))
        except ValueError as exc:
            raise UsageError(f"--repo: {exc}") from None
        api = api_url or os.environ.get("GITHUB_API_URL") or "https://api.github.com"
    try:
        posted = post_comment(pull, body, marker(key), token, api_url=api, author=author)
    except NotAllowed as exc:
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as stream:
                stream.write(body + "\n")
        where = "the step summary" if summary else "nowhere (no GITHUB_STEP_SUMMARY)"
        say(f"warning: {exc}; the comment was written to {where} instead")
        raise SystemExit(ExitCode.OK) from None
    except CommentError as exc:
        say(f"error: {exc}")
        raise SystemExit(ExitCode.FAILED) from None
    say(f"{posted.action.capitalize()} the comment on {pull.repository}#{pull.number}: {posted.url}")
