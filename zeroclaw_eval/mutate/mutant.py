"""What a mutant is: a named change to a recorded run, and the checks that could see it."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zeroclaw_eval._support.json.text import arguments_text, compact_json, cut
from zeroclaw_eval.boundary.record import RecordedCall, RunRecord
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.mutate.edits import nudge_bytes
from zeroclaw_eval.tools.workspace import make_folders

#: Every operator, in the order a report lists them.
OPERATORS = (
    "drop_call",
    "duplicate_call",
    "swap_calls",
    "rename_tool",
    "alter_argument",
    "drop_argument",
    "alter_result",
    "fail_call",
    "alter_response",
    "alter_turn_order",
    "write_elsewhere",
    "skip_write",
    "alter_file",
    "inflate_budget",
)

#: Characters of a value a before/after description shows.
SHOWN = 80


def shown(text: str) -> str:
    """`text` as a JSON string literal, cut for a one-line description."""
    head, note = cut(text, SHOWN)
    return compact_json(head) + ("…" if note else "")


def argument_text(call: RecordedCall) -> str:
    """A call's arguments as text: raw text as it came, an object as compact JSON (the
    spelling a needle is searched in)."""
    return arguments_text(call.arguments)


def describe_call(call: RecordedCall) -> str:
    """A call as a description shows it: `tool(arguments)`, cut."""
    head, note = cut(argument_text(call), SHOWN)
    return f"{call.name}({head}{'…' if note else ''})"


@dataclass(frozen=True)
class FileEdit:
    """A change to the workspace the run left: one file left unwritten, written
    elsewhere, or altered."""

    kind: str  # "skip", "elsewhere" or "alter"
    path: str
    #: The file as the case's setup seeded it (None: the setup has no such file).
    seeded: str | None
    #: Where a file written elsewhere lands instead.
    elsewhere: str = ""

    def apply(self, root: Path) -> None:
        """Make the change in a copy of the workspace at `root`."""
        target = root / self.path
        if self.kind == "alter":
            target.write_bytes(nudge_bytes(target.read_bytes()))
            return
        if self.kind == "elsewhere":
            moved = root / self.elsewhere
            moved.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(target, moved)
        _unwrite(target, self.seeded)


def _unwrite(target: Path, seeded: str | None) -> None:
    """Put a file back as the setup left it: its seeded text, or no file at all."""
    if seeded is not None:
        make_folders(target.parent)  # the run may have removed its folder
        target.write_text(seeded, encoding="utf-8")
    elif target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif os.path.lexists(target):
        target.unlink()


@dataclass(frozen=True)
class Mutant:
    """One changed run: what changed (operator, position, before -> after) and how.

    Exactly one of `record` (graded in memory, with `files` applied to a copy of the
    workspace when set) and `trace` (a changed script, replayed: the change alters what
    the agent sees) is set.
    """

    operator: str
    position: str
    before: str
    after: str
    record: RunRecord | None = None
    files: FileEdit | None = None
    trace: LlmTrace | None = None
    #: Checks (partial `expects` objects) that might kill the mutant, best first; the
    #: suggestion is the first one proven to pass the real run and fail the mutant.
    candidates: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    @property
    def name(self) -> str:
        """The mutant's name: operator and position, e.g. `drop_call[turn 1, call 0]`."""
        return f"{self.operator}[{self.position}]"
