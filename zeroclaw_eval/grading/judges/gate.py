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

A case whose every check is diagnostic has nothing that can fail it: it would pass
whatever the agent did. So it fails, by one more check, `judge_gate`, that says why and
how to give the case a check that decides (as admission refuses a case with no check).

A calibration folder or file that cannot be read, or a file that is not one `finalize`
writes (a digest that is not its rubric's, a key twice, a schema of a later version),
is a configuration error that stops the run: read as absent, it would quietly turn a
gating check into a diagnostic one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from zeroclaw_eval._support.files import read_bounded
from zeroclaw_eval._support.json.text import loads_untrusted, quote
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.cases.questions import digest
from zeroclaw_eval.errors import ConfigError
from zeroclaw_eval.grading.judges.calibration import MIN_AGREEMENT, MIN_LABELS, SCHEMA_VERSION
from zeroclaw_eval.grading.judges.check import is_unit, judged_text, question_of, recorded
from zeroclaw_eval.grading.result import RESPONSE, GradeResult, make_grade

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
    #: For a scored check: the threshold its scores were read at against the labels
    #: (None: a yes-or-no judge). Another threshold is another judge of pass and fail.
    threshold: float | None = None


@dataclass(frozen=True)
class JudgeGate:
    """Which judge checks gate (see the module): the mode, the floor, and the
    calibrations read, keyed by judge model and rubric digest."""

    mode: str = CALIBRATED
    min_agreement: float = MIN_AGREEMENT
    calibrations: Mapping[tuple[str, str], Calibration] = field(default_factory=lambda: MappingProxyType({}))
    #: Where calibrations are looked for, as messages name it.
    folder: str = "evals/calibration"
    #: Whether that folder exists (a mistyped `calibration_dir` says so in every reason).
    found: bool = True

    def __post_init__(self) -> None:
        if self.mode not in GATES:
            raise ValueError(f"judge_gate must be one of {', '.join(GATES)}, not {self.mode!r}")

    def diagnostic_reason(
        self, model: str | None, rubric_sha256: str, threshold: float | None = None
    ) -> str | None:
        """None when a judge check answered by `model` (None: no verdict) under the
        rubric (the question's digest) gates, read at `threshold` (a scored check's);
        else why it does not."""
        if self.mode == ALWAYS:
            return None
        if self.mode == NEVER:
            return "[eval].judge_gate is never"
        if model is None:
            found = [c for (_, rubric), c in self.calibrations.items() if rubric == rubric_sha256]
            if any(c.agreement >= self.min_agreement and c.threshold == threshold for c in found):
                return None
            return f"no judge is calibrated on this rubric in {self._where()} ({_how()})"
        calibration = self.calibrations.get((model, rubric_sha256))
        if calibration is None:
            return f"the judge {quote(model)} has no calibration on this rubric in {self._where()} ({_how()})"
        if calibration.threshold != threshold:
            return (
                f"the judge {quote(model)} was calibrated at the threshold {calibration.threshold}"
                f" ({quote(calibration.path.name)}), and the check asks {threshold}: calibrate it again"
            )
        if calibration.agreement < self.min_agreement:
            return (
                f"the judge {quote(model)} agrees with a person on {calibration.agreement:.0%} of"
                f" {calibration.labels} labels ({quote(calibration.path.name)}), below"
                f" [eval].judge_min_agreement {self.min_agreement:g}"
            )
        return None

    def _where(self) -> str:
        shown = quote(self.folder)
        return shown if self.found else f"{shown}, which does not exist"

    def apply(self, grades: Iterable[GradeResult], expects: Expects, record: RunRecord) -> list[GradeResult]:
        """`grades`, each judge check that does not gate marked diagnostic, its detail
        saying why; and, when that leaves no check that decides the case, a failing
        `judge_gate` check that says so (see the module)."""
        found = list(grades)
        if self.mode == ALWAYS or not expects.judge:
            return found
        marked = []
        for grade in found:
            asked = question_of(grade.check_id, expects.judge) if not grade.diagnostic else None
            if asked is not None:
                check, question = asked
                verdict = recorded(check, judged_text(check, record), question)
                model = verdict.model if verdict else None
                reason = self.diagnostic_reason(model, question.sha256, check.threshold)
                if reason is not None:
                    grade = replace(grade, diagnostic=True, detail=f"{grade.detail} [diagnostic: {reason}]")
            marked.append(grade)
        if marked and all(grade.diagnostic for grade in marked):
            marked.append(_undecided(len(marked)))
        return marked


#: The check id of the failure of a case that no check decides.
UNDECIDED = "judge_gate"


def _undecided(count: int) -> GradeResult:
    detail = (
        f"no check decides this case: its {'one check is' if count == 1 else f'{count} checks are'} judge"
        " checks no calibration backs (see each), so it would pass whatever the agent did; calibrate the"
        " judge (zeroclaw eval calibrate), add a check that needs no judge (response_contains, a tool"
        ' check, ...), or set [eval].judge_gate = "always"'
    )
    return make_grade(UNDECIDED, RESPONSE, "/expects/judge", False, detail)


def _how() -> str:
    return "calibrate it with `zeroclaw eval calibrate`, or set [eval].judge_gate"


def load_gate(
    mode: str, folder: Path, min_agreement: float = MIN_AGREEMENT, shown: str | None = None
) -> JudgeGate:
    """The gate of `mode`, with every calibration file of `folder` read (only for
    `calibrated`; a folder that does not exist holds none). `ConfigError` naming the file
    for one that is not a calibration `finalize` writes."""
    name = shown or str(folder)
    if mode != CALIBRATED:
        return JudgeGate(mode, min_agreement, folder=name)
    try:
        with os.scandir(folder) as entries:  # not glob, which reads an unreadable folder as empty
            names = sorted(entry.name for entry in entries if entry.name.endswith(".json"))
    except FileNotFoundError:
        return JudgeGate(mode, min_agreement, folder=name, found=False)
    except NotADirectoryError:
        raise ConfigError(f"{folder}: [eval].calibration_dir names a file, not a folder") from None
    except OSError as exc:
        raise ConfigError(f"cannot read the calibration folder {folder}: {exc.strerror or exc}") from None
    found: dict[tuple[str, str], Calibration] = {}
    for path in (folder / entry for entry in names):
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
    limit = ("a calibration file", "write it again with `zeroclaw eval calibrate finalize`")
    raw = read_bounded(path, MAX_CALIBRATION_BYTES, limit=limit, regular_only=True)  # a pipe never blocks
    if isinstance(raw, str):
        raise ConfigError(f"calibration file {path}: {raw}")
    try:
        data: Any = loads_untrusted(raw.decode("utf-8"), unique_keys=True)
    except (UnicodeDecodeError, ValueError):
        raise ConfigError(
            f"{path}: not JSON (or a key twice), so not a calibration file `finalize` writes"
        ) from None
    problem = _problem(data)
    if problem is not None:
        raise ConfigError(
            f"{path}: {problem}; write it again with `zeroclaw eval calibrate finalize` (or move it out of"
            " the calibration folder)"
        )
    threshold = data.get("threshold")
    return Calibration(
        path, data["model"], data["rubric_sha256"], data["labels"], float(data["agreement"]), threshold
    )


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
    if not is_unit(agreement):
        return f"`agreement` must be a share from 0 to 1, not {agreement!r}"
    threshold = data.get("threshold")
    if threshold is not None and not is_unit(threshold):
        return f"`threshold` must be null or a score from 0 to 1, not {threshold!r}"
    return None
