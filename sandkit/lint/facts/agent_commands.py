"""Agent command lines: which agents skip approval, and commands that download code and run it.

Shared by the agent-autorun and agent-mcp rules, the instruction rules and ``sandkit diff``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sandkit.agents import CATALOGUE
from sandkit.lint.syntax.shell import Word

#: Downloading code and running it in one go: ``curl ... | sh``, ``bash <(curl ...)``,
#: ``irm ... | iex``, piping into python/node/perl/ruby, ``eval "$(curl ...)"``.
FETCH_RUN = re.compile(
    r"(?i)\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|;&\n]{0,500}\|\s*"
    r"(?:sudo\s+)?(?:(?:ba|z|da)?sh|python3?|node|perl|ruby|iex|invoke-expression)\b|"
    r"<\(\s*(?:curl|wget)\b|\biex\s*\(\s*(?:\(\s*)?(?:new-object|iwr|irm|invoke-)|"
    r"\beval\s+\"?\$\(\s*(?:curl|wget)\b"
)
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
            yield word, agent, ALWAYS[flag]
        elif flag in VALUED:
            value = value if eq else (words[index + 1].text if index + 1 < len(words) else "")
            if value in VALUED[flag]:
                yield word, agent, f"{flag} {value} {VALUED[flag][value]}"
        elif text in _YES_FLAGS.get(agent, ()):
            yield word, agent, "approves every tool call"
