"""The one way the CLI tells its user something on stderr: an error, a warning, a note
of what it wrote."""

from __future__ import annotations

import click


def say(text: str) -> None:
    """Print a message for the user on stderr (an error, a warning, what was written).

    Every such line goes through the one rule (`safety.shown_lines`): a message may
    quote a path, a name or a report's text that the user, a fixture or a file gave, so
    its control, bidi and invisible characters are shown, never obeyed, and no line of
    it can start a workflow command in a CI log (its own line breaks stay)."""
    from zeroclaw_eval.reporters.safety import shown_lines

    click.echo(shown_lines(text), err=True)
