"""Files read within a bound, and written whole or not at all."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, overload

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


def create_new(target: Path, data: bytes) -> None:
    """Create `target` holding `data`; `FileExistsError` when it exists, which is never
    overwritten ("x" creates or fails with no window between the test and the create).
    Parent folders are made; a write cut short removes the file it began."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("xb") as stream:
        try:
            stream.write(data)
        except BaseException:
            target.unlink(missing_ok=True)
            raise


def write_atomic_pieces(target: Path, pieces: Iterable[bytes]) -> None:
    """`write_atomic` of `pieces` one after another, each written as it comes, so a large
    output is never held whole; an exception while they are made leaves nothing."""
    with atomic_writer(target) as stream:
        for piece in pieces:
            stream.write(piece)


@contextmanager
def atomic_writer(target: Path) -> Iterator[BinaryIO]:
    """A stream whose bytes become `target` when the block ends, whole: written to a
    temporary sibling renamed into place, removed instead if the block raises (SIGINT and
    SIGTERM included, which the CLI turns into an exception). Parent folders are made.

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
        with open(target, "wb") as through:
            yield through
        return
    if found is not None and os.path.islink(target):
        target = Path(os.path.realpath(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_siblings(target)
    prefix = f".{target.name}.{TEMP_TAG}-{os.getpid()}-"
    handle, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            yield stream
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


class Link:
    """What `read_bounded(..., follow_links=False)` returns for a symbolic link, unread."""


LINK = Link()
#: Opening a link with O_NOFOLLOW fails with ELOOP (EMLINK on FreeBSD); 0 where the
#: system has no such flag (Windows), which `read_bounded` then asks about first.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_LINK_ERRORS = {errno.ELOOP, errno.EMLINK}


#: What a path that is no regular file is, by the type `stat` gives it.
_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


@overload
def read_bounded(
    path: Path, max_bytes: int, *, limit: tuple[str, str], regular_only: bool = False
) -> bytes | str: ...
@overload
def read_bounded(
    path: Path, max_bytes: int, *, follow_links: bool, limit: tuple[str, str], regular_only: bool = False
) -> bytes | str | Link: ...
def read_bounded(
    path: Path,
    max_bytes: int,
    *,
    follow_links: bool = True,
    limit: tuple[str, str],
    regular_only: bool = False,
) -> bytes | str | Link:
    """The bytes of `path`, or why they are not read: a file larger than `max_bytes`
    is refused from its size, never read into memory (nor past the bound, should it grow:
    a pipe, or a device such as /dev/zero, is read only to the bound). `limit` names
    what the bound is for and what to do when a file is over it. With `follow_links`
    false a symbolic link is not opened: `LINK` is returned instead.

    Opened without blocking, so a named pipe (or a socket) is refused at once rather
    than waited on for a writer that may never come; `regular_only` refuses every path
    that is no regular file (a device too), for inputs that can only be files.

    Read with `os.open` and `os.read` rather than a file object: in a suite of small
    fixtures the file object, its buffer and a separate `lstat` for the link cost about
    as much as parsing the text.
    """
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    if not follow_links:
        if not _NOFOLLOW and path.is_symlink():
            return LINK
        flags |= _NOFOLLOW
    try:
        descriptor = os.open(path, flags)
    except OSError as exc:
        if not follow_links and exc.errno in _LINK_ERRORS and os.path.islink(path):
            return LINK
        return f"cannot read the file: {exc.strerror or exc}"
    try:
        status = os.fstat(descriptor)  # one look for its kind and its size
        mode = status.st_mode
        kind = None if stat.S_ISREG(mode) else next((name for test, name in _KINDS if test(mode)), None)
        if kind is not None and (regular_only or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return f"it is {kind}, not a file: give {limit[0]} as a file"
        size = _size(status)
        if size is None or size <= max_bytes:
            # Ask for the size known and a byte more, to see the end (not the whole bound,
            # which would allocate it); a file that grew since is read on, to the bound.
            raw = _read(descriptor, max_bytes + 1 if size is None else size + 1)
            if size is not None and len(raw) > size:
                raw += _read(descriptor, max_bytes + 1 - len(raw))
            if len(raw) <= max_bytes:
                return raw
            size = None
    except OSError as exc:
        return f"cannot read the file: {exc.strerror or exc}"
    finally:
        os.close(descriptor)
    amount = f"{size:,} bytes" if size is not None else f"more than {max_bytes:,} bytes"
    return f"the file is {amount}, over the {max_bytes:,}-byte limit for {limit[0]}; {limit[1]}"


#: The most one `os.read` asks for: it allocates what it asks for before it reads, and a
#: pipe gives 64 KiB at a time, so asking for a whole large bound would allocate it anew
#: for every 64 KiB read.
_MAX_READ = 16 * 1024 * 1024


def _read(descriptor: int, count: int) -> bytes:
    """Up to `count` bytes, fewer only at the end of the file (`os.read` may return less)."""
    chunks: list[bytes] = []
    while count > 0:
        chunk = os.read(descriptor, min(count, _MAX_READ))
        if not chunk:
            break
        chunks.append(chunk)
        count -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _size(status: os.stat_result) -> int | None:
    size = status.st_size
    return size if size > 0 else None  # 0 for pipes and special files: read to find out
