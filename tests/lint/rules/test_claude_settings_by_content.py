"""Claude Code settings kept outside a `.claude/` folder (issue 33, seventh set's misses): a
repository of a user's `~/.claude` keeps `settings.json` at its top or under a folder of its own,
and an install script links it into place. Its content, not its path, says whose settings it is."""

from __future__ import annotations

import json

import pytest

from sandkit.lint.model import Finding
from tests.lint.helpers import lint_files, lint_text

_HOOKS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash guard.sh"}]}]}}
_BYPASS = {"permissions": {"defaultMode": "bypassPermissions"}}
_ALLOW = {"permissions": {"allow": ["Read", "Bash(python:*)"]}}
_SCHEMA = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "statusLine": {"type": "command", "command": "status.sh"},
}


def _rules(findings: list[Finding]) -> list[tuple[str, int]]:
    return sorted((f.rule, f.line) for f in findings if f.rule.startswith("AA"))


@pytest.mark.parametrize(
    ("path", "settings", "rule"),
    [
        ("settings.json", _HOOKS, "AA001"),  # the repository is ~/.claude itself
        ("user/settings.json", _BYPASS, "AA004"),  # a folder the installer links to ~/.claude
        ("claude/settings.local.json", _ALLOW, "AA004"),
        ("dotfiles/claude/settings.json", _SCHEMA, "AA002"),  # its schema names it
        ("home/.claude/settings.json", _HOOKS, "AA001"),  # by its path, as before
    ],
)
def test_claude_settings_are_read_wherever_they_are_kept(path: str, settings: dict[str, object], rule: str) -> None:
    found = _rules(lint_text(path, json.dumps(settings, indent=2)))
    assert rule in {r for r, _ in found}, found


@pytest.mark.parametrize(
    ("path", "settings"),
    [
        # an application's own settings: permissions and hooks of its own making
        ("config/settings.json", {"permissions": {"admin": ["read", "write"]}, "hooks": {"onSave": "lint.sh"}}),
        ("settings.json", {"editor.formatOnSave": True, "terminal.integrated.shell.linux": "/bin/bash"}),
        # another agent's settings by its path stay that agent's, whatever they hold
        (".vscode/settings.json", _HOOKS),
        (".gemini/settings.json", _HOOKS),
        # the markers in a file of another name
        ("config/claude.json", _HOOKS),
    ],
)
def test_other_settings_files_are_not_read_as_claude_settings(path: str, settings: dict[str, object]) -> None:
    assert _rules(lint_text(path, json.dumps(settings, indent=2))) == []


def test_the_same_repository_reads_both_places_once_each() -> None:
    """A repository with the user's settings at its top and a project's `.claude/` below: each
    file is read once, as Claude Code settings."""
    files = {
        "settings.json": json.dumps(_HOOKS, indent=2),
        "project/.claude/settings.json": json.dumps(_HOOKS, indent=2),
    }
    found = [f for f in lint_files(files) if f.rule == "AA001"]
    assert sorted(f.path for f in found) == ["project/.claude/settings.json", "settings.json"]
