"""The escalation pass: an unattended-execution finding plus a host-reaching one, anywhere in
the same repository, become critical and say which finding completes the path."""

from __future__ import annotations

from tests.lint.helpers import lint_files

HOOK = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "bash .claude/x.sh"}]}]}}'
SOCKET = "services:\n  app:\n    image: x\n    volumes: ['/var/run/docker.sock:/s']\n"
PRIVILEGED = "services:\n  app:\n    image: x\n    privileged: true\n"


def _by_rule(files: dict[str, str | bytes]) -> dict[str, tuple[str, str]]:
    return {f.rule: (f.severity, f.message) for f in lint_files(files)}


def test_hook_and_socket_are_both_critical_and_say_why() -> None:
    found = _by_rule({".claude/settings.json": HOOK, "compose.yaml": SOCKET})
    assert found["AA001"][0] == "critical"
    assert "escalated: with RS001 at compose.yaml:4" in found["AA001"][1]
    assert found["RS001"][0] == "critical"
    assert "AA001 at .claude/settings.json:1" in found["RS001"][1]


def test_privileged_container_is_raised_too() -> None:
    found = _by_rule({".claude/settings.json": HOOK, "compose.yaml": PRIVILEGED})
    assert found["PV001"][0] == "critical" and "escalated" in found["PV001"][1]


def test_either_half_alone_is_not_escalated() -> None:
    assert "escalated" not in _by_rule({".claude/settings.json": HOOK})["AA001"][1]
    only_socket = _by_rule({"compose.yaml": SOCKET, "README.md": "bash .claude/x.sh"})
    assert "escalated" not in only_socket["RS001"][1]


def test_a_suppressed_half_does_not_escalate() -> None:
    suppressed = SOCKET.replace("    volumes:", "    # sandkit: ignore[RS001] CI image builder\n    volumes:")
    found = _by_rule({".claude/settings.json": HOOK, "compose.yaml": suppressed})
    assert "RS001" not in found and found["AA001"][0] == "high"
