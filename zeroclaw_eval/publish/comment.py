"""The sticky pull-request comment, through GitHub's REST API: one comment per marker,
created once and updated on every later push, never posted twice.

The endpoints (issue comments: a pull request is an issue to them):
`GET /repos/{owner}/{repo}/issues/{number}/comments?per_page=100&page=N` (pages until
one comes back short), `PATCH /repos/{owner}/{repo}/issues/comments/{id}` and
`POST /repos/{owner}/{repo}/issues/{number}/comments`, with `Authorization: Bearer
TOKEN`, `Accept: application/vnd.github+json` and `X-GitHub-Api-Version: 2022-11-28`.
The token needs `pull-requests: write` (or `issues: write`).

The comment found again is the first whose body starts with the marker *and* whose
author is the token's identity (`github-actions[bot]` for a workflow's token; the
user's login for a personal token). Anyone may write a comment that starts with the
marker, and a token that may write to the repository may edit anyone's comment: a
comment by someone else is never taken over, or its author could rewrite the verdict.
A token that may not comment (a pull request from a fork gets a read-only one) is
`NotAllowed`: the caller shows the comment elsewhere (the step summary) and the gate
goes on. A rate limit (403 or 429 with no requests left, or GitHub's secondary limit)
and a repository or pull request that is not there (404) are `CommentError`s: the
comment is not written, and the command says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from zeroclaw_eval.errors import CommentError, NotAllowed

API_VERSION = "2022-11-28"
#: Pages of 100 comments read at most: a pull request with more is a conversation no
#: one reads to the end, and a new comment at its end is what a reader sees.
MAX_PAGES = 30
TIMEOUT_SECS = 30.0


@dataclass(frozen=True)
class Posted:
    """What was done: `created` or `updated`, and the comment's URL."""

    action: str
    url: str
    comment_id: int


@dataclass(frozen=True)
class PullRequest:
    """Where the comment goes: `owner/name` and the pull request's number."""

    repository: str
    number: int

    def __post_init__(self) -> None:
        owner, slash, name = self.repository.partition("/")
        if not slash or not owner or not name or "/" in name or not self.repository.isprintable():
            raise ValueError(f"a repository is OWNER/NAME, not {self.repository!r}")
        if self.number < 1:
            raise ValueError(f"a pull request number is 1 or more, not {self.number}")


#: Whom a workflow's own token (`GITHUB_TOKEN`) comments as.
ACTIONS_BOT = "github-actions[bot]"


def post_comment(
    pull: PullRequest,
    body: str,
    marker: str,
    token: str,
    *,
    api_url: str = "https://api.github.com",
    author: str = ACTIONS_BOT,
) -> Posted:
    """Create or update the comment by `author` that starts with `marker` on `pull` with
    `body` (which starts with it too)."""
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": API_VERSION,
        "User-Agent": "zeroclaw-eval",
    }
    issue = f"/repos/{pull.repository}/issues/{pull.number}"
    with httpx.Client(base_url=api_url.rstrip("/"), headers=headers, timeout=TIMEOUT_SECS) as client:
        found = _marked(client, issue, marker, author)
        if found is not None:
            response = _send(client, "PATCH", f"/repos/{pull.repository}/issues/comments/{found}", body)
            _check(response, "update the comment", pull)
            return Posted("updated", str(_json(response).get("html_url", "")), found)
        response = _send(client, "POST", f"{issue}/comments", body)
        _check(response, "create the comment", pull)
        data = _json(response)
        return Posted("created", str(data.get("html_url", "")), int(data.get("id", 0)))


def _marked(client: httpx.Client, issue: str, marker: str, author: str) -> int | None:
    """The id of the oldest comment by `author` whose body starts with `marker`."""
    for page in range(1, MAX_PAGES + 1):
        response = _request(client, "GET", f"{issue}/comments", params={"per_page": 100, "page": page})
        _check(response, "list the comments")
        comments = _json(response)
        if not isinstance(comments, list):
            raise CommentError(f"listing the comments answered {type(comments).__name__}, not a list")
        for comment in comments:
            if not isinstance(comment, dict):
                continue
            body, user = comment.get("body"), comment.get("user")
            login = user.get("login") if isinstance(user, dict) else None
            ours = login == author and isinstance(comment.get("id"), int)
            if ours and isinstance(body, str) and body.startswith(marker):
                return int(comment["id"])
        if len(comments) < 100:
            break
    return None


def _send(client: httpx.Client, method: str, path: str, body: str) -> httpx.Response:
    return _request(client, method, path, json={"body": body})


def _request(client: httpx.Client, method: str, path: str, **options: Any) -> httpx.Response:
    try:
        return client.request(method, path, **options)
    except httpx.HTTPError as exc:
        raise CommentError(f"{method} {path}: {exc}") from None


def _check(response: httpx.Response, what: str, pull: PullRequest | None = None) -> None:
    """`CommentError` for a response that is no success, saying why: a rate limit, a
    repository or pull request not found; `NotAllowed` for a token that may not write."""
    if response.is_success:
        return
    status, message = response.status_code, _message(response)
    said = f"could not {what}: HTTP {status}: {message}"
    if _rate_limited(response, message):
        wait = response.headers.get("retry-after") or response.headers.get("x-ratelimit-reset")
        raise CommentError(f"{said} (rate limited{f'; retry after {wait}' if wait else ''})")
    if status == 404:
        raise CommentError(f"{said} (is the repository or the pull request number right?)")
    if status == 403 and pull is not None:
        raise NotAllowed(
            f"the token may not comment on {pull.repository}#{pull.number} (HTTP 403: {message});"
            " a pull request from a fork gets a read-only token"
        )
    raise CommentError(said)


def _rate_limited(response: httpx.Response, message: str) -> bool:
    """GitHub's primary limit (no requests left) or its secondary one."""
    if response.status_code not in (403, 429):
        return False
    return response.headers.get("x-ratelimit-remaining") == "0" or "rate limit" in message.lower()


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        raise CommentError(
            f"{response.request.method} {response.request.url.path} answered no JSON"
        ) from None


def _message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:200]
    message = data.get("message") if isinstance(data, dict) else None
    return str(message)[:200] if message else response.reason_phrase
