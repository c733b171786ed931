"""Every example in the README and on the documentation site is executed or admitted,
so that what a reader copies works as written:

- a Python program is type-checked with `mypy --strict` and run;
- the files a page shows (its blocks captioned with a path) form a project, whose Python
  is type-checked and in which the page's transcripts run;
- a transcript (a `console` block: `$ zeroclaw …` and what it prints) is run with the
  installed command and compared with what it prints now, as pytest's regendoc does
  (`python -m pytest tests/docs --update-golden` writes the new output into the page;
  read the diff);
- a fixture is admitted, and replayed to a pass when it is a whole case; a configuration
  is read by the strict configuration reader; JSON, TOML and YAML parse.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.docs.pages import ROOT, Block, Page, pages
from tests.support.invoke import run_cli
from zeroclaw_eval import Case, load_config, load_fixture, run_suite
from zeroclaw_eval._support.json.text import loads_strict
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

PAGES = pages()
#: Where a transcript says the project is: the scratch folder's path is shown as this.
PROJECT = "/home/zeroclaw_user/project"
#: What changes from run to run: durations.
_VARIES = [(re.compile(r"\b\d+\.\d+s\b"), "0.00s"), (re.compile(r"\b\d+ ms\b"), "0 ms")]


def _ids(items: list[Page]) -> list[str]:
    return [str(page.path.relative_to(ROOT)) for page in items]


def scratch_project(page: Page, folder: Path) -> Path:
    """A folder holding the page's files, or, for a page without files, a copy of this
    repository's `evals/` (what a reader's checkout holds)."""
    if page.files:
        for block in page.files:
            assert block.file is not None
            target = folder.joinpath(*block.file.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
    else:
        shutil.copytree(ROOT / "evals", folder / "evals")
    return folder


def test_the_pages_are_read() -> None:
    assert len(PAGES) >= 20
    languages = {block.language for page in PAGES for block in page.blocks}
    assert {"python", "console", "json", "toml"} <= languages
    assert any(page.files for page in PAGES), "no page builds a project: the caption rule reads nothing"


# --- Python programs -------------------------------------------------------------------

PROGRAMS = [block for page in PAGES for block in page.of("python")]


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Block, Path]]:
    folder = tmp_path_factory.mktemp("programs")
    written = []
    for number, block in enumerate(PROGRAMS, 1):
        path = folder / f"example_{number}.py"
        path.write_text(block.text, encoding="utf-8")
        written.append((block, path))
    return written


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for every mypy run here: the SDKs' and pydantic's types are read once."""
    return tmp_path_factory.mktemp("mypy-cache")


