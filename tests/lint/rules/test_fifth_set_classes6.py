"""Issue 33, the fifth set's remaining CI, container and instruction classes (docs/lint.md, "The
fifth set's remaining CI, container and instruction classes (sixth round)"): each class from
fixtures written here, with the look-alikes that stay findings.

1. A relative mount source that climbs out of the checkout and goes down into a named folder
   reaches a folder beside the checkout, not the home (HC001), unless the name is a credential
   location.
2. An agent CLI run only for its version or help runs no agent (CP004, CP005).
3. A title, body or commit message in a quoted here-document stays high, and says why (CP006).
4. A Helm condition comparing a values.yaml integer (``gt (int .Values.x.replicaCount) 0``) is
   settled by the default: a resource rendered only with replicas is not read when they are 0.
"""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_files, lint_text

# ---- 1. a climb into a folder beside the checkout is not the home ----------------------------------


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("jupyterlab/docker-compose.yml", 'services:\n  a:\n    volumes: ["../../homelab/:/work/homelab"]\n'),
        ("compose.yaml", 'services:\n  a:\n    volumes: ["../shared-data:/data:ro"]\n'),
        ("deploy/compose.yaml", "services:\n  a:\n    volumes: [{type: bind, source: ../../other/src, target: /s}]\n"),
        (
            ".devcontainer/devcontainer.json",
            '{"mounts": ["source=${localWorkspaceFolder}/../lib,target=/l,type=bind"]}',
        ),
        ("scripts/run.sh", 'docker run --rm -v "$(pwd)/../../sibling:/s" debian:12\n'),
        (
            ".github/workflows/ci.yml",
            "jobs:\n  a:\n    runs-on: x\n    steps:\n      - run: docker run -v ../cache/pip:/c i\n",
        ),
    ],
)
def test_a_climb_into_a_sibling_folder_is_not_the_home(path: str, text: str) -> None:
    assert [f for f in lint_text(path, text) if f.rule == "HC001"] == []


@pytest.mark.parametrize(
    ("path", "source", "severity", "where"),
    [
        ("compose.yaml", "../.ssh", "critical", "~/.ssh"),
        ("deploy/compose.yaml", "../../.aws/credentials", "critical", "~/.aws"),
        ("compose.yaml", "../../.config", "critical", "~/.config (holds"),
        ("compose.yaml", "../../../home", "critical", "every home folder (/home)"),
        ("compose.yaml", "../../../root", "critical", "the whole home folder"),
        ("compose.yaml", "../.m2", "medium", "~/.m2"),
    ],
)
def test_a_climb_into_a_credential_folder_stays(path: str, source: str, severity: str, where: str) -> None:
    text = f'services:\n  a:\n    volumes: ["{source}:/x"]\n'
    findings = [f for f in lint_text(path, text) if f.rule == "HC001"]
    assert [f.severity for f in findings] == [severity]
    assert f"which is {where}" in findings[0].message and "if the folder above is the home" in findings[0].message


@pytest.mark.parametrize("source", ["..", "../..", "../homelab/..", "./../.."])
def test_a_bare_climb_stays_the_home_folder_or_more(source: str) -> None:
    text = f'services:\n  a:\n    volumes: ["{source}:/x"]\n'
    findings = [f for f in lint_text("compose.yaml", text) if f.rule == "HC001"]
    assert [f.severity for f in findings] == ["critical"]
    assert "above the project (the home folder, or more)" in findings[0].message


def test_a_sibling_inside_the_scanned_tree_is_not_a_climb() -> None:
    text = 'services:\n  a:\n    volumes: ["../homelab:/x"]\n'
    assert [f for f in lint_text("a/b/compose.yaml", text) if f.rule == "HC001"] == []


# ---- 2. an agent CLI asked for its version runs no agent -------------------------------------------

AGENT_JOB = """\
on: issue_comment
permissions:
  contents: write
  pull-requests: write
jobs:
  agent:
    runs-on: ubuntu-latest
    steps:
      - run: |
RUN
"""


def _agent_job(*lines: str) -> str:
    return AGENT_JOB.replace("RUN", "".join(f"          {line}\n" for line in lines).rstrip("\n"))


@pytest.mark.parametrize(
    "lines",
    [
        ("npm install -g @openai/codex", "codex --version"),
        ("npm install -g @anthropic-ai/claude-code", "claude -v"),
        ("claude --version 2>&1 | head -1",),
        ("npx @openai/codex --help",),
        ('echo "installed $(gemini --version)"',),
        ("V=$(codex -V)", 'echo "$V"'),
        ("codex version && codex help",),
    ],
)
def test_an_agent_asked_only_for_its_version_runs_no_agent(lines: tuple[str, ...]) -> None:
    findings = lint_text(".github/workflows/a.yml", _agent_job(*lines))
    assert [f for f in findings if f.rule in ("CP004", "CP005")] == []


