"""Kubernetes manifests as the API server's decoder types them.

kubectl, Helm, Argo CD and the API server read YAML with sigs.k8s.io/yaml, which converts it to
JSON through go-yaml v2 (``yaml.Unmarshal`` into ``interface{}``): YAML 1.1 typing. So a plain
``hostNetwork: on``, ``hostPID: yes`` or ``privileged: Y`` is the boolean true there, while the
YAML 1.2 core schema the parser applies keeps them strings. :func:`consumer_tree` retypes the
parsed tree's plain scalars as go-yaml v2's ``resolve`` does (its resolve table for booleans and
nulls, ``strconv.ParseInt``/``ParseUint`` with base 0 after dropping ``_`` for integers, its float
pattern, ``.inf`` and ``.nan``); quoted scalars stay strings (``privileged: "true"`` is a string,
which the API server refuses for a boolean field). Keys stay as written.

tests/lint/test_consumer_oracles.py holds this against sigs.k8s.io/yaml itself, built from
Debian's Go packages (tests/lint/oracles/k8s_yaml).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sandkit.lint.syntax.tree import PMap, PSeq, PStr, TreeBudget

if TYPE_CHECKING:
    from typing import Any

_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_FALSE = frozenset({"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_SPECIAL_FLOATS = {
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), float("inf")),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), float("-inf")),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), float("nan")),
}
#: go-yaml v2's ``yamlStyleFloat``.
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
#: What Go's ``strconv.ParseInt(s, 0, 64)`` accepts (underscores already dropped).
_GO_INT = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)")
_INT64 = 1 << 63
_UINT64 = 1 << 64
#: A plain scalar that could be anything but a string starts with one of these.
_TYPED_START = frozenset("0123456789+-.~nNyYtTfFoO")


def resolve_plain(text: str) -> Any:
    """A plain scalar as go-yaml v2 resolves it into ``interface{}``."""
    if text and text[0] not in _TYPED_START:
        return text
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if text in _NULL:
        return None
    if text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    plain = text.replace("_", "")
    if _GO_INT.fullmatch(plain):
        value = _go_int(plain)
        if -_INT64 <= value < _UINT64:
            return value
    if _FLOAT.fullmatch(plain):
        return float(plain)
    return text


def _go_int(plain: str) -> int:
    sign = -1 if plain.startswith("-") else 1
    digits = plain.lstrip("+-")
    lowered = digits.lower()
    if lowered.startswith(("0x", "0o", "0b")):
        return sign * int(digits, 0)
    if len(digits) > 1 and digits.startswith("0"):
        return sign * int(digits, 8)  # a leading zero: octal, as Go's base 0
    return sign * int(digits)


def consumer_tree(root: Any, budget: TreeBudget) -> Any:
    """A copy of ``root`` whose plain string scalars are typed as go-yaml v2 types them
    (positions kept; a node shared by aliases is copied once and stays shared)."""
    return _Retyper(budget).copy(root, 0)


class _Retyper:
    def __init__(self, budget: TreeBudget) -> None:
        self.budget = budget
        self.done: dict[int, Any] = {}

    def copy(self, node: Any, depth: int) -> Any:
        if isinstance(node, PStr):
            if node.style:
                return node  # quoted and block scalars stay strings
            typed = resolve_plain(str(node))
            return node if isinstance(typed, str) else typed
        if not isinstance(node, PMap | PSeq):
            return node
        known = self.done.get(id(node))
        if known is not None:
            return known
        if depth > self.budget.depth:
            self.budget.met("depth", node.pos)
            return None
        if isinstance(node, PMap):
            mapping = PMap(node.pos)
            self.done[id(node)] = mapping
            for key, value in node.items():
                mapping[key] = self.copy(value, depth + 1)
            mapping.key_pos.update(node.key_pos)
            mapping.value_pos.update(node.value_pos)
            mapping.duplicates = node.duplicates
            return mapping
        sequence = PSeq(node.pos)
        self.done[id(node)] = sequence
        sequence.extend(self.copy(item, depth + 1) for item in node)
        sequence.item_pos.extend(node.item_pos)
        return sequence
