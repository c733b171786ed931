"""`zeroclaw eval calibrate collect|label|finalize`: a judge measured against a person, as
a workflow of an afternoon (`grading.judges.calibration`).

Exit codes: 0 done; 1 `finalize` refused a judge (too few labels, too little agreement);
2 usage error (a file that cannot be read or written, a malformed record or label).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import click

from zeroclaw_eval.cli.options import (
    CONTEXT,
    config_option,
    exit_on_error,
    paths_argument,
    resolve_targets,
    suite_option,
)
from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import ExitCode, UsageError

_FILE = click.Path(path_type=Path, dir_okay=False)


@click.group("calibrate", context_settings=CONTEXT)
def calibrate_group() -> None:
    """Measure a judge model against a person: collect its recorded verdicts, label the
    same answers yourself without seeing them, and finalize the agreement.

    \b
    Examples:
      zeroclaw eval calibrate collect --suite evals/live -o calibration/records.jsonl
      zeroclaw eval calibrate label calibration/records.jsonl --labeler zeroclaw_user
      zeroclaw eval calibrate finalize calibration/records.jsonl --out-dir evals/calibration
    """


@calibrate_group.command("collect", context_settings=CONTEXT)
@paths_argument
@suite_option()
@click.option("--output", "-o", type=_FILE, required=True, help="Write the records here (JSON lines).")
@config_option
def collect_command(paths: tuple[Path, ...], suite: Path | None, output: Path, config: Path | None) -> None:
    """Gather each recorded judge verdict whose judged answer a fixture's script holds,
    with the conversation's user inputs, the answer and the rubric, into JSON lines."""
    from zeroclaw_eval.cases.case import Case
    from zeroclaw_eval.collect.suite import fixture_files, load_fixtures
    from zeroclaw_eval.config.load import load_config
    from zeroclaw_eval.grading.judges.calibration import record_line, records_of

    with exit_on_error():
        loaded = load_config(config)
        files = fixture_files(resolve_targets(paths, suite, loaded))
        cases = [
            c
            for c in load_fixtures(files, max_bytes=loaded.settings.max_fixture_bytes)
            if isinstance(c, Case)
        ]
        records = list(records_of(cases))
        recorded = sum(len(check.verdicts) for case in cases for check in case.trace.expects.judge)
        _write(output, "".join(record_line(record) for record in records))
    left = recorded - len(records)
    said = f"; {left} left out (the answer they judged is in no script)" if left else ""
    say(f"Wrote {len(records)} record(s) of {len(cases)} fixture(s) to {output}{said}")