@pytest.mark.parametrize(
    ("lines", "line"),
    [
        (("codex --version", 'codex exec "fix the failing test"'), 11),
        (("claude --version --print 'review'",), 10),
        (("aider -v",), 10),  # aider's -v is --verbose: it starts a chat
        (("npx @openai/codex --version", "npx @openai/codex exec --full-auto 'fix it'"), 11),
    ],
)
def test_an_agent_run_beside_its_version_stays(lines: tuple[str, ...], line: int) -> None:
    findings = lint_text(".github/workflows/a.yml", _agent_job(*lines))
    assert [(f.rule, f.line) for f in findings if f.rule == "CP005"] == [("CP005", line)]
    assert [f.line for f in findings if f.rule == "CP004"] == [line]


# ---- 3. a value of many lines in a quoted here-document stays high, with the reason -----------------


def _heredoc(expression: str, opener: str = "gh pr create --body \"$(cat <<'EOF'") -> str:
    body = f"          **Issue:** ${{{{ {expression} }}}}\n"
    return (
        "on:\n  issues:\n    types: [labeled]\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: |\n"
        f'          {opener}\n          ## Fix\n{body}          EOF\n          )"\n'
    )


@pytest.mark.parametrize(
    ("expression", "title"),
    [
        ("github.event.issue.title", True),
        ("github.event.pull_request.title", True),
        ("github.event.issue.body", False),
        ("github.event.comment.body", False),
        ("github.event.head_commit.message", False),
    ],
)
def test_many_line_values_in_a_quoted_here_document_stay_high_and_say_why(expression: str, title: bool) -> None:
    findings = [f for f in lint_text(".github/workflows/a.yml", _heredoc(expression)) if f.rule == "CP006"]
    assert [(f.line, f.severity) for f in findings] == [(11, "high")]
    assert "quoted here-document: a line break in it followed by a line `EOF` ends" in findings[0].message
    assert ("GitHub's API accepts one" in findings[0].message) is title


def test_unquoted_here_documents_and_plain_lines_keep_their_message() -> None:
    unquoted = _heredoc("github.event.issue.title", opener='gh pr create --body "$(cat <<EOF')
    plain = 'on: issues\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo "${{ github.event.issue.title }}"\n'
    for text in (unquoted, plain):
        findings = [f for f in lint_text(".github/workflows/a.yml", text) if f.rule == "CP006"]
        assert [(f.severity, f.message) for f in findings] == [
            ("high", "github.event.issue.title is pasted into a script as code")
        ]


def test_a_branch_name_after_a_body_says_the_body_can_end_the_document() -> None:
    text = _heredoc("github.event.issue.body").replace(
        "          EOF\n", "          ${{ github.head_ref }}\n          EOF\n"
    )
    findings = [f for f in lint_text(".github/workflows/a.yml", text) if f.rule == "CP006"]
    assert [f.severity for f in findings] == ["high", "high"]
    assert "after a value of many lines" in findings[1].message


# ---- 4. a Helm resource rendered only with replicas, read with the default values --------------------

_CHART = {"chart/Chart.yaml": "apiVersion: v2\nname: search\nversion: 1.0.0\n"}
_STATEFULSET = """\
{{- if GUARD }}
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ include "search.fullname" . }}-data
spec:
  replicas: {{ .Values.data.replicaCount }}
  template:
    spec:
      initContainers:
        - name: sysctl
          image: busybox:1.36
          securityContext:
            privileged: true
      containers:
        - name: search
          image: search:8
{{- end }}
"""


def _chart(values: str, guard: str) -> list[str]:
    files = {**_CHART, "chart/values.yaml": values, "chart/templates/sts.yaml": _STATEFULSET.replace("GUARD", guard)}
    return [f.rule for f in lint_files(files) if f.rule == "PV001"]


@pytest.mark.parametrize(
    ("values", "guard"),
    [
        ("data:\n  replicaCount: 0\n", "gt (int .Values.data.replicaCount) 0"),
        ("data:\n  replicaCount: null\n", "gt (int .Values.data.replicaCount) 0"),  # int of null is 0
        ("data: {}\n", "gt (int64 .Values.data.replicaCount) 0"),
        ('data:\n  replicaCount: "0"\n', "ge (int .Values.data.replicaCount) 1"),
        (
            "data:\n  replicaCount: 1\n  enabled: true\n",
            "and .Values.data.enabled (gt (int .Values.data.replicaCount) 1)",
        ),
    ],
)
def test_a_resource_with_no_replicas_by_default_is_not_read(values: str, guard: str) -> None:
    assert _chart(values, guard) == []


@pytest.mark.parametrize(
    ("values", "guard"),
    [
        ("data:\n  replicaCount: 2\n", "gt (int .Values.data.replicaCount) 0"),
        ('data:\n  replicaCount: "3"\n', "gt (int .Values.data.replicaCount) 0"),
        ("data:\n  replicaCount: 0\n", 'gt (int (include "search.data.replicaCount" .)) 0'),  # a helper: unread
        ("data:\n  replicaCount: many\n", "gt (int .Values.data.replicaCount) 0"),
        ("data:\n  replicaCount: 0\n", "gt (int $replicas) 0"),
    ],
)
def test_a_resource_with_replicas_or_an_unread_guard_stays(values: str, guard: str) -> None:
    assert _chart(values, guard) == ["PV001"]
