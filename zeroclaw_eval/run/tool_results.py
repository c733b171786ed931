"""Whether a tool result an agent fed back reports a failure.

An agent that runs its own tools (an agent command) says how a call went only in the
result text it sends the model, so the harness infers it, in the words the common
frameworks use. It is an inference, documented as one: a result reads as failed when

- its text begins with "error" or "an error occurred" or "encountered error" (any case):
  "Error: …", the OpenAI Agents SDK's "An error occurred while running the tool…";
- it begins "N validation error(s)" or ends "Fix the errors and try again." (pydantic-ai's
  retry prompts for a tool that raised or got invalid arguments);
- it is a JSON object with a non-null `error`, or a true `is_error` / `isError` (MCP).
"""

from __future__ import annotations

import re

from zeroclaw_eval.fixtures.json_text import loads_untrusted

_FAILED_OPENING = re.compile(
    r"(errors?\b|an error occurred|encountered error|\d+ validation errors?\b)", re.I
)
_FAILED_ENDING = "fix the errors and try again."


def inferred_success(content: str) -> bool:
    """Whether a tool result fed back reads as a success (see the module's rules)."""
    text = content.strip()
    if _FAILED_OPENING.match(text) or text.lower().endswith(_FAILED_ENDING):
        return False
    if text.startswith("{"):
        try:
            data = loads_untrusted(text)
        except ValueError:
            return True
        if isinstance(data, dict) and (
            data.get("error") is not None or data.get("is_error") is True or data.get("isError") is True
        ):
            return False
    return True
