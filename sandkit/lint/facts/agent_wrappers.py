"""A repository's own wrapper named in an allow rule, followed into its script.

``Bash(./scripts/run-agent.sh:*)`` or ``Bash(amux-spawn:*)`` approves one program, which is not a
finding by itself; but when that program is a script of the same repository that starts an agent
CLI with its approval prompts skipped (``claude --dangerously-skip-permissions``, ``codex
--yolo``), the rule lets the agent start a second agent that runs any command without asking.

Only a wrapper that resolves to a regular file inside the scan root is read, at most
:data:`SCRIPT_LIMIT` bytes of it: a path as the rule writes it (``./x.sh``,
``$CLAUDE_PROJECT_DIR/x.sh``), taken from the project folder (the one holding ``.claude/``), or a
bare name found in one of :data:`WRAPPER_FOLDERS` of that project. A shell script is read as AA008
reads one (its command lines, variables followed); program source by AA008's reading of calls
(``subprocess.run(["claude", ..., "--dangerously-skip-permissions"])``), or by a list of arguments
built with the flag (``flags.append("--yolo")``, ``args.push("--dangerously-skip-permissions")``)
in a file that names an agent.
"""

from __future__ import annotations

import functools
import os
import stat
from typing import NamedTuple

from sandkit.agents import CATALOGUE
from sandkit.lazy_regex import lazy
from sandkit.lint.facts.agent_commands import (
    AGENT_NAMES,
    PROGRAM_SOURCE,
    SANDBOXED,
    dangerous_flags,
    literal_words,
    source_agent_calls,
)
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import Word, parse_commands
from sandkit.lint.syntax.tree import Pos

#: Bytes of a wrapper script read; a longer script is read up to here.
SCRIPT_LIMIT = 256 * 1024
#: Folders of the project where a wrapper named by a bare name is looked for.
WRAPPER_FOLDERS = ("", "bin", "scripts", "script", "tools", ".claude/bin", ".claude/scripts")
#: The program an allow rule names: its first word (``Bash(./x.sh:*)``, ``Bash(amux-spawn *)``).
_PROGRAM = lazy(r"(?i)^(?:bash|shell)\(\s*(?P<program>[^\s:*()'\"]+)")
_PROJECT_VARIABLE = lazy(r"^(?:\$\{?CLAUDE_PROJECT_DIR\}?|\$\{?PWD\}?)/")
_SHELL_SHEBANG = lazy(r"\A#![^\n]*\b(?:ba|da|z|k)?sh\b")
_SOURCE_SHEBANG = lazy(r"\A#![^\n]*\b(?:python[\d.]*|node|deno|bun|ruby|php)\b")
#: A skip flag added to a list of arguments: ``x.append("--yolo")``, ``args.push('--yolo')``,
#: ``cmd += ["--dangerously-skip-permissions"]``, ``args = append(args, "--yolo")``.
_ADDED_FLAG = lazy(
    r"""(?:\.(?:append|push|extend|insert|unshift|concat|add)\s*\(\s*(?:\d+\s*,\s*)?\[?\s*"""
    r"""|\+=\s*\[\s*|\bappend\(\s*\w+\s*,\s*)(?P<q>["'`])(?P<flag>--?[\w-]+)(?P=q)"""
)
_AGENT_WORD = lazy(r"(?<![\w.&-])(?P<name>[a-z][\w-]*)(?![\w-])")
#: A long approval-skipping flag -> the command names of the agents whose flag it is.
_OWNERS: dict[str, frozenset[str]] = {}
#: Agent command names that are no common word or short name.
_COMMON_WORDS = frozenset(name for agent in CATALOGUE for name in agent.needs_arguments)
_UNAMBIGUOUS = frozenset(n for n in AGENT_NAMES if len(n) > 3 and n not in _COMMON_WORDS and n[0] != "@")
for _agent in CATALOGUE:
    for _flag in _agent.approval_flags:
        for _spelling in _flag.spellings:
            if _spelling.startswith("--") and not _flag.values:
                _OWNERS[_spelling] = _OWNERS.get(_spelling, frozenset()) | frozenset(_agent.names)


class Wrapper(NamedTuple):
    """A wrapper script an allow rule approves, and what it starts: the agent and its flag."""

    script: str  # relative to the scan root
    agent: str
    flag: str
    sandboxed: bool  # the flag stops the prompts but keeps the agent's own sandbox


