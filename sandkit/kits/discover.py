"""Turn command-line arguments into kit files: files as given, folders searched for kits.

A file in a folder is a kit when its YAML says so: a top-level ``apiVersion`` of sandkit's (any
``sandkit...`` value, so that ``sandkit/v2`` is reported by the loader rather than skipped) or a
``kind`` of Kit or Mixin. The file is parsed for that, never searched for text: a Kit whose
instructions hold the line ``kind: Mixin`` is still a Kit.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from sandkit.errors import UsageError
from sandkit.kits.reading import PathRefused, read_regular, real
from sandkit.kits.yamlnodes import MAX_BYTES

KIT_MARKER = "sandkit/v1"
SUFFIXES = (".yaml", ".yml")
KINDS = ("Kit", "Mixin")
#: Bounds of a folder walk: entries looked at, and folder depth.
MAX_ENTRIES = 200_000
MAX_DEPTH = 32
SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "node_modules"})


@dataclass(frozen=True)
class KitSource:
    """A kit file to load: whether it was named on the command line, and its kind as parsed."""

    path: Path
    named: bool
    kind: str = "Kit"


def expand_kit_paths(arguments: list[str]) -> list[Path]:
    """Each file argument as is; each folder's kit files (Kits and Mixins), sorted."""
    return [source.path for source in find_kits(arguments)]


def find_kits(arguments: list[str]) -> list[KitSource]:
    """Each file argument as is (its kind parsed), and the kit files found in each folder argument."""
    found: list[KitSource] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            kits = [KitSource(p, named=False, kind=k) for p in _yaml_files(path) if (k := kit_kind(p)) is not None]
            if not kits:
                raise UsageError(f"{argument}: no kit files (YAML declaring apiVersion: {KIT_MARKER}) in this folder")
            found.extend(kits)
        elif path.exists() or path.is_symlink():
            found.append(KitSource(path, named=True, kind=kit_kind(path) or "Kit"))
        else:
            raise UsageError(f"{argument}: no such file or folder")
    return found


def _yaml_files(folder: Path) -> list[Path]:
    """Regular *.yaml/*.yml files below ``folder``, sorted; links to folders are not followed."""
    found: list[Path] = []
    seen = 0
    pending: list[tuple[Path, int]] = [(folder, 0)]
    while pending:
        current, depth = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        seen += len(entries)
        if seen > MAX_ENTRIES:
            raise UsageError(f"{folder}: more than {MAX_ENTRIES} entries to search; name the kits' own folder")
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH and entry.name not in SKIPPED_FOLDERS:
                    pending.append((Path(entry.path), depth + 1))
            elif entry.name.endswith(SUFFIXES) and _regular(entry):
                found.append(Path(entry.path))
    return sorted(found)


def _regular(entry: os.DirEntry[str]) -> bool:
    try:
        return stat.S_ISREG(entry.stat().st_mode)
    except OSError:
        return False


def kit_kind(path: Path) -> str | None:
    """``Kit`` or ``Mixin`` when the file's top-level mapping declares a kit; None otherwise."""
    try:
        data = read_regular(real(path), MAX_BYTES)
    except (PathRefused, OSError):
        return None
    keys, broken = top_level_scalars(data, ("apiVersion", "kind"))
    api, kind = keys.get("apiVersion"), keys.get("kind")
    if api is not None and api.lower().startswith("sandkit"):
        return kind if kind in KINDS else "Kit"
    if api is None and kind in KINDS:
        return kind
    if broken is not None and not keys:
        print(f"{path}: note: skipped, not readable as YAML ({broken})", file=sys.stderr)
    return None


def top_level_scalars(data: bytes, wanted: tuple[str, ...]) -> tuple[dict[str, str], str | None]:
    """The plain scalar values of ``wanted`` keys in the first document's top-level mapping.

    Reads YAML events only as far as needed; a syntax error stops the reading and is returned
    (with what was found before it), so a kit broken further down is still recognised as a kit.
    """
    from sandkit.syntax.tree import SyntaxProblem
    from sandkit.syntax.yaml import EVENT as yaml
    from sandkit.syntax.yaml import events

    found: dict[str, str] = {}
    depth, expecting_key, key = 0, True, None
    try:
        for event in events(data):
            if isinstance(event, yaml.CollectionStartEvent):
                if depth == 0 and not isinstance(event, yaml.MappingStartEvent):
                    break
                if depth == 1 and expecting_key:
                    key = None  # a complex key
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                if depth == 1:
                    expecting_key = not expecting_key
                if depth == 0:
                    break
            elif isinstance(event, yaml.ScalarEvent | yaml.AliasEvent) and depth == 1:
                if expecting_key:
                    key = event.value if isinstance(event, yaml.ScalarEvent) else None
                elif key in wanted and isinstance(event, yaml.ScalarEvent):
                    found[key] = event.value
                    if len(found) == len(wanted):
                        break
                expecting_key = not expecting_key
    except SyntaxProblem as exc:
        return found, exc.message
    return found, None
