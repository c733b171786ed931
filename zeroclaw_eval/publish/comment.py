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

Each request has one deadline for all of it, `TIMEOUT_SECS` from the moment it is sent:
connecting, sending, and reading the whole answer. A per-read timeout (httpx's) is not
one: a server that drips a byte every few seconds never lets a read wait that long, and
held the command (and the CI job) for as long as it kept dripping. The requests run in an
event loop so that the deadline can cancel a request wherever it waits; a blocking
client can only be told per read. A success answer of a shape GitHub's API never gives
(not JSON, a list that is an object, a comment without its `id` or `body`) is a
`CommentError` that says so, not a traceback, and never taken for "no comment yet": that
would post a second one.
"""

from __future__ import annotations

import asyncio
import re
import sys
from dataclasses import dataclass
from typing import Any, TypeGuard

import httpx

from zeroclaw_eval._support.json.text import loads_untrusted
from zeroclaw_eval.errors import CommentError, NotAllowed

API_VERSION = "2022-11-28"
#: Pages of 100 comments read at most: a pull request with more is a conversation no
#: one reads to the end, and a new comment at its end is what a reader sees.
MAX_PAGES = 30
#: Seconds each request may take in all (connect, send, read the whole answer); read
#: when a request is sent.
TIMEOUT_SECS = 30.0


@dataclass(frozen=True)
class Posted:
    """What was done: `created` or `updated`, and the comment's URL."""

    action: str
    url: str
    comment_id: int


#: One part of a repository's full name, as GitHub allows it.
_REPO_PART = re.compile(r"[A-Za-z0-9._-]{1,100}")


@dataclass(frozen=True)
class PullRequest:
    """Where the comment goes: `owner/name` and the pull request's number."""

    repository: str
    number: int

    def __post_init__(self) -> None:
        # Each part as GitHub spells one (letters, digits, `.`, `_`, `-`), never `.` or
        # `..`: the parts go into the API's paths, where `../..` or a `?` would send the
        # token's requests to another path of the API host.
        owner, slash, name = self.repository.partition("/")
        parts_ok = all(_REPO_PART.fullmatch(part) and part not in (".", "..") for part in (owner, name))
        if not slash or not parts_ok:
            spelled = "each of letters, digits, '.', '_' and '-'"
            raise ValueError(f"a repository is OWNER/NAME, {spelled}, not {self.repository!r}")
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
    return asyncio.run(_post(pull, body, marker, author, api_url.rstrip("/"), headers))


async def _post(
    pull: PullRequest, body: str, marker: str, author: str, api_url: str, headers: dict[str, str]
) -> Posted:
    issue = f"/repos/{pull.repository}/issues/{pull.number}"
    # No timeout of httpx's own: the one deadline of each request is `_request`'s.
    async with httpx.AsyncClient(base_url=api_url, headers=headers, timeout=None) as client:
        found = await _marked(client, issue, marker, author)
        if found is not None:
            path = f"/repos/{pull.repository}/issues/comments/{found}"
            response = await _request(client, "PATCH", path, json={"body": body})
            _check(response, "update the comment", pull)
            return Posted("updated", _written(response)[1], found)
        response = await _request(client, "POST", f"{issue}/comments", json={"body": body})
        _check(response, "create the comment", pull)
        comment_id, url = _written(response)
        return Posted("created", url, comment_id)


async def _marked(client: httpx.AsyncClient, issue: str, marker: str, author: str) -> int | None:
    """The id of the oldest comment by `author` whose body starts with `marker`."""
    for page in range(1, MAX_PAGES + 1):
        response = await _request(client, "GET", f"{issue}/comments", params={"per_page": 100, "page": page})
        _check(response, "list the comments")
        comments = _json(response)
        if not isinstance(comments, list):
            raise _odd(response, f"a JSON {_kind(comments)}, not a list of comments")
        for index, comment in enumerate(comments, 1):
            comment_id, text = _listed(response, comment, f"comment {index} of page {page}")
            user = comment.get("user")  # null for a deleted account: nobody's, so not ours
            login = user.get("login") if isinstance(user, dict) else None
            if login == author and text.startswith(marker):
                return comment_id
        if len(comments) < 100:
            break
    return None


def _listed(response: httpx.Response, comment: Any, which: str) -> tuple[int, str]:
    """A listed comment's id and body. One without them is refused, not skipped: were it
    ours, skipping it would post the comment a second time."""
    if not isinstance(comment, dict):
        raise _odd(response, f"{which} as a JSON {_kind(comment)}, not an object")
    comment_id, text = comment.get("id"), comment.get("body")
    if not _is_id(comment_id):
        raise _odd(response, f"{which} without an id (a positive integer)")
    if not isinstance(text, str):
        raise _odd(response, f"{which} without a body (text)")
    return comment_id, text


def _written(response: httpx.Response) -> tuple[int, str]:
    """The id and URL of the comment a create or an update answered with."""
    data = _json(response)
    if not isinstance(data, dict):
        raise _odd(response, f"a JSON {_kind(data)}, not the comment (an object)")
    comment_id, url = data.get("id"), data.get("html_url")
    if not _is_id(comment_id) or not isinstance(url, str):
        raise _odd(response, "a comment without its id (a positive integer) or its html_url (text)")
    return comment_id, url


def _is_id(value: Any) -> TypeGuard[int]:
    return type(value) is int and value > 0  # not a bool, which is an int to Python


async def _request(client: httpx.AsyncClient, method: str, path: str, **options: Any) -> httpx.Response:
    """The whole answer to one request, within `TIMEOUT_SECS` of sending it, or a
    `CommentError`. The deadline cancels the request wherever it waits (connecting,
    sending, between two bytes of a dripped answer), and its connection is closed."""
    seconds = TIMEOUT_SECS
    try:
        if sys.version_info >= (3, 11):
            # Not `wait_for`, which before 3.12 may drop a Ctrl-C that comes just as the
            # request ends (python/cpython#86296): the command would go on to the next.
            async with asyncio.timeout(seconds):
                return await client.request(method, path, **options)
        return await asyncio.wait_for(client.request(method, path, **options), seconds)
    except asyncio.TimeoutError:  # TimeoutError from 3.11, a class of its own before
        raise CommentError(f"GitHub did not answer within {seconds:g} s: {method} {path}") from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
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
    """The answer's JSON; `loads_untrusted` makes every way it can fail (not UTF-8, not
    JSON, nested too deep for the parser) a `ValueError`."""
    try:
        return loads_untrusted(response.content)
    except ValueError as exc:
        raise _odd(response, f"no JSON ({exc})") from None


def _odd(response: httpx.Response, what: str) -> CommentError:
    """A success answer of a shape GitHub's API never gives."""
    request = response.request
    return CommentError(
        f"{request.method} {request.url.path} answered {what}: is the API URL GitHub's REST API?"
    )


def _kind(value: Any) -> str:
    """The JSON type of a parsed value, as JSON names it."""
    kinds = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return kinds.get(type(value), "number")


def _message(response: httpx.Response) -> str:
    try:
        data = loads_untrusted(response.content)
    except ValueError:
        return response.text[:200]
    message = data.get("message") if isinstance(data, dict) else None
    return str(message)[:200] if message else response.reason_phrase
