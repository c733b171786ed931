"""A Langfuse trace export, read into an `ImportedTrace`."""

from __future__ import annotations

from typing import Any

from zeroclaw_eval.importing.trace import SourceTraces


def is_langfuse(document: Any) -> bool:
    return False


def langfuse_traces(document: Any, shown: str) -> SourceTraces:
    return SourceTraces()
