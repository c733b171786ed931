"""The verdicts of judge models, as a fixture records them beside its judge checks: the
one rule by which a new verdict joins the recorded ones (`--record`, `--rejudge`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zeroclaw_eval.cases.model import JudgeVerdict


def with_verdict(verdicts: list[JudgeVerdict], verdict: JudgeVerdict) -> list[JudgeVerdict]:
    """`verdicts` with `verdict` last, in place of one that judged the same text under the
    same rubric by the same model."""
    same = (verdict.text_sha256, verdict.rubric_sha256, verdict.model)
    return [v for v in verdicts if (v.text_sha256, v.rubric_sha256, v.model) != same] + [verdict]


def add_verdicts(fixture: dict[str, Any], verdicts: Mapping[int, list[JudgeVerdict]]) -> None:
    """Write `verdicts` (by check index: one per question it asked) into the fixture
    data's judge checks. A verdict is written as given, its unset fields left out (a
    yes-or-no verdict has no score)."""
    checks = fixture.get("expects", {}).get("judge", [])
    for index, said in verdicts.items():
        check = checks[index]
        kept = [JudgeVerdict.model_validate(v) for v in check.get("verdicts", [])]
        for verdict in said:
            kept = with_verdict(kept, verdict)
        check["verdicts"] = [v.model_dump(exclude_none=True) for v in kept]
