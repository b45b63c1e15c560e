"""What a GitHub Actions expression (``${{ ... }}``) can evaluate to, as far as secrets go.

``${{ secrets.NPM_TOKEN != '' }}`` names a secret but becomes ``true`` or ``false``: the secret's
value is not in the text the runner substitutes. This module reads an expression with the
operators and functions of GitHub's expression language and tells which of the secrets it names
can reach its result:

- a comparison (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``), a negation (``!``) and the
  functions that answer yes or no (``contains``, ``startsWith``, ``endsWith``, the status checks
  ``success()``, ``always()``, ``failure()``, ``cancelled()``) and ``hashFiles`` give a value that
  holds no secret;
- ``a && b`` is ``a`` when ``a`` is falsy (for a secret, the empty string) and ``b`` otherwise, so
  only what ``b`` holds can come out: ``secrets.X && 'yes' || 'no'`` gives ``yes`` or ``no``;
- ``a || b`` gives either side: ``secrets.X || 'default'`` is the secret;
- any other function (``format``, ``join``, ``toJSON``, ``fromJSON``, one this list does not know)
  and a property or index of a value may hold what their arguments hold.

It is read with an operator-precedence parser (no recursion), bounded by the expression's length.
An expression it cannot read is taken to expose every secret it names, as before.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from sandkit.lazy_regex import lazy

# "secrets" as the context itself, not the end of a name (needs.x-with-inherited-secrets.outputs.y).
# A property name runs on through hyphens, as GitHub reads it: a reusable workflow declares
# ``github-username`` under ``on.workflow_call.secrets`` and reads ``secrets.github-username``
# (the expression language has no subtraction to end the name at the hyphen).
# The third form is the context whole (``toJSON(secrets)``, ``secrets.*``): every secret at once.
# These are read only inside an expression (see :func:`exposed_secret_refs`); elsewhere
# ``secrets.Review`` is text.
SECRET_REF = lazy(
    r"(?<![\w.-])secrets\s*\.\s*([A-Za-z_][A-Za-z0-9_-]*)|(?<![\w.-])secrets\s*\[\s*['\"]([^'\"]{1,100})|"
    r"(?<![\w.-])(secrets)(?:\s*\.\s*\*)?(?![\w-]|\s*[.\[])"
)
#: The name :func:`secret_name` gives the whole context: GitHub's own filter for all its values.
EVERY_SECRET = "*"

#: One ``${{ ... }}``: what GitHub substitutes before a step (or the shell) reads the text.
EXPRESSION = lazy(r"\$\{\{(.{0,2000}?)\}\}", re.S)
_TOKEN = lazy(
    r"\s+|(?P<str>'(?:[^']|'')*')|(?P<num>[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))|"
    r"(?P<op>==|!=|<=|>=|&&|\|\||[<>!()\[\],.*])|(?P<name>[A-Za-z_][\w-]*)"
)
#: Functions whose result is a yes/no or a hash, never the text of an argument (case-insensitive).
_NO_TEXT_FUNCTIONS = frozenset(
    {"contains", "startswith", "endswith", "success", "failure", "always", "cancelled", "hashfiles"}
)
_PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "!": 5}
_NOTHING: frozenset[int] = frozenset()


class _Malformed(Exception):
    """The expression is not one this reader understands."""


class _Mark(NamedTuple):
    """An open group on the operator stack: ``(``, ``[`` or a function's ``name(``, and how many
    values were on the value stack when it opened (a function's arguments are those above)."""

    kind: str
    name: str
    depth: int


def secret_name(match: re.Match[str]) -> str:
    """The secret a :data:`SECRET_REF` match names, or :data:`EVERY_SECRET` for the whole context."""
    return match.group(1) or match.group(2) or EVERY_SECRET


def exposed_secret_refs(text: str) -> list[re.Match[str]]:
    """The ``secrets.X`` references of ``text`` whose value can be in what the text becomes: those
    inside a ``${{ }}`` expression whose value can reach its result (every one of an expression
    this reader cannot read). Outside an expression ``secrets.X`` is text GitHub leaves alone: the
    prose ``detected verified secrets.Review``, a shell comment ``# uses secrets.TOKEN``. (An
    ``if:`` is an expression without ``${{ }}``, but it becomes true or false, never a secret.)"""
    if "${{" not in text or "secrets" not in text:
        return []
    exposed: list[re.Match[str]] = []
    for expression in EXPRESSION.finditer(text):
        start, end = expression.span(1)
        inside = {m.start(): m for m in SECRET_REF.finditer(text, start, end)}
        if not inside:
            continue
        reached = _secrets_reaching(text, start, end, inside)
        exposed.extend(m for at, m in inside.items() if reached is None or at in reached)
    return exposed


def _secrets_reaching(text: str, start: int, end: int, refs: dict[int, re.Match[str]]) -> frozenset[int] | None:
    """Offsets of the references in ``refs`` whose value can be in the result of the expression
    ``text[start:end]``, or None when it cannot be read."""
    try:
        return _evaluate(text, start, end, refs)
    except _Malformed:
        return None


def _evaluate(text: str, start: int, end: int, refs: dict[int, re.Match[str]]) -> frozenset[int]:
    values: list[frozenset[int]] = []
    ops: list[str | _Mark] = []
    expect_operand = True
    at = start
    while at < end:
        token = _TOKEN.match(text, at, end)
        if token is None:
            raise _Malformed
        at = token.end()
        kind = token.lastgroup
        if kind is None:  # whitespace
            continue
        word = token.group()
        if kind in ("str", "num") and expect_operand:
            values.append(_NOTHING)
            expect_operand = False
        elif kind == "name" and expect_operand:
            secret = refs.get(token.start())
            if secret is not None:
                values.append(frozenset({token.start()}))
                at = max(at, secret.end())
                if text[at : at + 1] in ("'", '"'):  # the closing quote and bracket of secrets['X']
                    close = text.find("]", at, end)
                    at = close + 1 if close >= 0 else at
                expect_operand = False
                continue
            after = _skip_space(text, at, end)
            if text[after : after + 1] == "(":
                ops.append(_Mark("fn", word.lower(), len(values)))
                at = after + 1
                continue
            values.append(_NOTHING)  # a literal or a context that is not secrets.X
            expect_operand = False
        elif word == "(" and expect_operand:
            ops.append(_Mark("(", "", len(values)))
        elif word == "!" and expect_operand:
            ops.append("!")
        elif word == "." and not expect_operand:
            prop = _TOKEN.match(text, _skip_space(text, at, end), end)
            if prop is None or not (prop.lastgroup in ("name", "num") or prop.group() == "*"):
                raise _Malformed
            at = prop.end()  # a property of a value holds what the value holds
        elif word == "[" and not expect_operand:
            ops.append(_Mark("[", "", len(values)))
            expect_operand = True
        elif word in (")", "]", ",") and not expect_operand:
            _close(word, values, ops)
            expect_operand = word == ","
        elif word == ")" and expect_operand and _opened_call(ops, values):
            mark = ops.pop()  # a call without arguments: success(), always()
            assert isinstance(mark, _Mark)
            values.append(_call(mark.name, []))
            expect_operand = False
        elif word in _PRECEDENCE and word != "!" and not expect_operand:
            _reduce(ops, values, _PRECEDENCE[word])
            ops.append(word)
            expect_operand = True
        else:
            raise _Malformed
    if expect_operand:
        raise _Malformed
    _reduce(ops, values, 0)
    if ops or len(values) != 1:
        raise _Malformed
    return values[0]


def _reduce(ops: list[str | _Mark], values: list[frozenset[int]], floor: int) -> None:
    """Apply the operators on top of the stack, down to the innermost open group, while their
    precedence is at least ``floor`` (0: all of them)."""
    while ops:
        op = ops[-1]
        if isinstance(op, _Mark) or _PRECEDENCE[op] < floor:
            return
        ops.pop()
        _apply(op, values)


def _opened_call(ops: list[str | _Mark], values: list[frozenset[int]]) -> bool:
    """Whether the innermost open group is a call that has no argument yet."""
    mark = ops[-1] if ops else None
    return isinstance(mark, _Mark) and mark.kind == "fn" and len(values) == mark.depth


def _skip_space(text: str, at: int, end: int) -> int:
    while at < end and text[at].isspace():
        at += 1
    return at


def _close(word: str, values: list[frozenset[int]], ops: list[str | _Mark]) -> None:
    """``)``, ``]`` or ``,``: apply the operators inside the innermost group, then close it."""
    _reduce(ops, values, 0)
    if not ops:
        raise _Malformed
    mark = ops[-1]
    assert isinstance(mark, _Mark)
    if word == ",":
        if mark.kind != "fn":
            raise _Malformed
        return
    ops.pop()
    if word == "]":
        if mark.kind != "[" or len(values) < 2:
            raise _Malformed
        index, base = values.pop(), values.pop()
        values.append(base | index)  # a value looked up by a secret may still be read with it
    elif mark.kind == "(":
        if len(values) != mark.depth + 1:
            raise _Malformed
    elif mark.kind == "fn":
        arguments = values[mark.depth :]
        del values[mark.depth :]
        values.append(_call(mark.name, arguments))
    else:
        raise _Malformed


def _call(name: str, arguments: list[frozenset[int]]) -> frozenset[int]:
    if name in _NO_TEXT_FUNCTIONS:
        return _NOTHING
    return frozenset().union(*arguments)


def _apply(op: str, values: list[frozenset[int]]) -> None:
    if op == "!":
        if not values:
            raise _Malformed
        values[-1] = _NOTHING
        return
    if len(values) < 2:
        raise _Malformed
    right, left = values.pop(), values.pop()
    if op == "||":
        values.append(left | right)
    elif op == "&&":
        values.append(right)  # a falsy secret is the empty string: only the right side can come out
    else:
        values.append(_NOTHING)  # a comparison is true or false
