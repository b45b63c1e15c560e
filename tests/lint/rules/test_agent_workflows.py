"""Agents in workflows (CP004, CP005, AA014): who can start them, what the job holds, what the
agent may do. Shapes follow the actions' own action.yml inputs and example workflows."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_text

WF = ".github/workflows/agent.yml"

COMMENT_CLAUDE = """\
on:
  issue_comment:
    types: [created]
permissions:
  contents: write
  pull-requests: write
  id-token: write
jobs:
  claude:
    if: contains(github.event.comment.body, '@claude')
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: anthropics/claude-code-action@v1
        with:
          anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}
          allowed_non_write_users: "*"
          claude_args: --allowedTools Bash,Read --max-turns 5
"""


def test_claude_action_opened_to_anyone_on_comments() -> None:
    findings = lint_text(WF, COMMENT_CLAUDE)
    assert at(findings, "CP004") == [(17, 36)]
    assert "lets anyone start it on issue_comment" in next(f.message for f in findings if f.rule == "CP004")
    credentials = next(f for f in findings if f.rule == "CP005")
    assert (credentials.line, credentials.severity) == (14, "high")
    assert "outsiders can start the agent unchecked" in credentials.message  # why it is not medium
    assert "contents: write, pull-requests: write, id-token: write" in credentials.message
    assert at(findings, "AA014") == [(18, 39)]


def test_claude_action_keeps_its_own_write_access_check() -> None:
    text = COMMENT_CLAUDE.replace('          allowed_non_write_users: "*"\n', "")
    text = text.replace("--allowedTools Bash,Read", '--allowedTools "Bash(npm test:*),Read"')
    findings = lint_text(WF, text)
    assert at(findings, "CP004") == [] and at(findings, "AA014") == []
    assert [f.severity for f in findings if f.rule == "CP005"] == ["medium"]


GEMINI = """\
on:
  issues:
    types: [opened]
  issue_comment:
    types: [created]
permissions:
  contents: read
  issues: write
jobs:
  triage:
    IF
    runs-on: ubuntu-latest
    steps:
      - uses: google-github-actions/run-gemini-cli@v0
        with:
          gemini_api_key: ${{ secrets.GEMINI_API_KEY }}
          settings: |-
            {
              "tools": {"allowed": ["run_shell_command"]}
            }
"""


def test_gemini_action_without_an_author_check() -> None:
    findings = lint_text(WF, GEMINI.replace("    IF\n", ""))
    assert at(findings, "CP004") == [(13, 15)]
    assert "issues/issue_comment" in findings[0].message
    assert at(findings, "AA014") == [(18, 38)]


@pytest.mark.parametrize(
    "check",
    [
        'if: contains(fromJSON(\'["OWNER","MEMBER"]\'), github.event.comment.author_association)',
        "if: github.actor == 'maintainer'",
        "environment: triage",
    ],
)
def test_an_author_check_or_environment_gates_the_agent(check: str) -> None:
    findings = lint_text(WF, GEMINI.replace("    IF\n", f"    {check}\n"))
    assert at(findings, "CP004") == []


def test_a_check_in_a_needed_job_or_a_permission_step_gates_the_agent() -> None:
    needed = GEMINI.replace("    IF\n", "    needs: gate\n").replace(
        "jobs:\n",
        "jobs:\n  gate:\n    if: github.event.sender.login == 'owner'\n    runs-on: x\n    steps: [{run: 'true'}]\n",
    )
    assert at(lint_text(WF, needed), "CP004") == []
    step = GEMINI.replace("    IF\n", "").replace(
        "    steps:\n", "    steps:\n      - uses: actions-cool/check-user-permission@v2\n"
    )
    assert at(lint_text(WF, step), "CP004") == []


def test_labels_and_assignments_need_triage_access() -> None:
    text = GEMINI.replace("    IF\n", "").replace("types: [opened]", "types: [labeled]")
    text = text.replace("  issue_comment:\n    types: [created]\n", "")
    assert at(lint_text(WF, text), "CP004") == []


def test_an_agent_command_in_run_on_pull_request_target() -> None:
    text = """\
on: pull_request_target
permissions: {contents: read}
jobs:
  review:
    runs-on: ubuntu-latest
    steps:
      - run: |
          npm install -g @anthropic-ai/claude-code
          npx @anthropic-ai/claude-code -p "review this pull request"
"""
    findings = lint_text(WF, text)
    assert at(findings, "CP004") == [(9, 15)]
    assert at(findings, "CP005") == []


def test_push_and_dispatch_workflows_are_not_outsider_triggered() -> None:
    text = COMMENT_CLAUDE.replace("  issue_comment:\n    types: [created]\n", "  workflow_dispatch:\n  push:\n")
    assert at(lint_text(WF, text), "CP004") == []


def test_codex_action_sandbox_and_safety_strategy() -> None:
    text = """\
on: {pull_request: {}}
permissions: {contents: read}
jobs:
  codex:
    runs-on: ubuntu-latest
    steps:
      - uses: openai/codex-action@v1
        with:
          openai-api-key: ${{ secrets.OPENAI_API_KEY }}
          sandbox: danger-full-access
          safety-strategy: unsafe
          codex-args: --dangerously-bypass-approvals-and-sandbox --full-auto
      - uses: openai/codex-action@v1
        with:
          sandbox: workspace-write
          safety-strategy: drop-sudo
          codex-args: --full-auto
"""
    findings = lint_text(WF, text)
    assert at(findings, "AA014") == [(10, 20), (11, 28), (12, 23)]
    assert "sudo" in findings[1].message


def test_claude_settings_input_and_cloud_credentials() -> None:
    text = """\
on: workflow_dispatch
permissions: {contents: read, id-token: write}
jobs:
  agent:
    runs-on: ubuntu-latest
    env:
      AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_KEY }}
    steps:
      - uses: aws-actions/configure-aws-credentials@v4
        with: {role-to-assume: arn:aws:iam::123456789012:role/x, aws-region: us-east-1}
      - uses: anthropics/claude-code-base-action@beta
        with:
          settings: '{"permissions": {"defaultMode": "bypassPermissions", "allow": ["Bash(*)"]}}'
"""
    findings = lint_text(WF, text)
    credentials = next(f for f in findings if f.rule == "CP005")
    assert credentials.severity == "medium"
    assert "cloud credentials from aws-actions/configure-aws-credentials" in credentials.message
    assert "AWS_SECRET_ACCESS_KEY from a secret" in credentials.message
    assert at(findings, "AA014") == [(13, 55), (13, 86)]


def test_id_token_alone_is_low() -> None:
    text = COMMENT_CLAUDE.replace('          allowed_non_write_users: "*"\n', "")
    text = text.replace("  contents: write\n  pull-requests: write\n", "  contents: read\n")
    assert [f.severity for f in lint_text(WF, text) if f.rule == "CP005"] == ["low"]


def test_a_step_that_only_mentions_an_agent_is_none() -> None:
    text = """\
on: issue_comment
permissions: {contents: write}
jobs:
  notes:
    runs-on: ubuntu-latest
    steps:
      - run: echo "ask claude later"
      - uses: actions/checkout@v4
"""
    assert at(lint_text(WF, text), "CP004") == [] and at(lint_text(WF, text), "CP005") == []
