"""The located source tree an importer reads, and the ledger that guarantees nothing goes unreported.

An importer takes values out of the tree with :meth:`Ledger.take` (marking them used) and records why a
setting is left out with :meth:`Ledger.leave`. When it is done, :meth:`Ledger.findings` walks the whole
tree: every node that was neither taken nor explained becomes a finding too. So a key the importer
never heard of (a newer spec's field) is reported, not lost.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sandkit.errors import KitError, Location, Problem
from sandkit.kits.yamlnodes import MAX_BYTES, MAX_DEPTH, MAX_NODES, Node, load_yaml_nodes

PathKey = tuple[str | int, ...]
Kind = Literal["dropped", "differs"]
#: The generic reason for a setting no importer rule mentions.
NO_EQUIVALENT = "sandkit has no equivalent of this setting"


@dataclass(frozen=True, order=True)
class Finding:
    """One setting of the source that did not come over as it was."""

    location: Location
    setting: str
    kind: Kind
    reason: str

    def line(self) -> str:
        what = "not imported" if self.kind == "dropped" else "imported with a difference"
        return f"{self.location}: {what}: {self.setting}: {self.reason}"


def dotted(path: PathKey) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(document)"


@dataclass
class Ledger:
    """Which parts of a source tree an importer used, and why it left the others."""

    root: Node
    used: set[PathKey] = field(default_factory=set)
    left: dict[PathKey, tuple[Kind, str]] = field(default_factory=dict)
    notes: list[Finding] = field(default_factory=list)

    def node(self, *path: str | int) -> Node | None:
        current: Node | None = self.root
        for part in path:
            if current is None:
                return None
            value = current.value
            if isinstance(part, int) and isinstance(value, list) and 0 <= part < len(value):
                current = value[part]
            elif isinstance(part, str) and isinstance(value, dict):
                current = value.get(part)
            else:
                return None
        return current

    def get(self, *path: str | int) -> Any:
        """The plain value at ``path`` (None when absent), without marking it used."""
        node = self.node(*path)
        return None if node is None else node.plain()

    def take(self, *path: str | int) -> Any:
        """The plain value at ``path``, marked as carried into the kit."""
        node = self.node(*path)
        if node is None:
            return None
        self.used.add(tuple(path))
        return node.plain()

    def take_valid(self, path: PathKey, annotation: Any, what: str) -> Any:
        """The value at ``path`` if the kit accepts it as ``annotation`` (taken), else None (left, with why)."""
        value = self.get(*path)
        if value is None:
            return None
        why = problem_with(annotation, value)
        if why:
            self.leave(path, f"not {what} the kit accepts: {why}")
            return None
        return self.take(*path)

    def location(self, *path: str | int) -> Location:
        while path and self.node(*path) is None:
            path = path[:-1]
        node = self.node(*path)
        assert node is not None
        return node.key_loc or node.loc

    def leave(self, path: PathKey, reason: str) -> None:
        """``path`` is not imported, for ``reason`` (reported once, where it is written)."""
        if self.node(*path) is not None:
            self.left[path] = ("dropped", reason)

    def differs(self, path: PathKey, reason: str) -> None:
        """``path`` was imported, but means something else in the kit (reported, not dropped)."""
        if self.node(*path) is not None:
            self.notes.append(Finding(self.location(*path), dotted(path), "differs", reason))

    def note(self, reason: str, setting: str = "(document)", kind: Kind = "differs") -> None:
        """A finding about the source as a whole, or about a file beside it (reported at its first line)."""
        self.notes.append(Finding(Location(self.root.loc.path, 1, 1), setting, kind, reason))

    def findings(self) -> list[Finding]:
        found = list(self.notes)
        self._walk(self.root, (), found)
        return sorted(set(found))

    def _walk(self, node: Node, path: PathKey, found: list[Finding]) -> None:
        if path in self.used:
            return
        if path in self.left:
            kind, reason = self.left[path]
            found.append(Finding(node.key_loc or node.loc, dotted(path), kind, reason))
            return
        children = _children(node)
        if children and (not path or _used_below(self.used | set(self.left), path)):
            for key, child in children:
                self._walk(child, (*path, key), found)
        elif path:
            found.append(Finding(node.key_loc or node.loc, dotted(path), "dropped", NO_EQUIVALENT))


def _children(node: Node) -> list[tuple[str | int, Node]]:
    if isinstance(node.value, dict):
        return list(node.value.items())
    if isinstance(node.value, list):
        return list(enumerate(node.value))
    return []


def _used_below(paths: set[PathKey], prefix: PathKey) -> list[PathKey]:
    return [p for p in paths if len(p) > len(prefix) and p[: len(prefix)] == prefix]


def read_yaml(path: Path, shown: str) -> Node:
    """A located YAML mapping, with the kit loader's bounds (size, nodes, depth, aliases)."""
    return load_yaml_nodes(path, shown)


