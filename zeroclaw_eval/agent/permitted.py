"""What a request lets the model do, checked against the step the script answers it
with: a scripted model must not do what the real one could not. The step's tools must be
offered (`check_offered`), and the request's `tool_choice` and `parallel_tool_calls` must
allow its calls (`check_choice`)."""

from __future__ import annotations

from typing import Any

from zeroclaw_eval.boundary.provider import ModelResponse, ToolChoice, ToolSpec
from zeroclaw_eval.errors import Divergence


def check_offered(step: ModelResponse, required: frozenset[str], tools: list[Any], hint: str = "") -> None:
    """Raise `Divergence` unless `tools` (the request's specs) offer each tool of `required`
    that `step` calls. A call to a tool outside `required` (a model's hallucination the
    fixture scripts on purpose) needs no offer."""
    if not step.tool_calls:  # a text answer needs no tool offered (half the requests)
        return
    offered = {spec.name for spec in tools if isinstance(spec, ToolSpec)}
    for call in step.tool_calls:
        if call.name in required and call.name not in offered:
            listed = ", ".join(sorted(offered)) or "none"
            raise Divergence(
                f"the script calls {call.name}, but the request offers the model no tool named"
                f" {call.name} (it offers: {listed}){hint}"
            )


def check_choice(step: ModelResponse, choice: ToolChoice) -> None:
    """Raise `Divergence` unless a model the request lets do only what `choice` says could
    answer with `step`: a scripted model must not do what the real one could not (call a
    tool the request forbids, answer with text when it must call one)."""
    if choice.mode == "auto" and choice.allowed is None and (choice.parallel or len(step.tool_calls) < 2):
        return  # what most requests say: anything goes
    called = [call.name for call in step.tool_calls]
    # The choice is put in words (`_choice_words`) only for a divergence: this runs per request.
    if choice.mode == "none" and called:
        raise Divergence(
            f"the script calls {_named(called)}, but {_choice_words(choice)}: the model may call no tool"
        )
    if choice.mode in ("required", "function") and not called:
        must = "must call a tool" if choice.mode == "required" else f"must call {choice.function}"
        raise Divergence(f"the script answers with text, but {_choice_words(choice)}: the model {must}")
    if choice.mode == "function":
        others = [name for name in called if name != choice.function]
        if others:
            raise Divergence(
                f"the script calls {_named(others)}, but {_choice_words(choice)}: the model may call"
                " no other tool"
            )
    if choice.allowed is not None:
        barred = [name for name in called if name not in choice.allowed]
        if barred:
            allowed = ", ".join(sorted(choice.allowed)) or "none"
            setting = choice.said or "tool_choice allowed_tools"
            raise Divergence(
                f"the script calls {_named(barred)}, but the request allows the model only {allowed}"
                f" ({setting})"
            )
    if not choice.parallel and len(called) > 1:
        raise Divergence(
            f"the script calls {len(called)} tools in one step ({_named(called)}), but the request's"
            " parallel_tool_calls is false: the model may call one at a time"
        )


def _choice_words(choice: ToolChoice) -> str:
    """How a request's `tool_choice` is named in a divergence: as the request wrote it,
    where its wire calls it something else."""
    if choice.said:
        return f"the request's {choice.said}"
    if choice.mode == "function":
        return f"the request's tool_choice forces {choice.function}"
    return f'the request\'s tool_choice is "{choice.mode}"'


def _named(names: list[str]) -> str:
    return ", ".join(names)
