"""The sticky pull-request comment against a loopback double of GitHub's REST API: made
once by `zeroclaw eval compare`, posted by `zeroclaw eval comment`, updated on the next
push and never posted twice; a comment someone else starts with the marker is left
alone; a fork's read-only token writes the step summary instead; an outage fails, and so
do an answer that drips in past the deadline and a success of a shape GitHub never gives."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.github_api import DRIP_BYTES, DRIP_SECS, READ_ONLY, GitHubApi
from tests.support.invoke import Result, invoke, run_cli
from zeroclaw_eval.publish import comment
from zeroclaw_eval.reporters.pull_request import marker

SUITE = Path(__file__).resolve().parents[2] / "evals" / "regression"
PR = 12


@pytest.fixture
def api() -> Iterator[GitHubApi]:
    with GitHubApi() as running:
        yield running


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A base run of a suite, and a head run in which one case fails."""
    folder = tmp_path_factory.mktemp("reports")
    suite = folder / "suite"
    suite.mkdir()
    for source in sorted(SUITE.glob("echo_*.json"))[:3]:
        (suite / source.name).write_text(source.read_text())
    assert invoke("eval", "run", "--suite", str(suite), "--report", f"json={folder / 'base.json'}").code == 0
    broken = sorted(suite.glob("*.json"))[0]
    data = json.loads(broken.read_text())
    data["expects"]["tools_not_used"] = ["echo"]
    broken.write_text(json.dumps(data, indent=2))
    assert invoke("eval", "run", "--suite", str(suite), "--report", f"json={folder / 'head.json'}").code == 1
    return folder / "base.json", folder / "head.json"


def _comment(api: GitHubApi, body: Path, token: str = "bot-token", **env: str) -> Result:
    environment = {
        "GITHUB_TOKEN": token,
        "GITHUB_REPOSITORY": "zeroclaw_user/agent",
        "GITHUB_API_URL": api.url,
    }
    return invoke("eval", "comment", str(body), "--pr", str(PR), env={**environment, **env})


def test_the_comment_is_created_once_and_updated_on_the_next_push(
    api: GitHubApi, reports: tuple[Path, Path], tmp_path: Path
) -> None:
    base, head = reports
    first = tmp_path / "first.md"
    # The installed command, as the Action runs it.
    made = run_cli("eval", "compare", str(base), str(head), "-o", str(first))
    assert made.code == 0, made.stderr
    posted = run_cli(
        "eval",
        "comment",
        str(first),
        "--pr",
        str(PR),
        env={
            "GITHUB_TOKEN": "bot-token",
            "GITHUB_REPOSITORY": "zeroclaw_user/agent",
            "GITHUB_API_URL": api.url,
        },
    )
    assert posted.code == 0, posted.stderr
    (comment,) = api.double.on(PR)
    assert f"Created the comment on zeroclaw_user/agent#12: {comment['html_url']}" in posted.stderr
    assert comment["body"] == first.read_text()
    assert comment["body"].index("### New failures") < comment["body"].index("| cases |") + 10_000
    # The next push: the same pull request, another head run.
    second = tmp_path / "second.md"
    assert invoke("eval", "compare", str(head), str(head), "-o", str(second)).code == 0
    updated = _comment(api, second)
    assert updated.code == 0, updated.stderr
    (comment,) = api.double.on(PR)  # still one
    assert f"Updated the comment on zeroclaw_user/agent#12: {comment['html_url']}" in updated.stderr
    assert comment["body"] == second.read_text()
    assert [(r.method, r.path.split("?")[0]) for r in api.double.requests] == [
        ("GET", "/repos/zeroclaw_user/agent/issues/12/comments"),
        ("POST", "/repos/zeroclaw_user/agent/issues/12/comments"),
        ("GET", "/repos/zeroclaw_user/agent/issues/12/comments"),
        ("PATCH", f"/repos/zeroclaw_user/agent/issues/comments/{comment['id']}"),
    ]
    for request in api.double.requests:  # every request, as GitHub's REST API asks to be called
        assert request.headers["Authorization"] == "Bearer bot-token"
        assert request.headers["X-GitHub-Api-Version"] == "2022-11-28"
        assert request.headers["Accept"] == "application/vnd.github+json"
        assert request.headers["User-Agent"] == "zeroclaw-eval"


