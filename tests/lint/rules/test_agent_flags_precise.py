"""Agent settings read precisely (issue 22): which Codex flags leave its sandbox, and Gemini's
allowed tools and tool commands rather than autoAccept alone."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_text

GEMINI = ".gemini/settings.json"


@pytest.mark.parametrize(
    ("line", "severity", "says"),
    [
        ("codex --dangerously-bypass-approvals-and-sandbox exec x", "high", "bypasses approvals and the sandbox"),
        ("codex --yolo exec x", "high", "bypasses approvals and the sandbox"),
        ("codex exec --sandbox danger-full-access x", "high", "turns the agent's sandbox off"),
        ("codex --full-auto exec x", "low", "inside its workspace sandbox"),
        ("gemini --yolo -p x", "high", "approves every tool call"),
    ],
)
def test_codex_flags_that_leave_the_sandbox_are_high_and_full_auto_is_low(line: str, severity: str, says: str) -> None:
    findings = lint_text("run.sh", f"#!/bin/sh\n{line}\n", select=("AA008",))
    assert [(f.severity, says in f.message) for f in findings] == [(severity, True)]


def test_gemini_allowed_tools_that_run_any_shell_command() -> None:
    text = '{\n  "tools": {\n    "allowed": ["run_shell_command", "run_shell_command(git status)", "read_file"]\n  }\n}'
    findings = lint_text(GEMINI, text)
    assert at(findings, "AA007") == [(3, 17)]
    assert findings[0].severity == "high" and "any shell command" in findings[0].message
    legacy = '{"allowedTools": ["ShellTool(*)"]}'
    assert at(lint_text(GEMINI, legacy), "AA007") == [(1, 19)]


def test_gemini_prefixed_shell_tools_are_no_finding() -> None:
    text = '{"tools": {"allowed": ["run_shell_command(npm test)", "run_shell_command(git diff)"], "core": ["x"]}}'
    assert at(lint_text(GEMINI, text), "AA007") == []


def test_gemini_discovery_and_call_commands_run_by_themselves() -> None:
    text = '{\n  "tools": {"discoveryCommand": "bin/list-tools", "callCommand": "bin/call"},\n  "toolDiscoveryCommand": "./d.sh"\n}'
    findings = lint_text(GEMINI, text, select=("AA002",))
    assert at(findings, "AA002") == [(2, 33), (2, 66), (3, 27)]
    assert "bin/list-tools" in findings[0].message
    assert at(lint_text(GEMINI, '{"tools": {"discoveryCommand": ""}}'), "AA002") == []
