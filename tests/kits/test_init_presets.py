"""`sandkit init --preset P` writes a kit that nothing in the template contradicts: every value the
preset sets survives the merge (the base image above all: Node 22 for Claude Code and Gemini CLI,
Python 3.12 for OpenHands), and lists only gain entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandkit.kits.extends import PRESET_DIR, preset_names
from sandkit.kits.loader import load_kit
from sandkit.kits.template import render_init
from sandkit.kits.yamlnodes import nodes_from_bytes

NOT_INHERITED = {"apiVersion", "kind", "name", "description"}


def _leaves(value: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _leaves(item, (*path, key))]
    return [(path, value)]


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


@pytest.mark.parametrize("preset", preset_names())
def test_the_init_kit_keeps_everything_its_preset_sets(preset: str, tmp_path: Path) -> None:
    kit = tmp_path / "kit.yaml"
    kit.write_text(render_init("starter", preset, schema_ref="kit.schema.json", kit_path="kit.yaml"), encoding="utf-8")
    merged = load_kit(kit).kit.model_dump(by_alias=True)
    source = PRESET_DIR / f"{preset}.yaml"
    preset_data = nodes_from_bytes(source.read_bytes(), str(source)).plain()
    for path, value in _leaves({k: v for k, v in preset_data.items() if k not in NOT_INHERITED}):
        kept = _at(merged, path)
        if isinstance(value, list) and path != ("agent", "command"):
            plain = [item if not isinstance(item, dict) else {k: v for k, v in item.items()} for item in value]
            missing = [item for item in plain if item not in kept and not _entry_kept(item, kept)]
            assert not missing, f"{'.'.join(path)}: the init kit drops {missing}"
        else:
            assert kept == value, f"{'.'.join(path)}: the init kit says {kept!r}, the preset {value!r}"


def _entry_kept(entry: Any, kept: list[Any]) -> bool:
    """A list entry with more fields after validation (defaults filled in) still carries what the preset gave."""
    return isinstance(entry, dict) and any(_carries(k, entry) for k in kept)


def _carries(kept: Any, given: Any) -> bool:
    """``kept`` holds everything ``given`` says, at any depth (validation only adds defaults)."""
    if isinstance(given, dict):
        return isinstance(kept, dict) and all(key in kept and _carries(kept[key], v) for key, v in given.items())
    if isinstance(given, list):
        return isinstance(kept, list) and len(kept) == len(given) and all(map(_carries, kept, given))
    return bool(kept == given)


def test_the_presets_that_need_another_runtime_keep_their_base() -> None:
    bases = {}
    for preset in ("claude-code", "gemini-cli", "openhands"):
        text = render_init("starter", preset, schema_ref="kit.schema.json", kit_path="kit.yaml")
        assert "base:" not in text.split("extends:")[1].split("agent:")[0], "the template names a base image"
        bases[preset] = nodes_from_bytes((PRESET_DIR / f"{preset}.yaml").read_bytes(), preset).plain()["image"]["base"]
    assert bases == {
        "claude-code": "node:22-bookworm-slim",
        "gemini-cli": "node:22-bookworm-slim",
        "openhands": "python:3.12-slim-bookworm",
    }
