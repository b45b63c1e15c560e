#!/usr/bin/env python3
"""Write tests/compiler/data/argo-events.schema.json from Argo Events' published JSON Schema.

Argo Events' CRDs carry no schema of their own (`x-kubernetes-preserve-unknown-fields`); its repository
publishes one JSON Schema for all its types at api/jsonschema/schema.json. This keeps the definitions an
EventSource and a Sensor reach, unchanged, so the tests validate what the kubernetes target writes:

    git --git-dir=ARGO_EVENTS.git show v1.9.11:api/jsonschema/schema.json > /tmp/schema.json
    python scripts/vendor-argo-events-schema.py /tmp/schema.json

then update the commit in tests/compiler/data/README.md.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOTS = ("io.argoproj.events.v1alpha1.EventSource", "io.argoproj.events.v1alpha1.Sensor")
OUT = Path(__file__).resolve().parent.parent / "tests" / "compiler" / "data" / "argo-events.schema.json"


def _references(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "$ref":
                yield item.rsplit("/", 1)[-1]
            else:
                yield from _references(item)
    elif isinstance(value, list):
        for item in value:
            yield from _references(item)


def reachable(definitions: dict[str, Any]) -> dict[str, Any]:
    """The definitions the roots reach through $ref, each once."""
    kept: set[str] = set()
    pending = list(ROOTS)
    while pending:
        name = pending.pop()
        if name not in kept:
            kept.add(name)
            pending.extend(_references(definitions[name]))
    return {name: definitions[name] for name in sorted(kept)}


def main(source: str) -> int:
    full = json.loads(Path(source).read_text(encoding="utf-8"))
    subset = {
        "$schema": full["$schema"],
        "$id": full["$id"],
        "definitions": reachable(full["definitions"]),
        "oneOf": [{"$ref": f"#/definitions/{root}"} for root in ROOTS],
        "type": "object",
    }
    OUT.write_text(json.dumps(subset, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
