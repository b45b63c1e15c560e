"""Bounded reads of files a kit names, and where a kit's repository begins.

``stat`` says nothing reliable about what a path will give: ``/dev/zero`` reports size 0 and never
ends, a FIFO blocks ``open`` until a writer comes, and a file can be swapped between a check and a
read. So a read opens without blocking and without following a final link, asks the opened
descriptor what it is, and reads at most one byte more than it will accept.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_CHUNK = 1024 * 1024
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


class PathRefused(Exception):
    """A path a kit names that the reader will not follow; the message says why, in words."""


def kind_of(mode: int) -> str:
    """What a file of this mode is, in words ("a character device")."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file ``path``; PathRefused for anything else.

    The caller compares the length with ``limit``: one byte more means the file is too large.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        before = os.stat(path)  # not trusted, only to avoid opening a device at all
        if not stat.S_ISREG(before.st_mode):
            raise PathRefused(f"is not a regular file ({kind_of(before.st_mode)})")
        handle = os.open(path, flags)
    except FileNotFoundError:
        raise PathRefused("not found") from None
    except OSError as exc:
        raise PathRefused(f"cannot be read ({exc.strerror or exc})") from None
    try:
        opened = os.fstat(handle)
        if not stat.S_ISREG(opened.st_mode):
            raise PathRefused(f"is not a regular file ({kind_of(opened.st_mode)})")
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(handle, min(remaining, _CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise PathRefused(f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(handle)


def real(path: Path) -> Path:
    """``path`` absolute with its links followed; a link loop stays as written (opening it then
    fails with a message) instead of raising as ``Path.resolve`` does."""
    return Path(os.path.realpath(path))


def kit_path(path: Path) -> Path:
    """A kit's absolute path with its folder's links resolved (the kit file itself may be a link)."""
    return real(path.absolute().parent) / path.name


def repository_root(kit: Path) -> Path:
    """The folder a kit may read from: the git top level above it, or its own folder outside git."""
    folder = real(kit.absolute().parent)
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def root_folder(argument: str | None) -> Path | None:
    """The ``--root DIR`` folder, resolved; a usage error unless it is a folder."""
    if argument is None:
        return None
    from sandkit.errors import UsageError

    folder = Path(argument)
    if not folder.is_dir():
        raise UsageError(f"--root {argument}: not a folder")
    return real(folder)


def inside(path: Path, root: Path) -> bool:
    """Whether the resolved ``path`` is ``root`` or below it."""
    return path == root or root in path.parents
