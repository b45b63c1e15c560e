"""Agent command lines: which agents skip approval, and commands that download code and run it or
send secrets out.

Shared by the agent-autorun and agent-mcp rules, the instruction rules and ``sandkit diff``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sandkit.agents import CATALOGUE
from sandkit.lazy_regex import AnyPattern, case_folded, lazy
from sandkit.lint.syntax.shell import Word

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


def dangerous_flags(words: list[Word]) -> Iterator[tuple[Word, str, str]]:
    """(word, agent, what it does) for approval-skipping flags of an agent command line."""
    agent = ""
    for index, word in enumerate(words):
        text = word.text
        base = text.rsplit("/", 1)[-1].split("@", 1)[0] if not text.startswith("@") else "@" + text[1:].split("@", 1)[0]
        if not agent:
            if base in AGENT_NAMES and (base not in _NEEDS_ARGUMENTS or index + 1 < len(words)):
                agent = base
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
