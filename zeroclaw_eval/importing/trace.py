"""What every trace format is read into: the model calls and tool runs of one agent
run, in the shapes the rest of the harness already speaks.

A reader (OTLP with the GenAI conventions, OpenInference, Langfuse, LangSmith) turns its
spans, observations or runs into one `ImportedTrace`: each model call with the chat
messages the agent sent (OpenAI chat shape, `boundary.provider.Message`) and the reply
it got (`ModelResponse`), each tool run it recorded. `conversation` makes turns, steps
and the recorded run of it; nothing after the reader knows which format it came from.

Whatever keeps a trace from becoming a faithful fixture is an `UnfaithfulTrace`, which
names the trace, the span and the attribute, so a user can find it in their tracing UI.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, TypeVar

from zeroclaw_eval.boundary.provider import Message, ModelResponse
from zeroclaw_eval.cases.limits import MAX_COUNT
from zeroclaw_eval.errors import UnfaithfulTrace

#: The formats a trace is read from, as provenance names them.
FORMATS = ("otel-genai", "openinference", "langfuse", "langsmith", "mlflow")


_FRACTION = re.compile(r"\.(\d+)")


def iso_ns(value: Any) -> int | None:
    """An ISO 8601 time as ns since the epoch (UTC unless it names a zone); None for
    anything else. Read on every Python this runs on: `Z`, and any digits of a second."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    text = _FRACTION.sub(lambda digits: "." + (digits.group(1) + "000000")[:6], text, count=1)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def tokens(value: Any) -> int:
    """A token count a trace recorded, as a fixture may hold it: a non-negative integer
    (or its decimal digits) up to the largest count a fixture takes; 0 for anything else."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return 0
    return min(value, MAX_COUNT)


@dataclass
class ModelCall:
    """One request the agent made to the model, and the reply."""

    span_id: str
    #: Where it sits in the run: the span's start (ns since the epoch, or any number that
    #: orders the calls and tool runs of one trace).
    start: int
    #: What the agent sent, as chat messages (system and developer ones included).
    messages: list[Message]
    #: The model's reply (None: the trace recorded none; `conversation` refuses it).
    reply: ModelResponse | None
    #: The names of the tools the request offered (None: the trace does not say).
    offered: list[str] | None = None
    #: The span as the user's tracing UI names it, for messages (`chat gpt-4o`).
    label: str = ""
    #: The attribute (or event) the reply would have been read from, for a refusal.
    reply_attribute: str = ""
    #: The request failed (an error status): with no reply, it is no step.
    failed: bool = False
    #: The tools offered whose call is the run's structured answer, not a tool run
    #: (pydantic-ai's output tools, `final_result`).
    output_tools: frozenset[str] = frozenset()
    #: Attributes that look like message content in a shape no reader reads (so a call
    #: with no messages and no reply says that, not that content capture is off).
    unread: list[str] = field(default_factory=list)


#: What attribute names of message content look like, in any instrumentation's words.
_CONTENT = re.compile(
    r"(^|[._])(input|output|prompt|completion|messages?|request_data|response_data|span_?inputs|span_?outputs)([._]|$)",
    re.I,
)


def unread_content(attributes: dict[str, Any]) -> list[str]:
    """The attributes of a span that look like message content (for `ModelCall.unread`)."""
    return sorted(key for key in attributes if _CONTENT.search(key))


@dataclass
class ToolRun:
    """One tool execution the trace recorded as a span of its own."""

    span_id: str
    start: int
    name: str
    #: The call id it ran for ("" when the trace does not say).
    call_id: str = ""
    #: The arguments as recorded: JSON text, or an object (None: not recorded).
    arguments: Any = None
    #: What it returned, as text (None: not recorded).
    result: str | None = None
    #: What the trace proves of its outcome: False, the run failed (an error status,
    #: an error type, an exception, the source's error field); True, it ended with none
    #: of those; None, the source cannot say.
    success: bool | None = None


@dataclass
class ImportedTrace:
    """One agent run, as a trace recorded it."""

    format: str
    #: The file the trace was read from, as given on the command line.
    source: str
    trace_id: str
    calls: list[ModelCall] = field(default_factory=list)
    tools: list[ToolRun] = field(default_factory=list)
    #: The service that recorded it (OpenTelemetry's `service.name`), when known.
    service: str | None = None
    #: The agent's name (`gen_ai.agent.name`, a root run's name), when known.
    agent: str | None = None
    #: The model provider its calls went to (`gen_ai.provider.name`, `llm.provider`),
    #: when the trace says.
    provider: str | None = None
    #: When the run started, ns since the epoch (None: not recorded).
    started_ns: int | None = None
    #: Spans that never ended (an exporter flushed mid-run); `conversation` refuses a
    #: trace whose model calls or tool runs are among them.
    unfinished: list[str] = field(default_factory=list)
    #: The ids under which the source held two records that differ (`read_once`): the
    #: import refuses the trace, naming the first.
    conflicting: list[str] = field(default_factory=list)

    def conflict(self) -> UnfaithfulTrace | None:
        """The refusal of a trace that holds two records under one id, else None."""
        if not self.conflicting:
            return None
        return UnfaithfulTrace(
            self.trace_id,
            self.conflicting[0],
            None,
            "recorded twice with different content (exports of the run made at different"
            " times? an id reused?): which one the run did cannot be told; import a file"
            " that holds it once",
        )


_Record = TypeVar("_Record")


def read_once(
    records: Iterable[_Record],
    id_of: Callable[[_Record], str],
    content: Callable[[_Record], Any] = lambda record: record,
) -> tuple[list[_Record], list[str]]:
    """Each record of one trace (a span, a Langfuse observation, a LangSmith run) once,
    in the order first seen, and the ids of those seen again with other content.

    A record seen again under its id is the same record given twice (a file named twice,
    runs exported in two overlapping files, a run list that also nests its children, an
    exporter that sent a batch again): read twice, its model call would be two steps and
    its tool run two results. One seen again with other `content` is not that, and which
    of the two the run did the trace cannot say: the caller refuses the trace
    (`ImportedTrace.conflict`). A record with no id is kept: nothing says it was seen."""
    first: dict[str, _Record] = {}
    kept: list[_Record] = []
    conflicting: list[str] = []
    for record in records:
        record_id = id_of(record)
        if not record_id:
            kept.append(record)
            continue
        if record_id not in first:
            first[record_id] = record
            kept.append(record)
        elif not _same(content(first[record_id]), content(record)) and record_id not in conflicting:
            conflicting.append(record_id)
    return kept, conflicting


def _same(first: Any, second: Any) -> bool:
    """Whether two records hold the same content. `repr` too, for a `NaN` a record holds
    (JSON's reader takes it), which is not equal to itself; a value nested too deep to
    compare is taken for another one (refused, never read twice)."""
    try:
        return bool(first == second) or repr(first) == repr(second)
    except RecursionError:
        return False


@dataclass
class SourceTraces:
    """What one file held: the traces read, the ones refused while reading (each with
    what is known of it, for `--select`), and how many were passed over as not agent runs."""

    traces: list[ImportedTrace] = field(default_factory=list)
    refused: list[tuple[ImportedTrace, UnfaithfulTrace]] = field(default_factory=list)
    passed_over: int = 0

    def extend(self, other: SourceTraces) -> None:
        """Add what another file held."""
        self.traces.extend(other.traces)
        self.refused.extend(other.refused)
        self.passed_over += other.passed_over
