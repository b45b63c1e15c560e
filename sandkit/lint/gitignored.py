"""``--respect-gitignore``: the paths under the scan root that git ignores, as an exclusion.

Git itself answers (``git ls-files --others --ignored --exclude-standard --directory``), so every
.gitignore, ``.git/info/exclude`` and the user's excludes file mean what they mean to git. A
wholly ignored folder comes back as one entry and is never walked. The repository may be
hostile: git runs with its file-system monitor hook off (``core.fsmonitor``, a command the
repository's own config may name), its output is read up to a bound and it gets a time limit.
When git cannot answer (no git, not a repository, too much output) nothing is skipped and the
caller says why: scanning more is the safe side.
"""

from __future__ import annotations

import os
import subprocess
import tempfile

MAX_OUTPUT = 16_000_000  # bytes of git's answer (a few hundred thousand ignored paths)
TIMEOUT = 60.0  # seconds


class GitIgnored:
    """An exclusion matcher (see :class:`sandkit.lint.discovery.Matcher`) for what git ignores."""

    def __init__(self, files: frozenset[str], folders: frozenset[str]) -> None:
        self.files = files  # relative to the scan root, "/"-separated
        self.folders = folders  # the same, without the trailing "/"

    def __bool__(self) -> bool:
        return bool(self.files or self.folders)

    def match(self, rel: str) -> bool:
        """True when git ignores ``rel`` or a folder above it."""
        if rel in self.files or rel in self.folders:
            return True
        parts = rel.split("/")
        return any("/".join(parts[:depth]) in self.folders for depth in range(1, len(parts)))


def git_ignored(root: str) -> tuple[GitIgnored | None, str]:
    """What git ignores under ``root``, or None and why git could not say."""
    command = [
        "git",
        "-c",
        "core.fsmonitor=false",
        "-C",
        root,
        "ls-files",
        "--others",
        "--ignored",
        "--exclude-standard",
        "--directory",
        "-z",
    ]
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:  # bounded reads, no pipe to fill
        try:
            done = subprocess.run(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, timeout=TIMEOUT)
        except OSError as exc:
            return None, f"git cannot be run ({exc.strerror or exc})"
        except subprocess.TimeoutExpired:
            return None, f"git took more than {TIMEOUT:.0f} seconds"
        if done.returncode != 0:
            err.seek(0)
            lines = err.read(4096).decode("utf-8", "replace").strip().splitlines()
            said = "".join(c if c.isprintable() else "?" for c in lines[0]) if lines else "it failed"
            return None, f"git cannot list ignored files here ({said})"
        if os.fstat(out.fileno()).st_size > MAX_OUTPUT:
            return None, f"git lists more than {MAX_OUTPUT} bytes of ignored paths"
        out.seek(0)
        output = out.read(MAX_OUTPUT)
    return _parse(output), ""


def _parse(output: bytes) -> GitIgnored:
    files: set[str] = set()
    folders: set[str] = set()
    for raw in output.split(b"\0"):
        if not raw:
            continue
        path = os.fsdecode(raw)  # file names that are not UTF-8 keep their bytes, as the walk's do
        if path.endswith("/"):
            folders.add(path.rstrip("/"))
        else:
            files.add(path)
    return GitIgnored(frozenset(files), frozenset(folders))
