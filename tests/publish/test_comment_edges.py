"""The sticky comment's edges: what `post_comment` answers, how far the listing reads and
by which pages, which repositories and pull requests it takes, how each way GitHub can
refuse (a rate limit, an error of any shape, a hang-up, a slow answer) reads to the user,
and where it goes without an API URL.

Most run against the loopback double of GitHub's API (`tests.support.github_api`); the
answers GitHub gives that the double does not (a secondary rate limit, an error body of
any shape, a slow answer, a hang-up, a proxy) come from `Canned`, a loopback server that
answers each method with bytes a test sets."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.github_api import READ_ONLY, GitHubApi
from tests.support.invoke import Result, invoke
from zeroclaw_eval.errors import CommentError
from zeroclaw_eval.publish import comment
from zeroclaw_eval.reporters.pull_request import marker

PR = 12
MARKER = marker("zeroclaw-eval")
LIST = "/repos/zeroclaw_user/agent/issues/12/comments"


@pytest.fixture
def api() -> Iterator[GitHubApi]:
    with GitHubApi() as running:
        yield running


@dataclass
class Answer:
    """How `Canned` answers a method: a status, headers and a body, after a delay; or it
    hangs up without a word."""

    status: int = 200
    body: bytes = b"[]"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hang_up: bool = False


class _CannedHandler(BaseHTTPRequestHandler):
    server: _CannedServer

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.server.seen.append(f"{self.command} {self.path}")
        answer = self.server.answers.get(self.command, Answer(404, b'{"message": "Not Found"}'))
        if answer.hang_up:
            self.close_connection = True
            return
        time.sleep(answer.delay)
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        self.wfile.write(answer.body)

    do_GET = do_POST = do_PATCH = do_CONNECT = _handle


class _CannedServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _CannedHandler)
        self.answers: dict[str, Answer] = {"GET": Answer()}
        self.seen: list[str] = []


class Canned:
    """A loopback server answering each method ("GET", "POST", "PATCH", "CONNECT") with
    its `Answer` (404 for a method without one; a listing of no comments for GET until a
    test says otherwise), keeping "METHOD PATH" of each request."""

    def __init__(self) -> None:
        self._server = _CannedServer()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.answers = self._server.answers
        self.seen = self._server.seen

    def __enter__(self) -> Canned:
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def canned() -> Iterator[Canned]:
    with Canned() as running:
        yield running


OURS_LISTED = json.dumps([{"id": 7, "body": MARKER + "\nold", "user": {"login": "github-actions[bot]"}}])
CREATED = b'{"id": 5, "html_url": "https://github.com/zeroclaw_user/agent/pull/12#issuecomment-5"}'


def _body(tmp_path: Path) -> Path:
    body = tmp_path / "comment.md"
    body.write_text(MARKER + "\nthe verdict\n", encoding="utf-8")
    return body


def _comment(url: str, body: Path, *options: str, token: str = "bot-token", **env: str) -> Result:
    environment = {"GITHUB_TOKEN": token, "GITHUB_REPOSITORY": "zeroclaw_user/agent", "GITHUB_API_URL": url}
    return invoke("eval", "comment", str(body), "--pr", str(PR), *options, env={**environment, **env})


# What post_comment answers.


def test_post_comment_answers_created_then_updated_with_the_comments_id_and_url(api: GitHubApi) -> None:
    pull = comment.PullRequest("zeroclaw_user/agent", PR)
    created = comment.post_comment(pull, MARKER + "\nfirst", MARKER, "bot-token", api_url=api.url)
    (made,) = api.double.on(PR)
    assert created == comment.Posted("created", made["html_url"], made["id"])
    updated = comment.post_comment(pull, MARKER + "\nsecond", MARKER, "bot-token", api_url=api.url)
    assert updated == comment.Posted("updated", made["html_url"], made["id"])
    assert [c["body"] for c in api.double.on(PR)] == [MARKER + "\nsecond"]


def test_without_an_api_url_the_requests_go_to_api_github_com_over_https(
    canned: Canned, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen through a proxy that takes note of where each tunnel goes and refuses it: no
    # request leaves this machine.
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", canned.url)
    monkeypatch.setenv("https_proxy", canned.url)
    canned.answers["CONNECT"] = Answer(403, b"")
    with pytest.raises(CommentError) as refused:
        comment.post_comment(comment.PullRequest("zeroclaw_user/agent", PR), MARKER, MARKER, "bot-token")
    assert str(refused.value).startswith(f"GET {LIST}: ")
    assert canned.seen == ["CONNECT api.github.com:443"]


def test_an_api_url_with_a_path_and_trailing_slashes_has_the_requests_go_under_its_path(
    canned: Canned, tmp_path: Path
) -> None:
    # GitHub Enterprise Server's REST API is under /api/v3; a slash or two at the end of
    # the URL given changes nothing.
    canned.answers["POST"] = Answer(201, CREATED)
    result = _comment(canned.url + "/api/v3//", _body(tmp_path))
    assert result.code == 0, result.stderr
    assert canned.seen == [f"GET /api/v3{LIST}?per_page=100&page=1", f"POST /api/v3{LIST}"]


# The repository and the pull request.


@pytest.mark.parametrize("repo", ["zeroclaw_user/.", "./agent"])
def test_a_repository_part_that_is_a_lone_dot_is_refused_before_any_request(
    api: GitHubApi, tmp_path: Path, repo: str
) -> None:
    result = _comment(api.url, _body(tmp_path), "--repo", repo)
    assert result.code == 2, result.stderr
    assert f"a repository is OWNER/NAME, each of letters, digits, '.', '_' and '-', not {repo!r}" in (
        result.stderr
    )
    assert api.double.requests == []


def test_pull_request_number_1_is_commented_on(api: GitHubApi, tmp_path: Path) -> None:
    environment = {
        "GITHUB_TOKEN": "bot-token",
        "GITHUB_REPOSITORY": "zeroclaw_user/agent",
        "GITHUB_API_URL": api.url,
    }
    result = invoke("eval", "comment", str(_body(tmp_path)), "--pr", "1", env=environment)
    assert result.code == 0, result.stderr
    assert "Created the comment on zeroclaw_user/agent#1: " in result.stderr
    assert len(api.double.on(1)) == 1


def test_pull_request_number_0_is_refused_before_any_request_saying_why(
    api: GitHubApi, tmp_path: Path
) -> None:
    environment = {
        "GITHUB_TOKEN": "bot-token",
        "GITHUB_REPOSITORY": "zeroclaw_user/agent",
        "GITHUB_API_URL": api.url,
    }
    result = invoke("eval", "comment", str(_body(tmp_path)), "--pr", "0", env=environment)
    assert result.code == 2, result.stderr
    assert "a pull request number is 1 or more, not 0" in result.stderr
    assert api.double.requests == []


# Finding the comment again.


def _pages(requests: list[Any]) -> list[str]:
    return [r.path for r in requests if r.method == "GET"]


def test_the_comments_are_read_100_a_page_and_ours_on_the_last_page_read_is_updated(
    api: GitHubApi, tmp_path: Path
) -> None:
    for number in range((comment.MAX_PAGES - 1) * 100):
        api.double.add(PR, f"review comment {number}", "zeroclaw_user")
    ours = api.double.add(PR, MARKER + "\nold", "github-actions[bot]")  # first on the last page
    result = _comment(api.url, _body(tmp_path))
    assert result.code == 0, result.stderr
    assert "Updated the comment" in result.stderr
    assert ours["body"] == _body(tmp_path).read_text()
    pages = range(1, comment.MAX_PAGES + 1)
    assert _pages(api.double.requests) == [f"{LIST}?per_page=100&page={page}" for page in pages]


def test_a_comment_past_the_pages_read_is_not_looked_for_a_new_one_is_posted(
    api: GitHubApi, tmp_path: Path
) -> None:
    for number in range(comment.MAX_PAGES * 100):
        api.double.add(PR, f"review comment {number}", "zeroclaw_user")
    old = api.double.add(PR, MARKER + "\nold", "github-actions[bot]")  # on the page after
    result = _comment(api.url, _body(tmp_path))
    assert result.code == 0, result.stderr
    assert "Created the comment" in result.stderr
    assert old["body"] == MARKER + "\nold"
    assert len(_pages(api.double.requests)) == comment.MAX_PAGES
    assert [r.method for r in api.double.requests][-1] == "POST"


def test_a_marked_comment_of_a_deleted_account_is_nobodys_and_left_alone(
    api: GitHubApi, tmp_path: Path
) -> None:
    ghost = api.double.add(PR, MARKER + "\nold", "github-actions[bot]")
    ghost["user"] = None  # as GitHub lists a comment whose author's account is gone
    result = _comment(api.url, _body(tmp_path))
    assert result.code == 0, result.stderr
    assert "Created the comment" in result.stderr
    assert ghost["body"] == MARKER + "\nold"
    assert len(api.double.on(PR)) == 2


def test_our_comment_with_id_1_is_found_and_updated(api: GitHubApi, tmp_path: Path) -> None:
    ours = api.double.add(PR, MARKER + "\nold", "github-actions[bot]")
    ours["id"] = 1
    result = _comment(api.url, _body(tmp_path))
    assert result.code == 0, result.stderr
    assert [r.path for r in api.double.requests][-1] == "/repos/zeroclaw_user/agent/issues/comments/1"
    assert ours["body"] == _body(tmp_path).read_text()


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (b"true", "answered a JSON boolean, not a list of comments"),
        (b"42", "answered a JSON number, not a list of comments"),
        (b"-1.5", "answered a JSON number, not a list of comments"),
        (json.dumps([{"id": 0, "body": MARKER}]).encode(), "answered comment 1 of page 1 without an id"),
    ],
)
def test_a_listing_of_another_shape_is_an_error_naming_what_it_is(
    api: GitHubApi, tmp_path: Path, answer: bytes, words: str
) -> None:
    api.double.odd["GET"] = answer
    result = _comment(api.url, _body(tmp_path))
    assert result.code == 1, result.stderr
    assert f"error: GET {LIST} {words}" in result.stderr
    assert [r.method for r in api.double.requests] == ["GET"]


def test_a_created_comment_without_its_url_is_an_error_saying_what_it_lacks(
    api: GitHubApi, tmp_path: Path
) -> None:
    api.double.odd["POST"] = b'{"id": 1}'
    result = _comment(api.url, _body(tmp_path))
    assert result.code == 1, result.stderr
    assert (
        f"error: POST {LIST} answered a comment without its id (a positive integer) or its html_url"
        " (text): is the API URL GitHub's REST API?"
    ) in result.stderr


# How a refusal reads.


def test_an_error_answer_to_the_listing_names_the_listing_and_the_status(
    api: GitHubApi, tmp_path: Path
) -> None:
    api.double.failing = 502
    result = _comment(api.url, _body(tmp_path))
    assert result.code == 1
    assert "error: could not list the comments: HTTP 502: Server Error\n" in result.stderr


def test_a_read_only_token_is_told_a_forks_pull_request_gets_one(api: GitHubApi, tmp_path: Path) -> None:
    result = _comment(api.url, _body(tmp_path), token=READ_ONLY)
    assert result.code == 0, result.stderr
    assert (
        "warning: the token may not comment on zeroclaw_user/agent#12 (HTTP 403: Resource not accessible"
        " by integration); a pull request from a fork gets a read-only token;"
    ) in result.stderr


def test_a_secondary_rate_limit_is_an_error_not_a_forks_token_and_says_how_long_to_wait(
    canned: Canned, tmp_path: Path
) -> None:
    # GitHub's secondary limit: a 403 with requests left, saying so, and Retry-After
    # (which comes before the primary limit's reset time).
    said = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
    canned.answers["POST"] = Answer(
        403,
        json.dumps({"message": said}).encode(),
        {"x-ratelimit-remaining": "4990", "x-ratelimit-reset": "1796115600", "retry-after": "60"},
    )
    summary = tmp_path / "summary.md"
    result = _comment(canned.url, _body(tmp_path), GITHUB_STEP_SUMMARY=str(summary))
    assert result.code == 1, result.stderr
    assert f"error: could not create the comment: HTTP 403: {said} (rate limited; retry after 60)\n" in (
        result.stderr
    )
    assert not summary.exists()


@pytest.mark.parametrize("status", [403, 429])
def test_no_requests_left_is_a_rate_limit_whatever_the_message_and_says_no_wait_it_was_not_told(
    canned: Canned, tmp_path: Path, status: int
) -> None:
    canned.answers["POST"] = Answer(status, b'{"message": "Slow down"}', {"x-ratelimit-remaining": "0"})
    summary = tmp_path / "summary.md"
    result = _comment(canned.url, _body(tmp_path), GITHUB_STEP_SUMMARY=str(summary))
    assert result.code == 1, result.stderr
    assert f"error: could not create the comment: HTTP {status}: Slow down (rate limited)\n" in result.stderr
    assert not summary.exists()


def test_an_error_answer_that_is_no_json_is_quoted_to_its_first_200_characters(
    canned: Canned, tmp_path: Path
) -> None:
    page = "<html>" + "y" * 194 + "</html> and the rest"
    canned.answers["GET"] = Answer(502, page.encode())
    result = _comment(canned.url, _body(tmp_path))
    assert result.code == 1, result.stderr
    assert f"error: could not list the comments: HTTP 502: {page[:200]}\n" in result.stderr


def test_an_error_message_is_quoted_to_its_first_200_characters(canned: Canned, tmp_path: Path) -> None:
    said = "m" * 200 + " and the rest"
    canned.answers["GET"] = Answer(500, json.dumps({"message": said}).encode())
    result = _comment(canned.url, _body(tmp_path))
    assert result.code == 1, result.stderr
    assert f"error: could not list the comments: HTTP 500: {'m' * 200}\n" in result.stderr


@pytest.mark.parametrize(
    "answer", [b'{"documentation_url": "https://docs.github.com"}', b'{"message": ""}', b'["no", "object"]']
)
def test_an_error_answer_without_a_message_says_the_statuss_reason(
    canned: Canned, tmp_path: Path, answer: bytes
) -> None:
    canned.answers["GET"] = Answer(500, answer)
    result = _comment(canned.url, _body(tmp_path))
    assert result.code == 1, result.stderr
    assert "error: could not list the comments: HTTP 500: Internal Server Error\n" in result.stderr


@pytest.mark.parametrize(
    ("listed", "method", "path"),
    [
        (b"[]", "POST", LIST),
        (OURS_LISTED.encode(), "PATCH", "/repos/zeroclaw_user/agent/issues/comments/7"),
    ],
)
def test_a_write_the_api_hangs_up_on_is_an_error_naming_the_write(
    canned: Canned, tmp_path: Path, listed: bytes, method: str, path: str
) -> None:
    canned.answers["GET"] = Answer(200, listed)
    canned.answers[method] = Answer(hang_up=True)
    result = _comment(canned.url, _body(tmp_path))
    assert result.code == 1, result.stderr
    assert f"error: {method} {path}: " in result.stderr
    assert canned.seen[-1] == f"{method} {path}"


def test_an_answer_slower_than_a_usual_read_timeout_but_within_the_deadline_is_waited_for(
    canned: Canned, tmp_path: Path
) -> None:
    # No per-read timeout of httpx's (5 s unless told): the one deadline is TIMEOUT_SECS.
    assert comment.TIMEOUT_SECS > 6
    canned.answers["GET"] = Answer(delay=5.5)
    canned.answers["POST"] = Answer(201, CREATED)
    result = _comment(canned.url, _body(tmp_path))
    assert result.code == 0, result.stderr
    assert (
        "Created the comment on zeroclaw_user/agent#12: https://github.com/zeroclaw_user/agent/pull/12#issuecomment-5"
    ) in result.stderr
