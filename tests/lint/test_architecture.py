"""How the linter's code is laid out, checked: rules walk parsed data only through the one walker."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

LINT = REPO / "sandkit" / "lint"
RULE_CODE = sorted((LINT / "rules").glob("*.py"))


def _self_calls(path: Path) -> list[str]:
    """Functions in ``path`` that call themselves (hand-written recursion)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            calls = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
            if node.name in calls:
                found.append(f"{path.relative_to(REPO)}: {node.name}")
    return found


def test_rules_and_their_shared_facts_never_recurse_over_data_themselves() -> None:
    """Recursion over parsed data is where alias bombs, cycles and deep nesting bite; the walker
    (``SourceFile.walk`` / ``SourceFile.mappings``) visits each node once within the file's bounds."""
    assert RULE_CODE
    assert [f for path in RULE_CODE for f in _self_calls(path)] == []