def test_new_failures_come_first(reports: tuple[Path, Path]) -> None:
    base, head = reports
    text = invoke("eval", "compare", str(base), str(head)).stdout
    assert text.startswith(marker("zeroclaw-eval"))
    assert "1 new failure" in text
    assert text.index("### New failures") < text.index("tools_not_used")


def test_a_comment_someone_else_started_with_the_marker_is_never_taken_over(
    api: GitHubApi, reports: tuple[Path, Path], tmp_path: Path
) -> None:
    planted = api.double.add(PR, marker("zeroclaw-eval") + "\nall green, trust me", "mallory")
    body = tmp_path / "comment.md"
    assert invoke("eval", "compare", *map(str, reports), "-o", str(body)).code == 0
    assert _comment(api, body).code == 0
    assert _comment(api, body).code == 0  # and again: the bot's own is updated
    bodies = {c["user"]["login"]: c["body"] for c in api.double.on(PR)}
    assert bodies == {"mallory": planted["body"], "github-actions[bot]": body.read_text()}


def test_the_marker_is_found_on_a_later_page(
    api: GitHubApi, reports: tuple[Path, Path], tmp_path: Path
) -> None:
    for number in range(120):
        api.double.add(PR, f"review comment {number}", "zeroclaw_user")
    ours = api.double.add(PR, marker("zeroclaw-eval") + "\nold", "github-actions[bot]")
    for number in range(20):
        api.double.add(PR, f"later comment {number}", "zeroclaw_user")
    body = tmp_path / "comment.md"
    assert invoke("eval", "compare", *map(str, reports), "-o", str(body)).code == 0
    result = _comment(api, body)
    assert result.code == 0, result.stderr
    assert ours["body"] == body.read_text()
    assert len(api.double.on(PR)) == 141


def test_a_read_only_token_writes_the_step_summary_instead(
    api: GitHubApi, reports: tuple[Path, Path], tmp_path: Path
) -> None:
    body = tmp_path / "comment.md"
    assert invoke("eval", "compare", *map(str, reports), "-o", str(body)).code == 0
    summary = tmp_path / "summary.md"
    result = _comment(api, body, token=READ_ONLY, GITHUB_STEP_SUMMARY=str(summary))
    assert result.code == 0
    assert "may not comment" in result.stderr
    assert summary.read_text() == body.read_text() + "\n"
    assert api.double.on(PR) == []


def test_an_api_outage_fails_the_command(api: GitHubApi, reports: tuple[Path, Path], tmp_path: Path) -> None:
    body = tmp_path / "comment.md"
    assert invoke("eval", "compare", *map(str, reports), "-o", str(body)).code == 0
    api.double.failing = 502
    result = _comment(api, body)
    assert result.code == 1
    assert "HTTP 502" in result.stderr


@pytest.mark.parametrize(("ours", "method", "what"), [(False, "POST", "create"), (True, "PATCH", "update")])
def test_a_comment_github_refuses_to_write_says_which_write_failed(
    api: GitHubApi, tmp_path: Path, ours: bool, method: str, what: str
) -> None:
    if ours:
        api.double.add(PR, OURS, "github-actions[bot]")
    api.double.failing_on[method] = 500
    result = _comment(api, _marked_body(tmp_path))
    assert result.code == 1
    assert f"could not {what} the comment: HTTP 500: Server Error" in result.stderr


def test_a_read_only_token_that_finds_its_comment_writes_the_step_summary_too(
    api: GitHubApi, tmp_path: Path
) -> None:
    # The update is refused as the creation is: the token may read, not write.
    api.double.add(PR, OURS, "github-actions[bot]")
    summary = tmp_path / "summary.md"
    body = _marked_body(tmp_path)
    result = _comment(api, body, token=READ_ONLY, GITHUB_STEP_SUMMARY=str(summary))
    assert result.code == 0, result.stderr
    assert "the token may not comment on zeroclaw_user/agent#12 (HTTP 403" in result.stderr
    assert summary.read_text() == body.read_text() + "\n"
    assert [r.method for r in api.double.requests] == ["GET", "PATCH"]


