"""The fixture JSON Schema (`zeroclaw_eval/cases/schema.py`): its committed copies stay
what the models make, it says what admission says, and a fixture may name it in `$schema`."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import PASSING, admit_case, only_problem_at, reject, run_replay
from zeroclaw_eval.cases.schema import PACKAGED_SCHEMA, REGENERATE, fixture_schema, schema_text

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY_SCHEMA = ROOT / "schema" / "llmtrace.schema.json"
SCHEMA_REF = "../../schema/llmtrace.schema.json"


@pytest.mark.parametrize("copy", [REPOSITORY_SCHEMA, PACKAGED_SCHEMA], ids=["repository", "package"])
def test_the_committed_copy_is_what_the_models_make(copy: Path) -> None:
    # Compared as text: the file is what editors and the wheel get, byte for byte.
    assert copy.is_file(), f"{copy} is missing; write it with: {REGENERATE} {copy.relative_to(ROOT)}"
    assert copy.read_text(encoding="utf-8") == schema_text(), (
        f"{copy.relative_to(ROOT)} is out of date with zeroclaw_eval/cases/model.py; regenerate both"
        f" copies with: {REGENERATE} {REPOSITORY_SCHEMA.relative_to(ROOT)}"
        f" --output {PACKAGED_SCHEMA.relative_to(ROOT)}"
    )


def test_the_wheel_ships_the_schema(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    subprocess.run([*command, "-w", str(tmp_path), str(ROOT)], check=True, timeout=300)
    (wheel,) = tmp_path.glob("zeroclaw_eval-*.whl")
    shipped = zipfile.ZipFile(wheel).read("zeroclaw_eval/cases/llmtrace.schema.json")
    assert shipped.decode("utf-8") == schema_text()


def _subschemas(node: Any, path: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object inside `node`, with where it is."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _subschemas(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _subschemas(value, f"{path}/{index}")


def test_the_schema_is_draft_2020_12_with_every_object_closed_and_every_key_described() -> None:
    schema = fixture_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    objects = [(where, node) for where, node in _subschemas(schema) if "properties" in node]
    assert len(objects) == 1 + len(schema["$defs"])  # the fixture and each of its objects
    for where, node in objects:
        assert node["additionalProperties"] is False, where
        for key, member in node["properties"].items():
            assert member.get("description"), f"{where}/properties/{key} has no description"


def test_the_schema_never_offers_null_since_admission_rejects_it() -> None:
    text = schema_text()
    assert '"null"' not in text
    assert '"default": null' not in text


def test_the_schema_says_what_admission_requires() -> None:
    schema = fixture_schema()
    assert schema["required"] == ["model_name", "turns", "expects"]
    assert schema["properties"]["turns"]["minItems"] == 1
    assert schema["properties"]["$schema"]["type"] == "string"
    # Entries that admission rejects when empty are non-empty strings to an editor too.
    assert schema["$defs"]["Expects"]["properties"]["tools_used"]["items"] == {
        "minLength": 1,
        "type": "string",
    }
    assert schema["$defs"]["ToolCallSpec"]["properties"]["arguments"]["type"] == ["object", "string"]


def test_a_fixture_may_name_its_schema_and_admission_ignores_it(tmp_path: Path) -> None:
    case = admit_case(tmp_path, {"$schema": SCHEMA_REF, **PASSING})
    without = admit_case(tmp_path, PASSING, name="plain.json")
    assert case.trace.schema_ref == SCHEMA_REF
    assert case.trace.model_copy(update={"schema_ref": None}) == without.trace
    assert run_replay(case).status == "passed"


def test_schema_is_a_top_level_key_only(tmp_path: Path) -> None:
    fixture = {**PASSING, "expects": {**PASSING["expects"], "$schema": SCHEMA_REF}}
    problem = only_problem_at(reject(tmp_path, fixture), "/expects/$schema")
    assert problem.message.startswith("unknown expectation key")


@pytest.mark.parametrize(
    ("value", "message"),
    [(3, "expected a string, found a number"), (None, "null is not allowed here")],
    ids=["number", "null"],
)
def test_a_schema_that_is_not_a_string_is_rejected(tmp_path: Path, value: Any, message: str) -> None:
    problem = only_problem_at(reject(tmp_path, {"$schema": value, **PASSING}), "/$schema")
    assert problem.message.startswith(message)


def test_unknown_keys_are_told_the_key_as_fixtures_spell_it(tmp_path: Path) -> None:
    typo = only_problem_at(reject(tmp_path, {"$shema": SCHEMA_REF, **PASSING}), "/$shema")
    assert typo.message == "unknown key; did you mean $schema?"
    other = only_problem_at(reject(tmp_path, {"zzz": 1, **PASSING}), "/zzz")
    assert "$schema" in other.message
    assert "schema_ref" not in other.message


def test_the_repository_fixtures_name_no_key_the_schema_lacks() -> None:
    # Without a validator among the dependencies, the keys of every fixture in evals/ are
    # walked against the schema's properties: what admission admits, the schema admits.
    schema = fixture_schema()
    defs = schema["$defs"]

    def walk(data: Any, node: dict[str, Any], where: str) -> None:
        if "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        if isinstance(data, dict) and "properties" in node:
            for key, value in data.items():
                assert key in node["properties"], f"{where}: {key} is not in the schema"
                walk(value, node["properties"][key], f"{where}/{key}")
        elif isinstance(data, dict) and isinstance(node.get("additionalProperties"), dict):
            for key, value in data.items():
                walk(value, node["additionalProperties"], f"{where}/{key}")
        elif isinstance(data, list) and "items" in node:
            for index, value in enumerate(data):
                walk(value, node["items"], f"{where}/{index}")

    fixtures = sorted((ROOT / "evals").glob("*/*.json"))
    assert fixtures
    for path in fixtures:
        walk(json.loads(path.read_text(encoding="utf-8")), schema, path.relative_to(ROOT).as_posix())
