"""Values in the OTLP/JSON encoding (`AnyValue`, `KeyValue`): what the trace file writer
(`importing.otlp_file`) and the `otlp` report format (`reporters.otlp`) both write."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any


def any_value(value: Any) -> dict[str, Any]:
    """A Python attribute value as an OTLP `AnyValue`."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, (bytes, bytearray)):
        return {"bytesValue": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": key_values(value)}}
    if isinstance(value, Iterable):
        return {"arrayValue": {"values": [any_value(item) for item in value]}}
    return {"stringValue": str(value)}


def key_values(attributes: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Attributes as a list of OTLP `KeyValue`s."""
    return [{"key": str(key), "value": any_value(value)} for key, value in (attributes or {}).items()]
