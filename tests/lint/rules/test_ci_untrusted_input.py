"""CP006 (outsider text pasted into a script) and CP007 (workflow_run trusting the triggering run's
artifacts)."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_text

WF = ".github/workflows/ci.yml"


@pytest.mark.parametrize(
    "expression",
    [
        "github.event.comment.body",
        "github.event.issue.title",
        "github.event.pull_request.body",
        "github.head_ref",
        "github.event.pull_request.head.ref",
        "github.event.head_commit.message",
        "github.event.commits[0].author.name",
        "github.event.workflow_run.head_branch",
        "github.event.review.body",
    ],
)
def test_outsider_text_in_run(expression: str) -> None:
    text = f'on: issue_comment\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: |\n          echo hi\n          echo "${{{{ {expression} }}}}"\n'
    if "[0]" in expression:
        expression = expression.replace("[0]", ".*")
        text = text.replace("[0]", ".*")
    findings = lint_text(WF, text, select=("CP006",))
    assert at(findings, "CP006") == [(8, 17)]
    assert expression in findings[0].message


def test_github_script_and_composite_actions() -> None:
    text = (
        "on: issues\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: actions/github-script@v7\n"
        "        with:\n          script: console.log('${{ github.event.issue.body }}')\n"
    )
    assert at(lint_text(WF, text), "CP006") == [(8, 32)]
    action = "runs:\n  using: composite\n  steps:\n    - run: echo ${{ github.event.pull_request.title }}\n      shell: bash\n"
    assert at(lint_text("action.yml", action), "CP006") == [(4, 17)]


def test_values_outsiders_do_not_write_and_env_indirection_are_quiet() -> None:
    text = """\
on: issue_comment
jobs:
  a:
    runs-on: x
    steps:
      - env:
          BODY: ${{ github.event.comment.body }}
        run: |
          echo "$BODY" ${{ github.event.issue.number }} ${{ github.event.comment.user.login }}
          echo ${{ github.event.pull_request.head.sha }} ${{ inputs.name }} ${{ github.ref_name }}
"""
    assert at(lint_text(WF, text), "CP006") == []


RUN = """\
on:
  workflow_run:
    workflows: [CI]
    types: [completed]
PERMS
jobs:
  comment:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v4
        with:
          run-id: ${{ github.event.workflow_run.id }}
          github-token: ${{ secrets.GITHUB_TOKEN }}
      - run: cat pr_number >> "$GITHUB_ENV"
"""


def test_workflow_run_artifact_with_a_token() -> None:
    findings = lint_text(WF, RUN.replace("PERMS", "permissions: {pull-requests: write}"))
    assert at(findings, "CP007") == [(10, 15)]
    assert findings[[f.rule for f in findings].index("CP007")].severity == "high"


def test_workflow_run_artifact_other_shapes() -> None:
    gh = RUN.replace("PERMS", "permissions: {contents: read}").replace(
        "      - uses: actions/download-artifact@v4\n        with:\n"
        "          run-id: ${{ github.event.workflow_run.id }}\n          github-token: ${{ secrets.GITHUB_TOKEN }}\n",
        "      - run: gh run download ${{ github.event.workflow_run.id }} -n report\n",
    )
    findings = lint_text(WF, gh)
    assert at(findings, "CP007") == [(10, 14)]
    assert findings[[f.rule for f in findings].index("CP007")].severity == "medium"
    dawidd6 = RUN.replace("PERMS", "").replace("actions/download-artifact@v4", "dawidd6/action-download-artifact@v6")
    assert at(lint_text(WF, dawidd6), "CP007") == [(10, 15)]


def test_artifacts_of_the_same_run_or_other_triggers_are_quiet() -> None:
    same_run = RUN.replace("PERMS", "").replace("          run-id: ${{ github.event.workflow_run.id }}\n", "")
    assert at(lint_text(WF, same_run), "CP007") == []
    push = RUN.replace("PERMS", "").replace(
        "  workflow_run:\n    workflows: [CI]\n    types: [completed]\n", "  push:\n"
    )
    assert at(lint_text(WF, push), "CP007") == []
