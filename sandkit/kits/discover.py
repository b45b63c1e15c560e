"""Turn command-line arguments into kit files: files as given, folders searched for kits."""

from __future__ import annotations

from pathlib import Path

from sandkit.errors import UsageError

KIT_MARKER = "sandkit/v1"
SUFFIXES = (".yaml", ".yml")


def _looks_like_kit(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return KIT_MARKER.encode() in head


def expand_kit_paths(arguments: list[str]) -> list[Path]:
    """Each file argument as is; each folder's *.yaml/*.yml files that declare sandkit/v1, sorted."""
    found: list[Path] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            kits = sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file() and _looks_like_kit(p))
            if not kits:
                raise UsageError(f"{argument}: no kit files (YAML declaring apiVersion: {KIT_MARKER}) in this folder")
            found.extend(kits)
        elif path.exists():
            found.append(path)
        else:
            raise UsageError(f"{argument}: no such file or folder")
    return found
