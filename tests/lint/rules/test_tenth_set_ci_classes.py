"""Issue 33, the classes the tenth held-out set showed in the CI rules (docs/lint.md, "The tenth
set's CI classes (issue 33, after the tenth set)"), each from fixtures written here with the
look-alikes that stay findings.

1. ``git config --file PATH`` (``-f``, ``--file=``) writes PATH, not the checkout's .git/config: the
   message names PATH and it is placed by its path; a file removed before anything else can read it
   is graded by the steps before its removal.
2. A variable derived from secrets (``IMAGE_NAME: ${{ secrets.DOCKER_USERNAME }}/app``) carries the
   grade of what it holds: identifiers only, info; any credential, as before.
3. An agent CLI's setup subcommands (``codex login``, ``claude auth``, ``claude mcp list``, ``gemini
   mcp list``, any ``--help``) run no agent: no CP005 (nor CP004) for them.
4. CP002 says how many jobs its message leaves out; a job (or agent step) whose ``if:`` is always
   false never runs and is reported by no CP/CS rule.
"""

from __future__ import annotations

import pytest

from tests.lint.helpers import workflow_findings


def _agent_job(*lines: str) -> str:
    """A push workflow granting pull-requests: write whose one job runs ``lines``."""
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions:\n  contents: read\n  pull-requests: write\njobs:\n  setup:\n"
        "    runs-on: ubuntu-latest\n    steps:\n      - run: |\n" + body
    )


# ---- 3. an agent CLI set up, not run ----------------------------------------------------------


@pytest.mark.parametrize(
    "lines",
    [
        ("printenv OPENAI_API_KEY | codex login --with-api-key",),
        ('echo "$OPENAI_API_KEY" | npx @openai/codex login --with-api-key',),
        ("codex login --with-api-key < key.txt",),
        ("codex login status",),
        ("codex logout",),
        ("codex mcp add docs -- npx docs-server",),
        ("claude auth status",),
        ("claude auth login --console",),
        ("claude setup-token",),
        ("claude mcp list",),
        ("claude mcp add github -- npx -y github-mcp",),
        ("claude update",),
        ("claude doctor",),
        ("gemini --version",),
        ("gemini mcp list",),
        ("gemini extensions install ./ext",),
        ("codex exec --help",),
        ("claude -h",),
    ],
)
def test_setting_an_agent_cli_up_runs_no_agent(lines: tuple[str, ...]) -> None:
    assert workflow_findings(_agent_job(*lines), "CP005") == []


@pytest.mark.parametrize(
    "lines",
    [
        ("claude mcp serve",),  # Claude Code served over MCP: a running agent
        ("codex mcp-server",),
        ("claude -p update",),  # a prompt that happens to be a subcommand's name, after an option
        ('codex exec "fix the login page"',),
        ('codex login && codex exec "fix"',),
        ('printenv K | codex login --with-api-key; codex exec "review"',),
        ('claude -p "run claude auth"',),
        ('gemini -p "list the mcp servers"',),
    ],
)
def test_running_the_agent_stays_a_finding(lines: tuple[str, ...]) -> None:
    found = workflow_findings(_agent_job(*lines), "CP005")
    assert len(found) == 1 and found[0][1] == "medium"


def test_login_step_and_agent_step_report_once() -> None:
    text = (
        "on: push\npermissions:\n  contents: write\njobs:\n  agent:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: printenv OPENAI_API_KEY | codex login --with-api-key\n"
        '      - run: codex exec --full-auto "fix the failing test"\n'
    )
    found = workflow_findings(text, "CP005")
    assert [line for line, _, _ in found] == [9]


# ---- 4. messages that say what they leave out; jobs that never run ------------------------------


def _jobs(count: int, extra: str = "") -> str:
    return "".join(
        f"  j{i}:\n{extra}    runs-on: ubuntu-latest\n    steps:\n      - run: echo {i}\n" for i in range(count)
    )


def test_cp002_says_how_many_jobs_it_leaves_out() -> None:
    found = workflow_findings("on: push\npermissions:\n  contents: write\njobs:\n" + _jobs(7), "CP002")
    assert [m for _, _, m in found] == ["contents: write at workflow level reaches jobs j0, j1, j2, j3 and 3 more"]
    four = workflow_findings("on: push\npermissions:\n  contents: write\njobs:\n" + _jobs(4), "CP002")
    assert [m for _, _, m in four] == ["contents: write at workflow level reaches jobs j0, j1, j2, j3"]


@pytest.mark.parametrize("condition", ["false", "${{ false }}", "'false'", "${{false}}", "0"])
def test_a_job_that_never_runs_holds_nothing(condition: str) -> None:
    text = (
        "on: issue_comment\npermissions:\n  contents: write\njobs:\n  agent:\n"
        f"    if: {condition}\n    runs-on: ubuntu-latest\n    env:\n      TOKEN: ${{{{ secrets.TOKEN }}}}\n"
        "    steps:\n      - run: claude -p 'fix it'\n      - run: echo \"$TOKEN\" > token.txt\n"
    )
    for rule in ("CP004", "CP005", "CS001", "CS004"):
        assert workflow_findings(text, rule) == [], rule


def test_an_agent_step_that_never_runs_holds_nothing() -> None:
    text = (
        "on: push\npermissions:\n  contents: write\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - if: ${{ false }}\n        run: claude -p 'fix it'\n"
    )
    assert workflow_findings(text, "CP005") == []


@pytest.mark.parametrize(
    "condition",
    [
        "github.ref == 'refs/heads/main'",
        "${{ false && github.ref == 'x' }}",
        "${{ always() }}",
        "true",
        "env.DRY == 'false'",
    ],
)
def test_a_job_that_may_run_stays_reported(condition: str) -> None:
    text = (
        "on: push\npermissions:\n  contents: write\njobs:\n  agent:\n"
        f"    if: {condition}\n    runs-on: ubuntu-latest\n    steps:\n      - run: claude -p 'fix it'\n"
    )
    assert [s for _, s, _ in workflow_findings(text, "CP005")] == ["medium"]
