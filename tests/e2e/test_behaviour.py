"""What the agent finds at start: startup commands already run as itself, its instructions and
the kit's files where it reads them, and every env value byte for byte."""

from __future__ import annotations

import base64
import re

import pytest

from tests.e2e.helpers import HOSTILE_ENV, INSTRUCTIONS, README_TXT, REPO_AGENTS_MD, SETTINGS_JSON, Project

pytestmark = pytest.mark.docker


def test_startup_commands_run_as_the_agent_user_before_the_agent(net_project: Project) -> None:
    """No command given: the kit's own agent.command runs, as `docker compose up` would run it."""
    result = net_project.agent()
    assert result.returncode == 0, result
    assert result.stdout.splitlines() == ["startup0 uid=1000 user=agent", "startup1 uid=1000", "agent uid=1000"], (
        f"startup commands did not run in order, as uid 1000, before the agent:\n{result}"
    )


def test_instruction_file_is_where_the_agent_reads_it(net_project: Project) -> None:
    """The repository's own AGENTS.md keeps its text, below the kit's."""
    generated = (net_project.folder / "instructions" / "AGENTS.md").read_bytes()
    assert generated.endswith(INSTRUCTIONS.encode()), "the compiled instruction file lost the kit's text"
    result = net_project.agent("base64 -w0 /workspace/AGENTS.md")
    placed = base64.b64decode(result.stdout)
    assert placed == generated + b"\n" + REPO_AGENTS_MD.encode(), (
        f"/workspace/AGENTS.md is not the kit's instructions followed by the repository's:\n{placed!r}"
    )


def test_kit_files_are_placed_with_their_modes(net_project: Project) -> None:
    paths = {
        "/etc/e2e/readme.txt": (README_TXT, "644", "0"),
        "/home/agent/.config/e2e/settings.json": (SETTINGS_JSON, "600", "1000"),
        "/opt/e2e/agent.sh": (None, "755", "0"),
    }
    script = "".join(f'echo "{path} $(stat -c "%a %u" {path}) $(base64 -w0 {path})"\n' for path in paths)
    result = net_project.agent(script)
    found = {m[0]: m[1:] for m in re.findall(r"^(\S+) (\d+) (\d+) (\S*)$", result.stdout, re.MULTILINE)}
    for path, (content, mode, owner) in paths.items():
        assert path in found, f"{path} is not in the container:\n{result}"
        assert found[path][:2] == (mode, owner), f"{path} has mode/owner {found[path][:2]}, want {(mode, owner)}"
        if content is not None:
            assert base64.b64decode(found[path][2]).decode() == content, f"{path} does not hold the kit's bytes"


def test_env_values_arrive_byte_exact(net_project: Project) -> None:
    script = "".join(f'printf "{name}=%s\\n" "$(printf %s "${name}" | base64 -w0)"\n' for name in HOSTILE_ENV)
    script += '[ -e /tmp/e2e-pwned ] && echo "pwned"; printenv E2E_INJECTED >/dev/null && echo "injected"\n'
    result = net_project.agent(script)
    got = dict(re.findall(r"^(E2E_\w+)=(\S*)$", result.stdout, re.MULTILINE))
    wrong = {
        name: base64.b64decode(got[name]).decode(errors="replace") if name in got else None
        for name, value in HOSTILE_ENV.items()
        if name not in got or base64.b64decode(got[name]) != value.encode()
    }
    assert wrong == {}, f"env values changed on the way into the container: {wrong}"
    assert "pwned" not in result.stdout, "an env value was executed as a command"
    assert "injected" not in result.stdout, "an env value's newline added a variable"
