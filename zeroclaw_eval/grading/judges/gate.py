"""Whether a `judge` check decides a case's outcome: `[eval].judge_gate`.

A judge model's verdict is evidence only as good as the judge, and nothing in a run
says how often that judge agrees with a person on that rubric. So by default
(`calibrated`) a judge check gates only where a calibration file (written by `zeroclaw
eval calibrate finalize` after a person labelled the judge's verdicts blind) names the
judge model that answered and the SHA-256 of the check's rubric, and its agreement
reaches `[eval].judge_min_agreement`. Any other judge check is *diagnostic*: it is
graded and reported as usual, marked as diagnostic with the reason, but its failure
fails neither the case nor the run. `always` lets every judge check gate (the choice of
a team that trusts its judge without labels); `never` makes every one diagnostic.

A check with no recorded verdict for the answer (the agent now says something else)
has no model that answered: it gates when any calibration of its rubric meets the
floor, since that judge would have to be asked again to pass it.

A calibration file that cannot be read, or is not one `finalize` writes (a digest that
is not its rubric's, a schema of a later version), is a configuration error that stops
the run: read as absent, it would quietly turn a gating check into a diagnostic one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.errors import ConfigError
from zeroclaw_eval.grading.judges.calibration import MIN_AGREEMENT, MIN_LABELS, SCHEMA_VERSION
from zeroclaw_eval.grading.judges.check import digest, recorded
from zeroclaw_eval.grading.result import GradeResult

CALIBRATED, ALWAYS, NEVER = "calibrated", "always", "never"
GATES = (CALIBRATED, ALWAYS, NEVER)
#: The largest calibration file read: `finalize` writes a few hundred bytes and the rubric.
MAX_CALIBRATION_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Calibration:
    """What a calibration file says of one judge model under one rubric."""

    path: Path
    model: str
    rubric_sha256: str
    labels: int
    agreement: float


@dataclass(frozen=True)
class JudgeGate:
    """Which judge checks gate (see the module): the mode, the floor, and the
    calibrations read, keyed by judge model and rubric digest."""

    mode: str = CALIBRATED
    min_agreement: float = MIN_AGREEMENT
    calibrations: Mapping[tuple[str, str], Calibration] = field(default_factory=lambda: MappingProxyType({}))
    #: Where calibrations are looked for, as messages name it.
    folder: str = "evals/calibration"

    def __post_init__(self) -> None:
        if self.mode not in GATES:
            raise ValueError(f"judge_gate must be one of {', '.join(GATES)}, not {self.mode!r}")

    def diagnostic_reason(self, model: str | None, rubric_sha256: str) -> str | None:
        """None when a judge check answered by `model` (None: no verdict) under the
        rubric gates; else why it does not."""
        if self.mode == ALWAYS:
            return None
        if self.mode == NEVER:
            return "[eval].judge_gate is never"
        if model is None:
            found = [c for (_, rubric), c in self.calibrations.items() if rubric == rubric_sha256]
            if any(c.agreement >= self.min_agreement for c in found):
                return None
            return f"no judge is calibrated on this rubric in {self.folder} ({_how()})"
        calibration = self.calibrations.get((model, rubric_sha256))
        if calibration is None:
            return f"the judge {model} has no calibration on this rubric in {self.folder} ({_how()})"
        if calibration.agreement < self.min_agreement:
            return (
                f"the judge {model} agrees with a person on {calibration.agreement:.0%} of"
                f" {calibration.labels} labels ({calibration.path}), below [eval].judge_min_agreement"
                f" {self.min_agreement:g}"
            )
        return None

    def apply(self, grades: Iterable[GradeResult], expects: Expects, response: str) -> list[GradeResult]:
        """`grades`, each judge check that does not gate marked diagnostic, its detail
        saying why."""
        found = list(grades)
        if self.mode == ALWAYS or not expects.judge:
            return found
        marked = []
        for grade in found:
            index = _judge_index(grade.check_id)
            if index is not None and index < len(expects.judge) and not grade.diagnostic:
                check = expects.judge[index]
                verdict = recorded(check, response)
                reason = self.diagnostic_reason(verdict.model if verdict else None, digest(check.rubric))
                if reason is not None:
                    grade = replace(grade, diagnostic=True, detail=f"{grade.detail} [diagnostic: {reason}]")
            marked.append(grade)
        return marked


def _how() -> str:
    return "calibrate it with `zeroclaw eval calibrate`, or set [eval].judge_gate"


def _judge_index(check_id: str) -> int | None:
    if check_id.startswith("judge[") and check_id.endswith("]") and check_id[6:-1].isdigit():
        return int(check_id[6:-1])
    return None


def load_gate(
    mode: str, folder: Path, min_agreement: float = MIN_AGREEMENT, shown: str | None = None
) -> JudgeGate:
    """The gate of `mode`, with every calibration file of `folder` read (only for
    `calibrated`; a folder that does not exist holds none). `ConfigError` naming the file
    for one that is not a calibration `finalize` writes."""
    name = shown or str(folder)
    if mode != CALIBRATED or not folder.is_dir():
        return JudgeGate(mode, min_agreement, folder=name)
    found: dict[tuple[str, str], Calibration] = {}
    for path in sorted(folder.glob("*.json")):
        calibration = read_calibration(path)
        key = (calibration.model, calibration.rubric_sha256)
        if key in found:
            raise ConfigError(
                f"{path}: calibrates {calibration.model} on the rubric {calibration.rubric_sha256[:12]},"
                f" as {found[key].path} does: keep one of them"
            )
        found[key] = calibration
    return JudgeGate(mode, min_agreement, MappingProxyType(found), name)


def read_calibration(path: Path) -> Calibration:
    """The calibration file at `path`; `ConfigError` saying what is wrong with it."""
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_CALIBRATION_BYTES + 1)
        if len(raw) > MAX_CALIBRATION_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_CALIBRATION_BYTES} bytes: not a calibration file")
        data: Any = json.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the calibration file {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError):
        raise ConfigError(f"{path}: not JSON, so not a calibration file `finalize` writes") from None
    problem = _problem(data)
    if problem is not None:
        raise ConfigError(
            f"{path}: {problem}; write it again with `zeroclaw eval calibrate finalize` (or move it out of"
            " the calibration folder)"
        )
    return Calibration(path, data["model"], data["rubric_sha256"], data["labels"], float(data["agreement"]))


def _problem(data: Any) -> str | None:
    """What keeps `data` from being a calibration file of this version, or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        return f"schema_version {version!r}, where this version of zeroclaw-eval reads {SCHEMA_VERSION}"
    for key in ("model", "rubric", "rubric_sha256"):
        if not isinstance(data.get(key), str) or not data[key]:
            return f"`{key}` is missing or not a string"
    if digest(data["rubric"]) != data["rubric_sha256"]:
        return "`rubric_sha256` is not the SHA-256 of its `rubric`"
    labels = data.get("labels")
    if not isinstance(labels, int) or isinstance(labels, bool) or labels < MIN_LABELS:
        return f"`labels` must be a count of {MIN_LABELS} or more, not {labels!r}"
    agreement = data.get("agreement")
    if not isinstance(agreement, (int, float)) or isinstance(agreement, bool) or not 0 <= agreement <= 1:
        return f"`agreement` must be a share from 0 to 1, not {agreement!r}"
    return None