@calibrate_group.command("label", context_settings=CONTEXT)
@click.argument("records", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--labels", type=_FILE, help="The labels file (JSON lines). [default: RECORDS.labels.jsonl]")
@click.option("--labeler", help="Who labels (kept with each label). [default: $USER]")
def label_command(records: Path, labels: Path | None, labeler: str | None) -> None:
    """Show each record not labelled yet (the conversation, the answer, the rubric, never
    the judge's verdict) and take your yes or no; s skips, q stops. Each label is saved as
    it is given, so labelling stops and resumes where it left off."""
    from zeroclaw_eval.cases.questions import SCORE_TAIL

    with exit_on_error():
        items = _records(records)
        target = labels or records.with_name(records.name.removesuffix(".jsonl") + ".labels.jsonl")
        done = {label["id"] for label in _lines(target)} if target.exists() else set()
        who = labeler or os.environ.get("USER") or "unknown"
    todo = [item for item in items if item["id"] not in done]
    say(f"{len(todo)} of {len(items)} record(s) to label; answers saved to {target}")
    for number, item in enumerate(todo, 1):
        click.echo(f"\n--- {number} of {len(todo)}: {item['fixture']} (judge check {item['check']})")
        for turn, said in enumerate(item["user_inputs"], 1):
            click.echo(f"user, turn {turn}: {said}")
        click.echo(f"answer: {item['answer']}")
        click.echo(f"rubric: {item['rubric'].removesuffix(SCORE_TAIL)}")
        choice = click.prompt(
            "Does the answer meet the rubric? [y]es, [n]o, [s]kip, [q]uit",
            type=click.Choice(["y", "n", "s", "q"]),
            show_choices=False,
            default="q",
            show_default=False,
        )
        if choice == "q":
            break
        if choice == "s":
            continue
        label = {"id": item["id"], "label": "yes" if choice == "y" else "no", "labeler": who}
        with target.open("a", encoding="utf-8") as out:
            out.write(json.dumps(label, ensure_ascii=False) + "\n")


@calibrate_group.command("finalize", context_settings=CONTEXT)
@click.argument("records", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--labels", type=_FILE, help="The labels file. [default: RECORDS.labels.jsonl]")
@click.option(
    "--out-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Write each calibration file here, where the gate reads them. [default: [eval].calibration_dir,"
    " evals/calibration]",
)
@click.option(
    "--min-agreement",
    type=click.FloatRange(0, 1),
    default=0.85,
    show_default=True,
    help="The least agreement a calibration is written for.",
)
@config_option
def finalize_command(
    records: Path, labels: Path | None, out_dir: Path | None, min_agreement: float, config: Path | None
) -> None:
    """Compute, per judge model and rubric, the judge's agreement with your labels,
    Cohen's kappa and its true-positive and true-negative rates, and write a calibration
    file for each that has 50 labels or more and reaches --min-agreement.

    Under [eval].judge_gate = "calibrated" (the default), a judge check decides a case
    only where such a file names its judge model and rubric and its agreement reaches
    [eval].judge_min_agreement; until then it is reported as diagnostic."""
    from zeroclaw_eval.config.load import load_config
    from zeroclaw_eval.grading.judges.calibration import (
        MIN_LABELS,
        SCHEMA_VERSION,
        agreement,
        calibration_path,
    )

    with exit_on_error():
        if out_dir is None:
            loaded = load_config(config)
            out_dir = loaded.resolve(loaded.settings.calibration_dir)
        items = {item["id"]: item for item in _records(records)}
        target = labels or records.with_name(records.name.removesuffix(".jsonl") + ".labels.jsonl")
        given = {label["id"]: label for label in _lines(target)}
    # Per judge model, rubric (a question's digest) and, for a scored check, threshold:
    # scores read at another threshold are another judge of pass and fail.
    groups: dict[tuple[str, str, Any], list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for key, label in given.items():
        item = items.get(key)
        if item is not None:
            groups.setdefault((item["model"], item["rubric_sha256"], item.get("threshold")), []).append(
                (item, label)
            )
    refused = not groups
    if not groups:
        say(f"no labels of these records in {target}: label them first (zeroclaw eval calibrate label)")
    for (model, rubric, threshold), pairs in sorted(groups.items(), key=lambda group: str(group[0])):
        named = f"{model} on rubric {rubric[:12]}" + (
            f" at threshold {threshold:g}" if threshold is not None else ""
        )
        if len(pairs) < MIN_LABELS:
            say(f"{named}: {len(pairs)} label(s), fewer than {MIN_LABELS}: label more before it is measured")
            refused = True
            continue
        measured = agreement([(item["verdict"], label["label"]) for item, label in pairs])
        words = (
            f"agreement {measured.agreement:.0%}, kappa {measured.kappa:.2f} over {measured.labels} labels"
        )
        if measured.agreement < min_agreement:
            say(f"{named}: {words}, below --min-agreement {min_agreement:g}: no calibration written")
            refused = True
            continue
        labelled = sorted(f"{item['id']}={label['label']}" for item, label in pairs)
        calibration = {
            "schema_version": SCHEMA_VERSION,
            "model": model,
            "rubric_sha256": rubric,
            "rubric": pairs[0][0]["rubric"],
            "threshold": threshold,
            "labelers": sorted({str(label.get("labeler", "")) for _, label in pairs}),
            "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
            "labels": measured.labels,
            "agreement": measured.agreement,
            "kappa": measured.kappa,
            "true_positive_rate": measured.true_positive_rate,
            "true_negative_rate": measured.true_negative_rate,
            "labels_sha256": hashlib.sha256("\n".join(labelled).encode()).hexdigest(),
        }
        path = calibration_path(out_dir, model, rubric)
        with exit_on_error():
            _write(path, json.dumps(calibration, indent=2, ensure_ascii=False) + "\n")
        say(f"{named}: {words}; wrote {path}")
    raise SystemExit(ExitCode.FAILED if refused else ExitCode.OK)


def _lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file; `UsageError` naming the line that is not one."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        if not isinstance(value, dict) or not isinstance(value.get("id"), str):
            raise UsageError(f"{path}:{number}: not a record or label of zeroclaw eval calibrate")
        found.append(value)
    return found


def _records(path: Path) -> list[dict[str, Any]]:
    """The records of `path`, each checked for what `label` and `finalize` read."""
    items = _lines(path)
    for number, item in enumerate(items, 1):
        fields = ("fixture", "rubric", "rubric_sha256", "model", "answer", "verdict")
        if not all(isinstance(item.get(key), str) for key in fields) or not isinstance(
            item.get("user_inputs"), list
        ):
            raise UsageError(f"{path}: record {number} is not one `collect` writes")
    return items


def _write(path: Path, text: str) -> None:
    from zeroclaw_eval._support.files import write_atomic

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text.encode("utf-8", "backslashreplace"))
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
