"""Injected secrets in the compiled output: each target's fidelity row says whether its proxy holds
the secret back from the agent, and where it cannot, that the agent receives it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.compiler.command import compile_kit
from sandkit.compiler.targets import NAMES
from tests.compiler.helpers import in_folder

INJECTING = """\
apiVersion: sandkit/v1
name: injecting
extends: [claude-code]
agent: {command: [agent]}
workspace: {mode: none}
network: {egress: EGRESS}
"""


def _rows(tmp_path: Path, egress: str = "allowlist") -> dict[str, tuple[str, str, bool]]:
    (tmp_path / "kit.yaml").write_text(INJECTING.replace("EGRESS", egress), encoding="utf-8")
    with in_folder(tmp_path):
        out = compile_kit(Path("kit.yaml"), Path("out"), list(NAMES))
    return {target: (row.level, row.reason, row.requested) for target, row in out.fidelity["secrets.inject"].items()}


def test_targets_without_an_injecting_proxy_say_the_agent_receives_the_key(tmp_path: Path) -> None:
    rows = _rows(tmp_path)
    assert rows["docker"][0] == "not applicable"
    assert rows["actions"] == (
        "unsupported",
        "a GitHub runner has no sandkit proxy to add the header: the agent receives ANTHROPIC_API_KEY",
        False,
    )
    for target in ("compose", "kubernetes", "devcontainer"):
        level, reason, _ = rows[target]
        assert level == "enforced" or reason.endswith("the agent receives ANTHROPIC_API_KEY"), (target, rows[target])


@pytest.mark.parametrize("egress", ["open", "none"])
def test_without_a_proxy_no_target_claims_to_inject(tmp_path: Path, egress: str) -> None:
    rows = _rows(tmp_path, egress)
    for target in ("compose", "kubernetes", "actions", "devcontainer"):
        assert rows[target] == (
            "unsupported",
            f"with egress {egress} there is no proxy to inject: the agent receives ANTHROPIC_API_KEY",
            False,
        ), target


def test_a_kit_without_injection_has_no_row(tmp_path: Path) -> None:
    (tmp_path / "kit.yaml").write_text(
        "apiVersion: sandkit/v1\nname: plain\nagent: {command: [a]}\nworkspace: {mode: none}\n", encoding="utf-8"
    )
    with in_folder(tmp_path):
        out = compile_kit(Path("kit.yaml"), Path("out"), list(NAMES))
    assert "secrets.inject" not in out.fidelity
