"""Agent command lines: which agents skip approval, and commands that download code and run it or
send secrets out.

Shared by the agent-autorun and agent-mcp rules, the instruction rules and ``sandkit diff``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from sandkit.agents import CATALOGUE
from sandkit.lazy_regex import AnyPattern, case_folded, lazy
from sandkit.lint.syntax.shell import Word
from sandkit.lint.syntax.tree import Pos

#: Downloading code and running it in one go: ``curl ... | sh``, ``bash <(curl ...)``,
#: ``irm ... | iex``, piping into python/node/perl/ruby, ``eval "$(curl ...)"``,
#: ``bash -c "$(curl ...)"`` (and python/node/perl given the download as their program).
FETCH_RUN = lazy(
    r"(?i)\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|;&\n]{0,500}\|\s*"
    r"(?:sudo\s+)?(?:(?:ba|z|da)?sh\b|(?:python3?|node|perl|ruby)\b(?!\s+-[a-z]*[cemn]\b)|(?:iex|invoke-expression)\b)|"
    r"(?:(?:ba|z|da)?sh|source|\.)\s+<\(\s*(?:curl|wget)\b|\biex\s*\(\s*(?:\(\s*)?(?:new-object|iwr|irm|invoke-)|"
    r"\beval\s+\"?\$\(\s*(?:curl|wget)\b|"
    r"\b(?:(?:ba|z|da)?sh|python3?|node|perl|ruby)\s+-(?:c|e)\s+[\"']?\$\(\s*(?:curl|wget)\b"
)
#: Words (lower-case) one of which every match of FETCH_RUN holds: a cheap test before it.
FETCH_WORDS = ("curl", "wget", "iwr", "irm", "invoke-", "new-object")
#: Downloading a file and running it in the same line: ``curl -o x URL && sh x``, ``wget -O x
#: URL; chmod +x x && ./x``.
DOWNLOAD_THEN_RUN = lazy(
    r"(?i)\b(?:curl|wget)\b[^\n;&|]{0,300}?\s(?:-o|-O|--output(?:-document)?)[ =]\S+[^\n]{0,300}?(?:&&|;)\s*"
    r"(?:chmod\s+\+?[0-7x]+\s+\S+\s*(?:&&|;)\s*)?(?:sudo\s+)?(?:(?:ba|z|da)?sh\s|python3?\s|node\s|\./|/tmp/)"
)
#: Sending the environment or a credential file somewhere: a network client given data (``curl
#: -d``, ``--data-binary @``, ``-F``, ``-T``, ``wget --post-data``, ``Invoke-WebRequest -Body``)
#: made of ``env``/``printenv``, /proc/self/environ, .env, SSH, cloud or package-manager
#: credentials, or a token-named variable; or such a source piped into curl, wget or nc.
SEND_SECRETS = lazy(
    r"(?i)\b(?:curl|wget|nc|ncat|netcat|invoke-webrequest|invoke-restmethod|iwr|irm)\b[^\n]{0,300}?"
    r"(?:\s-d|\s--data(?:-\w+)?|\s-F|\s--form|\s-T|\s--upload-file|\s--post-(?:data|file)|\s-Body)\b"
    r"[^\n]{0,300}?(?:\$\(\s*(?:env|printenv|set)\b|\benv\s*\)|/proc/self/environ|@?[\w./~-]*\.env\b|"
    r"\.ssh/|\.aws/|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.docker/config\.json|"
    r"\$\{?\w*(?:TOKEN|SECRET|PASSWORD|API_KEY|ACCESS_KEY)\w*)|"
    r"(?:\b(?:env|printenv)\b|/proc/self/environ|\bcat\s+[^\n|]{0,200}?(?:\.env\b|\.ssh/|\.aws/|\.netrc|"
    r"\.git-credentials))[^\n|]{0,100}\|\s*(?:base64\s*\|\s*)?(?:curl|wget|nc|ncat|netcat)\b"
)
#: Every match of SEND_SECRETS holds one of these, as a whole word (see :func:`matches_by_line`).
SEND_SECRETS_WORDS = ("curl", "wget", "nc", "ncat", "netcat", "invoke-webrequest", "invoke-restmethod", "iwr", "irm")
#: How much of one line the patterns above read: they backtrack over a line (a planted line of
#: 80,000 ``curl`` words took seconds), and a real command is far shorter.
LINE_LIMIT = 1000


def matches_by_line(pattern: AnyPattern, text: str, words: tuple[str, ...] = ()) -> Iterator[re.Match[str]]:
    """The first match of ``pattern`` in each line of ``text``, read up to :data:`LINE_LIMIT`
    characters a line (offsets are of ``text``).

    Every match of ``pattern`` holds one of ``words`` (lower-case, matched case-insensitively as
    whole words, within the match's line): only the lines holding one are searched. The patterns
    read here start with a case-insensitive alternation, which the regex engine tries at every
    character of every line (an instruction collection spent half its time there); the words are
    found with ``str.find``.
    """
    held = _lines_holding(text, words) if words else None
    for start in _line_starts(text) if held is None else held:
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        match = pattern.search(text, start, min(end, start + LINE_LIMIT))
        if match is not None:
            yield match


def _line_starts(text: str) -> Iterator[int]:
    """Where each line of ``text`` starts, found as they are asked for (a caller may stop at the
    first match)."""
    yield 0
    at = text.find("\n")
    while at >= 0:
        yield at + 1
        at = text.find("\n", at + 1)


def _lines_holding(text: str, words: tuple[str, ...]) -> list[int] | None:
    """The starts of the lines holding one of ``words`` as a whole word, in any case; None when
    lower-casing changes the text's length (a few letters fold to two characters), or when
    looking costs more than searching every line would: more than ``_LOOKS`` occurrences to
    look at (a planted "ncncnc..." has a million), or words on more than a quarter of the lines
    (and more than 64)."""
    folded = case_folded(text)
    if len(folded) != len(text):
        return None
    starts: set[int] = set()
    most = max(64, (text.count("\n") + 1) // 4)
    looks = _LOOKS
    for word in words:
        at = folded.find(word)
        while at >= 0:
            looks -= 1
            if looks < 0 or len(starts) > most:
                return None
            end = at + len(word)
            if _word_edge(folded, at - 1) and _word_edge(folded, end):
                starts.add(folded.rfind("\n", 0, at) + 1)
                line_end = folded.find("\n", end)
                at = folded.find(word, line_end + 1) if line_end >= 0 else -1
            else:
                at = folded.find(word, at + 1)
    return sorted(starts)


_LOOKS = 20_000  # occurrences of the words _lines_holding looks at before it searches every line


def _word_edge(text: str, index: int) -> bool:
    """Whether ``\\b`` can hold next to ``text[index]``: outside the text or not a word character."""
    return not 0 <= index < len(text) or not (text[index].isalnum() or text[index] == "_")


# Built from the agent catalogue (sandkit/agents.py). A flag of any agent counts on any agent's
# command line (wrappers pass flags through); the short yes-flags only count for their own agent.
AGENT_NAMES = frozenset(name for agent in CATALOGUE for name in agent.names)
_NEEDS_ARGUMENTS = frozenset(name for agent in CATALOGUE for name in agent.needs_arguments)
#: Flags that turn approval (or the agent's own sandbox) off by themselves: flag -> what it does.
ALWAYS = {
    spelling: flag.does
    for agent in CATALOGUE
    for flag in agent.approval_flags
    if not flag.values
    for spelling in flag.spellings
}
#: Flags whose value decides: flag -> {dangerous value: what it does}.
VALUED = {
    spelling: flag.values
    for agent in CATALOGUE
    for flag in agent.approval_flags
    if flag.values
    for spelling in flag.spellings
}
_YES_FLAGS = {name: agent.yes_flags for agent in CATALOGUE for name in agent.names if agent.yes_flags}
#: An agent's own reading of a flag another agent spells the same way (Codex's ``--yolo`` also
#: leaves its sandbox; Gemini's only stops asking): name -> flag -> what it does.
_OWN = {
    name: {spelling: flag.does for flag in agent.approval_flags if not flag.values for spelling in flag.spellings}
    for agent in CATALOGUE
    for name in agent.names
}
#: Flags that stop the prompts but keep the agent's own sandbox.
SANDBOXED = frozenset(
    s for agent in CATALOGUE for flag in agent.approval_flags if flag.sandboxed for s in flag.spellings
)


def _starts_agent(words: list[Word], index: int) -> str:
    """The agent's command or package name when ``words[index]`` starts one (a path or a version
    after ``@`` dropped: ``/usr/bin/claude``, ``@openai/codex@latest``), else ""; a name that is
    also a common word counts only with arguments after it."""
    text = words[index].text
    base = text.rsplit("/", 1)[-1].split("@", 1)[0] if not text.startswith("@") else "@" + text[1:].split("@", 1)[0]
    if base in AGENT_NAMES and (base not in _NEEDS_ARGUMENTS or index + 1 < len(words)):
        return base
    return ""


def dangerous_flags(words: list[Word]) -> Iterator[tuple[Word, str, str]]:
    """(word, agent, what it does) for approval-skipping flags of an agent command line."""
    agent = ""
    for index, word in enumerate(words):
        text = word.text
        if not agent:
            agent = _starts_agent(words, index)
            continue
        if text in ("&&", "||", ";"):
            agent = ""
            continue
        flag, eq, value = text.partition("=")
        if flag in ALWAYS:
            yield word, agent, _OWN.get(agent, {}).get(flag) or ALWAYS[flag]
        elif flag in VALUED:
            value = value if eq else (words[index + 1].text if index + 1 < len(words) else "")
            if value in VALUED[flag]:
                yield word, agent, f"{flag} {value} {VALUED[flag][value]}"
        elif text in _YES_FLAGS.get(agent, ()):
            yield word, agent, "approves every tool call"


#: Flags that approve the permission rules they list for that run: flag -> the agents that take it.
ALLOW_FLAGS = frozenset(spelling for agent in CATALOGUE for spelling in agent.allow_flags)
_ALLOW_FLAGS_OF = {name: frozenset(agent.allow_flags) for agent in CATALOGUE for name in agent.names}
#: The catalogue's name of the agent each command or package starts.
AGENT_OF = {name: agent.name for agent in CATALOGUE for name in agent.names}
#: Where one value of an allow flag splits into rules: commas and blanks, not inside ``Bash(...)``.
_RULE_SEPARATOR = lazy(r"[,\s]+(?![^(]*\))")


class AllowedTools(NamedTuple):
    """One allow flag of an agent command line (``--allowedTools "Bash,Read"``): the flag's word,
    the agent, and each rule it lists with the word that holds it; and the line's
    ``--permission-mode`` value, if any (it decides whether the agent writes without asking)."""

    flag: Word
    agent: str
    rules: list[tuple[str, Word]]
    mode: str


def allowed_tools(words: list[Word]) -> Iterator[AllowedTools]:
    """The allow flags of each agent command line in ``words``, with the rules their values list.

    The value is the word after the flag, or what follows ``=`` (``--allowedTools=Bash``), and the
    words after it up to the next option (the flag takes several: ``--allowedTools Bash Read``);
    each splits at commas and blanks outside parentheses. Only the flags of the agent the line
    starts count (Claude Code's ``--allowedTools``); ``--disallowedTools`` refuses, and is not read.
    """
    agent, mode = "", ""
    found: list[tuple[Word, str, list[tuple[str, Word]]]] = []
    for index, word in enumerate(words):
        text = word.text
        if not agent:
            agent = _starts_agent(words, index)
            continue
        if text in ("&&", "||", ";"):
            yield from (AllowedTools(f, a, r, mode) for f, a, r in found)
            agent, mode, found = "", "", []
            continue
        flag, eq, value = text.partition("=")
        if flag == "--permission-mode":
            mode = value if eq else (words[index + 1].text if index + 1 < len(words) else "")
        if flag not in _ALLOW_FLAGS_OF.get(agent, ()):
            continue
        values = [Word(value, Pos(word.pos.line, word.pos.column + len(flag) + 1))] if eq else []
        if not eq:
            for after in words[index + 1 :]:
                if after.text.startswith("-") or after.text in ("&&", "||", ";"):
                    break
                values.append(after)
        rules = [(part, held) for held in values for part in _RULE_SEPARATOR.split(held.text.strip()) if part]
        if rules:
            found.append((word, agent, rules))
    yield from (AllowedTools(f, a, r, mode) for f, a, r in found)


# ----- agent command lines in program source ----------------------------------------------------
#: Program source that may start an agent CLI as a child process (``spawn``, ``execa``,
#: ``subprocess.run``, ``exec.Command``, ``ProcessBuilder``): read for approval-skipping flags.
PROGRAM_SOURCE = (
    *(".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"),
    *(".py", ".go", ".rb", ".java", ".kt", ".cs", ".php"),
)
#: The distinctive spellings a file must hold before it is searched: long flags and dangerous
#: values (``never``, ``yolo`` and the short flags alone are everywhere in code).
SOURCE_HINTS = tuple(
    sorted(
        {s for s in ALWAYS if s.startswith("--")}
        | {s for s, values in VALUED.items() if s.startswith("--") and any(len(v) <= 6 for v in values)}
        | {v for values in VALUED.values() for v in values if len(v) > 6}
    )
)
#: A quoted string on one line, or a JavaScript template literal (which may span lines).
_LITERAL = lazy(r"""`(?P<t>(?:\\[\s\S]|[^\\`])*)`|(?P<q>["'])(?P<s>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)""")
#: How far a call or array around a flag is looked for, each way.
_REACH = 3000
_MAX_HINTS = 50
_OPENERS, _CLOSERS = "([{", ")]}"


def holds_source_hint(text: str) -> bool:
    """Whether program source holds a spelling of :data:`SOURCE_HINTS` (a dozen substring tests:
    about 0.2 ms on 8 KB of code, once per file)."""
    return any(hint in text for hint in SOURCE_HINTS)


def source_agent_calls(text: str, *, started_only: bool = False) -> Iterator[list[tuple[str, int]]]:
    """The string literals (text, offset) of each call or array in program source that holds an
    approval-skipping flag and names an agent CLI in a literal of its own: a ``spawn`` or ``execa``
    call given the agent's name and an array of flags, a ``subprocess.run`` list, an ``execSync``
    command line, a Go ``exec.Command`` or ``[]string{...}``.

    Bounded: only files holding a :data:`SOURCE_HINTS` spelling are searched, at most
    :data:`_MAX_HINTS` places, each in the innermost ``(...)`` or ``[...]`` around the flag and
    the one around that, within :data:`_REACH` characters and not past a ``{``, ``}`` or ``;``.
    A flag kept in a variable or a list built elsewhere (``spawn(bin, args)``) is not read.

    With ``started_only`` (for tests, whose string literals are often input data: a command line
    a hook under test must refuse), only a group that is, or sits in, the arguments of a call that
    starts a process (:data:`_STARTS_PROCESS`) is yielded: ``subprocess.run([...])``, ``spawn(...)``,
    ``exec.Command(...)``, not a tuple of inputs or ``json.dumps(...)``."""
    if not holds_source_hint(text):
        return
    seen: set[int] = set()
    places = 0
    for hint in SOURCE_HINTS:
        at = text.find(hint)
        while at >= 0 and places < _MAX_HINTS:
            places += 1
            groups = [] if _in_prose(text, at) else _groups_around(text, at)
            if started_only and not any(_starts_process(text, start) for start, _ in groups):
                groups = []
            for start, end in groups:
                literals = [_literal(m) for m in _LITERAL.finditer(text, start, end)]
                if start not in seen and any(_names_agent(body) for body, _ in literals):
                    seen.add(start)
                    yield literals
                    break
            at = text.find(hint, at + len(hint))


#: Words of a call's name that start a process, in the languages read (Python's subprocess and
#: os.exec*, Node's child_process and execa, Go's exec.Command, Java's ProcessBuilder and
#: Runtime.exec, C#'s Process.Start, Ruby's system and Open3.capture3, PHP's shell_exec), and the
#: words test helpers are named with for running one (``run_cli``, ``invokeAgent``).
_PROCESS_WORDS = frozenset(
    [
        "spawn",
        "exec",
        "execa",
        "execv",
        "execve",
        "execvp",
        "execvpe",
        "execl",
        "execle",
        "execlp",
        "execlpe",
        "popen",
        "run",
        "call",
        "system",
        "command",
        "start",
        "fork",
        "process",
        "capture",
        "passthru",
        "invoke",
    ]
)
_PROCESS_CALLS = frozenset(("check_output", "getoutput", "getstatusoutput", "proc_open"))
_CALLEE = lazy(r"[\w$]+$")
_NAME_WORD = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _starts_process(text: str, opener: int) -> bool:
    """Whether the ``(`` at ``opener`` opens the arguments of a call whose name has a word of
    :data:`_PROCESS_WORDS` (``subprocess.run(``, ``new ProcessBuilder(``, ``execSync(``); a ``[``
    or ``{``, or a ``(`` after ``=`` or ``,`` (a tuple), is a literal, not a call, and
    ``startswith(`` or ``truncate(`` is not named for running."""
    if text[opener] != "(":
        return False
    callee = _CALLEE.search(text, max(0, opener - 80), opener)
    if callee is None:
        return False
    name = callee.group()
    if name.lower() in _PROCESS_CALLS:
        return True
    return any(word.lower() in _PROCESS_WORDS for word in _NAME_WORD.findall(name))


def _literal(match: re.Match[str]) -> tuple[str, int]:
    group = "t" if match.group("t") is not None else "s"
    return match.group(group), match.start(group)


_COMMENT_LINE = lazy(r"[ \t]*(?:#|//|/?\*)")


def _in_prose(text: str, at: int) -> bool:
    """A comment line (``#``, ``//``, ``*`` of a block comment) or a Python docstring (an odd
    number of triple quotes before it): an example in documentation, not a call."""
    line_start = text.rfind("\n", 0, at) + 1
    if _COMMENT_LINE.match(text, line_start):
        return True
    return (text.count('"""', 0, at) + text.count("'''", 0, at)) % 2 == 1


def _names_agent(literal: str) -> bool:
    """A literal that is an agent's command (``claude``, ``/usr/local/bin/codex``,
    ``@anthropic-ai/claude-code``) or a command line starting with one (``claude -p x``)."""
    first = literal.strip().split(" ", 1)[0]
    if first.startswith("@"):  # a scoped package, with or without its version
        return (first.rsplit("@", 1)[0] if first.count("@") > 1 else first) in AGENT_NAMES
    return first.rsplit("/", 1)[-1].split("@", 1)[0] in AGENT_NAMES


def _groups_around(text: str, at: int) -> list[tuple[int, int]]:
    """The innermost bracketed group holding offset ``at`` and its parent, as (start, end): a
    call's arguments, an array or list, a composite literal written against its type
    (``[]string{...}``); never past a block's ``{`` or a ``;`` between statements."""
    groups: list[tuple[int, int]] = []
    low = max(0, at - _REACH)
    depth, index = 0, at - 1
    while index >= low and len(groups) < 2:
        ch = text[index]
        if ch in _CLOSERS:
            depth += 1
        elif ch in _OPENERS and depth:
            depth -= 1
        elif ch in _OPENERS:
            if ch == "{" and not _composite(text, index):
                break
            end = _closing(text, index)
            if end < 0:
                break
            groups.append((index, end))
        elif ch == ";" and not depth:
            break
        index -= 1
    return groups


def _composite(text: str, brace: int) -> bool:
    """A ``{`` written right against a type (``[]string{``, ``new String[]{``), which opens a
    literal; one after a space or a ``)`` opens a block (``func f() {``, ``if x {``)."""
    before = text[brace - 1] if brace > 0 else ""
    return before == "]" or before.isalnum() or before == "_"


def _closing(text: str, opening: int) -> int:
    """Where the group opened at ``opening`` closes (bounded by :data:`_REACH`), or -1."""
    depth, high = 0, min(len(text), opening + 2 * _REACH)
    for index in range(opening, high):
        ch = text[index]
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
            if not depth:
                return index + 1
    return -1


def literal_words(literals: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The words of string literals (a command line in one literal is split at spaces), each with
    its offset in the source."""
    words = []
    for body, offset in literals:
        for match in re.finditer(r"\S+", body):
            words.append((match.group(), offset + match.start()))
    return words
