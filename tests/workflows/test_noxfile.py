"""The noxfile: its sessions, which run by default, and the live session's skip."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("nox", reason="nox is in the test extra: pip install -e '.[test]'")


def nox(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "nox", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def listed() -> dict[str, tuple[bool, str]]:
    """`nox -l` as {session: (runs by default, docstring's first line)}."""
    result = nox("-l")
    assert result.returncode == 0, result.stderr
    sessions = {}
    for line in result.stdout.splitlines():
        if line[:2] in ("* ", "- ") and " -> " in line:
            name, doc = line[2:].split(" -> ", 1)
            sessions[name] = (line[0] == "*", doc)
    return sessions


def test_default_sessions_are_the_gate() -> None:
    defaults = sorted(name for name, (default, _) in listed().items() if default)
    pythons = [f"tests-3.{minor}" for minor in (10, 11, 12, 13)]
    assert defaults == sorted([*pythons, "lint", "docs", "eval_regression", "eval_vacuity", "eval_mutation"])


def test_opt_in_sessions_are_listed_but_not_default() -> None:
    sessions = listed()
    assert sessions["eval_capability"][0] is False
    assert sessions["eval_live"][0] is False
    assert sessions["frameworks"][0] is False
    assert sessions["docs_screenshot"][0] is False


def test_every_session_has_a_docstring() -> None:
    assert all(doc.strip() for _, doc in listed().values())


def test_eval_live_skips_with_how_to_configure_a_provider(tmp_path: Path) -> None:
    shutil.copy(ROOT / "noxfile.py", tmp_path)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    result = nox("-s", "eval_live", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "live_provider = " in result.stderr
    assert "[providers.models.NAME]" in result.stderr
    assert "api_key_env" in result.stderr
    assert "Session eval_live skipped: no live provider configured" in result.stderr


def test_eval_live_detects_a_configured_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a provider table whose key variable is set, the session runs instead of skipping."""
    shutil.copy(ROOT / "noxfile.py", tmp_path)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    (tmp_path / "zeroclaw.toml").write_text(
        '[eval]\nlive_provider = "acme"\n\n[providers.models.acme]\nbase_url = "http://127.0.0.1:9/v1"\n'
        'model = "m"\napi_key_env = "ACME_TEST_KEY"\n',
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("copied_noxfile", tmp_path / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.delenv("ACME_TEST_KEY", raising=False)
    assert module._live_provider() is None  # the key variable is not set: skip
    monkeypatch.setenv("ACME_TEST_KEY", "placeholder")
    assert module._live_provider() == "acme"


class _RecordingSession:
    """Enough of a nox session to run `eval_capability` without installing anything: each
    `zeroclaw eval run` it is asked for writes a report passing `passed` of 4 cases."""

    def __init__(self) -> None:
        self.posargs: list[str] = []
        self.commands: list[list[str]] = []
        self.passed = 1

    def install(self, *args: str) -> None:
        pass

    def log(self, *args: object) -> None:
        pass

    def run(self, *args: str, success_codes: list[int]) -> None:
        self.commands.append(list(args))
        output = Path(args[args.index("--output") + 1])
        counts = {"passed": self.passed, "failed": 4 - self.passed, "error": 0, "rejected": 0, "total": 4}
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps({"tool_version": "0.0.0", "counts": counts}), encoding="utf-8")


# Loading the noxfile again registers its sessions again, which nox warns about.
@pytest.mark.filterwarnings("ignore:The session .* has already been registered:FutureWarning")
def test_eval_capability_compares_each_run_with_the_last_and_charts_the_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("capability_noxfile", ROOT / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    session = _RecordingSession()
    module.eval_capability.func(session)  # the first run: nothing to compare with yet
    first_report = (tmp_path / "reports" / "eval-capability.json").read_bytes()
    session.passed = 3
    module.eval_capability.func(session)
    first, second = session.commands
    assert "--baseline" not in first
    assert "--history" not in first
    assert "html=reports/eval-capability.html" in first
    baseline = second[second.index("--baseline") + 1]
    assert (tmp_path / baseline).read_bytes() == first_report
    assert second[second.index("--history") + 1] == "reports/eval-capability-history.jsonl"
    lines = (tmp_path / "reports" / "eval-capability-history.jsonl").read_text(encoding="utf-8").splitlines()
    assert [(json.loads(line)["passed"], json.loads(line)["total"]) for line in lines] == [(1, 4), (3, 4)]
