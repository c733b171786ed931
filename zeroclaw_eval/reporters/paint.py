"""Colour for the console texts: the run's table and the verdicts of `mutate`,
`vacuity`, `check` and `list`, in one palette. Text is painted only when the command
was told stdout gets colour (`--color/--no-color`, else `cli.outputs.use_color`), so a
file or a pipe never gets escape codes it did not ask for."""

from __future__ import annotations

#: The SGR code of each colour the texts use.
_ANSI = {"green": "32", "red": "31", "yellow": "33", "dim": "2", "bold": "1"}


def paint(text: str, colour: str, color: bool) -> str:
    """`text` in `colour` (green, red, yellow, dim, bold) when `color`, else as it is."""
    return f"\x1b[{_ANSI[colour]}m{text}\x1b[0m" if color else text


def verdict_line(text: str, passed: bool, color: bool) -> str:
    """A verdict line (`PASSED: ...`, `FAILED: ...`): green when it passed, else red."""
    return paint(text, "green" if passed else "red", color)


def passed_mark(passed: bool, color: bool) -> str:
    """The mark of a thing that passed (a green ✓) or did not (a red ✗)."""
    return paint("✓", "green", color) if passed else paint("✗", "red", color)
