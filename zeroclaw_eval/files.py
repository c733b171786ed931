"""Writing files whole or not at all."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

#: In the name of every temporary sibling, with the writing process's id after it:
#: `.eval.json.zeroclaw-eval-4242-k3j9.tmp` is plainly ours, and whether its writer is
#: still alive can be asked.
TEMP_TAG = "zeroclaw-eval"


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_atomic(target: Path, data: bytes) -> None:
    """Write `data` to `target` through a temporary sibling renamed into place, so a
    crash half-way never leaves a half-written file where the old one was. Parent
    folders are made. The temporary sibling is removed on any exception (SIGINT and
    SIGTERM included, which the CLI turns into one); one a killed process left (SIGKILL,
    a power cut) is removed by the next write of the same target."""
    write_atomic_pieces(target, (data,))


def write_atomic_pieces(target: Path, pieces: Iterable[bytes]) -> None:
    """`write_atomic` of `pieces` one after another, each written as it comes, so a large
    output is never held whole; an exception while they are made leaves nothing.

    Only a regular file is replaced. A target that is something else (a device such as
    `/dev/null`, a named pipe, `/dev/stdout` on a terminal or a pipe) is opened and
    written through: a file renamed onto it would take its place, and run as root, would
    replace `/dev/null` itself. A symbolic link to a file keeps pointing at it: the file
    it leads to is the one replaced."""
    try:
        found = os.stat(target)  # through links: what opening it would reach
    except OSError:  # not there yet (or unreachable, which the write below will say)
        found = None
    if found is not None and not stat.S_ISREG(found.st_mode) and not stat.S_ISDIR(found.st_mode):
        with open(target, "wb") as stream:
            for piece in pieces:
                stream.write(piece)
        return
    if found is not None and os.path.islink(target):
        target = Path(os.path.realpath(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_siblings(target)
    prefix = f".{target.name}.{TEMP_TAG}-{os.getpid()}-"
    handle, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            for piece in pieces:
                stream.write(piece)
        # mkstemp makes the file private (0600); the result gets the usual mode instead.
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_stale_siblings(target: Path) -> None:
    """Remove the temporary siblings of `target` whose writing process is gone (POSIX;
    elsewhere whether a process lives cannot be asked without harming it)."""
    if os.name != "posix":
        return
    prefix = f".{target.name}.{TEMP_TAG}-"
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid = name[len(prefix) :].partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            try:
                os.unlink(target.parent / name)
            except OSError:  # gone already, or not ours to remove: it harms nothing
                pass


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0 sends nothing: it only asks whether the process exists
    except ProcessLookupError:
        return False
    except OSError:  # alive, but another user's
        return True
    return True
