"""Installing and releasing: the README's install commands are ones that work today (the
package is not on PyPI yet), and the distributions the release workflow builds carry the
metadata PyPI and `twine check` ask for."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest

import zeroclaw_eval

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
VERSION = zeroclaw_eval.__version__


def code_lines(text: str) -> list[str]:
    """The lines inside the README's fenced code blocks."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            inside = not inside
        elif inside:
            lines.append(line)
    return lines


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, built through the PEP 517 hooks `python -m build` calls."""
    out = tmp_path_factory.mktemp("dist")
    build = "from hatchling.build import build_sdist, build_wheel; build_sdist(OUT); build_wheel(OUT)"
    subprocess.run(
        [sys.executable, "-c", build.replace("OUT", repr(str(out)))], cwd=ROOT, check=True, timeout=300
    )
    return out


def metadata(dist: Path) -> tuple[Message, Message]:
    """The core metadata of the wheel (METADATA) and of the sdist (PKG-INFO)."""
    wheel = zipfile.ZipFile(dist / f"zeroclaw_eval-{VERSION}-py3-none-any.whl")
    with tarfile.open(dist / f"zeroclaw_eval-{VERSION}.tar.gz") as sdist:
        pkg_info = sdist.extractfile(f"zeroclaw_eval-{VERSION}/PKG-INFO")
        assert pkg_info is not None
        sdist_text = pkg_info.read().decode("utf-8")
    wheel_text = wheel.read(f"zeroclaw_eval-{VERSION}.dist-info/METADATA").decode("utf-8")
    return Parser().parsestr(wheel_text), Parser().parsestr(sdist_text)


def test_no_readme_command_installs_zeroclaw_eval_from_an_index() -> None:
    # Not published yet: `pip install zeroclaw-eval` fails on a fresh machine.
    from_index = re.compile(r"pip install\s+(-\S+\s+)*[\"']?zeroclaw-eval\b")
    assert not [line for line in code_lines(README) if from_index.search(line)]
    assert "pip install zeroclaw-eval` once" in README.replace("\n", " ")


def test_the_readme_names_the_three_ways_that_work() -> None:
    commands = "\n".join(code_lines(README))
    assert ".venv/bin/pip install -e ." in commands  # from a clone
    assert 'pip install "git+https://github.com/OWNER/REPO' in commands
    assert ".venv/bin/python -m pip install build && .venv/bin/python -m build" in commands
    assert "pip install dist/zeroclaw_eval-*.whl" in commands
    assert "OWNER/REPO" in README.split("## Set up and run", 1)[1].split("\n## ", 1)[0]


def test_both_distributions_carry_the_metadata_pypi_and_twine_check_ask_for(dist: Path) -> None:
    readme = README.replace("\r\n", "\n")
    for meta in metadata(dist):
        assert meta["Name"] == "zeroclaw-eval"
        assert meta["Version"] == VERSION
        assert tuple(map(int, meta["Metadata-Version"].split("."))) >= (2, 1)  # Markdown descriptions
        assert meta["Description-Content-Type"] == "text/markdown"
        description = meta.get_payload()
        assert isinstance(description, str)
        assert description.strip() == readme.strip()  # the long description PyPI renders
        assert meta["Summary"]
        assert meta["Requires-Python"] == ">=3.10"
        assert meta["License-Expression"] == "MIT"


def test_the_wheel_registers_the_pytest_plugin(dist: Path) -> None:
    wheel = zipfile.ZipFile(dist / f"zeroclaw_eval-{VERSION}-py3-none-any.whl")
    entry_points = wheel.read(f"zeroclaw_eval-{VERSION}.dist-info/entry_points.txt").decode("utf-8")
    assert "[pytest11]\nzeroclaw_eval = zeroclaw_eval.pytest_plugin\n" in entry_points
    assert "zeroclaw_eval/pytest_plugin.py" in wheel.namelist()


def test_the_release_workflow_checks_the_wheel_name_the_build_makes(dist: Path) -> None:
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert "dist/zeroclaw_eval-${version}-py3-none-any.whl" in workflow
    assert (dist / f"zeroclaw_eval-{VERSION}-py3-none-any.whl").is_file()


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs a git checkout (not an unpacked sdist)")
def test_pip_installs_the_package_from_a_git_url(tmp_path: Path) -> None:
    """The README's `pip install "git+https://github.com/OWNER/REPO"`, with this clone's
    committed history as the repository (pip clones it as it would GitHub's)."""
    if shutil.which("git") is None:
        pytest.fail("git is not on PATH; install git (pip needs it for git+ URLs)")
    result = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index"),
            *("--no-build-isolation", "--disable-pip-version-check", f"git+{ROOT.as_uri()}"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Would install zeroclaw-eval-" in result.stdout
