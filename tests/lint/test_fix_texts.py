"""Fix texts advise only what sandkit can do: every kit field a rule's fix names exists in the kit
format, takes the value the text gives it, and is held by at least one target (its fidelity row is
enforced or best-effort somewhere).

A fix text names a kit field as a backticked dotted path from the kit's top (`network.egress: none`)
or as a backticked span right after "kit" or "kit's" (the kit's `secrets`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from ruamel.yaml import YAML

from sandkit.compiler.command import compile_kit
from sandkit.compiler.targets import NAMES
from sandkit.errors import KitError
from sandkit.kits.model import Kit
from sandkit.lint.registry import all_rules

_SPAN = re.compile(r"`([^`]+)`")
_AFTER_KIT = re.compile(r"\bkit(?:'s)?\s+`([^`]+)`")
_TOP = {info.alias or name for name, info in Kit.model_fields.items()}
#: A kit field a fix text names without a value gets this one to be built with.
EXAMPLE_VALUES: dict[str, Any] = {"secrets": [{"name": "EXAMPLE_TOKEN"}], "network.allow": ["api.example.com"]}
#: Kit fields the report holds under another setting's row (the allowlist is what network.egress holds).
HELD_AS = {"network.allow": "network.egress", "network.deny": "network.deny"}
BASE = {"apiVersion": "sandkit/v1", "name": "fix-text", "agent": {"command": ["agent"]}, "workspace": {"mode": "none"}}


def kit_fields(text: str) -> list[tuple[str, str | None]]:
    """(dotted field, value or None) for every kit field ``text`` names."""
    named = set(_AFTER_KIT.findall(text))
    found = []
    for span in _SPAN.findall(text):
        path, colon, value = span.partition(":")
        path = path.strip()
        dotted = "." in path and path.split(".")[0] in _TOP and " " not in path
        if dotted or span in named:
            found.append((path, value.strip() or None if colon else None))
    return found


def _field_exists(path: str) -> bool:
    model: type[BaseModel] | None = Kit
    for part in path.split("."):
        if model is None:
            return False
        fields = {info.alias or name: info for name, info in model.model_fields.items()}
        if part not in fields:
            return False
        annotation = fields[part].annotation
        candidates = [annotation, *getattr(annotation, "__args__", ())]
        model = next((c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None)
    return True


def _kit_with(path: str, value: Any) -> dict[str, Any]:
    kit: dict[str, Any] = {k: dict(v) if isinstance(v, dict) else v for k, v in BASE.items()}
    node = kit
    *parents, leaf = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
    return kit


def held_anywhere(path: str, value: str | None, folder: Path) -> str | None:
    """Why the kit field cannot be what a fix text advises, or None when some target holds it."""
    if not _field_exists(path):
        return f"{path} is not a kit field"
    parsed = YAML(typ="safe").load(value) if value is not None else EXAMPLE_VALUES.get(path)
    if parsed is None:
        return f"{path} is named without a value: give one in the text or in EXAMPLE_VALUES"
    kit = folder / "kit.yaml"
    YAML(typ="safe").dump(_kit_with(path, parsed), kit)
    try:
        out = compile_kit(kit, folder / "out", list(NAMES))
    except KitError as exc:
        return f"{path}: {value!r} is not a valid value: {exc.problems[0]}"
    rows = out.fidelity.get(HELD_AS.get(path, path))
    if rows is None:
        return f"no fidelity row says which target holds {path}"
    if not any(row.level in ("enforced", "best-effort") for row in rows.values()):
        return f"{path}: {value} is held by no target: " + "; ".join(f"{t}: {r.level}" for t, r in rows.items())
    return None


FIXES = [(rule.id, rule.fix) for rule in all_rules()]


@pytest.mark.parametrize(("rule", "fix"), FIXES, ids=[rule for rule, _ in FIXES])
def test_every_kit_field_a_fix_names_is_held_by_a_target(rule: str, fix: str, tmp_path: Path) -> None:
    wrong = [why for path, value in kit_fields(fix) if (why := held_anywhere(path, value, tmp_path))]
    assert wrong == [], f"{rule}'s fix advises what sandkit cannot do: {wrong}"


def test_fix_texts_name_kit_fields() -> None:
    """The check reads what the texts say (so a pass above is not a pass over nothing)."""
    named = {path for _, fix in FIXES for path, _ in kit_fields(fix)}
    assert {"network.egress", "secrets"} <= named


def test_the_check_refuses_what_no_target_holds(tmp_path: Path) -> None:
    text = "Give the sandbox its own rootless daemon (a kit's `isolation.docker: rootless`)."
    assert kit_fields(text) == [("isolation.docker", "rootless")]
    assert "held by no target" in (held_anywhere("isolation.docker", "rootless", tmp_path) or "")
    assert "not a kit field" in (held_anywhere("network.egres", "none", tmp_path) or "")
    assert "not a valid value" in (held_anywhere("network.egress", "closed", tmp_path) or "")
    assert held_anywhere("network.egress", "none", tmp_path) is None
