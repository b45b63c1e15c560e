"""The pi coding agent (badlogic/pi-mono) in the catalogue (issue 33, ninth round): `--approve`
in scripts (AA008), `Bash(pi:*)` in allow rules (AA004), `pi` as a workflow's agent step (CP004), and the
look-alikes that stay quiet. The catalogue-wide checks of tests/test_agents.py cover its files,
credentials and image word."""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_text


def _rule(name: str, text: str, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(name, text) if f.rule == rule]


@pytest.mark.parametrize(
    "line",
    [
        'pi -p --approve "fix the tests"',
        'pi --approve -p "fix the tests"',
        'npx @mariozechner/pi-coding-agent -p --approve "x"',
        'timeout 600 pi --mode json --approve "x"',
    ],
)
def test_approve_in_a_script_is_aa008(line: str) -> None:
    findings = [f for f in lint_text("run.sh", f"#!/bin/sh\n{line}\n") if f.rule == "AA008"]
    assert [(f.line, f.severity) for f in findings] == [(2, "high")]
    assert "extensions run" in findings[0].message


@pytest.mark.parametrize(
    "line",
    [
        'pi -p "summarise the diff"',  # no flag to read: pi never asks anyway (a listed gap)
        'pi -p --no-approve "x"',
        "gh pr review --approve",
        'claude -p "x" && gh pr review --approve',
        "pi",
        "python -c 'import math; print(math.pi)' --approve",
    ],
)
def test_look_alikes_are_not_aa008(line: str) -> None:
    assert _rule("run.sh", f"#!/bin/sh\n{line}\n", "AA008") == []


def test_allow_rule_for_pi_is_aa004() -> None:
    settings = '{"permissions": {"allow": ["Bash(pi:*)", "Bash(pip:*)", "Bash(pip install:*)", "Bash(git status)"]}}'
    findings = [f for f in lint_text(".claude/settings.json", settings) if f.rule == "AA004"]
    assert len(findings) == 1
    assert "Bash(pi:*)" in findings[0].message and "without asking" in findings[0].message


def test_pi_in_a_workflow_step_is_an_agent_step() -> None:
    text = (
        "on: issue_comment\npermissions: {contents: write}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        '    steps:\n      - run: pi -p "${{ github.event.comment.body }}"\n'
    )
    assert _rule(".github/workflows/pi.yml", text, "CP004") == [(7, "high")]
    for other in ("echo pi", "pi", "pip install pi"):
        quiet = text.replace('pi -p "${{ github.event.comment.body }}"', other)
        assert _rule(".github/workflows/pi.yml", quiet, "CP004") == []
