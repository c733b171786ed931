"""The `judge` check: a rubric a judge model answers yes or no about the final response,
graded deterministically from a recorded verdict.

A model's verdict is a fact of the run like a scripted step: it is asked once (in live
mode, or with `--rejudge`), recorded with the SHA-256 of the judged text and of the
rubric and the judge model's name, and from then on a replay grades that answer under
that rubric by the recorded verdict, offline, the same every time. The check fails
closed: an answer or a rubric with no recorded verdict (the agent now answers
otherwise, or the rubric was edited) fails and says how to judge it again, never passes
on a guess. So vacuity needs nothing of its own (an empty answer has no verdict), and a
mutated answer in `zeroclaw eval mutate` has none either: the mutant is killed.

Asking: the judge gets a fixed instruction, the rubric and the text, and must answer
with a JSON object `{"verdict": "yes" | "no", "reason": "..."}` (a reply that only
begins with yes or no is taken too); anything else is a `JudgeError` naming the reply.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from zeroclaw_eval.boundary.provider import Provider
from zeroclaw_eval.errors import JudgeError
from zeroclaw_eval.fixtures.json.text import loads_untrusted, quote
from zeroclaw_eval.fixtures.model import JudgeCheck, JudgeVerdict
from zeroclaw_eval.grading.result import RESPONSE, GradeResult, make_grade

INSTRUCTION = (
    "You are a strict evaluator. Read the rubric, then the text. Answer the rubric's question"
    ' about the text with one JSON object and nothing else: {"verdict": "yes" or "no",'
    ' "reason": "one sentence"}.'
)
_LEADING_WORD = re.compile(r"\s*[\"'*`]*(yes|no)\b", re.IGNORECASE)


def digest(text: str) -> str:
    """The SHA-256 of `text` as UTF-8, in hex: what a verdict names."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def recorded(check: JudgeCheck, text: str) -> JudgeVerdict | None:
    """The verdict recorded for `text` under the check's rubric (the last one, when a
    rubric was judged again)."""
    text_digest, rubric_digest = digest(text), digest(check.rubric)
    found = [v for v in check.verdicts if v.text_sha256 == text_digest and v.rubric_sha256 == rubric_digest]
    return found[-1] if found else None


def judge_checks(checks: list[JudgeCheck], response: str) -> Iterator[GradeResult]:
    """One verdict per judge check, from the verdicts recorded for `response`."""
    for index, check in enumerate(checks):
        pointer = f"/expects/judge/{index}"
        verdict = recorded(check, response)
        if verdict is None:
            detail = (
                f"no verdict is recorded for this final response under this rubric ({quote(response)}):"
                " the answer or the rubric changed since it was judged; judge it with `zeroclaw eval run"
                " --rejudge` (which writes the verdict into the fixture, for review) or record a live run"
            )
            yield make_grade(f"judge[{index}]", RESPONSE, pointer, False, detail, check.pass_if, None)
            continue
        passed = verdict.verdict == check.pass_if
        said = f"the judge ({verdict.model}) answered {verdict.verdict}"
        reason = f": {quote(verdict.reason)}" if verdict.reason else ""
        detail = f"{said}, and the check passes on {check.pass_if}{reason}"
        yield make_grade(f"judge[{index}]", RESPONSE, pointer, passed, detail, check.pass_if, verdict.verdict)


async def ask(provider: Provider, model: str, check: JudgeCheck, text: str) -> JudgeVerdict:
    """Ask the judge model behind `provider` (named `model`) the check's rubric about
    `text`; the verdict, recorded with both digests."""
    messages = [
        {"role": "system", "content": INSTRUCTION},
        {"role": "user", "content": f"Rubric:\n{check.rubric}\n\nText:\n{text}"},
    ]
    reply = await provider.complete(messages, [])
    content = (reply.content or "").strip()
    verdict, reason = _read(content)
    said = {"text_sha256": digest(text), "rubric_sha256": digest(check.rubric), "model": model}
    return JudgeVerdict.model_validate({**said, "verdict": verdict, "reason": reason})


def _read(content: str) -> tuple[str, str]:
    """The verdict and reason of a judge's reply; `JudgeError` when it holds none."""
    start, end = content.find("{"), content.rfind("}")
    if 0 <= start < end:
        try:
            data = loads_untrusted(content[start : end + 1])
        except ValueError:
            data = None
        if isinstance(data, dict):
            verdict = str(data.get("verdict", "")).strip().lower()
            if verdict in ("yes", "no"):
                reason = data.get("reason")
                return verdict, reason if isinstance(reason, str) else ""
    leading = _LEADING_WORD.match(content)
    if leading:
        return leading.group(1).lower(), content[leading.end() :].strip(" .:-*\n")
    raise JudgeError(
        f'the judge\'s reply is no verdict (want {{"verdict": "yes" or "no"}}): {quote(content)}'
    )
