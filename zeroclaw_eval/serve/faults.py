"""The fault language of `zeroclaw eval serve --fault`: which requests get which fault."""

from __future__ import annotations

import math
from dataclasses import dataclass

from zeroclaw_eval.errors import UsageError

FAULT_KINDS = ("429", "500", "delay", "malformed")
#: The largest argument each kind takes: a delay of an hour (in ms) and a Retry-After of
#: a day (in s) are past any test; more is a typo, and an infinite one would end the
#: server's thread in an OverflowError instead of a wait.
_MAX_ARGUMENT = {"delay": 3_600_000.0, "429": 86_400.0}


@dataclass(frozen=True)
class Fault:
    """A fault for some requests: `KIND[:ARG][@WHICH,...]`, where WHICH is a request
    number (counted from 1) or a fixture (file stem), and no `@` means every request.
    `429:S` sets Retry-After to S seconds; `delay:MS` waits."""

    kind: str
    arg: float = 0.0
    requests: frozenset[int] | None = None
    fixtures: frozenset[str] = frozenset()

    def applies_to(self, number: int, fixture: str | None = None) -> bool:
        """Whether request `number` (1-based), for `fixture` (a file stem), gets this fault."""
        if self.requests is None and not self.fixtures:
            return True
        return (self.requests is not None and number in self.requests) or fixture in self.fixtures


def parse_fault(spec: str) -> Fault:
    """Parse `--fault` text, e.g. `429:1@1`, `500@2,3`, `delay:200`, `delay:500@slow_case`."""
    head, _, which = spec.partition("@")
    kind, _, arg = head.partition(":")
    try:
        if kind not in FAULT_KINDS:
            raise ValueError(f"kind must be one of {', '.join(FAULT_KINDS)}")
        value = float(arg) if arg else (200.0 if kind == "delay" else 0.0)
        if not math.isfinite(value) or value < 0:
            raise ValueError("the argument must be a number, not negative")
        if value > _MAX_ARGUMENT.get(kind, math.inf):
            raise ValueError(f"the argument of {kind} may be at most {_MAX_ARGUMENT[kind]:,}")
        targets = which.split(",") if which else []
        if "" in targets or (spec.endswith("@")):
            raise ValueError("an empty request number or fixture name after @")
        numbers = frozenset(int(part) for part in targets if part.isdigit())
        if numbers and min(numbers) < 1:
            raise ValueError("requests count from 1")
    except ValueError as exc:
        raise UsageError(
            f"--fault {spec!r}: {exc} (expected KIND[:ARG][@N|FIXTURE,...], e.g. 429:1@1, 500@2,"
            " delay:200, delay:500@slow_case)"
        ) from None
    names = frozenset(part for part in targets if not part.isdigit())
    return Fault(kind, value, numbers or None, names)