def _mypy_strict(paths: list[Path], cwd: Path, cache: Path) -> None:
    # An empty config: only --strict applies, not the project's own mypy settings.
    config = cwd / ".mypy-docs.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--config-file",
        str(config),
        "--cache-dir",
        str(cache),
    ]
    result = subprocess.run(
        [*command, *map(str, paths)],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_python_program_type_checks_strictly(
    programs: list[tuple[Block, Path]], mypy_cache: Path
) -> None:
    assert len(programs) >= 4
    _mypy_strict([path for _, path in programs], programs[0][1].parent, mypy_cache)


def test_every_python_program_runs(programs: list[tuple[Block, Path]], tmp_path: Path) -> None:
    # In a folder that holds the repository's evals/ as a reader's checkout does, so that
    # what an example writes (reports/) lands outside the checkout.
    (tmp_path / "evals").symlink_to(ROOT / "evals", target_is_directory=True)
    for block, path in programs:
        completed = subprocess.run(
            [sys.executable, str(path)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert completed.returncode == 0, f"{block.where}:\n{completed.stdout}{completed.stderr}"


# --- Projects and transcripts ----------------------------------------------------------

WITH_FILES = [page for page in PAGES if page.files]
WITH_TRANSCRIPTS = [page for page in PAGES if page.of("console")]


@pytest.mark.parametrize("page", WITH_FILES, ids=_ids(WITH_FILES))
def test_a_page_projects_python_type_checks_strictly(page: Page, tmp_path: Path, mypy_cache: Path) -> None:
    project = scratch_project(page, tmp_path)
    modules = [project / str(b.file) for b in page.files if b.language == "python"]
    if modules:
        _mypy_strict(modules, project, mypy_cache)
    if any(b.language == "json" for b in page.files):
        # A page's fixtures are graded by its transcripts (one may be rejected on purpose).
        assert page.of("console"), f"{page.path.relative_to(ROOT)}: its fixtures run in no transcript"


def transcript(block: Block, cwd: Path) -> str:
    """The block's commands run in `cwd`, each followed by what it prints (stdout, then
    stderr), as the block should read."""
    out = []
    for line in block.text.splitlines():
        if not line.startswith("$ "):
            continue
        words = shlex.split(line[2:])
        assert words, f"{block.where}: a $ line without a command"
        assert words[0] in ("zeroclaw", "zeroclaw-eval"), f"{block.where}: only zeroclaw runs here"
        # As in a reader's activated environment: `python` is this one (an agent command).
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        result = run_cli(*words[1:], cwd=cwd, script=words[0], env={"PATH": path})
        printed = (result.stdout + result.stderr).replace(str(cwd), PROJECT)
        out.append(line + "\n" + "".join(f"{text.rstrip()}\n" for text in printed.rstrip("\n").splitlines()))
    return "".join(out)


def _normal(text: str) -> str:
    for pattern, stand_in in _VARIES:
        text = pattern.sub(stand_in, text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


@pytest.mark.parametrize("page", WITH_TRANSCRIPTS, ids=_ids(WITH_TRANSCRIPTS))
def test_a_pages_transcripts_are_what_the_commands_print(
    page: Page, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    project = scratch_project(page, tmp_path)
    changed: list[tuple[Block, str]] = []
    for block in page.of("console"):
        assert block.text.startswith("$ "), f"{block.where}: a transcript starts with a command"
        now = transcript(block, project)
        if _normal(now) != _normal(block.text):
            changed.append((block, now))
    if changed and request.config.getoption("--update-golden"):
        text = page.text
        for block, now in sorted(changed, key=lambda item: -item[0].span[0]):
            text = text[: block.span[0]] + now + text[block.span[1] :]
        page.path.write_text(text, encoding="utf-8")
        return
    for block, now in changed:
        assert _normal(block.text) == _normal(now), (
            f"{block.where}: the transcript is not what the command prints now; run"
            " `python -m pytest tests/docs --update-golden` and read the diff"
        )


# --- Fixtures, configurations, data ----------------------------------------------------

JSON_BLOCKS = [block for page in PAGES for block in page.blocks if block.language == "json"]


def _is_fixture(value: object) -> bool:
    return isinstance(value, dict) and "turns" in value


@pytest.mark.parametrize("block", JSON_BLOCKS, ids=[b.where for b in JSON_BLOCKS])
def test_every_fixture_example_is_admitted_and_a_whole_case_passes(block: Block, tmp_path: Path) -> None:
    value = loads_strict(block.text)  # every JSON example is strict JSON
    if not _is_fixture(value) or block.file is not None:
        return  # a page's own fixture: its transcripts show its verdict
    path = tmp_path / "example.json"
    path.write_text(block.text, encoding="utf-8")
    case = load_fixture(path)
    assert isinstance(case, Case), f"{block.where}: {case.problems}"
    # A whole case with the built-in tools alone replays here (a project's tools need
    # their project: a page builds that from its captioned files).
    whole = all(t.get("steps") for t in value["turns"]) and set(value.get("tools", ())) <= set(BUILTIN_TOOLS)
    if whole:
        report = run_suite(path)
        assert report.exit_code() == 0, f"{block.where}: {[c.failures() for c in report.cases]}"


TOML_BLOCKS = [block for page in PAGES for block in page.of("toml")]


@pytest.mark.parametrize("block", TOML_BLOCKS, ids=[b.where for b in TOML_BLOCKS])
def test_every_configuration_example_is_read_strictly(block: Block, tmp_path: Path) -> None:
    document = tomllib.loads(block.text)
    ours = "tool" in document and "zeroclaw" in document["tool"]
    if not (ours or {"eval", "providers"} & set(document)):
        return  # another tool's table (an entry point, pytest's options)
    path = tmp_path / ("pyproject.toml" if "tool" in document else "zeroclaw.toml")
    path.write_text(block.text, encoding="utf-8")
    load_config(path)  # raises ConfigError, naming the setting, on anything unknown


YAML_BLOCKS = [block for page in PAGES for block in page.blocks if block.language == "yaml"]


@pytest.mark.parametrize("block", YAML_BLOCKS, ids=[b.where for b in YAML_BLOCKS])
def test_every_yaml_example_parses(block: Block) -> None:
    assert yaml.safe_load(block.text) is not None
