"""Where in a fixture something is: positions, field references, rejection problems."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Position:
    """A 1-based line and column (columns count code points) with the end of the span."""

    line: int
    col: int
    end_line: int
    end_col: int


@dataclass(frozen=True)
class FieldRef:
    """The fixture field a grade, a rejection or a run error is about.

    `line`/`col` are filled when a report points at the field (a failing check, a
    rejection, a run error); passing checks carry only the pointer, which keeps the
    slow position scan off the path of a green suite.
    """

    pointer: str
    line: int | None = None
    col: int | None = None
    end_line: int | None = None
    end_col: int | None = None

    def where(self, path: str) -> str:
        """`path:line:col` of this field (just `path` while its position is unknown)."""
        return path if self.line is None else f"{path}:{self.line}:{self.col}"

    def located(self, position: Position) -> FieldRef:
        """This field with its position filled in."""
        return FieldRef(self.pointer, position.line, position.col, position.end_line, position.end_col)


@dataclass(frozen=True)
class FixtureProblem:
    """One reason a fixture was rejected at admission, at a located field."""

    field: FieldRef
    message: str
