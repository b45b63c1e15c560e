"""Agent command lines: which agents skip approval, and commands that download code and run it.

Shared by the agent-autorun and agent-mcp rules, the instruction rules and ``sandkit diff``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sandkit.lint.syntax.shell import Word

#: Downloading code and running it in one go: ``curl ... | sh``, ``bash <(curl ...)``,
#: ``irm ... | iex``, piping into python/node/perl/ruby, ``eval "$(curl ...)"``.
FETCH_RUN = re.compile(
    r"(?i)\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|;&\n]{0,500}\|\s*"
    r"(?:sudo\s+)?(?:(?:ba|z|da)?sh|python3?|node|perl|ruby|iex|invoke-expression)\b|"
    r"<\(\s*(?:curl|wget)\b|\biex\s*\(\s*(?:\(\s*)?(?:new-object|iwr|irm|invoke-)|"
    r"\beval\s+\"?\$\(\s*(?:curl|wget)\b"
)
_AGENTS = frozenset(
    {
        "claude",
        "codex",
        "gemini",
        "aider",
        "cursor-agent",
        "copilot",
        "goose",
        "opencode",
        "amp",
        "qwen",
        "q",
        "agy",
        "crush",
        "cline",
        "kiro",
        "kiro-cli",
        "openhands",
        "auggie",
        "@anthropic-ai/claude-code",
        "@openai/codex",
        "@google/gemini-cli",
        "@github/copilot",
        "aider-chat",
        "@sourcegraph/amp",
        "opencode-ai",
    }
)
# Flags that turn approval (or the agent's own sandbox) off, by themselves.
_ALWAYS = {
    "--dangerously-skip-permissions": "skips every permission prompt",
    "--dangerously-bypass-approvals-and-sandbox": "bypasses approvals and the sandbox",
    "--yolo": "approves every tool call",
    "--full-auto": "runs commands without approval",
    "--yes-always": "answers yes to every confirmation",
    "--allow-all-tools": "allows every tool without asking",
    "--trust-all-tools": "trusts every tool",
    "--dangerously-allow-all": "allows everything",
}
# Flags whose value decides: flag -> {dangerous value: what it does}.
_VALUED = {
    "--permission-mode": {"bypassPermissions": "bypasses permission checks"},
    "--approval-mode": {"yolo": "approves every tool call"},
    "--sandbox": {"danger-full-access": "turns the agent's sandbox off"},
    "-s": {"danger-full-access": "turns the agent's sandbox off"},
    "--ask-for-approval": {"never": "never asks for approval"},
    "-a": {"never": "never asks for approval"},
}
_SHORT_YES = {"gemini": "-y", "qwen": "-y", "cursor-agent": "-f"}


def dangerous_flags(words: list[Word]) -> Iterator[tuple[Word, str, str]]:
    """(word, agent, what it does) for approval-skipping flags of an agent command line."""
    agent = ""
    for index, word in enumerate(words):
        text = word.text
        base = text.rsplit("/", 1)[-1].split("@", 1)[0] if not text.startswith("@") else "@" + text[1:].split("@", 1)[0]
        if not agent:
            if base in _AGENTS and (base != "q" or index + 1 < len(words)):
                agent = base
            continue
        if text in ("&&", "||", ";"):
            agent = ""
            continue
        flag, eq, value = text.partition("=")
        if flag in _ALWAYS:
            yield word, agent, _ALWAYS[flag]
        elif flag in _VALUED:
            value = value if eq else (words[index + 1].text if index + 1 < len(words) else "")
            if value in _VALUED[flag]:
                yield word, agent, f"{flag} {value} {_VALUED[flag][value]}"
        elif _SHORT_YES.get(agent) == text:
            yield word, agent, "approves every tool call"