def test_a_body_without_the_marker_is_refused(api: GitHubApi, tmp_path: Path) -> None:
    body = tmp_path / "comment.md"
    body.write_text("hello\n")
    result = _comment(api, body)
    assert result.code == 2
    assert "does not start with the marker" in result.stderr
    assert api.double.requests == []


def test_the_pull_request_comes_from_the_workflow_event(
    api: GitHubApi, reports: tuple[Path, Path], tmp_path: Path
) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}))
    body = tmp_path / "comment.md"
    assert invoke("eval", "compare", *map(str, reports), "-o", str(body)).code == 0
    environment = {
        "GITHUB_TOKEN": "bot-token",
        "GITHUB_REPOSITORY": "zeroclaw_user/agent",
        "GITHUB_API_URL": api.url,
        "GITHUB_EVENT_PATH": str(event),
    }
    assert invoke("eval", "comment", str(body), env=environment).code == 0
    assert len(api.double.on(7)) == 1


def test_compare_without_a_baseline_says_why(reports: tuple[Path, Path]) -> None:
    _, head = reports
    text = invoke("eval", "compare", str(head), "--note", "no run of main to compare with yet").stdout
    assert "> `no run of main to compare with yet`" in text
    assert "| cases | | 3 | |" in text


@pytest.mark.parametrize("url", ["http://example.com", "https://example.com/a b", "https://x)[y](z"])
def test_a_link_that_is_no_https_url_on_one_line_is_refused(reports: tuple[Path, Path], url: str) -> None:
    result = invoke("eval", "compare", *map(str, reports), "--artifact-url", url)
    if url.startswith("https://x)"):
        # No space, https: accepted, and percent-encoded so it cannot close the link.
        assert result.code == 0
        assert "](https://x%29%5By%5D%28z)" in result.stdout
    else:
        assert result.code == 2


def test_a_rate_limit_is_an_error_not_a_forks_token(
    api: GitHubApi, reports: tuple[Path, Path], tmp_path: Path
) -> None:
    body = tmp_path / "comment.md"
    assert invoke("eval", "compare", *map(str, reports), "-o", str(body)).code == 0
    api.double.rate_limited = True
    summary = tmp_path / "summary.md"
    result = _comment(api, body, GITHUB_STEP_SUMMARY=str(summary))
    assert result.code == 1
    assert "rate limited; retry after 1796115600" in result.stderr
    assert not summary.exists()


def test_a_pull_request_that_is_not_there_is_an_error(
    api: GitHubApi, reports: tuple[Path, Path], tmp_path: Path
) -> None:
    body = tmp_path / "comment.md"
    assert invoke("eval", "compare", *map(str, reports), "-o", str(body)).code == 0
    environment = {"GITHUB_TOKEN": "bot-token", "GITHUB_API_URL": api.url}
    result = invoke(
        "eval", "comment", str(body), "--repo", "zeroclaw_user/nothing-here/x", "--pr", "3", env=environment
    )
    assert result.code == 2  # not OWNER/NAME
    result = invoke(
        "eval", "comment", str(body), "--repo", "zeroclaw_user/agent", "--pr", "3", env=environment
    )
    assert result.code == 0  # a pull request with no comments yet: created
    api.double.failing = 404
    result = invoke(
        "eval", "comment", str(body), "--repo", "zeroclaw_user/agent", "--pr", "3", env=environment
    )
    assert result.code == 1
    assert "is the repository or the pull request number right?" in result.stderr


def test_a_body_or_token_that_is_not_text_is_a_usage_error(api: GitHubApi, tmp_path: Path) -> None:
    body = tmp_path / "comment.md"
    body.write_bytes(marker("zeroclaw-eval").encode() + b"\n\xff\xfe")
    assert "is not UTF-8 text" in _comment(api, body).stderr
    body.write_text(marker("zeroclaw-eval") + "\n")
    result = _comment(api, body, token="t\u00f6ken")
    assert result.code == 2
    assert "GITHUB_TOKEN is no token" in result.stderr
    assert "t\u00f6ken" not in result.stderr


