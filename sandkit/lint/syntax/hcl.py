"""HCL (Terraform, OpenTofu, Nomad) as positioned data, read by a careful reader.

No HCL library on PyPI is both light and positioned (python-hcl2 needs lark and gives lines
only), so this module reads the syntax itself: bodies of ``name = value`` attributes and
``type "label" ... { body }`` blocks, with string, heredoc, number, boolean, null, tuple and
object values. Any other expression (a reference, a function call, a conditional, a ``for``)
is kept as its source text, which is what rules compare against (``var.docker_host``).
Comments (``#``, ``//``, ``/* */``) are skipped; HCL 1 forms Nomad still accepts (``key { }``
objects, dotted keys, ``:`` in objects) read the same way.

The result has the shape of Terraform's JSON syntax, so ``.tf`` and ``.tf.json`` files read
alike: a block with labels nests one mapping per label under its type
(``resource "docker_container" "web" {}`` is ``{"resource": [{"docker_container": {"web":
body}}]}``), and every block type holds a list of its blocks. :func:`blocks` iterates blocks
of either syntax. Nesting is bounded (:data:`MAX_DEPTH`); a file that does not parse (an
unclosed block, string or heredoc) raises :class:`SyntaxProblem` at the opening.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sandkit.lazy_regex import lazy
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, SyntaxProblem, number

if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 64
_TOKEN = lazy(
    r"""
    (?P<newline>\n)
  | (?P<space>[ \t\r]+|\\\r?\n)
  | (?P<comment>\#[^\n]*|//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<heredoc><<-?(?P<marker>[A-Za-z_][\w-]*)[ \t]*\r?\n)
  | (?P<string>")
  | (?P<number>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)
  | (?P<punct>\.\.\.|=>|==|!=|<=|>=|&&|\|\||[{}\[\]()=:,?!<>+\-*/%.])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_CLOSERS = {"{": "}", "[": "]", "(": ")"}


class _Token:
    __slots__ = ("end", "kind", "start", "text", "value")

    def __init__(self, kind: str, text: str, start: int, end: int, value: str = "") -> None:
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end
        self.value = value


def load_hcl(text: str) -> PMap:
    """The body of an HCL file as positioned data (see the module doc)."""
    return _Parser(text).file()


def blocks(value: Any, labels: int) -> Iterator[tuple[tuple[str, ...], PMap, Pos]]:
    """Blocks of one type with ``labels`` labels: (labels, body, position).

    ``value`` is what a body holds under the block type: a list of blocks (HCL) or a mapping
    (Terraform JSON); each level of labels is a mapping from label to what is below it.
    """
    levels: list[tuple[tuple[str, ...], Any, Pos]] = [((), value, getattr(value, "pos", Pos()))]
    for _ in range(labels):
        below = []
        for names, node, _ in levels:
            for item in _items(node):
                for label, inner in item.items():
                    below.append(((*names, str(label)), inner, item.pos_of_key(label)))
        levels = below
    for names, node, pos in levels:
        for item in _items(node):
            yield names, item, item.pos if names == () else pos


def _items(node: Any) -> list[PMap]:
    if isinstance(node, PMap):
        return [node]
    if isinstance(node, PSeq):
        return [item for item in node if isinstance(item, PMap)]
    return []


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.tokens = list(self._tokens())
        self.index = 0

    # ----- positions and tokens ---------------------------------------------------------------
    def pos(self, offset: int) -> Pos:
        line = bisect.bisect_right(self.starts, offset)
        return Pos(line, offset - self.starts[line - 1] + 1)

    def _tokens(self) -> Iterator[_Token]:
        text, offset = self.text, 0
        while offset < len(text):
            match = _TOKEN.match(text, offset)
            assert match is not None  # "other" matches any character
            kind = "heredoc" if match.group("heredoc") else match.lastgroup or "other"
            if kind == "string":
                end, value = self._string(offset + 1)
                yield _Token("string", text[offset:end], offset, end, value)
                offset = end
                continue
            if kind == "heredoc":
                end, value = self._heredoc(match)
                yield _Token("heredoc", text[offset:end], offset, end, value)
                offset = end
                continue
            if kind not in ("space", "comment"):
                yield _Token(kind, match.group(), offset, match.end())
            elif kind == "comment" and match.group().startswith("/*") and "\n" in match.group():
                yield _Token("newline", "\n", offset, match.end())
            offset = match.end()

    def _string(self, offset: int, start: int = -1) -> tuple[int, str]:
        """A quoted string from just after its quote: (offset after the closing quote, value).

        The value unescapes the literal parts and keeps each ``${ }`` or ``%{ }`` sequence as
        its source text (see :meth:`_template`). An error is placed at ``start`` (the outermost
        string's quote) when given, else at this string's quote.
        """
        opening = offset
        text, out, start = self.text, [], offset - 1 if start < 0 else start
        while offset < len(text):
            ch = text[offset]
            if ch == "\\" and offset + 1 < len(text):
                nxt = text[offset + 1]
                out.append(_ESCAPES.get(nxt, "\\" + nxt))
                offset += 2
                continue
            if ch in "$%" and text.startswith(ch + "{", offset):
                if offset > opening and text.startswith(ch, offset - 1):  # $${ and %%{ are literal
                    out.append(ch + "{")
                    offset += 2
                    continue
                end = self._template(offset + 2, start)
                out.append(text[offset:end])
                offset = end
                continue
            if ch == '"':
                return offset + 1, "".join(out)
            if ch == "\n":
                break
            out.append(ch)
            offset += 1
        raise SyntaxProblem("invalid HCL: unterminated string", self.pos(start))

    def _template(self, offset: int, start: int) -> int:
        """The offset just after the ``}`` that closes a ``${`` or ``%{`` opened before ``offset``.

        Inside, the sequence is an expression: brackets nest, and a quoted string is a whole
        template of its own, so its quotes and braces close nothing here (HCL 2 writes
        ``"${f("a}")}"``). HCL 1 (Terraform 0.11 and older) escaped those quotes instead,
        ``"${f(\\"a}\\")}"``; an escaped quote inside a sequence opens such a string, read to the
        next escaped quote. Newlines and comments may sit inside, as between any tokens.
        """
        text, closers = self.text, ["}"]
        while offset < len(text):
            ch = text[offset]
            if ch == '"':
                offset, _ = self._string(offset + 1, start)
                continue
            if ch == "\\" and text.startswith('"', offset + 1):
                closing = text.find('\\"', offset + 2)
                if closing < 0:
                    break
                offset = closing + 2
                continue
            if ch == "#" or text.startswith("//", offset):
                newline = text.find("\n", offset)
                offset = len(text) if newline < 0 else newline
                continue
            if text.startswith("/*", offset):
                closing = text.find("*/", offset + 2)
                offset = len(text) if closing < 0 else closing + 2
                continue
            if ch in _CLOSERS:
                closers.append(_CLOSERS[ch])
            elif ch in "})]":
                if ch != closers[-1]:
                    break
                closers.pop()
                if not closers:
                    return offset + 1
            offset += 1
        raise SyntaxProblem("invalid HCL: unterminated string", self.pos(start))

    def _heredoc(self, match: re.Match[str]) -> tuple[int, str]:
        marker, strip = match.group("marker"), match.group().startswith("<<-")
        closing = re.compile(rf"(?m)^[ \t]*{re.escape(marker)}[ \t]*\r?$")
        end = closing.search(self.text, match.end())
        if end is None:
            raise SyntaxProblem(f"invalid HCL: heredoc {marker} is never closed", self.pos(match.start()))
        body = self.text[match.end() : end.start()]
        if strip:
            lines = body.split("\n")
            indents = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
            cut = min(indents, default=0)
            body = "\n".join(line[cut:] for line in lines)
        return end.end(), body

    def peek(self, ahead: int = 0) -> _Token | None:
        index = self.index + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def skip_newlines(self) -> None:
        while (token := self.peek()) is not None and token.kind == "newline":
            self.index += 1

    def is_punct(self, token: _Token | None, *texts: str) -> bool:
        return token is not None and token.kind == "punct" and token.text in texts

    # ----- bodies and blocks -----------------------------------------------------------------
    def file(self) -> PMap:
        body = self.body(Pos(), 0)
        token = self.peek()
        if token is not None:  # a stray closing brace
            raise SyntaxProblem(f"invalid HCL: unexpected {token.text!r}", self.pos(token.start))
        return body

    def body(self, pos: Pos, depth: int) -> PMap:
        if depth > MAX_DEPTH:
            raise SyntaxProblem(f"invalid HCL: nested more than {MAX_DEPTH} levels", pos)
        body = PMap(pos)
        while True:
            self.skip_newlines()
            token = self.peek()
            if token is None or self.is_punct(token, "}"):
                return body
            if token.kind not in ("ident", "string"):
                self.skip_line()
                continue
            self.index += 1
            name = PStr(token.value if token.kind == "string" else token.text, self.pos(token.start))
            if self.is_punct(self.peek(), "=", ":"):
                self.index += 1
                body.key_pos[name] = name.pos
                body[name] = self.expression(depth + 1)
                body.value_pos[name] = getattr(body[name], "pos", self.pos(self.tokens[self.index - 1].start))
            else:
                self.block(body, name, depth)

    def block(self, body: PMap, kind: PStr, depth: int) -> None:
        labels: list[PStr] = []
        while (token := self.peek()) is not None and token.kind in ("string", "ident"):
            self.index += 1
            labels.append(PStr(token.value if token.kind == "string" else token.text, self.pos(token.start)))
        opening = self.peek()
        if not self.is_punct(opening, "{"):
            self.skip_line()
            return
        assert opening is not None
        self.index += 1
        inner = self.body(self.pos(opening.start), depth + 1)
        if not self.is_punct(self.peek(), "}"):
            raise SyntaxProblem(f"invalid HCL: block {kind} is never closed", kind.pos)
        self.index += 1
        value: Any = inner
        for label in reversed(labels):
            holder = PMap(label.pos)
            holder[label] = value
            holder.key_pos[label] = label.pos
            holder.value_pos[label] = getattr(value, "pos", label.pos)
            value = holder
        existing = body.get(kind)
        if not isinstance(existing, PSeq):
            existing = PSeq(kind.pos)
            body[kind] = existing
            body.key_pos[kind] = kind.pos
            body.value_pos[kind] = kind.pos
        existing.append(value)
        existing.item_pos.append(kind.pos)

    def skip_line(self) -> None:
        """Step over what cannot be read (to the end of the line, brackets balanced)."""
        self.raw_until(("newline",))
        if (token := self.peek()) is not None and token.kind == "newline":
            self.index += 1

    # ----- expressions -----------------------------------------------------------------------
    def expression(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            token = self.peek()
            where = self.pos(token.start if token else 0)
            raise SyntaxProblem(f"invalid HCL: nested more than {MAX_DEPTH} levels", where)
        start = self.index
        value = self.primary(depth)
        if self.at_end_of_expression():
            return value
        self.index = start  # an operator follows: the whole expression is kept as text
        return self.raw_until(("newline", ","))

    def at_end_of_expression(self) -> bool:
        token = self.peek()
        return token is None or token.kind == "newline" or self.is_punct(token, ",", "}", "]", ")")

    def primary(self, depth: int) -> Any:
        token = self.peek()
        if token is None:
            return None
        if token.kind in ("string", "heredoc"):
            self.index += 1
            return PStr(token.value, self.pos(token.start), '"' if token.kind == "string" else "|")
        if token.kind == "number":
            self.index += 1
            return float(token.text) if any(c in token.text for c in ".eE") else number(token.text)
        if token.kind == "ident" and token.text in ("true", "false", "null"):
            self.index += 1
            return {"true": True, "false": False, "null": None}[token.text]
        if self.is_punct(token, "[") and not self.starts_for():
            return self.sequence(depth)
        if self.is_punct(token, "{") and not self.starts_for():
            return self.object(depth)
        return self.raw_until(("newline", ","))

    def starts_for(self) -> bool:
        following = self.peek(1)
        return following is not None and following.kind == "ident" and following.text == "for"

    def sequence(self, depth: int) -> PSeq:
        opening = self.take()
        items = PSeq(self.pos(opening.start))
        while True:
            self.skip_newlines()
            token = self.peek()
            if token is None:
                raise SyntaxProblem("invalid HCL: a list is never closed", items.pos)
            if self.is_punct(token, "]"):
                self.index += 1
                return items
            if self.is_punct(token, ","):
                self.index += 1
                continue
            value = self.expression(depth + 1)
            items.append(value)
            items.item_pos.append(getattr(value, "pos", self.pos(token.start)))

    def object(self, depth: int) -> PMap:
        opening = self.take()
        mapping = PMap(self.pos(opening.start))
        while True:
            self.skip_newlines()
            token = self.peek()
            if token is None:
                raise SyntaxProblem("invalid HCL: an object is never closed", mapping.pos)
            if self.is_punct(token, "}"):
                self.index += 1
                return mapping
            if self.is_punct(token, ","):
                self.index += 1
                continue
            if token.kind in ("ident", "string") and self.is_punct(self.peek(1), "=", ":"):
                self.index += 2
                key = PStr(token.value if token.kind == "string" else token.text, self.pos(token.start))
                mapping.key_pos[key] = key.pos
                mapping[key] = self.expression(depth + 1)
                mapping.value_pos[key] = getattr(mapping[key], "pos", key.pos)
            elif token.kind == "ident" and self.is_punct(self.peek(1), "{"):
                self.index += 1  # an HCL 1 nested object: key { ... }
                key = PStr(token.text, self.pos(token.start))
                mapping.key_pos[key] = key.pos
                mapping[key] = self.object(depth + 1)
                mapping.value_pos[key] = mapping[key].pos
            else:
                self.raw_until(("newline", ","))

    def raw_until(self, stops: tuple[str, ...]) -> PStr:
        """The source text of tokens up to a stop at bracket depth 0 (or an unmatched closer)."""
        first = self.peek()
        if first is None:
            return PStr("", self.pos(len(self.text)))
        stack: list[str] = []
        end = first.start
        while (token := self.peek()) is not None:
            if not stack:
                if token.kind in stops or (token.kind == "punct" and token.text in stops):
                    break
                if self.is_punct(token, "}", "]", ")"):
                    break
            if token.kind == "punct" and token.text in _CLOSERS:
                stack.append(_CLOSERS[token.text])
            elif stack and token.kind == "punct" and token.text == stack[-1]:
                stack.pop()
            end = token.end
            self.index += 1
        return PStr(self.text[first.start : end].strip(), self.pos(first.start))
