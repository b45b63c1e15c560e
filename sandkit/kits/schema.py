"""The kit JSON Schema, generated from the model (committed as schemas/kit.schema.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PACKAGED_SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "kit.schema.json"


def kit_schema() -> dict[str, Any]:
    from sandkit.kits.model import Kit

    schema = Kit.model_json_schema(by_alias=True, mode="validation")
    # A Mixin is a partial kit, and a Kit that extends others may inherit its agent: the schema asks
    # for `agent` only where nothing can supply it (the loader checks the merged kit).
    schema.pop("required")
    schema["$defs"]["Agent"].pop("required", None)
    schema["if"] = {"properties": {"kind": {"const": "Mixin"}}, "required": ["kind"]}
    schema["then"] = {"required": ["apiVersion", "kind"]}
    schema["else"] = {
        "required": ["apiVersion", "name"],
        "if": {"required": ["extends"]},
        "else": {"required": ["agent"], "properties": {"agent": {"required": ["command"]}}},
    }
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    """The schema as committed: sorted keys, two-space indent, trailing newline."""
    if PACKAGED_SCHEMA.is_file():
        return PACKAGED_SCHEMA.read_text(encoding="utf-8")
    return render_schema()


def render_schema() -> str:
    return json.dumps(kit_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
