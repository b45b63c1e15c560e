"""The parse layer (sandkit/syntax/) is the one place that reads YAML, JSON and TOML: what a file
means cannot differ between kits, the linter, review and the importer, and every read is bounded
the one way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sandkit.syntax.jsonc import load_json, load_jsonc
from sandkit.syntax.toml import load_toml
from sandkit.syntax.tree import MAX_NESTING, Pos, SyntaxProblem
from sandkit.syntax.yaml import load_documents, load_round_trip
from tests.conftest import REPO

PACKAGE = REPO / "sandkit"
#: Modules outside the parse layer that may import a YAML or TOML library: they write YAML.
WRITERS = {"sandkit/kits/dump.py", "sandkit/importer/writer.py"}
#: Where ``json.load``/``json.loads`` read something that is not a file of a repository or a kit:
#: the compiler's own manifests and bundled schemas, GitHub's API answers, a token's payload.
JSON_ELSEWHERE = {
    "sandkit/compiler/writes.py",
    "sandkit/completion.py",  # the bundled kit schema
    "sandkit/importer/sbx.py",
    "sandkit/review/github.py",
    "sandkit/verify/compose.py",  # the engine's answers (docker inspect, network ls)
    "sandkit/lint/facts/secret_values.py",
    "sandkit/lint/rules/agent_workflows.py",  # a settings string inside a workflow's input
    "sandkit/record.py",  # a session record's JSON lines, one bounded line at a time; the engine's answers
}


def _modules() -> list[tuple[str, ast.Module]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if not rel.startswith("sandkit/syntax/"):
            found.append((rel, ast.parse(path.read_text(encoding="utf-8"))))
    return found


def test_no_module_outside_the_parse_layer_imports_a_yaml_or_toml_reader() -> None:
    offenders = []
    for rel, tree in _modules():
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in ("yaml", "tomllib", "ruamel") and rel not in WRITERS:
                    offenders.append(f"{rel}:{getattr(node, 'lineno', 0)}: {name}")
    assert offenders == []


def test_no_module_outside_the_parse_layer_reads_json_itself() -> None:
    offenders = []
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "json"
                and node.attr in ("load", "loads")
                and rel not in JSON_ELSEWHERE
            ):
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []


def test_one_position_type_and_one_error_for_every_format() -> None:
    """Every reader reports a bad text as a SyntaxProblem at a 1-based line and column."""
    cases = [
        (load_documents, "a: b\nc: d: e\n", 2),
        (load_round_trip, "a: b\nc: d: e\n", 2),
        (load_jsonc, '{"a": 1,\n "b" 2}', 2),
        (load_json, '{"a": 1,\n "b" 2}', 2),
        (load_toml, "a = 1\nb = \n", 2),
    ]
    for read, text, line in cases:
        with pytest.raises(SyntaxProblem) as caught:
            read(text)
        assert isinstance(caught.value.pos, Pos) and caught.value.pos.line == line, read.__name__


@pytest.mark.parametrize(("opener", "closer"), [("[", "]"), ('{"k": ', "}")])
def test_nesting_is_bounded_in_every_recursive_reader(opener: str, closer: str) -> None:
    """The positioned JSONC reader and TOML stop at MAX_NESTING levels, json at the interpreter's
    recursion limit; each is a SyntaxProblem, never a RecursionError."""
    assert load_jsonc(opener * MAX_NESTING + "1" + closer * MAX_NESTING) is not None
    with pytest.raises(SyntaxProblem, match="nested"):
        load_jsonc(opener * (MAX_NESTING + 1) + "1" + closer * (MAX_NESTING + 1))
    with pytest.raises(SyntaxProblem):
        load_json(opener * 100_000 + "1" + closer * 100_000)
    with pytest.raises(SyntaxProblem, match="nested"):
        load_toml("a = " + "[" * (MAX_NESTING + 1) + "1" + "]" * (MAX_NESTING + 1) + "\n")


def test_yaml_alias_bombs_are_bounded_for_the_linter_and_for_kits(tmp_path: Path) -> None:
    from sandkit.errors import KitError
    from sandkit.kits.yamlnodes import nodes_from_text

    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8)
    )
    with pytest.raises(SyntaxProblem, match="aliases"):
        load_documents(bomb)
    with pytest.raises(KitError, match="alias bomb"):
        nodes_from_text("apiVersion: sandkit/v1\n" + bomb, "kit.yaml")


def test_a_kit_nested_past_the_bounds_is_one_located_error_and_still_recognised() -> None:
    """Kits are read within the linter's nesting bounds: the error names the place, and the
    event reader that recognises a kit by its top keys still sees them."""
    from sandkit.errors import KitError
    from sandkit.kits.discover import top_level_scalars
    from sandkit.kits.yamlnodes import nodes_from_text

    text = "apiVersion: sandkit/v1\nname: x\nagent: " + "[" * 150 + "]" * 150 + "\n"
    assert top_level_scalars(text.encode(), ("apiVersion", "name")) == ({"apiVersion": "sandkit/v1", "name": "x"}, None)
    with pytest.raises(KitError) as caught:
        nodes_from_text(text, "kit.yaml")
    assert "nested too deeply" in str(caught.value) and "kit.yaml:3:108" in str(caught.value)
