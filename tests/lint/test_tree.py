"""The one tree walker (``syntax.tree.walk``) and the bounds on what aliases add when YAML is read."""

from __future__ import annotations

import pytest

from sandkit.lint.syntax import yaml as yaml_syntax
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, SyntaxProblem, TreeBudget, walk


def alias_bomb(levels: int = 12, width: int = 9) -> str:
    """The classic: each level is a list of ``width`` references to the level below."""
    lines = ["a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def load(text: str, budget: TreeBudget | None = None) -> PMap:
    document = yaml_syntax.convert_nodes(yaml_syntax.compose_nodes(text), budget or TreeBudget())[0]
    assert isinstance(document, PMap)
    return document


def test_walk_visits_a_node_shared_by_aliases_once() -> None:
    document = load(alias_bomb(levels=5))  # small enough that no alias is left out
    visited = list(walk(document, TreeBudget()))
    assert len(visited) == 1 + 5  # the document and one list per level, however often referenced
    assert len({id(node) for node in visited}) == len(visited)


def test_walk_is_depth_first_in_document_order_and_yields_only_containers() -> None:
    document = load("a: {b: [1, {c: 2}]}\nd: [x]\n")
    order = [node.pos for node in walk(document, TreeBudget())]
    assert order == [Pos(1, 1), Pos(1, 4), Pos(1, 8), Pos(1, 12), Pos(2, 4)]
    assert all(isinstance(node, PMap | PSeq) for node in walk(document, TreeBudget()))
    assert list(walk("a scalar", TreeBudget())) == []


def test_prune_keeps_out_of_named_keys_and_within_limits_the_levels() -> None:
    document = load("env: {A: {deep: 1}}\njobs: {j: {env: {B: 1}, steps: [{run: x}]}}\n")
    keys = [sorted(node) for node in walk(document, TreeBudget(), prune=("env",)) if isinstance(node, PMap)]
    assert keys == [["env", "jobs"], ["j"], ["env", "steps"], ["run"]]
    shallow = [sorted(node) for node in walk(document, TreeBudget(), within=1) if isinstance(node, PMap)]
    assert shallow == [["env", "jobs"], ["A"], ["j"]]
    tables = [sorted(node) for node in walk(document, TreeBudget(), sequences=False)]
    assert tables == [["env", "jobs"], ["A"], ["deep"], ["j"], ["env", "steps"], ["B"]]  # not {run: x} in the list


def test_a_subtree_past_the_depth_bound_is_skipped_and_the_walk_goes_on() -> None:
    deep = "deep: " + "[" * 12 + "]" * 12 + "\nafter: {k: v}\n"
    budget = TreeBudget(depth=5)
    visited = list(walk(load(deep), budget))
    assert len(visited) == 1 + 5 + 1  # the document, the lists at levels 1 to 5, and "after"
    assert isinstance(visited[-1], PMap) and visited[-1].get("k") == "v"
    hit = budget.hits["depth"]
    assert (hit.bound, hit.limit, hit.pos) == ("depth", 5, Pos(1, 12))
    assert "more than 5 levels" in hit.message


def test_the_values_bound_ends_every_later_walk_of_the_file() -> None:
    document = load("a: [1, 2, 3]\nb: [4, 5, 6]\nc: [7, 8, 9]\n")
    budget = TreeBudget(values=10)  # the document costs 4, each list 4
    assert len(list(walk(document, budget))) == 2
    assert budget.hits["values"].pos == Pos(2, 4)
    assert list(walk(document, budget)) == []  # spent for the whole file, not per walk
    assert "more than 10 values" in budget.hits["values"].message


def test_what_aliases_add_is_bounded_and_the_rest_left_out() -> None:
    budget = TreeBudget(aliases=1000)
    document = load(alias_bomb(), budget)
    assert budget.hits["aliases"].bound == "aliases"
    assert None in document["a5"] or None in document["a4"]  # references past the bound became None
    budget_for_walk = TreeBudget()
    assert len(list(walk(document, budget_for_walk))) <= 13
    assert not budget_for_walk.hits


def test_aliases_within_the_bound_are_kept_whole() -> None:
    budget = TreeBudget()
    document = load("base: &b {image: x, env: {A: '1'}}\none: *b\ntwo: {<<: *b, image: y}\n", budget)
    assert document["one"] is document["base"]
    assert document["two"] == {"image": "y", "env": {"A": "1"}}
    assert not budget.hits


def test_load_documents_refuses_an_alias_bomb_instead_of_truncating_silently() -> None:
    with pytest.raises(SyntaxProblem, match="aliases add more than 100000 values"):
        yaml_syntax.load_documents(alias_bomb())
