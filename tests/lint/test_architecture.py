"""How the linter's code is laid out, checked: rule families stand alone on shared facts, and
parsed data is searched only through the one bounded walker."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO
from tests.python_source import imported_modules

LINT = REPO / "sandkit" / "lint"
FAMILIES = sorted(p for p in (LINT / "rules").glob("*.py") if p.name != "__init__.py")
FACTS = sorted((LINT / "facts").glob("*.py"))


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _self_calls(path: Path) -> list[str]:
    """Functions in ``path`` that call themselves (hand-written recursion)."""
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.FunctionDef):
            calls = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
            if node.name in calls:
                found.append(f"{path.relative_to(REPO)}: {node.name}")
    return found


def test_the_rules_package_holds_only_rule_families() -> None:
    """Helpers shared by families live in sandkit/lint/facts/, so rules/ reads as a list of families."""
    assert FAMILIES
    assert [p.name for p in FAMILIES if p.name.startswith("_")] == []


def test_no_rule_family_imports_another() -> None:
    family_modules = {f"sandkit.lint.rules.{p.stem}" for p in FAMILIES}
    crossing = {
        str(path.relative_to(REPO)): sorted(
            (imported_modules(path) & family_modules) - {f"sandkit.lint.rules.{path.stem}"}
        )
        for path in FAMILIES
    }
    assert {path: names for path, names in crossing.items() if names} == {}


def test_shared_facts_never_import_a_rule_family() -> None:
    assert FACTS
    uses_rules = {
        str(path.relative_to(REPO)): sorted(n for n in imported_modules(path) if n.startswith("sandkit.lint.rules"))
        for path in FACTS
    }
    assert {path: names for path, names in uses_rules.items() if names} == {}


def test_rules_and_their_shared_facts_never_recurse_over_data_themselves() -> None:
    """Recursion over parsed data is where alias bombs, cycles and deep nesting bite; the walker
    (``SourceFile.walk`` / ``SourceFile.mappings``) visits each node once within the file's bounds."""
    assert [f for path in FAMILIES + FACTS for f in _self_calls(path)] == []


#: Modules outside sandkit/lint that every ``sandkit lint`` imports.
_LINT_START = ("cli.py", "errors.py", "agents.py", "console.py", "lazy_regex.py", "credentials.py")


def test_the_linter_builds_no_dataclass() -> None:
    """Its records are NamedTuples or plain classes (see :mod:`sandkit.lint.model`): building a
    dataclass costs about half a millisecond at import, and importing dataclasses imports inspect,
    a good part of a pre-commit run's budget."""
    sources = [*sorted(LINT.rglob("*.py")), *(REPO / "sandkit" / name for name in _LINT_START)]
    assert [str(p.relative_to(REPO)) for p in sources if "dataclasses" in imported_modules(p)] == []
