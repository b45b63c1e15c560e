"""Commands run behind a wrapper that takes a limit first (``timeout 600``, ``nice -n 10``): the
program is the word after the wrapper's options and number (issue 33, a miss i33q listed: an agent
started as ``timeout 60 claude -p ...`` in a workflow was not seen)."""

from __future__ import annotations

import pytest

from sandkit.lint.syntax.shell import parse_commands
from tests.lint.helpers import lint_text

WF = ".github/workflows/agent.yml"


def _agent_workflow(line: str) -> str:
    return (
        "on: push\npermissions:\n  contents: write\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - run: {line}\n        env:\n          ANTHROPIC_API_KEY: ${{{{ secrets.ANTHROPIC_API_KEY }}}}\n"
    )


@pytest.mark.parametrize(
    "line",
    [
        "timeout 600 claude -p 'fix the tests'",
        "timeout --signal=KILL 10m claude -p 'fix the tests'",
        "timeout -k 5 1.5h npx @anthropic-ai/claude-code -p 'fix'",
        "nice -n 10 codex exec 'fix the tests'",
        "stdbuf -oL claude -p 'fix the tests'",
        "sudo timeout 600 claude -p 'fix'",
    ],
)
def test_an_agent_behind_a_timing_wrapper_is_an_agent_step(line: str) -> None:
    assert [f.line for f in lint_text(WF, _agent_workflow(line)) if f.rule == "CP005"] == [8]


@pytest.mark.parametrize(
    "line",
    [
        "timeout 600 claude --version",  # prints and exits
        "timeout 600 pytest -q",  # no agent
        "echo timeout 600 claude -p fix",  # text, not a command
        "timeout 600 ./scripts/claude-notes.sh",  # a script named after it
    ],
)
def test_no_agent_behind_the_wrapper_is_no_agent_step(line: str) -> None:
    assert [f for f in lint_text(WF, _agent_workflow(line)) if f.rule == "CP005"] == []


@pytest.mark.parametrize(
    ("text", "program"),
    [
        ("timeout 600 docker run --privileged x", "docker"),
        ("timeout -s KILL 30s docker run x", "docker"),
        ("nice -n 10 docker run x", "docker"),
        ("ionice -c 3 docker run x", "docker"),
        ("sudo -E timeout 5 docker run x", "docker"),
        ("env FOO=1 docker run x", "docker"),
        ("docker run 600", "docker"),
        ("timeout", ""),
    ],
)
def test_the_program_is_read_through_timing_wrappers(text: str, program: str) -> None:
    (command,) = parse_commands(text)
    assert command.program()[0] == program


def test_a_privileged_container_behind_timeout_is_found() -> None:
    findings = lint_text("scripts/run.sh", "#!/bin/sh\ntimeout 600 docker run --privileged -v /:/host alpine\n")
    assert {f.rule for f in findings} >= {"PV001"}
