"""The sticky pull-request comment, through GitHub's REST API: one comment per marker,
created once and updated on every later push, never posted twice.

The endpoints (issue comments: a pull request is an issue to them):
`GET /repos/{owner}/{repo}/issues/{number}/comments?per_page=100&page=N` (pages until
one comes back short), `PATCH /repos/{owner}/{repo}/issues/comments/{id}` and
`POST /repos/{owner}/{repo}/issues/{number}/comments`, with `Authorization: Bearer
TOKEN`, `Accept: application/vnd.github+json` and `X-GitHub-Api-Version: 2022-11-28`.
The token needs `pull-requests: write` (or `issues: write`).

The comment found again is the first whose body starts with the marker. Anyone may
write a comment that starts with it; the token can only edit its own, so a comment it
may not edit (403, 404) is passed over and the next one tried, and a new one is posted
when none is left. A token that may not comment at all (a pull request from a fork
gets a read-only token) is `NotAllowed`: the caller shows the comment elsewhere (the
step summary) and the gate goes on.
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


def post_comment(
    pull: PullRequest, body: str, marker: str, token: str, *, api_url: str = "https://api.github.com"
) -> Posted:
    """Create or update the comment that starts with `marker` on `pull` with `body`
    (which starts with it too)."""
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": API_VERSION,
        "User-Agent": "zeroclaw-eval",
    }
    issue = f"/repos/{pull.repository}/issues/{pull.number}"
    with httpx.Client(base_url=api_url.rstrip("/"), headers=headers, timeout=TIMEOUT_SECS) as client:
        for found in _marked(client, issue, marker):
            response = _send(client, "PATCH", f"/repos/{pull.repository}/issues/comments/{found}", body)
            if response.status_code in (403, 404):
                continue  # someone else's comment that starts with the marker
            _check(response, "update the comment")
            return Posted("updated", str(_json(response).get("html_url", "")), found)
        response = _send(client, "POST", f"{issue}/comments", body)
        if response.status_code in (403, 404):
            raise NotAllowed(
                f"the token may not comment on {pull.repository}#{pull.number} (HTTP {response.status_code}:"
                f" {_message(response)}); a pull request from a fork gets a read-only token"
            )
        _check(response, "create the comment")
        data = _json(response)
        return Posted("created", str(data.get("html_url", "")), int(data.get("id", 0)))


def _marked(client: httpx.Client, issue: str, marker: str) -> list[int]:
    """The ids of the comments whose body starts with `marker`, oldest first."""
    found: list[int] = []
    for page in range(1, MAX_PAGES + 1):
        response = _request(client, "GET", f"{issue}/comments", params={"per_page": 100, "page": page})
        if response.status_code in (403, 404):
            raise NotAllowed(f"the token may not read {issue}'s comments (HTTP {response.status_code})")
        _check(response, "list the comments")
        comments = _json(response)
        if not isinstance(comments, list):
            raise CommentError(f"listing the comments answered {type(comments).__name__}, not a list")
        for comment in comments:
            body = comment.get("body") if isinstance(comment, dict) else None
            if isinstance(body, str) and body.startswith(marker) and isinstance(comment.get("id"), int):
                found.append(comment["id"])
        if len(comments) < 100:
            break
    return found


def _send(client: httpx.Client, method: str, path: str, body: str) -> httpx.Response:
    return _request(client, method, path, json={"body": body})


def _request(client: httpx.Client, method: str, path: str, **options: Any) -> httpx.Response:
    try:
        return client.request(method, path, **options)
    except httpx.HTTPError as exc:
        raise CommentError(f"{method} {path}: {exc}") from None


def _check(response: httpx.Response, what: str) -> None:
    if not response.is_success:
        raise CommentError(f"could not {what}: HTTP {response.status_code}: {_message(response)}")


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