def test_a_note_and_a_key_cannot_make_links_or_outgrow_the_comment(reports: tuple[Path, Path]) -> None:
    text = invoke(
        "eval", "compare", *map(str, reports), "--note", "[x](https://evil.example.com) @octocat"
    ).stdout
    assert "> `[x](https://evil.example.com) @octocat`" in text  # code: no link, no mention
    long = invoke("eval", "compare", *map(str, reports), "--note", "x" * 70_000).stdout
    assert len(long) < 65_536
    assert invoke("eval", "compare", *map(str, reports), "--key", "k" * 101).code == 2


def test_a_new_case_that_fails_is_a_new_failure(reports: tuple[Path, Path], tmp_path: Path) -> None:
    base, head = reports
    data = json.loads(base.read_text())
    broken = next(case for case in json.loads(head.read_text())["cases"] if case["status"] != "passed")
    data["cases"] = [case for case in data["cases"] if case["path"] != broken["path"]]
    data["counts"] = {**data["counts"], "total": len(data["cases"]), "passed": len(data["cases"])}
    fewer = tmp_path / "base.json"
    fewer.write_text(json.dumps(data))
    result = invoke("eval", "compare", str(fewer), str(head))
    assert result.code == 0, result.stderr
    assert "1 new failure" in result.stdout
    assert "### New failures (1)" in result.stdout
    assert "### New cases" not in result.stdout


def _marked_body(tmp_path: Path) -> Path:
    body = tmp_path / "comment.md"
    body.write_text(marker("zeroclaw-eval") + "\nthe verdict\n", encoding="utf-8")
    return body


@pytest.mark.parametrize("part", ["head", "body"])
def test_an_answer_dripped_past_the_deadline_is_given_up(
    api: GitHubApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part: str
) -> None:
    # A byte every DRIP_SECS never lets a read wait a second, so only a deadline on the
    # whole request ends it; without one the command waited out the whole drip.
    assert DRIP_SECS < 1.0
    assert DRIP_BYTES * DRIP_SECS >= 20
    monkeypatch.setattr(comment, "TIMEOUT_SECS", 1.0)
    api.double.drip = part
    started = time.monotonic()
    result = _comment(api, _marked_body(tmp_path))
    took = time.monotonic() - started
    assert result.code == 1, result.stderr
    assert "error: GitHub did not answer within 1 s: GET /repos/zeroclaw_user/agent/issues/12/comments" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr
    assert took < 5, took
    assert [r.method for r in api.double.requests] == ["GET"]


MINE = {"user": {"login": "github-actions[bot]"}}
OURS = marker("zeroclaw-eval") + "\nold"


