"""What git ignores: the paths under the scan root for ``--respect-gitignore`` (git answers), and
a repository's own .gitignore files read without git for one path (:class:`GitignoreRules`).

``--respect-gitignore``: the paths under the scan root that git ignores, as an exclusion.

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
import posixpath
import subprocess
import tempfile
from collections.abc import Callable

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


def git_tracked(root: str, rel: str) -> bool | None:
    """Whether git tracks the file ``rel`` under ``root`` (committed or staged, even inside an
    ignored folder: ``git add -f``); None when git cannot say (no git, not a repository). Hardened
    as :func:`git_ignored` is, and the path is read literally (no pathspec magic)."""
    command = ["git", "-c", "core.fsmonitor=false", "--literal-pathspecs", "-C", root, "ls-files", "-z", "--", rel]
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, env=env, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return bool(done.stdout[:MAX_OUTPUT].strip(b"\0"))


_MOST_RULES = 4000  # lines of one .gitignore read
_LONGEST_PATTERN = 256  # characters of one pattern; longer ones are left out
_WORK = 4_000_000  # pattern characters times name characters one GitignoreRules may compare


class _TooCostly(Exception):
    """The .gitignore files asked for more comparing than :data:`_WORK`."""


class _Pattern:
    """One line of a .gitignore: its glob split at "/", negated by "!", for folders only when it
    ends with "/", anchored at its file's folder when it holds a "/" other than a trailing one."""

    __slots__ = ("anchored", "folders_only", "negated", "parts")

    def __init__(self, line: str) -> None:
        self.negated = line.startswith("!")
        line = line[1:] if self.negated else line
        self.folders_only = line.endswith("/")
        line = line.rstrip("/")
        self.anchored = "/" in line
        parts: list[str] = []
        for part in line.lstrip("/").split("/"):
            if part and not (part == "**" and parts and parts[-1] == "**"):  # a/**/**/b is a/**/b
                parts.append(part)
        self.parts = parts


class GitignoreRules:
    """The .gitignore files of a tree read without git, through ``read`` (a path relative to the
    tree's top to its text, or None), to say whether one path is ignored: each .gitignore from the
    top down to the path's folder, the last matching line winning and a deeper file over a higher
    one, and nothing re-included below an ignored folder, as git reads them. ``.git/info/exclude``
    and the user's excludes file are not read: they are one machine's, not the repository's. What
    costs more comparing than a bound is taken as not ignored."""

    def __init__(self, read: Callable[[str], str | None]) -> None:
        self._read = read
        self._files: dict[str, list[_Pattern]] = {}
        self._work = _WORK

    def ignoring(self, path: str) -> tuple[str, str]:
        """(the .gitignore, the ignored folder or file) when ``path`` (a file, relative to the top,
        "/"-separated) is ignored, or ("", "") when it is not or cannot be told."""
        parts = [part for part in path.split("/") if part not in ("", ".")]
        if not parts or ".." in parts:
            return "", ""
        try:
            for depth in range(1, len(parts) + 1):
                folder = depth < len(parts)
                decided = ""
                for level in range(depth):  # the .gitignore files above parts[:depth], top first
                    where = "/".join(parts[:level])
                    for pattern in self._patterns(where):
                        if self._matches(pattern, parts[level:depth], folder):
                            decided = "" if pattern.negated else posixpath.join(where, ".gitignore")
                if decided:
                    return decided, "/".join(parts[:depth])
        except _TooCostly:
            return "", ""
        return "", ""

    def _patterns(self, folder: str) -> list[_Pattern]:
        if folder not in self._files:
            text = self._read(posixpath.join(folder, ".gitignore")) or ""
            patterns = []
            for raw in text.splitlines()[:_MOST_RULES]:
                line = raw.rstrip("\r")
                while line.endswith(" ") and not line.endswith("\\ "):
                    line = line[:-1]
                if line and not line.startswith("#") and len(line) <= _LONGEST_PATTERN and line.strip("!/"):
                    patterns.append(_Pattern(line))
            self._files[folder] = patterns
        return self._files[folder]

    def _matches(self, pattern: _Pattern, path: list[str], folder: bool) -> bool:
        """Whether ``pattern`` matches ``path`` (parts, relative to its .gitignore's folder)."""
        if pattern.folders_only and not folder:
            return False
        if not pattern.anchored:
            return len(pattern.parts) == 1 and self._glob(pattern.parts[0], path[-1])
        # reach[j]: the pattern's parts so far match the first j parts of the path
        reach = [True] + [False] * len(path)
        for index, part in enumerate(pattern.parts):
            if part == "**":  # any number of folders; at the end ("a/**") at least one
                at_least_one = index == len(pattern.parts) - 1 and index > 0
                seen, following = False, []
                for j in range(len(path) + 1):
                    if at_least_one:
                        following.append(seen)
                    seen = seen or reach[j]
                    if not at_least_one:
                        following.append(seen)
                reach = following
            else:
                reach = [False] + [reach[j] and self._glob(part, path[j]) for j in range(len(path))]
            if not any(reach):
                return False
        return reach[len(path)]

    def _glob(self, pattern: str, name: str) -> bool:
        """fnmatch for one path part as git reads it: ``*``, ``?``, ``[...]`` (``!`` or ``^``
        negating), ``\\`` escaping the next character; with no backtracking."""
        if not any(char in pattern for char in "*?[\\"):
            return pattern == name
        self._work -= (len(pattern) + 1) * (len(name) + 1)
        if self._work < 0:
            raise _TooCostly
        tokens = _glob_tokens(pattern)
        states = _past_stars({0}, tokens)  # the token positions reached after a prefix of name
        for char in name:
            following = set()
            for at in states:
                if at < len(tokens):
                    kind, value = tokens[at]
                    if kind == "*":
                        following.add(at)
                    elif kind == "?" or (kind == "=" and value == char) or (kind == "[" and _in_class(value, char)):
                        following.add(at + 1)
            states = _past_stars(following, tokens)
            if not states:
                return False
        return len(tokens) in states


def _glob_tokens(pattern: str) -> list[tuple[str, str]]:
    """("*", ""), ("?", ""), ("[", what the brackets hold) or ("=", a character), in order."""
    tokens: list[tuple[str, str]] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            tokens.append(("=", pattern[index + 1]))
            index += 2
            continue
        end = pattern.find("]", index + 2) if char == "[" else -1
        if end > 0:
            tokens.append(("[", pattern[index + 1 : end]))
            index = end + 1
            continue
        tokens.append(("*", "") if char == "*" else ("?", "") if char == "?" else ("=", char))
        index += 1
    return tokens


def _past_stars(states: set[int], tokens: list[tuple[str, str]]) -> set[int]:
    """``states`` with every position a run of ``*`` matching nothing leads to."""
    done = set(states)
    for at in states:
        while at < len(tokens) and tokens[at][0] == "*":
            at += 1
            done.add(at)
    return done


def _in_class(body: str, char: str) -> bool:
    """Whether ``char`` is in the bracket expression ``body`` (what is between ``[`` and ``]``)."""
    negated = body[:1] in ("!", "^")
    body = body[1:] if negated else body
    found = False
    index = 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1] == "-":
            found = found or body[index] <= char <= body[index + 2]
            index += 3
        else:
            found = found or body[index] == char
            index += 1
    return found != negated