def _project(file: SourceFile) -> str:
    """The folder (relative to the root, "" for the root) a settings file's commands run in: the
    one holding its ``.claude/`` (or ``.cursor/``...) folder, else the file's own folder."""
    parts = file.path.split("/")[:-1]
    for index in range(len(parts) - 1, -1, -1):
        if parts[index].startswith(".") and parts[index] in (".claude", ".cursor", ".gemini", ".codex"):
            return "/".join(parts[:index])
    return "/".join(parts)


def regular_file_inside(root: str, rel: str) -> str | None:
    """The real path of ``rel`` under ``root`` when it is a regular file there, else None."""
    real_root = os.path.realpath(root)
    path = os.path.realpath(os.path.join(real_root, rel))
    if not path.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    try:
        return path if stat.S_ISREG(os.stat(path).st_mode) else None
    except (OSError, ValueError):
        return None


def _candidates(program: str, project: str) -> list[str]:
    program = _PROJECT_VARIABLE.sub("", program)
    if program.startswith(("/", "~", "$", "%")) or "\\" in program:
        return []  # outside the repository, or a variable this file does not set
    if "/" in program:
        rel = os.path.normpath(os.path.join(project, program)).replace(os.sep, "/")
        return [] if rel.startswith("../") or rel == ".." else [rel]
    if program in AGENT_NAMES or program.startswith("."):
        return []
    return [os.path.join(project, folder, program).replace(os.sep, "/").lstrip("/") for folder in WRAPPER_FOLDERS]


def wrapper_of(file: SourceFile, rule: str) -> Wrapper | None:
    """The repository's script ``rule`` approves and the agent it starts with approval skipped,
    or None (a system program, a script not in the repository, or one that starts no agent so)."""
    if not file.root or (found := _PROGRAM.match(rule.strip())) is None:
        return None
    for rel in _candidates(found.group("program"), _project(file)):
        path = regular_file_inside(file.root, rel)
        if path is None:
            continue
        try:
            info = os.stat(path)
        except OSError:
            return None
        started = _starts(path, info.st_mtime_ns, info.st_size)
        return None if started is None else Wrapper(rel, *started)
    return None


@functools.lru_cache(maxsize=64)
def _starts(path: str, mtime: int, size: int) -> tuple[str, str, bool] | None:
    """(agent, flag, sandboxed) for the first agent the script at ``path`` starts with approval
    skipped (read once per version of the file), or None."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(SCRIPT_LIMIT)
    except OSError:
        return None
    if b"\0" in raw[:4096]:
        return None  # a binary
    return script_starts(os.path.basename(path), raw.decode("utf-8", "replace"))


def script_starts(name: str, text: str) -> tuple[str, str, bool] | None:
    """(agent, flag, sandboxed) for the first agent the script ``text`` (named ``name``) starts
    with approval skipped, or None."""
    lower = name.lower()
    if lower.endswith(PROGRAM_SOURCE) or _SOURCE_SHEBANG.match(text):
        return _source_starts(text)
    if lower.endswith((".sh", ".bash", ".zsh")) or _SHELL_SHEBANG.match(text) or "." not in lower:
        for command in parse_commands(text, expand=True):
            for word, agent, _ in dangerous_flags(command.words):
                return agent, word.text, word.text.partition("=")[0] in SANDBOXED
    return None


def _source_starts(text: str) -> tuple[str, str, bool] | None:
    for literals in source_agent_calls(text):
        words = [Word(body, Pos()) for body, _ in literal_words(literals)]
        for word, agent, _ in dangerous_flags(words):
            return agent, word.text, word.text in SANDBOXED
    for added in _ADDED_FLAG.finditer(text):
        flag = added.group("flag")
        owners = _OWNERS.get(flag, frozenset())
        if not owners:
            continue
        named = [m.group("name") for m in _AGENT_WORD.finditer(text)]
        # the first of the flag's own agents the file names, else the first other agent it names
        # (a wrapper passing its own --yolo on as the agent's flag); never a name that is also a
        # common word (``q``, ``pi``, ``amp``)
        agent = next((n for n in named if n in owners), "") or next((n for n in named if n in _UNAMBIGUOUS), "")
        if agent:
            return agent, flag, flag in SANDBOXED
    return None
