"""What admission makes of a fixture: an admitted `Case`, or a `RejectedFixture`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from zeroclaw_eval.cases.location import FieldRef, FixtureProblem
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.cases.source_map import SourceMap


@dataclass
class Case:
    """An admitted fixture: its identity, its source, and the validated trace."""

    name: str
    path: Path
    trace: LlmTrace
    text: str
    _source_map: SourceMap | None = field(default=None, repr=False)

    @property
    def source_map(self) -> SourceMap:
        """Positions in the fixture text, built on first use."""
        if self._source_map is None:
            self._source_map = SourceMap(self.text)
        return self._source_map

    def locate(self, pointer: str, *, at_key: bool = False) -> FieldRef:
        """A `FieldRef` for `pointer` with its line and column filled in."""
        return FieldRef(pointer).located(self.source_map.position(pointer, at_key=at_key))


@dataclass
class RejectedFixture:
    """A fixture that failed admission; it counts as a failed case."""

    name: str
    path: Path
    problems: list[FixtureProblem]
    #: The fixture text as far as it could be decoded ("" when unreadable).
    text: str = ""
    #: The display name, when the fixture got far enough to have a readable one.
    model_name: str | None = None
