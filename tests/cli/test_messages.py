"""The one output channel (`cli.say`, `safety.shown_lines`): every line a command prints
for its user, and `list`'s JSON, shows what a terminal would obey and forges no workflow
command, whatever text a configuration, a fixture or a saved report put in it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.builders import FAILING, PASSING, write_fixture
from tests.support.ci_log import executed_commands
from tests.support.invoke import invoke, run_cli

FORGED = "evals\n::error file=x.py::forged\n##[error]also\n\u00a0::add-mask::secret"


@pytest.mark.parametrize(
    "command",
    [["eval", "run"], ["eval", "check"], ["eval", "list"], ["eval", "vacuity"], ["eval", "mutate"]],
    ids=lambda c: c[-1],
)
def test_a_configured_path_with_line_breaks_forges_nothing_in_an_error(
    tmp_path: Path, command: list[str]
) -> None:
    (tmp_path / "zeroclaw.toml").write_text(f"[eval]\nsuite_dir = {json.dumps(FORGED)}\n", encoding="utf-8")
    result = invoke(*command, cwd=tmp_path)
    assert result.code == 2, result.stderr
    assert result.stderr.startswith("Error: ")
    assert executed_commands(result.stdout + result.stderr) == []
    assert "##[" not in result.stderr


def test_a_shards_version_with_line_breaks_forges_nothing(tmp_path: Path) -> None:
    write_fixture(tmp_path / "evals" / "regression", "a.json", PASSING)
    write_fixture(tmp_path / "evals" / "regression", "b.json", FAILING)
    for index in (1, 2):
        invoke("eval", "run", "--shard", f"{index}/2", "--report", f"json=s{index}.json", cwd=tmp_path)
    data = json.loads((tmp_path / "s2.json").read_text(encoding="utf-8"))
    data["tool_version"] = "0.0.1\n::error::forged"
    (tmp_path / "s2.json").write_text(json.dumps(data), encoding="utf-8")
    result = invoke("eval", "merge", "s1.json", "s2.json", cwd=tmp_path)
    assert result.code == 2
    assert "was written by zeroclaw-eval 0.0.1" in result.stderr
    assert executed_commands(result.stderr) == []


def test_list_json_keeps_every_string_and_shows_what_a_terminal_would_obey(tmp_path: Path) -> None:
    name = "a ##[error]b \x9b2J \u202eevil\u200b"
    write_fixture(tmp_path / "evals" / "regression", "a.json", {**PASSING, "model_name": name})
    result = invoke("eval", "list", "--format", "json", cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)[0]["model_name"] == name
    assert "##[" not in result.stdout
    assert result.stdout.replace("\n", "").isprintable()


def test_a_table_written_to_a_device_under_actions_is_fenced(tmp_path: Path) -> None:
    write_fixture(
        tmp_path / "evals" / "regression", "a.json", {**FAILING, "model_name": "x\n::error::forged"}
    )
    env = {"GITHUB_ACTIONS": "true"}
    result = run_cli(
        "eval", "run", "--report", "table=/dev/stderr", "--no-annotations", cwd=tmp_path, env=env
    )
    assert result.code == 1, result.stderr
    assert "::stop-commands::" in result.stderr
    assert [c.name for c in executed_commands(result.stderr)] == ["stop-commands"]
