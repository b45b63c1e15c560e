"""Instructions always reach the agent: AGENTS.md when the kit names no file, the agent's user-level
place when the workspace is the host's folder (never written to), and a build error naming the field
to add when the agent has no such place. Each preset records that place, with its source in
docs/presets.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sandkit.cli import main
from sandkit.compiler.command import compile_kit
from sandkit.kits.extends import preset_names
from sandkit.kits.loader import load_kit
from tests.compiler.helpers import in_folder
from tests.conftest import REPO

HEAD = "apiVersion: sandkit/v1\nname: notes\nnetwork: {egress: none}\n"


def _write(folder: Path, text: str) -> Path:
    (folder / "ws").mkdir(exist_ok=True)
    (folder / "kit.yaml").write_text(HEAD + text, encoding="utf-8")
    return folder / "kit.yaml"


def test_instructions_without_a_file_name_go_to_agents_md(tmp_path: Path) -> None:
    kit = _write(tmp_path, "agent: {command: [agent], instructions: 'Be brief.'}\nworkspace: {mode: none}\n")
    out = compile_kit(kit, tmp_path / "out", ["docker"])
    assert out.files["instructions/AGENTS.md"].decode().endswith("Be brief.")
    assert "target='/workspace/AGENTS.md'" in out.files["entrypoint.sh"].decode()
    assert out.fidelity["agent.instructions"]["docker"].level == "enforced"


def test_a_mounted_workspace_gets_them_at_user_level_and_the_variable_names_the_place(tmp_path: Path) -> None:
    agent = "{command: [agent], instructions: 'Be brief.', user_instructions_file: .tool/RULES.md, instructions_env: X}"
    kit = _write(tmp_path, f"agent: {agent}\nworkspace: {{mode: mount, source: ws}}\n")
    entrypoint = compile_kit(kit, tmp_path / "out", ["docker"]).files["entrypoint.sh"].decode()
    assert "target='/home/agent/.tool/RULES.md'" in entrypoint and 'export X="$target"' in entrypoint
    assert "/workspace/" not in entrypoint.split("place_instructions() {")[1].split("}")[0]


def test_a_mounted_workspace_without_a_user_level_place_fails_saying_what_to_add(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(
        tmp_path,
        "agent: {command: [agent], instructions: 'Be brief.'}\nworkspace: {mode: mount-readonly, source: ws}\n",
    )
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q"]) == 1
    err = capsys.readouterr().err
    assert re.search(r"kit\.yaml:\d+:\d+: error: agent\.instructions: with workspace mode mount-readonly", err), err
    assert "set agent.user_instructions_file" in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_records_its_user_level_place_with_a_source(preset: str, tmp_path: Path) -> None:
    kit = _write(
        tmp_path, f"extends: [{preset}]\nagent: {{instructions: 'Task.'}}\nworkspace: {{mode: mount, source: ws}}\n"
    )
    agent = load_kit(kit).kit.agent
    assert agent.user_instructions_file, f"{preset} names no user-level instruction file"
    docs = (REPO / "docs/presets.md").read_text(encoding="utf-8").split(f"\n## {preset}\n")[1].split("\n## ")[0]
    row = next((line for line in docs.splitlines() if line.startswith("| user-level instructions |")), "")
    place = "~/" + agent.user_instructions_file
    assert f"`{place}" in row and row.rstrip(" |").rsplit("|", 1)[1].strip(), f"{preset}: no row with a source"


def test_aider_reads_its_instructions_through_aider_read_in_every_mode(tmp_path: Path) -> None:
    for mode, place in (("none", "/workspace/CONVENTIONS.md"), ("mount", "/home/agent/.aider/CONVENTIONS.md")):
        source = ", source: ws" if mode == "mount" else ""
        kit = _write(
            tmp_path, f"extends: [aider]\nagent: {{instructions: 'Task.'}}\nworkspace: {{mode: {mode}{source}}}\n"
        )
        out = compile_kit(kit, tmp_path / f"out-{mode}", ["docker"])
        entrypoint = out.files["entrypoint.sh"].decode()
        assert f"target='{place}'" in entrypoint and 'export AIDER_READ="$target"' in entrypoint
        assert "--read" not in out.plan.command, "a --read on the command line would override AIDER_READ"