def read_jsonc(path: Path, shown: str) -> Node:
    """A located JSON-with-comments mapping (devcontainer.json), bounded like YAML."""
    from sandkit.syntax.jsonc import load_jsonc
    from sandkit.syntax.tree import SyntaxProblem

    data = _bounded_read(path, shown)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise KitError([Problem(Location(shown), "file is not valid UTF-8")]) from None
    try:
        parsed = load_jsonc(text)
    except SyntaxProblem as exc:
        raise KitError([Problem(Location(shown, exc.pos.line, exc.pos.column), exc.message)]) from None
    except RecursionError:
        raise KitError([Problem(Location(shown), f"JSON is nested more than {MAX_DEPTH} levels deep")]) from None
    root = _JsonNodes(shown).build(parsed, Location(shown, 1, 1), 0)
    if not isinstance(root.value, dict):
        raise KitError([Problem(Location(shown, 1, 1), "the file must hold a JSON object")])
    return root


def _bounded_read(path: Path, shown: str) -> bytes:
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise KitError([Problem(Location(shown), "file not found")]) from None
    except IsADirectoryError:
        raise KitError([Problem(Location(shown), "is a directory, not a file")]) from None
    except OSError as exc:
        raise KitError([Problem(Location(shown), f"cannot read: {exc.strerror}")]) from None
    if len(data) > MAX_BYTES:
        raise KitError([Problem(Location(shown), f"file is larger than {MAX_BYTES} bytes")])
    return data


class _JsonNodes:
    """Positioned JSONC data (lint's parser) as the kit loader's Nodes, with the same bounds."""

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.count = 0

    def build(self, value: Any, loc: Location, depth: int) -> Node:
        from sandkit.syntax.tree import PMap, PSeq

        self.count += 1
        if self.count > MAX_NODES or depth > MAX_DEPTH:
            raise KitError([Problem(loc, "JSON document is too large or too deeply nested to import")])
        if isinstance(value, PMap):
            mapping: dict[str, Node] = {}
            for key, item in value.items():
                key_loc = self._loc(value.pos_of_key(key))
                child = self.build(item, self._loc(value.pos_of(key)), depth + 1)
                child.key_loc = key_loc
                mapping[str(key)] = child
            return Node(mapping, loc)
        if isinstance(value, PSeq):
            return Node([self.build(v, self._loc(value.pos_of(i)), depth + 1) for i, v in enumerate(value)], loc)
        if isinstance(value, str):
            if "\x00" in value:
                raise KitError([Problem(loc, "a NUL character cannot reach a program")])
            return Node(str(value), loc)
        return Node(value, loc)

    def _loc(self, pos: Any) -> Location:
        return Location(self.shown, pos.line, pos.column)


_PLACEHOLDER = re.compile(r"\$\{")


@functools.cache
def _adapter(annotation: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(annotation)


def problem_with(annotation: Any, value: Any) -> str | None:
    """Why the kit would refuse ``value`` for a field of type ``annotation`` (None: it is accepted)."""
    from pydantic import ValidationError

    try:
        _adapter(annotation).validate_python(value)
    except ValidationError as exc:
        return str(exc.errors(include_url=False)[0]["msg"]).removeprefix("Value error, ")
    return None


def has_placeholder(value: Any) -> bool:
    return isinstance(value, str) and bool(_PLACEHOLDER.search(value))
