"""The fixture JSON Schema, generated from the models in `model.py`, for editors.

An editor that knows the schema completes keys, shows each key's description and
flags an unknown key or a wrong type while the fixture is written; admission stays the
judge (it also checks what a schema cannot say: bounds that contradict, RE2 patterns,
workspace paths, known tools). The schema is written the way admission reads a fixture:
every object closed (`additionalProperties: false`), and no `null` anywhere a fixture
field stands, since admission rejects an explicit `null`.

A copy ships in the package (`llmtrace.schema.json` beside this module) and another in
the repository (`schema/llmtrace.schema.json`); a test keeps both equal to
`schema_text()`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from zeroclaw_eval.cases.model import LlmTrace

#: The copy of the schema that ships in the package.
PACKAGED_SCHEMA = Path(__file__).with_name("llmtrace.schema.json")
#: The command that writes the schema, named wherever a copy is out of date.
REGENERATE = "zeroclaw eval schema --output"


class _FixtureSchema(GenerateJsonSchema):
    """pydantic's generator, told what admission adds to the models."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        # `X | None` only means "may be left out"; the key is optional already.
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        if schema.get("default", ...) is None:
            # A `null` default is how a field says "undeclared", not a value to offer.
            return self.generate_inner(schema["schema"])
        return super().default_schema(schema)

    def field_title_should_be_set(self, schema: Any) -> bool:
        # Titles made from attribute names ("Schema Ref") say less than the descriptions.
        return False


def fixture_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a fixture file."""
    body = LlmTrace.model_json_schema(by_alias=True, schema_generator=_FixtureSchema)
    body["title"] = "zeroclaw-eval fixture (LlmTrace)"
    return {"$schema": _FixtureSchema.schema_dialect, **body}


def schema_text() -> str:
    """The schema as the committed copies hold it: indented JSON, one trailing newline."""
    return json.dumps(fixture_schema(), ensure_ascii=False, indent=2) + "\n"
