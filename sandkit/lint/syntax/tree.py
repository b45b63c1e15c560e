"""Walking positioned data: the one way rules search a parsed file, within its budget.

The data's shape, positions and bounds are the parse layer's (:mod:`sandkit.syntax.tree`); they
are named here too, where the linter's modules import them from.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from sandkit.syntax.tree import (
    MAX_ALIAS_VALUES,
    MAX_BLOCK_COLUMN,
    MAX_DEPTH,
    MAX_SECONDS,
    MAX_SUBSTITUTIONS,
    MAX_VALUES,
    BoundHit,
    PMap,
    Pos,
    PSeq,
    PStr,
    SyntaxProblem,
    TreeBudget,
    as_map,
    as_seq,
    first_map,
    get_path,
    number,
    pos_of,
)

__all__ = [
    "MAX_ALIAS_VALUES",
    "MAX_BLOCK_COLUMN",
    "MAX_DEPTH",
    "MAX_SECONDS",
    "MAX_SUBSTITUTIONS",
    "MAX_VALUES",
    "BoundHit",
    "Node",
    "PMap",
    "PSeq",
    "PStr",
    "Pos",
    "SyntaxProblem",
    "TreeBudget",
    "as_map",
    "as_seq",
    "first_map",
    "get_path",
    "mappings",
    "number",
    "pos_of",
    "walk",
]

_CLOCK_EVERY = 4096  # walk steps between two looks at the clock


Node = PMap | PSeq


def walk(
    root: Any, budget: TreeBudget, *, prune: Collection[Any] = (), within: int | None = None, sequences: bool = True
) -> Iterator[Node]:
    """Every mapping and sequence in ``root`` (``root`` first), depth-first in document order.

    This is the one way rules walk parsed data. A node shared by YAML aliases or merge keys is
    visited once, however many times it is referenced, so alias bombs cost what their text
    costs. ``prune`` names mapping keys whose values are not entered (the caller reads those
    itself); ``within`` stops at that many levels below ``root`` (the scope of a question, such
    as Codex profiles one table down); ``sequences=False`` enters mappings only (settings
    tables nest in tables, and a mapping inside a list is something else). The budget bounds
    depth and the values visited: a subtree deeper than its depth is skipped, and once its
    values are spent the walk ends; either way the budget records where, and the engine
    reports it (SK005).
    Scalars are not yielded: read them from their mapping or sequence.
    """
    return _walk(root, budget, prune, within, sequences, maps_only=False)


def mappings(
    root: Any, budget: TreeBudget, *, prune: Collection[Any] = (), within: int | None = None, sequences: bool = True
) -> Iterator[PMap]:
    """The mappings :func:`walk` visits, in the same order (the usual question: which mapping has
    key X?)."""
    return _walk(root, budget, prune, within, sequences, maps_only=True)  # type: ignore[return-value]  # only maps


def _walk(
    root: Any, budget: TreeBudget, prune: Collection[Any], within: int | None, sequences: bool, maps_only: bool
) -> Iterator[Node]:
    if not isinstance(root, PMap | PSeq):
        return
    descend = PMap if not sequences else (PMap, PSeq)
    limit = budget.depth
    seen: set[int] = set()
    stack: list[tuple[Node, int]] = [(root, 0)]
    pop, push = stack.pop, stack.append
    steps = 0
    while stack:
        node, depth = pop()
        steps += 1
        if steps % _CLOCK_EVERY == 0 and budget.out_of_time(node.pos):
            return
        if id(node) in seen:
            continue
        seen.add(id(node))
        if depth > limit:
            budget.met("depth", node.pos)
            continue
        cost = 1 + len(node)
        if cost > budget.values_left:
            budget.values_left = 0
            budget.met("values", node.pos)
            return
        budget.values_left -= cost
        children: list[Any]
        if isinstance(node, PMap):
            yield node
            children = [v for k, v in node.items() if k not in prune] if prune else list(node.values())
        else:
            if not maps_only:
                yield node
            children = node
        if within is not None and depth >= within:
            continue
        for child in reversed(children):
            if isinstance(child, descend):
                push((child, depth + 1))
