"""Load a kit: read located YAML, apply ``extends``, validate, and report every problem at its place."""

from __future__ import annotations

import difflib
import hashlib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from sandkit.errors import KitError, Location, Problem
from sandkit.kits.extends import load_merged
from sandkit.kits.files import FILE_SYSTEM, KitFiles, PathRefused, repository_root
from sandkit.kits.messages import dotted, explain
from sandkit.kits.model import API_VERSION, MANY, Kit
from sandkit.kits.reading import kit_path, real
from sandkit.kits.yamlnodes import Node

MAX_SOURCE_BYTES = 8 * 1024 * 1024


def mixin_not_built(path: Path) -> str:
    """Why a Mixin on the command line is an error, and what it is for."""
    return (
        f"this file is a Mixin: a partial kit that Kits take in with `extends: [./{path.name}]`; "
        "only a Kit can be built, so build a Kit that extends it"
    )


PathKey = tuple[str | int, ...]


@dataclass(frozen=True)
class LoadedKit:
    """A validated kit with what the compiler needs to know about where it came from."""

    kit: Kit
    path: Path
    display: str
    sha256: str
    #: Where each value of the merged kit was written (its file: a path, or ``preset:NAME``).
    origins: dict[PathKey, Location] = field(default_factory=dict, compare=False, repr=False)
    #: The folder the kit may read from (None: read through a reader that confines itself).
    root: Path | None = None
    #: The bytes of every file the kit names (files[].source, image.ca_certificates), by resolved path.
    sources: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def relative_path(self) -> str:
        """The kit's path from its repository's top folder: the same from any working folder."""
        if self.root is None:
            return self.display
        return self.path.relative_to(self.root).as_posix()


def load_kit(
    path: Path,
    *,
    allow_mixin: bool = True,
    files: KitFiles = FILE_SYSTEM,
    display: str | None = None,
    root: Path | None = None,
) -> LoadedKit:
    """Load and validate ``path`` (read through ``files``); raise KitError listing every problem found.

    On the file system the kit reads only below ``root`` (default: its repository, see reading.py).
    """
    display = display or path.as_posix()
    on_disk = files is FILE_SYSTEM
    if on_disk:
        path = kit_path(path)
        files = KitFiles(root if root is not None else repository_root(path))
        try:
            files.check_inside(real(path), "the kit file")
        except PathRefused as exc:
            raise KitError([Problem(Location(display), str(exc))]) from None
    merged = load_merged(path, display, files=files)
    positions = _positions(merged)
    data = merged.plain()
    is_mixin = data.get("kind") == "Mixin"
    problems = _unknown_keys(data, Kit, (), positions)
    try:
        kit = Kit.model_validate(data)
    except ValidationError as exc:
        problems += _problems(exc, data, positions, merged.loc, skip_missing=is_mixin)
        if not is_mixin:
            problems += _meaning_problems(exc, data, positions, merged.loc)
        kit = None
    if problems:
        raise KitError(problems)
    if kit is None:  # a Mixin with only "missing" errors is valid on its own
        kit = _mixin_placeholder(data)
    if kit.kind == "Mixin" and not allow_mixin:
        raise KitError([Problem(Location(display, 1, 1), mixin_not_built(path))])
    sources = _read_sources(kit, positions, files)
    digest = hashlib.sha256(files.read_bytes(path, MAX_SOURCE_BYTES)).hexdigest()
    origins = {key: value_loc for key, (value_loc, _) in positions.items()}
    return LoadedKit(
        kit=kit,
        path=path,
        display=display,
        sha256=digest,
        origins=origins,
        root=files.root if on_disk else None,
        sources=sources,
    )


def name_clashes(kits: list[LoadedKit]) -> list[Problem]:
    """One problem per Kit whose name another Kit also has, naming every file of that name."""
    by_name: dict[str, list[LoadedKit]] = {}
    for loaded in kits:
        if loaded.kit.kind == "Kit":
            by_name.setdefault(loaded.kit.name, []).append(loaded)
    return [
        Problem(
            _name_location(loaded),
            f"{len(same)} kits are named {name}: {', '.join(k.display for k in same)}; "
            "each kit needs a name of its own (it names the output folder, images and workflows)",
        )
        for name, same in sorted(by_name.items())
        if len(same) > 1
        for loaded in same
    ]


def _name_location(loaded: LoadedKit) -> Location:
    return loaded.origins.get(("name",), Location(loaded.display))


