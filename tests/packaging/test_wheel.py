"""The built wheel carries the HTML templates: build it, install it into a fresh virtual
environment, and render a page with the installed console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import zeroclaw_eval

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        timeout=300,
    )
    (built,) = out.glob("zeroclaw_eval-*.whl")
    return built


def test_wheel_holds_the_templates_the_type_marker_the_license_and_both_scripts(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    assert "zeroclaw_eval/reporters/html/templates/report.html.j2" in names
    assert "zeroclaw_eval/reporters/html/templates/report.js" in names
    assert "zeroclaw_eval/py.typed" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    scripts = archive.read(entry_points).decode("utf-8")
    assert "zeroclaw = zeroclaw_eval.cli:entry" in scripts
    assert "zeroclaw-eval = zeroclaw_eval.cli:entry" in scripts
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    assert f"Version: {zeroclaw_eval.__version__}" in archive.read(metadata).decode("utf-8")


def test_installed_wheel_renders_a_page(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, timeout=300
    )
    # The dependencies come from the test environment; the package itself only from the
    # wheel (a .pth-based editable install is not read from PYTHONPATH entries).
    site = next(p for p in sys.path if p.endswith("site-packages"))
    environment = {**os.environ, "PYTHONPATH": site}
    report = {
        "format_version": 2,
        "tool_version": "0.1.0",
        "suite": "evals/regression",
        "root": str(tmp_path),
        "mode": "replay",
        "duration_ms": 1.0,
        "exit_code": 1,
        "counts": {"passed": 0, "failed": 0, "error": 0, "rejected": 0, "total": 0},
        "category_totals": {},
        "cases": [],
    }
    (tmp_path / "report.json").write_text(json.dumps(report), encoding="utf-8")
    where = subprocess.run(
        [str(python), "-c", "import zeroclaw_eval; print(zeroclaw_eval.__file__)"],
        cwd=tmp_path,  # not the checkout, which `-c` would put first on sys.path
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(env_dir) in where  # imported from the wheel, not from the checkout
    result = subprocess.run(
        [str(bin_dir / "zeroclaw"), "eval", "render", "report.json", "--format", "html", "-o", "page.html"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "No fixtures found in evals/regression" in page
