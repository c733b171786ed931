"""How each wire's reply counts tokens (`wire.base.Usage`): every wire alike, all input
(cache reads included) and all output (reasoning included), and of them the cached
input and the reasoning, None where a reply does not say (missing is not zero). The
bodies are the APIs' own shapes, as their documentation shows them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zeroclaw_eval.backends.live import CLIENT_WIRES


def _reply(kind: str, usage: dict[str, Any] | None) -> dict[str, Any]:
    if kind == "openai":
        body: dict[str, Any] = {"choices": [{"message": {"role": "assistant", "content": "hi"}}]}
        key = "usage"
    elif kind == "anthropic":
        body = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}
        key = "usage"
    elif kind == "gemini":
        body = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}}]}
        key = "usageMetadata"
    else:
        body = {"output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}}}
        key = "usage"
    if usage is not None:
        body[key] = usage
    return body


@pytest.mark.parametrize(
    ("kind", "usage", "counted"),
    [
        # OpenAI: cached tokens are part of prompt_tokens, reasoning part of completion_tokens.
        (
            "openai",
            {
                "prompt_tokens": 1200,
                "completion_tokens": 300,
                "prompt_tokens_details": {"cached_tokens": 1024},
                "completion_tokens_details": {"reasoning_tokens": 256},
            },
            (1200, 300, 1024, 256),
        ),
        # Anthropic: cache reads and writes are counted beside input_tokens.
        (
            "anthropic",
            {
                "input_tokens": 20,
                "output_tokens": 50,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 300,
            },
            (1320, 50, 1000, None),
        ),
        # Gemini: the cached part is inside promptTokenCount; thoughts beside the candidates'.
        (
            "gemini",
            {
                "promptTokenCount": 900,
                "candidatesTokenCount": 40,
                "cachedContentTokenCount": 600,
                "thoughtsTokenCount": 200,
            },
            (900, 240, 600, 200),
        ),
        # Bedrock's Converse: cache reads and writes beside inputTokens.
        (
            "bedrock",
            {"inputTokens": 30, "outputTokens": 12, "cacheReadInputTokens": 500, "cacheWriteInputTokens": 70},
            (600, 12, 500, None),
        ),
    ],
)
def test_every_wire_counts_cached_input_and_reasoning_alike(
    kind: str, usage: dict[str, Any], counted: tuple[int, int, int | None, int | None]
) -> None:
    reply = CLIENT_WIRES[kind].read_reply(_reply(kind, usage))
    assert (
        reply.input_tokens,
        reply.output_tokens,
        reply.cached_input_tokens,
        reply.reasoning_tokens,
    ) == counted


@pytest.mark.parametrize("kind", sorted(CLIENT_WIRES))
def test_a_reply_that_says_nothing_of_the_cache_or_reasoning_leaves_them_unknown(kind: str) -> None:
    plain = {
        "openai": {"prompt_tokens": 7, "completion_tokens": 3},
        "anthropic": {"input_tokens": 7, "output_tokens": 3},
        "gemini": {"promptTokenCount": 7, "candidatesTokenCount": 3},
        "bedrock": {"inputTokens": 7, "outputTokens": 3},
    }[kind]
    reply = CLIENT_WIRES[kind].read_reply(_reply(kind, plain))
    assert (reply.input_tokens, reply.output_tokens, reply.cached_input_tokens, reply.reasoning_tokens) == (
        7,
        3,
        None,
        None,
    )
    bare = CLIENT_WIRES[kind].read_reply(_reply(kind, None))
    assert (bare.input_tokens, bare.output_tokens, bare.cached_input_tokens) == (0, 0, None)
    assert reply.usage_known
    assert not bare.usage_known  # no usage said: 0 tokens that are no measure of a cost


def test_a_made_up_cached_count_is_refused_like_any_token_count() -> None:
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": -5}}
    with pytest.raises(ValueError, match="cached_tokens is no token count"):
        CLIENT_WIRES["openai"].read_reply(_reply("openai", usage))


#: The usage of a reply that read most of its prompt from the cache and reasoned.
CACHED_USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 300,
    "prompt_tokens_details": {"cached_tokens": 1024},
    "completion_tokens_details": {"reasoning_tokens": 256},
}


def test_a_live_runs_record_keeps_the_cached_and_reasoning_tokens_in_the_json_report(tmp_path: Path) -> None:
    import json

    from tests.support.builders import write_fixture
    from tests.support.chat_model import chat_model
    from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
    from zeroclaw_eval.report.codec import report_from_dict, report_to_dict
    from zeroclaw_eval.runner import RunOptions, run_suite

    expects = {"response_contains": ["hi"]}
    write_fixture(
        tmp_path / "suite",
        "hi.json",
        {"model_name": "hi", "turns": [{"user_input": "Say hi"}], "expects": expects},
    )
    with chat_model(lambda _: ("hi", CACHED_USAGE)) as url:
        settings = ProviderSettings(base_url=url, model="m")
        report = run_suite(tmp_path / "suite", RunOptions(mode="live", live=LiveOptions(settings, "sk-test")))
    (case,) = report.cases
    assert case.record is not None
    (step,) = case.record.steps
    assert (step.input_tokens, step.output_tokens, step.cached_input_tokens, step.reasoning_tokens) == (
        1200,
        300,
        1024,
        256,
    )
    report.details = "all"  # a passing case is written whole, its record with it
    data = report_to_dict(report)
    written = data["cases"][0]["record"]["steps"][0]
    assert (written["cached_input_tokens"], written["reasoning_tokens"]) == (1024, 256)
    again = report_from_dict(json.loads(json.dumps(data)))
    assert again.cases[0].record is not None
    assert again.cases[0].record.steps[0].cached_input_tokens == 1024
