"""`zeroclaw eval schema` (`zeroclaw_eval.cli.commands.schema`): the schema on stdout or in files, and
a fixture that names it in `$schema` runs like any other."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.builders import PASSING, write_fixture
from tests.support.invoke import Runner
from zeroclaw_eval.cases.schema import fixture_schema, schema_text


def test_the_schema_goes_to_stdout(cli: Runner) -> None:
    result = cli("eval", "schema")
    assert result.code == 0
    assert result.stdout == schema_text()
    assert json.loads(result.stdout) == fixture_schema()
    assert result.stderr == ""


def test_output_writes_each_file_and_makes_folders(cli: Runner, tmp_path: Path) -> None:
    result = cli("eval", "schema", "-o", ".vscode/llmtrace.schema.json", "--output", "b.json", cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "Wrote the fixture schema to .vscode/llmtrace.schema.json",
        "Wrote the fixture schema to b.json",
    ]
    for name in (".vscode/llmtrace.schema.json", "b.json"):
        assert (tmp_path / name).read_bytes() == schema_text().encode("utf-8")


def test_a_file_that_cannot_be_written_exits_two(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file, not a folder", encoding="utf-8")
    result = cli("eval", "schema", "-o", "taken/schema.json", cwd=tmp_path)
    assert result.code == 2
    assert result.stderr.startswith("Error: ")
    assert "taken" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_fixture_naming_the_schema_is_checked_and_run_like_any_other(cli: Runner, tmp_path: Path) -> None:
    assert cli("eval", "schema", "-o", "schema/llmtrace.schema.json", cwd=tmp_path).code == 0
    fixture = {"$schema": "../../schema/llmtrace.schema.json", **PASSING}
    write_fixture(tmp_path / "evals" / "regression", "named.json", fixture)
    assert cli("eval", "check", cwd=tmp_path).stdout == "PASSED: 1 fixture admitted\n"
    run = cli("eval", "run", "--format", "json", cwd=tmp_path)
    assert run.code == 0, run.stdout + run.stderr
    assert run.json()["counts"]["passed"] == 1


def test_help_teaches_with_examples(cli: Runner) -> None:
    result = cli("eval", "schema", "--help")
    assert result.code == 0
    assert "zeroclaw eval schema -o .vscode/llmtrace.schema.json" in result.stdout
    assert '"$schema"' in result.stdout