def _mixin_placeholder(data: dict[str, Any]) -> Kit:
    """Validate a partial Mixin by filling the fields only a Kit must have."""
    filled = dict(data)
    filled.setdefault("agent", {})
    if isinstance(filled["agent"], dict):
        filled["agent"] = {"command": ["true"], **filled["agent"]}
    filled.setdefault("name", "mixin")
    filled.setdefault("apiVersion", API_VERSION)
    return Kit.model_validate(filled)


def _positions(root: Node) -> dict[PathKey, tuple[Location, Location | None]]:
    out: dict[PathKey, tuple[Location, Location | None]] = {}

    def walk(node: Node, key: PathKey) -> None:
        out[key] = (node.loc, node.key_loc)
        if isinstance(node.value, dict):
            for name, child in node.value.items():
                walk(child, (*key, name))
        elif isinstance(node.value, list):
            for index, child in enumerate(node.value):
                walk(child, (*key, index))

    walk(root, ())
    return out


def _locate(
    key: PathKey, positions: dict[PathKey, tuple[Location, Location | None]], use_key: bool = False
) -> Location:
    while key not in positions and key:
        key = key[:-1]
    value_loc, key_loc = positions[key]
    return key_loc if use_key and key_loc else value_loc


def _data_path(loc: tuple[Any, ...], data: Any) -> tuple[PathKey, bool]:
    """Map pydantic's error location onto the data, dropping validator tags; flag key errors."""
    path: list[str | int] = []
    current = data
    on_key = False
    for part in loc:
        if part == "[key]":
            on_key = True
            break
        if _has(current, part):
            current = current[part]
            path.append(part)
        elif isinstance(part, str) and isinstance(current, dict):
            path.append(part)  # a missing key: point at its parent mapping
            break
    return tuple(path), on_key


def _has(container: Any, part: Any) -> bool:
    if isinstance(container, dict):
        return part in container
    return isinstance(container, list) and isinstance(part, int) and 0 <= part < len(container)


def _problems(
    exc: ValidationError,
    data: Any,
    positions: dict[PathKey, tuple[Location, Location | None]],
    root: Location,
    *,
    skip_missing: bool,
) -> list[Problem]:
    problems = []
    for error in exc.errors(include_url=False):
        if error["type"] == "extra_forbidden":
            continue  # reported with a suggestion by _unknown_keys
        if error["type"] == "missing" and skip_missing:
            continue
        path, on_key = _data_path(error["loc"], data)
        found = explain(dict(error), path)
        if MANY in found:  # the kit-wide checks, each problem of its own
            for each in found.split(MANY):
                problems += _problems_of(each, path, positions, on_key)
            continue
        message = found
        if error["type"] == "missing":
            field_name = error["loc"][-1]
            parent = path[:-1] if path and path[-1] == field_name else path
            location = _locate(parent, positions) if parent else root
            problems.append(Problem(location, f"{dotted((*parent, field_name))} is required"))
            continue
        problems += _problems_of(message, path, positions, on_key)
    return problems


#: How many times the kit-wide checks are tried on a kit with its faulty parts left out.
PRUNE_ROUNDS = 3


def _meaning_problems(
    exc: ValidationError, data: Any, positions: dict[PathKey, tuple[Location, Location | None]], root: Location
) -> list[Problem]:
    """The kit-wide problems (``Kit._consistent``: a secret both in env and secrets, a clone whose
    host is not allowed...) of a kit that also has structural ones, so one round of ``validate``
    names both. Pydantic runs those checks only on a kit whose every field is valid, so they run on
    a copy with each faulty key (or list item) left out. A check's finding about a top-level
    section that lost a part is dropped: it may be only the gap's doing (a misspelt `network.alow`
    leaves `network.allow` empty). Nothing when the copy cannot be made valid in a few rounds."""
    import copy

    if not any(e["loc"] for e in exc.errors(include_url=False)):
        return []  # the kit-wide checks ran: _problems has their findings
    pruned = copy.deepcopy(data)
    touched: set[str] = set()
    for _ in range(PRUNE_ROUNDS):
        fields = [e for e in exc.errors(include_url=False) if e["loc"]]
        if not fields:
            break
        # Later list items first, so that leaving one out does not move the next one to fix.
        for error in sorted(
            fields, key=lambda e: [(0, p, "") if isinstance(p, int) else (1, 0, p) for p in e["loc"]], reverse=True
        ):
            if not _prune(pruned, error):
                return []
            touched.add(str(error["loc"][0]))
        try:
            Kit.model_validate(pruned)
            return []
        except ValidationError as again:
            exc = again
    else:
        return []
    found = _problems(exc, pruned, positions, root, skip_missing=False)
    return [p for p in found if not any(section in p.message for section in touched)]


