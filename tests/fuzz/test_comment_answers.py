"""Fuzzing `zeroclaw eval comment` against the loopback double of GitHub's REST API: the
listing, the created comment or the updated one answered with a success of any JSON
(lists of comments whose ids and bodies are any values, NaN, infinities and numbers of
hundreds of digits among them, lone surrogates and hostile text among the strings) or any
bytes. Each answer ends the command cleanly: posted (0), or an error that says what was
wrong (1); never a traceback, never the token in what it prints, never a workflow
command, and never a second comment when the listing could not be read."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, strategies as st

from tests.fuzz.budget import share
from tests.fuzz.hostile import hostile_text
from tests.support.ci_log import executed_commands
from tests.support.github_api import GitHubApi
from tests.support.invoke import invoke
from zeroclaw_eval.reporters.pull_request import marker

PR = 12
TOKEN = "bot-token"
TEXT = hostile_text(long=False, max_pieces=3)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**400), 10**400) | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
#: A comment as the API might list it: its fields of any value, some of them the marker.
COMMENTS = st.fixed_dictionaries(
    {},
    optional={
        "id": VALUES | st.integers(1, 10**6),
        "body": VALUES | st.just(marker("zeroclaw-eval") + "\nold"),
        "user": VALUES | st.just({"login": "github-actions[bot]"}),
        "html_url": VALUES,
    },
)


@st.composite
def answers(draw: st.DrawFn) -> tuple[str, bytes]:
    """A method, and the success it is answered with."""
    method = draw(st.sampled_from(["GET", "POST", "PATCH"]))
    value: Any = draw(st.lists(COMMENTS, max_size=3) | COMMENTS | VALUES)
    encoded = json.dumps(value, ensure_ascii=draw(st.booleans()))
    body = draw(st.just(encoded.encode("utf-8", "surrogatepass")) | st.binary(max_size=40))
    return method, body


@share(0.3)
@given(answer=answers(), ours=st.booleans())
def test_any_success_the_api_answers_ends_the_command_cleanly(answer: tuple[str, bytes], ours: bool) -> None:
    method, body = answer
    with tempfile.TemporaryDirectory() as name, GitHubApi() as api:
        if ours:  # found when listed, so the comment is updated (PATCH), else created (POST)
            api.double.add(PR, marker("zeroclaw-eval") + "\nold", "github-actions[bot]")
        api.double.odd[method] = body
        comment = Path(name) / "comment.md"
        comment.write_text(marker("zeroclaw-eval") + "\nthe verdict\n", encoding="utf-8")
        environment = {
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_REPOSITORY": "zeroclaw_user/agent",
            "GITHUB_API_URL": api.url,
        }
        result = invoke("eval", "comment", str(comment), "--pr", str(PR), env=environment)
        said = result.stdout + result.stderr
        assert result.code in (0, 1), said[-2000:]
        assert "Traceback" not in said
        assert TOKEN not in said
        assert not executed_commands(said), said[-2000:]
        if result.code == 1:
            assert result.stderr.lower().startswith("error: "), result.stderr[:500]
        methods = [request.method for request in api.double.requests]
        assert methods.count("POST") + methods.count("PATCH") <= 1, methods
        if method == "GET" and result.code == 1:  # a listing it cannot read: nothing written
            assert methods == ["GET"], methods
