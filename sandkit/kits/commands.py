"""``sandkit validate`` and ``sandkit init``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from sandkit.errors import KitError, UsageError
from sandkit.kits.discover import expand_kit_paths
from sandkit.kits.loader import load_kit
from sandkit.kits.reading import root_folder


def validate(arguments: list[str], *, quiet: bool = False, root: str | None = None) -> int:
    """Validate every kit; print each problem located; exit 1 if any kit is invalid."""
    failed = 0
    top = root_folder(root)
    for path in expand_kit_paths(arguments):
        try:
            loaded = load_kit(path, root=top)
        except KitError as exc:
            failed += 1
            for problem in exc.problems:
                print(problem, file=sys.stderr)
            continue
        if not quiet:
            print(f"{loaded.display}: ok ({loaded.kit.kind} {loaded.kit.name})")
    return 1 if failed else 0


def _kit_name(path: Path) -> str:
    stem = path.stem if path.stem not in ("sandkit", "kit") else path.resolve().parent.name
    name = re.sub(r"[^a-z0-9-]+", "-", stem.lower()).strip("-")[:63].strip("-")
    return name or "my-agent"


def init(path_text: str, *, preset: str | None, force: bool) -> int:
    """Write a commented kit that validates; refuse to overwrite unless told to."""
    from sandkit.kits.extends import preset_names
    from sandkit.kits.template import render_init

    if preset is not None and preset not in preset_names():
        raise UsageError(f"unknown preset {preset!r}; bundled presets: {', '.join(preset_names())}")
    path = Path(path_text)
    if path.exists() and not force:
        raise UsageError(f"{path_text} exists; pass --force to overwrite it")
    text = render_init(_kit_name(path), preset, schema_ref=_schema_ref(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    load_kit(path)  # what init writes must validate; a failure here is a bug worth a loud error
    print(f"wrote {path_text}; check it with: sandkit validate {path_text}")
    return 0


def _schema_ref(path: Path) -> str:
    """A $schema modeline target: the repository's committed schema when one is above the kit."""
    for folder in [path.resolve().parent, *path.resolve().parents]:
        candidate = folder / "schemas" / "kit.schema.json"
        if candidate.is_file():
            import os

            return Path(os.path.relpath(candidate, path.resolve().parent)).as_posix()
    from sandkit.kits.schema import PACKAGED_SCHEMA

    return PACKAGED_SCHEMA.as_uri()
