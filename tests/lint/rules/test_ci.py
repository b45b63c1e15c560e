"""ci-secret-exposure (CS001-CS004) and ci-permissions (CP001-CP003) on GitHub workflows."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.lint.source import RuleSettings
from tests.lint.helpers import at, lint_text, lint_tree, write_tree

WF = ".github/workflows/ci.yml"
PRT = """name: pr
on: pull_request_target
permissions: {contents: read}
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: npm ci && npm test
        env:
          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}
"""


def test_workflow_and_job_level_env_from_secrets() -> None:
    text = (
        "on: push\npermissions: {contents: read}\nenv:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n"
        "jobs:\n  a:\n    runs-on: x\n    env:\n      GH: ${{ secrets.GITHUB_TOKEN }}\n"
        "    steps:\n      - run: make\n        env:\n          K: ${{ secrets.KEY }}\n"
    )
    findings = lint_text(WF, text)
    assert at(findings, "CS001") == [(4, 14), (9, 11)]
    assert [f.severity for f in findings if f.rule == "CS001"] == ["medium", "info"]


def test_secrets_inherit_remote_and_local() -> None:
    text = (
        "on: push\npermissions: {}\njobs:\n  a:\n    uses: org/x/.github/workflows/r.yml@v1\n"
        "    secrets: inherit\n  b:\n    uses: ./.github/workflows/r.yml\n    secrets: inherit\n"
        "  c:\n    uses: ./.github/workflows/r.yml\n    secrets:\n      T: ${{ secrets.T }}\n"
    )
    findings = lint_text(WF, text)
    assert at(findings, "CS002") == [(6, 14)]
    assert [f.severity for f in findings if f.rule == "CS002"] == ["medium"]


def test_pull_request_target_checkout_of_head_with_secrets() -> None:
    findings = lint_text(WF, PRT)
    assert at(findings, "CS003") == [(10, 16)] and at(findings, "CP003") == [(10, 16)]
    assert "NPM_TOKEN" in next(f.message for f in findings if f.rule == "CS003")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("on: pull_request_target", "on: pull_request"),  # trusted-by-design trigger
        ("          ref: ${{ github.event.pull_request.head.sha }}\n", "          ref: main\n"),  # the base branch
    ],
)
def test_pull_request_target_look_alikes(old: str, new: str) -> None:
    findings = lint_text(WF, PRT.replace(old, new))
    assert at(findings, "CS003") == [] and at(findings, "CP003") == []


def test_checkout_of_head_without_secrets_is_permissions_only() -> None:
    text = PRT.replace("        env:\n          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n", "")
    findings = lint_text(WF, text)
    assert at(findings, "CS003") == [] and at(findings, "CP003") == [(10, 16)]


def test_workflow_run_head_sha() -> None:
    text = PRT.replace("on: pull_request_target", "on:\n  workflow_run: {workflows: [ci]}").replace(
        "github.event.pull_request.head.sha", "github.event.workflow_run.head_sha"
    )
    assert len(at(lint_text(WF, text), "CS003")) == 1


def test_secret_printed_or_written() -> None:
    text = """on: push
permissions: {contents: read}
jobs:
  a:
    runs-on: x
    env:
      TOKEN: ${{ secrets.TOKEN }}
    steps:
      - run: |
          echo "${{ secrets.DEPLOY_KEY }}"
          echo "$TOKEN" > ~/.npmrc
          printf '%s' "$TOKEN" | docker login -u me --password-stdin
          echo "::add-mask::$TOKEN"
          echo "deploying"
          npm publish
"""
    findings = lint_text(WF, text)
    assert at(findings, "CS004") == [(10, 21), (11, 17)]
    assert [f.message for f in findings if f.rule == "CS004"] == [
        "run step prints secrets.DEPLOY_KEY to the log",
        "run step writes TOKEN to ~/.npmrc, a credential file outside the workspace that a later step's tool "
        "reads: every later step of the job can read it too (low: a credential file written for the tool that "
        "reads it, the usual way to hand a tool its token)",
    ]


def test_permissions_write_all_and_missing() -> None:
    text = (
        "on: push\njobs:\n  a:\n    runs-on: x\n    permissions: write-all\n    steps: []\n"
        "  b:\n    runs-on: x\n    steps: []\n  c:\n    uses: ./.github/workflows/r.yml\n"
    )
    findings = lint_text(WF, text)
    assert at(findings, "CP001") == [(2, 1), (5, 18)]
    assert [f.severity for f in findings if f.rule == "CP001"] == ["low", "high"]
    assert "job(s) b:" in findings[0].message


def test_permissions_set_everywhere_are_fine() -> None:
    text = "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: x\n    steps: []\n"
    assert at(lint_text(WF, text), "CP001") == [] and at(lint_text(WF, text), "CP002") == []
    text = "on: push\njobs:\n  a:\n    runs-on: x\n    permissions: {contents: read}\n    steps: []\n"
    assert at(lint_text(WF, text), "CP001") == []


def test_workflow_level_write_scope_with_several_jobs() -> None:
    text = (
        "on: push\npermissions:\n  contents: write\n  pull-requests: read\njobs:\n"
        "  test:\n    runs-on: x\n    steps: []\n  release:\n    runs-on: x\n    steps: []\n"
    )
    assert at(lint_text(WF, text), "CP002") == [(3, 3)]
    one_job = text.split("  release:")[0]
    assert at(lint_text(WF, one_job), "CP002") == []


def test_workflow_rules_ignore_other_yaml() -> None:
    text = "jobs:\n  a:\n    env:\n      T: ${{ secrets.T }}\n"  # no "on:": not a workflow
    assert at(lint_text("config/jobs.yaml", text), "CS001") == []


def test_cs004_reads_secrets_context_and_expression_or() -> None:
    text = (
        "on: push\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        '      - run: echo "v=${{ needs.x-with-inherited-secrets.outputs.y }}" >> "$GITHUB_ENV"\n'
        '      - run: echo "TOKEN=${{ secrets.A || github.token }}" >> "$GITHUB_ENV"\n'
    )
    assert at(lint_text(".github/workflows/a.yml", text), "CS004") == [(8, 30)]


def test_workflows_kept_as_test_fixtures_are_left_out_of_ci_rules_unless_examples_are_included(
    tmp_path: Path,
) -> None:
    """nektos/act keeps 139 workflows under pkg/runner/testdata: they were 130 CP001s and a CS004,
    about a token and secrets no run of theirs has. The top .github/workflows still counts. With
    the examples included they are info: GitHub runs no workflow outside the top .github/workflows."""
    workflow = "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo ${{ secrets.TOKEN }}\n"
    files = {"pkg/runner/testdata/w.yml": workflow, ".github/workflows/ci.yml": workflow}
    write_tree(tmp_path, files)
    assert {(f.path, f.rule) for f in lint_tree(tmp_path)} == {
        (".github/workflows/ci.yml", "CP001"),
        (".github/workflows/ci.yml", "CS004"),
    }
    with_examples = lint_tree(tmp_path, settings=RuleSettings(include_examples=True))
    fixture = [f for f in with_examples if f.path.startswith("pkg/")]
    assert {(f.rule, f.severity) for f in fixture} == {("CP001", "info"), ("CS004", "info")}
    assert all("test fixture" in f.message and "GitHub runs only" in f.message for f in fixture if f.rule == "CS004")
