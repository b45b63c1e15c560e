"""AA004 on an agent's command line (issue 33): ``claude --allowedTools "Bash"`` in a script,
a Makefile, a workflow's ``run:``, a Dockerfile or a package.json script approves commands for
that run as a settings allow rule does, and is graded the same way."""

from __future__ import annotations

import json

import pytest

from tests.lint.helpers import lint_text


def _aa004(path: str, text: str) -> list[tuple[int, int, str, str]]:
    return [(f.line, f.column, f.severity, f.message) for f in lint_text(path, text) if f.rule == "AA004"]


@pytest.mark.parametrize(
    "line, shown",
    [
        ('claude -p "fix the tests" --allowedTools "Bash"', "'Bash' approves every command"),
        ("claude -p x --allowedTools Bash", "'Bash' approves every command"),
        ("claude -p x --allowedTools=Bash", "'Bash' approves every command"),
        ("claude -p x --allowed-tools Read,Bash", "'Bash' approves every command"),
        ("claude -p x --allowedTools 'Bash(*)'", "'Bash(*)' approves every command"),
        ('claude -p x --allowedTools "Read" "Bash(git:*)"', "approves git with any argument"),
        ('npx @anthropic-ai/claude-code -p x --allowedTools "Bash(npm:*) Edit"', "approves npm with any"),
    ],
)
def test_allow_flags_in_a_shell_script(line: str, shown: str) -> None:
    found = _aa004("scripts/agent.sh", f"#!/bin/sh\n{line}\n")
    assert len(found) == 1
    assert found[0][0] == 2 and found[0][2] == "high"
    assert found[0][3].startswith("command line's --allow") and shown in found[0][3]


def test_one_finding_per_flag_at_its_value() -> None:
    found = _aa004("run.sh", 'claude -p x --allowedTools "Bash,Bash(git:*)" --allowedTools "Bash(npx:*)"\n')
    assert [(line, column) for line, column, _, _ in found] == [(1, 28), (1, 62)]
    assert "'Bash' approves every command of that tool without asking, and git" in found[0][3]


def test_in_a_makefile_recipe_and_a_workflow_run() -> None:
    makefile = "agent:\n\tclaude -p 'review' --allowedTools Bash\n"
    assert len(_aa004("Makefile", makefile)) == 1
    workflow = (
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: claude -p 'go' --allowedTools \"Bash(*)\" --max-turns 5\n"
    )
    found = _aa004(".github/workflows/agent.yml", workflow)
    assert len(found) == 1 and found[0][2] == "high"


def test_in_a_container_one_step_lower() -> None:
    found = _aa004("Dockerfile", 'FROM node:22\nCMD ["claude", "-p", "x", "--allowedTools", "Bash"]\n')
    assert len(found) == 1 and found[0][2] == "medium"


def test_in_a_package_json_script() -> None:
    package = json.dumps({"scripts": {"agent": "claude -p review --allowedTools Bash"}})
    assert len(_aa004("package.json", package)) == 1


@pytest.mark.parametrize(
    "script, count",
    [
        ('TOOLS="Bash(npx:*),Read"\nclaude -p x --allowedTools "$TOOLS"\n', 1),
        ('TOOLS="Bash"\nclaude -p x --allowedTools $TOOLS\n', 1),
        ('TOOLS="Bash(npm test:*)"\nclaude -p x --allowedTools "$TOOLS"\n', 0),
        ('claude -p x --allowedTools "$TOOLS"\n', 0),
    ],
)
def test_a_value_kept_in_a_variable(script: str, count: int) -> None:
    assert len(_aa004("run.sh", script)) == count


@pytest.mark.parametrize(
    "line",
    [
        "claude -p x --disallowedTools Bash",
        'claude -p x --allowedTools "Read,Grep"',
        'claude -p x --allowedTools "Bash(npm test:*)"',
        'claude -p x --allowedTools "Bash(git status:*)" "Bash(npm run:*)"',
        'echo "claude -p x --allowedTools Bash"',
        "codex exec --allowedTools Bash",  # not Codex's flag
    ],
)
def test_not_a_grant(line: str) -> None:
    assert _aa004("run.sh", f"{line}\n") == []


@pytest.mark.parametrize(
    "line",
    [
        "claude -p x --dangerously-skip-permissions --allowedTools Bash",
        'claude --print --permission-mode bypassPermissions \\\n  --allowedTools "Bash,Read,Glob"',
    ],
)
def test_a_line_that_skips_approval_is_aa008s_one_finding(line: str) -> None:
    findings = lint_text("run.sh", f"{line}\n")
    assert sorted(f.rule for f in findings if f.rule in ("AA004", "AA008")) == ["AA008"]


def test_other_permission_modes_keep_the_allow_list() -> None:
    findings = lint_text("run.sh", "claude -p x --permission-mode acceptEdits --allowedTools Bash\n")
    assert sorted(f.rule for f in findings if f.rule in ("AA004", "AA008")) == ["AA004"]


def test_settings_allow_rules_still_read() -> None:
    settings = json.dumps({"permissions": {"allow": ["Bash"]}})
    found = _aa004(".claude/settings.json", settings)
    assert len(found) == 1 and found[0][3].startswith("allow rule 'Bash'")


@pytest.mark.parametrize(
    "line, count",
    [
        ('gemini -p x --allowed-tools "run_shell_command"', 1),
        ("gemini -p x --allowed-tools read_file,ShellTool", 1),
        ('gemini -p x --allowed-tools "ShellTool(git status)"', 0),
        ('gemini -p x --allowed-tools "run_shell_command(npm test)"', 0),
        ("gemini -p x --allowed-tools Bash", 0),  # not a Gemini tool
        ("gemini -p x --allowedTools run_shell_command", 0),  # not Gemini's spelling
    ],
)
def test_gemini_allowed_tools(line: str, count: int) -> None:
    assert len(_aa004("run.sh", f"{line}\n")) == count


@pytest.mark.parametrize(
    "script, words",
    [
        ('T="Bash(npm test:*)"\nclaude "$T"\n', [("Bash(npm", 4), ("test:*)", 13)]),
        ('A="a(b) c(d)"\necho $A\n', [("a(b)", 4), ("c(d)", 9)]),
        ('P="foo\\(bar"\necho $P\n', [("foo(bar", 4)]),
        ('H="$(date) x"\necho $H\n', [("$(date)", 4), ("x", 12)]),
    ],
)
def test_a_variable_keeps_its_parentheses_when_expanded(script: str, words: list[tuple[str, int]]) -> None:
    from sandkit.lint.syntax.shell import parse_commands

    used = parse_commands(script, expand=True)[1].words[1:]
    assert [(w.text, w.pos.column) for w in used] == words
