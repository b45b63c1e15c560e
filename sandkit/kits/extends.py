"""``extends``: resolve parents (bundled presets or relative paths) and merge located trees.

Merge rules (docs/kit-format.md, "Merging"): mappings merge key by key, lists append with duplicates dropped and order
kept, scalars are replaced, the kit itself last. Two refinements a user expects: list entries that
carry an identity (secrets by ``name``, files by ``path``, ports by ``container``) replace an
earlier entry with the same identity instead of sitting beside it, and ``agent.command`` is one
command line, so it is replaced whole. ``name``, ``kind``, ``description`` and ``extends`` belong
to each file and are never inherited.
"""

from __future__ import annotations

from pathlib import Path

from sandkit.errors import KitError, Location, Problem
from sandkit.kits.files import FILE_SYSTEM, KitFiles, PathRefused
from sandkit.kits.messages import dotted
from sandkit.kits.yamlnodes import Node

PRESET_DIR = Path(__file__).parent / "presets"
NOT_INHERITED = frozenset({"name", "kind", "description", "extends", "apiVersion"})
REPLACED_WHOLE = frozenset({("agent", "command")})
IDENTITY_KEYS: dict[tuple[str, ...], str] = {("secrets",): "name", ("files",): "path", ("ports",): "container"}
#: List fields holding paths relative to the file that declares them.
RELATIVE_PATH_FIELDS = (("files", "*", "source"), ("image", "ca_certificates", "*"), ("workspace", "source"))
MAX_CHAIN = 32


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def _is_preset_ref(ref: str) -> bool:
    return "/" not in ref and not ref.endswith((".yaml", ".yml"))


def _resolve(ref: str, node: Node, base: Path, files: KitFiles) -> tuple[Path, str, KitFiles]:
    """The parent ``ref`` names, how to show it, and where to read it (presets: the package)."""
    if _is_preset_ref(ref):
        candidate = PRESET_DIR / f"{ref}.yaml"
        if not candidate.is_file():
            raise KitError(
                [Problem(node.loc, f"unknown preset {ref!r}", hint="bundled presets: " + ", ".join(preset_names()))]
            )
        return candidate, f"preset:{ref}", FILE_SYSTEM
    try:
        candidate = files.resolve(base.parent, ref)
    except PathRefused as exc:
        raise KitError([Problem(node.loc, f"extends: {exc}")]) from None
    if not files.is_file(candidate):
        raise KitError([Problem(node.loc, f"extended kit {ref!r} not found (looked for {files.display(candidate)})")])
    return candidate, files.display(candidate), files


def load_merged(path: Path, display: str, chain: tuple[str, ...] = (), files: KitFiles = FILE_SYSTEM) -> Node:
    """Load ``path`` and everything it extends, merged, with every node's origin kept."""
    key = files.identity(path)
    if key in chain:
        names = [*chain, key]
        start = names.index(key)
        cycle = " -> ".join(files.display(Path(n)) for n in names[start:])
        raise KitError([Problem(Location(display), f"extends cycle: {cycle}")])
    if len(chain) >= MAX_CHAIN:
        raise KitError([Problem(Location(display), f"extends chain deeper than {MAX_CHAIN} files")])
    root = files.load_nodes(path, display)
    _rebase_paths(root, path.parent, files)
    parents = root.value.get("extends")
    if parents is None:
        return root
    if isinstance(parents.value, str):
        parents = root.value["extends"] = Node([parents], parents.loc, parents.key_loc)
    refs = parents.value
    if not isinstance(refs, list) or not all(isinstance(r.value, str) for r in refs if isinstance(r, Node)):
        raise KitError([Problem(parents.loc, "`extends` is a list of preset names or relative paths")])
    merged: Node | None = None
    for ref_node in refs if isinstance(refs, list) else []:
        ref = ref_node.value
        parent_path, parent_display, parent_files = _resolve(ref, ref_node, path, files)
        try:
            parent = load_merged(parent_path, parent_display, (*chain, key), parent_files)
        except KitError as exc:
            note = f" (extended from {ref_node.loc})"
            raise KitError([Problem(p.location, p.message + note, p.hint) for p in exc.problems]) from None
        inheritable = Node({k: v for k, v in parent.value.items() if k not in NOT_INHERITED}, parent.loc)
        merged = inheritable if merged is None else merge(merged, inheritable, ())
    assert merged is not None or not refs
    return merge(merged, root, ()) if merged is not None else root


def merge(base: Node, top: Node, path: tuple[str, ...]) -> Node:
    """Merge ``top`` over ``base`` following the rules in the module docstring."""
    if isinstance(base.value, dict) and isinstance(top.value, dict):
        out = dict(base.value)
        for key, node in top.value.items():
            out[key] = merge(out[key], node, (*path, key)) if key in out else node
        return Node(out, top.loc, top.key_loc)
    if isinstance(base.value, list) and isinstance(top.value, list) and path not in REPLACED_WHOLE:
        return Node(_append(base.value, top.value, IDENTITY_KEYS.get(path)), top.loc, top.key_loc)
    return top


def _append(first: list[Node], second: list[Node], identity: str | None) -> list[Node]:
    result: list[Node] = []
    for item in [*first, *second]:
        ident = _identity(item, identity)
        if ident is not None:
            result = [r for r in result if _identity(r, identity) != ident]
        elif any(r.plain() == item.plain() for r in result):
            continue
        result.append(item)
    return result


def _identity(node: Node, identity: str | None) -> object:
    if identity and isinstance(node.value, dict) and identity in node.value:
        return node.value[identity].plain()
    return None


def _rebase_paths(root: Node, folder: Path, files: KitFiles) -> None:
    """Store paths declared relative to their own file as absolute, so they survive merging."""
    problems = []
    for pattern in RELATIVE_PATH_FIELDS:
        for key, node in _select(root, pattern, ()):
            if not isinstance(node.value, str) or not node.value:
                continue  # the model reports the wrong type
            where = dotted(key)
            if node.value.startswith("/") or "\\" in node.value:
                problems.append(Problem(node.loc, f"{where}: {node.value!r} must be a path relative to the kit file"))
            else:
                try:
                    node.value = str(files.resolve(folder, node.value))
                except PathRefused as exc:
                    problems.append(Problem(node.loc, f"{where}: {exc}"))
    if problems:
        raise KitError(problems)


def _select(
    node: Node, pattern: tuple[str, ...], key: tuple[str | int, ...]
) -> list[tuple[tuple[str | int, ...], Node]]:
    """The nodes at ``pattern`` (``*``: every list item), each with its key path."""
    if not pattern:
        return [(key, node)]
    head, rest = pattern[0], pattern[1:]
    if head == "*":
        items = node.value if isinstance(node.value, list) else []
        return [found for index, item in enumerate(items) for found in _select(item, rest, (*key, index))]
    if isinstance(node.value, dict) and head in node.value:
        return _select(node.value[head], rest, (*key, head))
    return []
