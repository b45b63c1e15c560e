"""``extends``: merge rules, presets, relative parents, cycles and missing parents."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.errors import KitError
from sandkit.kits.extends import preset_names
from sandkit.kits.loader import load_kit
from tests.kits.helpers import write

BASE = """\
apiVersion: sandkit/v1
kind: Mixin
name: base
description: the base
image:
  packages: {apt: [git, curl]}
env: {A: "1", B: "2"}
secrets:
  - {name: TOKEN_ONE, description: from base}
network: {allow: [a.example.com, b.example.com]}
agent: {command: [base-agent, --flag]}
"""


def test_merge_rules(tmp_path: Path) -> None:
    write(tmp_path, BASE, "mixins/base.yaml")
    kit = load_kit(
        write(
            tmp_path,
            """\
        apiVersion: sandkit/v1
        name: child
        extends: [./mixins/base.yaml]
        image:
          packages: {apt: [curl, jq]}
        env: {B: "two", C: "3"}
        secrets:
          - {name: TOKEN_ONE, description: from child, required: false}
        network: {allow: [b.example.com, c.example.com]}
        agent: {command: [child-agent]}
        """,
        )
    ).kit
    assert kit.image.packages.apt == ["git", "curl", "jq"]  # lists append, duplicates dropped
    assert kit.env == {"A": "1", "B": "two", "C": "3"}  # mappings merge, scalars replaced
    assert [(s.name, s.description, s.required) for s in kit.secrets] == [("TOKEN_ONE", "from child", False)]
    assert kit.network.allow == ["a.example.com", "b.example.com", "c.example.com"]
    assert kit.agent.command == ["child-agent"]  # one command line: replaced whole
    assert kit.description == ""  # not inherited
    assert kit.kind == "Kit"


def test_parents_merge_in_order_kit_last(tmp_path: Path) -> None:
    write(tmp_path, BASE, "one.yaml")
    write(tmp_path, BASE.replace("name: base", "name: two").replace('A: "1"', 'A: "from two"'), "two.yaml")
    kit = load_kit(write(tmp_path, "apiVersion: sandkit/v1\nname: k\nextends: [one.yaml, two.yaml]\n")).kit
    assert kit.env["A"] == "from two"


@pytest.mark.parametrize("preset", ["claude-code", "codex", "aider", "openhands", "gemini-cli"])
def test_every_preset_is_bundled_and_extendable(tmp_path: Path, preset: str) -> None:
    assert preset in preset_names()
    kit = load_kit(write(tmp_path, f"apiVersion: sandkit/v1\nname: k\nextends: [{preset}]\n")).kit
    assert kit.agent.command, "a preset sets the agent's command"
    assert kit.agent.instructions_file, "a preset names the instruction file"
    assert kit.secrets, "a preset names the secrets the agent needs"
    assert kit.network.allow, "a preset allows the agent's API hosts"
    pinned = kit.image.packages.npm + kit.image.packages.pip
    assert pinned and all(("@" in p.lstrip("@")) or "==" in p for p in pinned), f"unpinned install in {pinned}"


def test_unknown_preset_lists_the_bundled_ones(tmp_path: Path) -> None:
    with pytest.raises(KitError) as caught:
        load_kit(write(tmp_path, "apiVersion: sandkit/v1\nname: k\nextends: [cluade-code]\n"))
    text = str(caught.value)
    assert "kit.yaml:3:11: error: unknown preset 'cluade-code'" in text
    assert "claude-code" in text


def test_cycle_shows_the_chain(tmp_path: Path) -> None:
    write(tmp_path, "apiVersion: sandkit/v1\nkind: Mixin\nname: a\nextends: [b.yaml]\n", "a.yaml")
    write(tmp_path, "apiVersion: sandkit/v1\nkind: Mixin\nname: b\nextends: [a.yaml]\n", "b.yaml")
    with pytest.raises(KitError) as caught:
        load_kit(tmp_path / "a.yaml")
    text = str(caught.value)
    assert "extends cycle:" in text
    assert text.count("a.yaml") >= 2 and "b.yaml" in text


def test_missing_parent_is_located_in_the_child(tmp_path: Path) -> None:
    with pytest.raises(KitError) as caught:
        load_kit(write(tmp_path, "apiVersion: sandkit/v1\nname: k\nextends: [./nope.yaml]\n"))
    assert "kit.yaml:3:11: error: extended kit './nope.yaml' not found" in str(caught.value)


def test_error_in_parent_is_reported_in_the_parent_file(tmp_path: Path) -> None:
    write(tmp_path, "apiVersion: sandkit/v1\nkind: Mixin\nname: p\nimage: {user: root}\n", "parent.yaml")
    with pytest.raises(KitError) as caught:
        load_kit(write(tmp_path, "apiVersion: sandkit/v1\nname: k\nextends: [parent.yaml]\nagent: {command: [x]}\n"))
    assert "parent.yaml:4:15: error: image.user: the agent never runs as root" in str(caught.value)


def test_relative_paths_resolve_against_the_declaring_file(tmp_path: Path) -> None:
    write(tmp_path, "{}", "mixins/files/cfg.json")
    write(
        tmp_path,
        "apiVersion: sandkit/v1\nkind: Mixin\nname: m\nfiles: [{path: /etc/cfg.json, source: files/cfg.json}]\n",
        "mixins/m.yaml",
    )
    kit = load_kit(
        write(tmp_path, "apiVersion: sandkit/v1\nname: k\nextends: [mixins/m.yaml]\nagent: {command: [x]}\n")
    ).kit
    assert kit.files[0].source == str((tmp_path / "mixins" / "files" / "cfg.json").resolve())


def test_mixin_validates_on_its_own(tmp_path: Path) -> None:
    assert load_kit(write(tmp_path, BASE)).kit.kind == "Mixin"


def test_mixin_cannot_be_built(tmp_path: Path) -> None:
    with pytest.raises(KitError, match="only a Kit can be built"):
        load_kit(write(tmp_path, BASE), allow_mixin=False)