def _prune(data: Any, error: Any) -> bool:
    """Leave out what ``error`` is about: its key, or the item or object holding a missing field."""
    loc = list(error["loc"])
    if error["type"] == "missing":
        loc = loc[:-1]
    while loc and not isinstance(loc[-1], int | str):
        loc.pop()
    if len(loc) < 1:
        return False
    parent = data
    for step in loc[:-1]:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return True  # already left out with an item above it
    last = loc[-1]
    in_dict = isinstance(parent, dict) and last in parent
    if in_dict or (isinstance(parent, list) and isinstance(last, int) and last < len(parent)):
        del parent[last]
    return True


def _problems_of(
    message: str, path: PathKey, positions: dict[PathKey, tuple[Location, Location | None]], on_key: bool
) -> list[Problem]:
    """One located problem: at ``path``, or at the path an ``@path`` message names (model.at)."""
    if message.startswith("@"):
        target, _, message = message[1:].partition(" ")
        path = (*path, *(int(p) if p.isdigit() else p for p in target.split(".")))
    return [Problem(_locate(path, positions, use_key=on_key), f"{dotted(path)}: {message}")]


def _model_for(annotation: Any) -> type[BaseModel] | None:
    """The BaseModel inside ``annotation`` (through Optional, list and dict), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_for(arg)
        if found is not None:
            return found
    return None


def _container_of(annotation: Any) -> str:
    origins = {typing.get_origin(a) for a in (annotation, *typing.get_args(annotation))}
    if list in origins:
        return "list"
    if dict in origins:
        return "dict"
    return "model"


def _unknown_keys(
    data: Any, model: type[BaseModel], path: PathKey, positions: dict[PathKey, tuple[Location, Location | None]]
) -> list[Problem]:
    """Unknown keys at every level, each with a 'did you mean' when a field name is close."""
    if not isinstance(data, dict):
        return []
    fields = {(info.alias or name): info for name, info in model.model_fields.items()}
    problems = []
    for key, value in data.items():
        if key not in fields:
            close = difflib.get_close_matches(str(key), list(fields), n=1, cutoff=0.6)
            hint = f"did you mean `{close[0]}`?" if close else "valid keys: " + ", ".join(sorted(fields))
            where = dotted((*path, key))
            problems.append(Problem(_locate((*path, key), positions, use_key=True), f"unknown key `{where}`", hint))
            continue
        annotation = fields[key].annotation
        sub = _model_for(annotation)
        if sub is None:
            continue
        kind = _container_of(annotation) if not isinstance(annotation, types.UnionType) else "model"
        if kind == "list" and isinstance(value, list):
            for index, item in enumerate(value):
                problems += _unknown_keys(item, sub, (*path, key, index), positions)
        elif kind == "dict" and isinstance(value, dict):
            for name, item in value.items():
                problems += _unknown_keys(item, sub, (*path, key, name), positions)
        else:
            problems += _unknown_keys(value, sub, (*path, key), positions)
    return problems


def _read_sources(
    kit: Kit, positions: dict[PathKey, tuple[Location, Location | None]], files: KitFiles
) -> dict[str, bytes]:
    """Read every file the kit names, once and bounded; a folder where a folder belongs."""
    problems = []
    sources: dict[str, bytes] = {}
    named: list[tuple[PathKey, str]] = [(("files", i, "source"), f.source) for i, f in enumerate(kit.files) if f.source]
    named += [(("image", "ca_certificates", i), c) for i, c in enumerate(kit.image.ca_certificates)]
    for key, source in named:
        shown = files.display(Path(source))
        try:
            data = files.read_bytes(Path(source), MAX_SOURCE_BYTES)
        except PathRefused as exc:
            problems.append(Problem(_locate(key, positions), f"{dotted(key)}: {shown} {exc}"))
            continue
        if len(data) > MAX_SOURCE_BYTES:
            problems.append(Problem(_locate(key, positions), f"{dotted(key)}: {shown} is larger than 8 MiB"))
        sources[source] = data
    folder = kit.workspace.source
    if folder and not files.is_dir(Path(folder)):
        why = "is not a folder" if Path(folder).exists() else "not found"
        problems.append(
            Problem(
                _locate(("workspace", "source"), positions), f"workspace.source: {files.display(Path(folder))} {why}"
            )
        )
    if problems:
        raise KitError(problems)
    return sources
