"""The two sides of a diff: a commit, the index or the working tree of a git repository.

Each side lists its kit files and loads them through its own reader, so a kit resolves
``extends`` and the files it names within the same revision. A side never runs anything from
the revision it reads.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass, field
from pathlib import Path

from sandkit.errors import KitError, UsageError
from sandkit.kits.discover import KIT_MARKER, SUFFIXES
from sandkit.kits.files import FILE_SYSTEM, KitFiles
from sandkit.kits.loader import load_kit
from sandkit.review.gitfiles import Blobs, GitError, GitFiles, git, index_entries, tree_entries
from sandkit.review.policy import Policy, policy_of

HEAD_BYTES = 4096


@dataclass
class Loaded:
    """A kit file on one side: its policy, or the problems that kept it from loading."""

    path: str
    policy: Policy | None = None
    problems: list[str] = field(default_factory=list)
    #: The problems without the revision's label, to tell "still broken the same way" from "broken anew".
    problem_key: tuple[str, ...] = ()


@dataclass
class Side:
    """One revision: how to name it, where its files are, and how to read them."""

    label: str
    title: str
    root: Path
    files: KitFiles
    commit: str | None = None
    names: list[str] = field(default_factory=list)

    def display(self, rel: str) -> str:
        return f"{self.label}:{rel}" if isinstance(self.files, GitFiles) else rel

    def head(self, rel: str) -> bytes:
        if isinstance(self.files, GitFiles):
            return self.files.head(self.root / rel, HEAD_BYTES)
        return _file_head(self.root / rel)

    def kit_paths(self, filters: list[str]) -> list[str]:
        """Repository-relative paths of the YAML files that declare ``sandkit/v1``, below ``filters``."""
        wanted = [n for n in self.names if n.endswith(SUFFIXES) and below(n, filters)]
        return sorted(n for n in wanted if KIT_MARKER.encode() in self.head(n))

    def load(self, rel: str) -> Loaded | None:
        """The kit at ``rel``; None for a Mixin (reviewed through the kits that extend it)."""
        path, shown = self.root / rel, self.display(rel)
        try:
            loaded = load_kit(path, files=self.files, display=shown)
            if loaded.kit.kind == "Mixin":
                return None
            return Loaded(rel, policy_of(loaded, self.root))
        except KitError as exc:
            if self._is_mixin(path, shown):
                return None
            problems = [str(p) for p in exc.problems]
            key = tuple(p.replace(f"{self.label}:", "") for p in problems)
            return Loaded(rel, problems=problems, problem_key=key)
        except OSError as exc:
            return Loaded(rel, problems=[f"{shown}: error: cannot read: {exc.strerror or exc}"])

    def _is_mixin(self, path: Path, shown: str) -> bool:
        """Whether a file that did not load says it is a Mixin (its errors show in the kits extending it)."""
        try:
            kind = self.files.load_nodes(path, shown).value.get("kind")
        except KitError:
            return False
        return kind is not None and kind.value == "Mixin"


def below(path: str, filters: list[str]) -> bool:
    return not filters or any(f in ("", ".") or path == f or path.startswith(f.rstrip("/") + "/") for f in filters)


def _file_head(path: Path) -> bytes:
    """The start of a regular file; nothing for links, FIFOs, devices and folders (never blocks)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return b""
        with path.open("rb") as handle:
            return handle.read(HEAD_BYTES)
    except OSError:
        return b""


class Repository:
    """The git repository around the working folder (or a bare one), and its sides."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        try:
            bare = git(cwd, "rev-parse", "--is-bare-repository").strip() == b"true"
        except GitError as exc:
            if "not a git repository" not in str(exc):
                raise
            raise UsageError(
                f"sandkit diff: {cwd.as_posix()} is not in a git repository; diff compares kits between git "
                "revisions (run it inside a clone; `sandkit summary KIT` reviews one kit without git)"
            ) from None
        if bare:
            self.root = Path(git(cwd, "rev-parse", "--absolute-git-dir").decode().strip())
            self.prefix = ""
        else:
            self.root = Path(git(cwd, "rev-parse", "--show-toplevel").decode().strip())
            self.prefix = git(cwd, "rev-parse", "--show-prefix").decode().strip()
        self.bare = bare
        self.blobs = Blobs(self.root)

    def close(self) -> None:
        self.blobs.close()

    def commit(self, spec: str) -> str | None:
        """The commit ``spec`` names, or None."""
        if not spec or spec.startswith("-"):
            return None
        try:
            out = git(self.root, "rev-parse", "--verify", "--quiet", "--end-of-options", spec + "^{commit}")
        except GitError:
            return None
        return out.decode().strip() or None

    def merge_base(self, first: str, second: str) -> str:
        out = git(self.root, "merge-base", first, second).decode().strip()
        if not out:
            raise UsageError(f"{first} and {second} have no common ancestor")
        return out

    def default_branch(self) -> str:
        """origin's default branch, else main or master."""
        try:
            ref = git(self.root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD").decode().strip()
            return ref.removeprefix("refs/remotes/")
        except GitError:
            pass
        for candidate in ("origin/main", "origin/master", "main", "master"):
            if self.commit(candidate):
                return candidate
        raise UsageError("cannot tell the default branch (no origin/HEAD, main or master); name BASE")

    def repo_path(self, argument: str) -> str:
        """A path argument (relative to the working folder) as a path relative to the repository."""
        joined = posixpath.normpath(posixpath.join(self.prefix, Path(argument).as_posix()))
        if joined == "." or joined == "":
            return ""
        if joined.startswith("../") or joined == ".." or joined.startswith("/"):
            raise UsageError(f"{argument}: outside the repository")
        return joined

    def commit_side(self, commit: str, title: str) -> Side:
        entries, folders = tree_entries(self.root, commit)
        label = commit[:12]
        files = GitFiles(self.root, label, entries, folders, self.blobs)
        return Side(label, title, self.root, files, commit=commit, names=sorted(entries))

    def index_side(self) -> Side:
        self._need_work_tree("index")
        entries, folders, unmerged = index_entries(self.root)
        files = GitFiles(self.root, "index", entries, folders, self.blobs, unmerged)
        return Side("index", "the index (staged changes)", self.root, files, names=sorted(entries))

    def worktree_side(self) -> Side:
        self._need_work_tree("working tree")
        listed = git(self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        names = sorted({n.decode("utf-8", "surrogateescape") for n in listed.split(b"\0") if n})
        return Side("working tree", "the working tree", self.root, FILE_SYSTEM, names=names)

    def empty_side(self, title: str) -> Side:
        return Side("empty", title, self.root, FILE_SYSTEM, names=[])

    def _need_work_tree(self, what: str) -> None:
        if self.bare:
            raise UsageError(f"a bare repository has no {what}; name both revisions")