@pytest.mark.parametrize(
    ("method", "answer", "words"),
    [
        ("GET", b'{"comments": []}', "answered a JSON object, not a list of comments"),
        ("GET", b"null", "answered a JSON null, not a list of comments"),
        ("GET", b'[["a", "comment"]]', "answered comment 1 of page 1 as a JSON array, not an object"),
        ("GET", json.dumps([{**MINE, "body": OURS}]).encode(), "comment 1 of page 1 without an id"),
        ("GET", json.dumps([{**MINE, "id": True, "body": OURS}]).encode(), "without an id"),
        ("GET", json.dumps([{**MINE, "id": "7", "body": OURS}]).encode(), "without an id"),
        ("GET", json.dumps([{**MINE, "id": 7}]).encode(), "comment 1 of page 1 without a body"),
        ("GET", json.dumps([{**MINE, "id": 7, "body": None}]).encode(), "without a body"),
        ("GET", b"<html>502 Bad Gateway</html>", "answered no JSON"),
        ("GET", b"\xff\xfe[]", "answered no JSON"),
        ("GET", b"[" * 100_000, "answered no JSON (objects and arrays are nested too deep to parse)"),
        ("POST", b"[]", "POST /repos/zeroclaw_user/agent/issues/12/comments answered a JSON array, not"),
        ("POST", b'{"id": "1", "html_url": "https://github.com/x"}', "a comment without its id"),
        ("POST", b'{"id": 1}', "or its html_url (text)"),
        ("POST", b"", "answered no JSON"),
        ("PATCH", b'"updated"', "answered a JSON string, not the comment"),
        ("PATCH", b'{"html_url": "https://github.com/x"}', "a comment without its id"),
    ],
)
def test_a_success_of_a_shape_github_never_gives_is_an_error_that_says_so(
    api: GitHubApi, tmp_path: Path, method: str, answer: bytes, words: str
) -> None:
    if method == "PATCH":
        api.double.add(PR, OURS, "github-actions[bot]")  # found, so updated
    api.double.odd[method] = answer
    result = _comment(api, _marked_body(tmp_path))
    assert result.code == 1, result.stdout + result.stderr
    assert words in result.stderr
    assert "is the API URL GitHub's REST API?" in result.stderr
    assert "Traceback" not in result.stderr
    # A listing it cannot read is never taken for "no comment yet": nothing is posted.
    expected = {"GET": ["GET"], "POST": ["GET", "POST"], "PATCH": ["GET", "PATCH"]}[method]
    assert [r.method for r in api.double.requests] == expected


def test_an_odd_answer_from_the_installed_command_is_an_error_not_a_traceback(
    api: GitHubApi, tmp_path: Path
) -> None:
    api.double.odd["POST"] = b"[]"
    environment = {
        "GITHUB_TOKEN": "bot-token",
        "GITHUB_REPOSITORY": "zeroclaw_user/agent",
        "GITHUB_API_URL": api.url,
    }
    result = run_cli("eval", "comment", str(_marked_body(tmp_path)), "--pr", str(PR), env=environment)
    assert result.code == 1, result.stderr
    assert "answered a JSON array, not the comment (an object)" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_run_that_stopped_short_is_never_a_green_comment(
    reports: tuple[Path, Path], tmp_path: Path
) -> None:
    # A run stopped by SIGTERM after its first case: the cases it never ran read as
    # removed, and the comment said "✅ no new failures" for a run that exited 143.
    base, _ = reports
    data = json.loads(base.read_text())
    data["cases"] = data["cases"][:1]
    data.update(interrupted="SIGTERM", not_run=2, exit_code=143)
    data["counts"] = {**data["counts"], "passed": 1, "total": 1}
    data["category_totals"] = data["cases"][0]["category_totals"]
    head = tmp_path / "head.json"
    head.write_text(json.dumps(data))
    result = invoke("eval", "compare", str(base), str(head))
    assert result.code == 0, result.stderr
    title = next(line for line in result.stdout.splitlines() if line.startswith("## "))
    stopped = "## ❌ zeroclaw eval: interrupted by SIGTERM, 2 cases not run;"
    assert title.startswith(f"{stopped} no new failures among the cases that ran")
    assert "> The run stopped before it ran every case" in result.stdout
    alone = invoke("eval", "compare", str(head))
    title = next(line for line in alone.stdout.splitlines() if line.startswith("## "))
    assert title.startswith(stopped)


@pytest.mark.parametrize("repo", ["../..", "zeroclaw_user/..", "o/r?x=#", "o/r#x", "o /r", "o/r%2F..", ""])
def test_a_repository_that_is_no_owner_and_name_is_refused_before_any_request(
    api: GitHubApi, tmp_path: Path, repo: str
) -> None:
    # `../..` sent the token's requests to /issues/1/comments of the API host, and `o/r?x=#`
    # posted to a path with a query of its own.
    environment = {"GITHUB_TOKEN": "bot-token", "GITHUB_API_URL": api.url, "GITHUB_REPOSITORY": repo}
    result = invoke("eval", "comment", str(_marked_body(tmp_path)), "--pr", "3", env=environment)
    assert result.code == 2, result.stderr
    assert "a repository is OWNER/NAME, each of letters, digits, '.', '_' and '-'" in result.stderr
    assert api.double.requests == []
