"""Kits in git revisions, read as data.

A pull request's revision is hostile input. It is never checked out and nothing in it runs: names
come from ``git ls-tree`` (or ``git ls-files`` for the index), bytes from one ``git cat-file``
process, and every read is bounded (a blob larger than the reader's limit is drained, never kept).
Paths a kit names (``extends``, ``files[].source``, ``image.ca_certificates``, ``workspace.source``)
resolve lexically inside the revision's own tree: a path that climbs out of it, or that passes
through a symbolic link, is refused with the reason, and nothing is read from the working tree.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from sandkit.errors import KitError, Location, Problem, UsageError
from sandkit.kits.files import KitFiles, PathRefused
from sandkit.kits.yamlnodes import MAX_BYTES, Node, nodes_from_bytes

#: More entries than this in one revision's tree is refused rather than held in memory.
MAX_TREE_ENTRIES = 1_000_000
REGULAR_MODES = ("100644", "100755")
SYMLINK_MODE = "120000"
_DRAIN_CHUNK = 1 << 20


class GitError(UsageError):
    """git refused a request (not a repository, an unknown revision): a usage error, exit 2."""


def git_env() -> dict[str, str]:
    """The environment for every git call: no prompts, no optional lock files, no pager."""
    env = dict(os.environ)
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", LC_ALL="C")
    return env


def git(repo: Path, *args: str) -> bytes:
    """Run a read-only git command in ``repo``; its output, or a GitError naming what failed."""
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", *args],
            cwd=repo,
            capture_output=True,
            env=git_env(),
            check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed; sandkit diff reads kits from git revisions") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {message[0] if message else 'exit ' + str(done.returncode)}")
    return done.stdout


@dataclass(frozen=True)
class Entry:
    """One file of a revision: its git mode and object id."""

    mode: str
    sha: str

    @property
    def regular(self) -> bool:
        return self.mode in REGULAR_MODES


class Blobs:
    """One ``git cat-file --batch`` process (and one ``--batch-check``) per repository, started lazily."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._procs: dict[str, subprocess.Popen[bytes]] = {}
        #: Parsed kits by object id: a blob both revisions share is parsed once (copies are handed out).
        self.parsed: dict[str, Node] = {}

    def _proc(self, mode: str) -> subprocess.Popen[bytes]:
        if mode not in self._procs:
            self._procs[mode] = subprocess.Popen(
                ["git", "cat-file", mode],
                cwd=self.repo,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=git_env(),
            )
        return self._procs[mode]

    def _ask(self, mode: str, sha: str) -> tuple[IO[bytes], int]:
        proc = self._proc(mode)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(sha.encode("ascii") + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline(512).split()
        if len(header) != 3 or not header[2].isdigit():
            raise GitError(f"git object {sha} is missing from the repository")
        return proc.stdout, int(header[2])

    def size(self, sha: str) -> int:
        return self._ask("--batch-check", sha)[1]

    def read(self, sha: str, keep: int) -> tuple[int, bytes]:
        """The blob's size and at most its first ``keep`` bytes; the rest is read and dropped."""
        stream, size = self._ask("--batch", sha)
        kept = stream.read(min(size, keep))
        remaining = size - len(kept)
        while remaining > 0:
            chunk = stream.read(min(remaining, _DRAIN_CHUNK))
            if not chunk:
                raise GitError(f"git cat-file ended in the middle of object {sha}")
            remaining -= len(chunk)
        stream.read(1)  # the newline after each object
        return size, kept

    def close(self) -> None:
        for proc in self._procs.values():
            if proc.stdin:
                proc.stdin.close()
            proc.wait()
            if proc.stdout:
                proc.stdout.close()
        self._procs.clear()


def _records(repo: Path, args: list[str]) -> list[bytes]:
    """NUL-separated records of a listing command, refusing more than MAX_TREE_ENTRIES of them."""
    proc = subprocess.Popen(["git", *args], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=git_env())
    assert proc.stdout is not None
    records: list[bytes] = []
    pending = b""
    while chunk := proc.stdout.read(1 << 16):
        *complete, pending = (pending + chunk).split(b"\0")
        records.extend(complete)
        if len(records) > MAX_TREE_ENTRIES:
            proc.kill()
            proc.wait()
            raise GitError(f"the revision holds more than {MAX_TREE_ENTRIES} files; name the kits' folders")
    _, stderr = proc.communicate()
    if proc.returncode != 0:
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {lines[0] if lines else 'exit ' + str(proc.returncode)}")
    return records


def tree_entries(repo: Path, commit: str) -> tuple[dict[str, Entry], set[str]]:
    """Files and folders of a commit's tree (``ls-tree -r -t``)."""
    entries: dict[str, Entry] = {}
    folders: set[str] = set()
    for record in _records(repo, ["ls-tree", "-r", "-t", "-z", "--full-tree", commit]):
        meta, _, name = record.partition(b"\t")
        mode, kind, sha = meta.decode("ascii").split()
        path = name.decode("utf-8", "surrogateescape")
        if kind == "tree":
            folders.add(path)
        elif kind == "blob":
            entries[path] = Entry(mode, sha)
    return entries, folders


def index_entries(repo: Path) -> tuple[dict[str, Entry], set[str], set[str]]:
    """Files and folders of the index (the staged revision), and the paths with a merge conflict."""
    entries: dict[str, Entry] = {}
    unmerged: set[str] = set()
    for record in _records(repo, ["ls-files", "-s", "-z"]):
        meta, _, name = record.partition(b"\t")
        mode, sha, stage = meta.decode("ascii").split()
        path = name.decode("utf-8", "surrogateescape")
        if stage != "0":
            unmerged.add(path)
        if mode != "160000" and (stage in ("0", "2") or path not in entries):
            entries[path] = Entry(mode, sha)  # for a conflict, "ours" tells whether it is a kit at all
    folders = {posixpath.dirname(p) for p in entries}
    for folder in list(folders):
        while folder:
            folders.add(folder)
            folder = posixpath.dirname(folder)
    folders.discard("")
    return entries, folders, unmerged


def _relabelled(node: Node, display: str) -> Node:
    """A copy of a parsed tree whose every place names ``display`` (the loader rewrites the copy it gets)."""
    value = node.value
    if isinstance(value, dict):
        value = {key: _relabelled(child, display) for key, child in value.items()}
    elif isinstance(value, list):
        value = [_relabelled(child, display) for child in value]
    key_loc = node.key_loc._replace(path=display) if node.key_loc else None
    return Node(value, node.loc._replace(path=display), key_loc)


class GitFiles(KitFiles):
    """A revision's files, seen by the loader as if below ``root``; nothing outside it exists."""

    def __init__(
        self,
        root: Path,
        label: str,
        entries: dict[str, Entry],
        folders: set[str],
        blobs: Blobs,
        unmerged: set[str] | None = None,
    ) -> None:
        super().__init__(None)  # confinement is lexical, below; nothing is read from the file system
        self.tree_root = root
        self.label = label
        self.entries = entries
        self.folders = folders
        self.blobs = blobs
        self.unmerged = unmerged or set()

    def relative(self, path: Path) -> str | None:
        """``path`` relative to the tree's root, or None when it is outside."""
        text = posixpath.normpath(path.as_posix())
        root = self.tree_root.as_posix().rstrip("/")
        if text == root:
            return ""
        return text[len(root) + 1 :] if text.startswith(root + "/") else None

    def resolve(self, folder: Path, relative: str) -> Path:
        candidate = Path(posixpath.normpath((folder / relative).as_posix()))
        inside = self.relative(candidate)
        if inside is None:
            raise PathRefused(f"{relative} leads outside the repository; a kit may name only files inside it")
        parts = inside.split("/") if inside else []
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            entry = self.entries.get(prefix)
            if entry is not None and entry.mode == SYMLINK_MODE:
                raise PathRefused(f"{relative}: {prefix} is a symbolic link; links are not followed in a revision")
        return candidate

    def identity(self, path: Path) -> str:
        return posixpath.normpath(path.as_posix())

    def _entry(self, path: Path) -> Entry | None:
        inside = self.relative(path)
        return self.entries.get(inside) if inside else None

    def is_file(self, path: Path) -> bool:
        entry = self._entry(path)
        return entry is not None and entry.regular

    def is_dir(self, path: Path) -> bool:
        inside = self.relative(path)
        return inside == "" or inside in self.folders

    def size(self, path: Path) -> int:
        entry = self._entry(path)
        return self.blobs.size(entry.sha) if entry else 0

    def read_bytes(self, path: Path, limit: int) -> bytes:
        """At most ``limit + 1`` bytes of a regular file of the revision (more than ``limit``: too large)."""
        entry = self._entry(path)
        if self.relative(path) in self.unmerged:
            raise PathRefused("has a merge conflict in the index")
        if entry is None:
            raise PathRefused(f"not found in {self.label}")
        if not entry.regular:
            raise PathRefused(f"is not a regular file in {self.label} (git mode {entry.mode})")
        return self.blobs.read(entry.sha, limit + 1)[1]

    def head(self, path: Path, length: int) -> bytes:
        """The first ``length`` bytes of a file (to tell kits from other YAML)."""
        entry = self._entry(path)
        return self.blobs.read(entry.sha, length)[1] if entry and entry.regular else b""

    def load_nodes(self, path: Path, display: str) -> Node:
        if self.relative(path) in self.unmerged:
            raise KitError([Problem(Location(display), "has a merge conflict in the index; resolve it first")])
        entry = self._entry(path)
        if entry is None:
            raise KitError([Problem(Location(display), f"file not found in {self.label}")])
        if not entry.regular:
            raise KitError([Problem(Location(display), f"not a regular file in {self.label} (git mode {entry.mode})")])
        cached = self.blobs.parsed.get(entry.sha)
        if cached is not None:
            return _relabelled(cached, display)
        size, data = self.blobs.read(entry.sha, MAX_BYTES)
        if size > MAX_BYTES:
            raise KitError(
                [Problem(Location(display), f"file is {size} bytes; a kit may be at most {MAX_BYTES} bytes")]
            )
        nodes = nodes_from_bytes(data, display)
        self.blobs.parsed[entry.sha] = _relabelled(nodes, display)
        return nodes

    def display(self, path: Path) -> str:
        inside = self.relative(path)
        return f"{self.label}:{inside}" if inside is not None else path.as_posix()
