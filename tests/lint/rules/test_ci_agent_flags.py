"""Agent approval-skipping flags (AA008) in the scripts of CI systems other than GitHub's, and
CircleCI's multi-line `command` blocks located line by line."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_text

CIRCLECI = """\
version: 2.1
jobs:
  fix:
    machine:
      image: ubuntu-2204:current
    steps:
      - checkout
      - run:
          name: agent
          command: |
            npm ci
            codex exec --yolo "fix the failing test"
            docker run -v /var/run/docker.sock:/var/run/docker.sock tools:1 check
"""


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        (".gitlab-ci.yml", "review:\n  script:\n    - claude -p review --dangerously-skip-permissions\n", (3, 24)),
        ("azure-pipelines.yml", "steps:\n  - bash: |\n      gemini --yolo -p fix\n", (3, 14)),
        (
            "bitbucket-pipelines.yml",
            "pipelines:\n  default:\n    - step:\n        script: [aider --yes-always]\n",
            (4, 24),
        ),
        (
            "Jenkinsfile",
            "pipeline {\n  stages { stage('a') { steps {\n    sh 'codex --yolo exec fix'\n  } } }\n}\n",
            (3, 15),
        ),
    ],
)
def test_agent_flags_in_other_ci_systems(name: str, text: str, where: tuple[int, int]) -> None:
    assert at(lint_text(name, text, select=("AA008",)), "AA008") == [where]


def test_circleci_multi_line_command_block() -> None:
    findings = lint_text(".circleci/config.yml", CIRCLECI)
    assert at(findings, "AA008") == [(12, 24)]
    assert at(findings, "RS001") == [(13, 27)]
    flag = next(f for f in findings if f.rule == "AA008")
    assert flag.message.startswith("codex --yolo: bypasses approvals and the sandbox, on the CI runner")
    assert flag.severity == "critical"  # escalated: the same job mounts the runtime socket


def test_a_machine_executor_alone_is_no_finding() -> None:
    """A machine job is a fresh VM, like a GitHub-hosted runner: what runs on it is judged."""
    text = (
        "version: 2.1\njobs:\n  e2e:\n    machine: true\n    steps: [checkout, setup_remote_docker, {run: make e2e}]\n"
    )
    assert lint_text(".circleci/config.yml", text) == []
