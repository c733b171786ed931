"""Reading a saved JSON report back (`render`, `merge`, `run --baseline`), refusing with a
usage error, never a traceback, whatever the file holds."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.files import read_bounded
from zeroclaw_eval.fixtures.json_text import loads_untrusted

if TYPE_CHECKING:
    from zeroclaw_eval.report.model import SuiteReport


#: The largest saved report read back: ~130,000 cases of the size a 10,000-case suite
#: writes (7.8 KB each). A file past it (or a device such as /dev/zero, which never ends)
#: is refused, never read whole.
MAX_REPORT_BYTES = 1 << 30
_LIMIT = ("a saved report", "is it a report zeroclaw-eval wrote?")


def read_report(path: Path, *, role: str = "", hint: str = "") -> SuiteReport:
    """The report saved at `path`. `role` names the option the file was given to
    (`--baseline `), `hint` says how to make a good one."""
    return read_report_bytes(path, role=role, hint=hint)[0]


def read_report_bytes(path: Path, *, role: str = "", hint: str = "") -> tuple[SuiteReport, bytes]:
    """The report saved at `path`, and the file's bytes (to tell exactly which file it was)."""
    from zeroclaw_eval.report.codec import report_from_dict

    tail = f"; {hint}" if hint else ""
    data = read_bounded(path, MAX_REPORT_BYTES, limit=_LIMIT)
    if isinstance(data, str):
        raise UsageError(f"{role}{path}: {data}")
    try:
        parsed = loads_untrusted(data)
    except ValueError as exc:  # not UTF-8, or not JSON
        raise UsageError(f"{role}{path} is not a JSON report: {exc}{tail}") from None
    try:
        return report_from_dict(parsed), data
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{role}{path} is not a zeroclaw-eval JSON report: {exc}{tail}") from None
