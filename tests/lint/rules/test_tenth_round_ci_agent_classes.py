"""Issue 33, the tenth development sweep's CI and agent-configuration findings read wrong
(docs/lint.md, "Looked-up agents, unrun snippets and empty files (issue 33, tenth round)").
Each class from fixtures written here, with the look-alikes that stay findings.

1. ``command -v claude`` (``-V``, ``-pv``) looks the CLI up and runs nothing: no agent step for
   CP004/CP005, and no program for any rule reading a command's program.
2. SK001 on a file read as a workflow that GitHub never runs (a shell snippet kept under
   ``.github/workflows/includes/``, a package's nested ``.github/workflows``) is info.
3. An empty (or whitespace-only) file is no parse error: nothing in it goes unchecked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.lint.syntax.shell import parse_commands, program_index
from tests.lint.helpers import agent_job, lint_tree, workflow_findings, write_tree

# ---- 1. a looked-up agent CLI runs no agent -----------------------------------------------------


@pytest.mark.parametrize(
    "lines",
    [
        ("if command -v claude &> /dev/null; then", '  echo "found"', "fi"),
        ("command -V codex",),
        ("command -pv gemini >/dev/null || exit 1",),
        ("if ! command -v claude >/dev/null 2>&1; then npm i -g @anthropic-ai/claude-code; fi",),
        ('echo "Claude CLI: $(claude --version 2>&1 || echo unknown)"',),
        ("sudo command -v claude",),
    ],
)
def test_looking_an_agent_up_runs_no_agent(lines: tuple[str, ...]) -> None:
    text = agent_job(*lines)
    assert workflow_findings(text, "CP005") == []


@pytest.mark.parametrize(
    "lines",
    [
        ('command claude -p "fix the tests" -v',),  # -v after the program is claude's, not command's
        ('command -p claude -p "review"',),  # -p alone: command runs it with the default PATH
        ('command -- claude -p "review"',),
        ("if command -v claude; then", '  claude -p "review the diff"', "fi"),
        ('claude -p "review" --verbose',),
    ],
)
def test_running_an_agent_through_command_stays_a_finding(lines: tuple[str, ...]) -> None:
    found = workflow_findings(agent_job(*lines), "CP005")
    assert len(found) == 1
    assert "pull-requests: write" in found[0][2]


@pytest.mark.parametrize(
    ("line", "program"),
    [
        ("command -v docker", ""),
        ("command -V docker", ""),
        ("command -pV docker", ""),
        ("command -p -v docker", ""),
        ("command docker run -v /:/host x", "docker"),
        ("command -p docker ps", "docker"),
        ("sudo command docker ps", "docker"),
    ],
)
def test_program_of_a_command_builtin(line: str, program: str) -> None:
    words = [word.text for word in parse_commands(line)[0].words]
    index = program_index(words)
    assert (words[index] if index < len(words) else "") == program


# ---- 2. a parse error in a file GitHub never runs as a workflow ---------------------------------

_SNIPPET = 'git_setup() {\n  local name="${GIT_USER_NAME:-bot}"\n  echo name: "$name" email: x\n}\n'


def test_shell_snippet_under_a_workflows_subfolder_is_info(tmp_path: Path) -> None:
    write_tree(tmp_path, {".github/workflows/includes/git-setup.yml": _SNIPPET})
    found = [f for f in lint_tree(tmp_path) if f.rule == "SK001"]
    assert [f.severity for f in found] == ["info"]
    assert "GitHub runs only the workflows in .github/workflows" in found[0].message


def test_package_nested_workflow_parse_error_is_info(tmp_path: Path) -> None:
    write_tree(tmp_path, {"packages/ui/.github/workflows/main.yml": "on: push\njobs: [\n"})
    assert [f.severity for f in lint_tree(tmp_path) if f.rule == "SK001"] == ["info"]


def test_broken_workflow_that_runs_stays_medium(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".github/workflows/ci.yml": _SNIPPET,
            "libs/tool/.git/HEAD": "ref: refs/heads/main\n",
            "libs/tool/.github/workflows/ci.yml": "on: push\njobs: [\n",
        },
    )
    found = sorted(
        (f.path.split(str(tmp_path) + "/", 1)[-1], f.severity) for f in lint_tree(tmp_path) if f.rule == "SK001"
    )
    assert found == [(".github/workflows/ci.yml", "medium"), ("libs/tool/.github/workflows/ci.yml", "medium")]


# ---- 3. an empty file is no parse error ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".vscode/settings.json", ""),
        (".claude/settings.json", "\n  \n"),
        (".mcp.json", "\ufeff\n"),
        (".devcontainer/devcontainer.json", "\t\r\n"),
    ],
)
def test_empty_file_is_no_parse_error(tmp_path: Path, name: str, text: str) -> None:
    write_tree(tmp_path, {name: text})
    assert [f for f in lint_tree(tmp_path) if f.rule == "SK001"] == []


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".vscode/settings.json", "{"),
        (".claude/settings.json", '\n  {"hooks": \n'),
        (".mcp.json", "\ufeff{,}"),
    ],
)
def test_truncated_file_stays_a_parse_error(tmp_path: Path, name: str, text: str) -> None:
    write_tree(tmp_path, {name: text})
    assert [f.rule for f in lint_tree(tmp_path) if f.rule == "SK001"] == ["SK001"]


# ---- AA003's medium says why --------------------------------------------------------------------


def test_named_mcp_servers_say_why_they_are_medium(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".claude/settings.json": '{"enabledMcpjsonServers": ["serena"]}',
            "other/.claude/settings.json": '{"enableAllProjectMcpServers": true}',
        },
    )
    found = sorted((f.severity, f.message) for f in lint_tree(tmp_path) if f.rule == "AA003")
    assert [severity for severity, _ in found] == ["high", "medium"]
    assert "not every server a later .mcp.json adds" in found[1][1]
    assert "the rule's default" not in found[1][1]
