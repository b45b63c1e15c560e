"""``sandkit init``: write a commented kit that validates, or nothing.

The kit is rendered, written to a temporary file beside its destination, loaded and validated
there, and only then moved into place: a name that cannot be a kit name, a folder that cannot be
written or (a bug) a template that does not validate leaves no file behind. What it writes holds
no placeholder and no path of the machine: the schema modeline points at the repository's own
committed schema, relative to the kit, or at the schema's stable URL.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from sandkit.errors import KitError, UsageError
from sandkit.kits.reading import real, repository_root

DEFAULT_FILE = "kit.yaml"
SCHEMA_URL = "https://sandkit.dev/schemas/kit.schema.json"
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


def init(path_text: str, *, preset: str | None, force: bool) -> int:
    """Write a commented kit that validates; refuse to overwrite unless told to."""
    from sandkit.kits.extends import preset_names
    from sandkit.kits.template import render_init

    if preset is not None and preset not in preset_names():
        raise UsageError(f"unknown preset {preset!r}; bundled presets: {', '.join(preset_names())}")
    path = destination(path_text)
    if path.is_dir():
        raise UsageError(f"sandkit init: {path.as_posix()} is a folder; name the kit file to write")
    if (path.exists() or path.is_symlink()) and not force:
        raise UsageError(f"sandkit init: {path.as_posix()} exists; pass --force to overwrite it")
    name = kit_name(path)
    root = repository_root(path)
    shown = Path(os.path.relpath(path.absolute(), root)).as_posix()
    text = render_init(name, preset, schema_ref=schema_ref(path, root), kit_path=shown)
    _write_validated(path, text, force=force)
    print(f"wrote {path.as_posix()}; check it with: sandkit validate {path.as_posix()}")
    return 0


def destination(path_text: str) -> Path:
    """The kit file to write: a folder (an existing one, or a name ending in '/') gets kit.yaml."""
    path = Path(path_text)
    if path_text.endswith(("/", os.sep)) or path.is_dir():
        return path / DEFAULT_FILE
    return path


def kit_name(path: Path) -> str:
    """The kit's name from its file name (its folder's for kit.yaml or sandkit.yaml); UsageError when
    none can be made, rather than a kit that would not validate."""
    stem = path.stem if path.stem not in ("sandkit", "kit") else path.absolute().parent.name
    name = re.sub(r"[^a-z0-9-]+", "-", stem.lower()).strip("-")[:63].strip("-")
    if not _LABEL.fullmatch(name):
        raise UsageError(
            f"sandkit init: cannot make a kit name from {stem!r} (a kit name is lowercase letters, digits and "
            "'-'); choose a file name such as reviewer.yaml"
        )
    return name


def schema_ref(path: Path, root: Path) -> str:
    """The repository's committed schema relative to the kit, if one lies between the kit and the
    repository's top folder; else the schema's stable URL. Never a path of this installation."""
    folder = real(path.absolute().parent)
    for candidate_folder in (folder, *folder.parents):
        candidate = candidate_folder / "schemas" / "kit.schema.json"
        if candidate.is_file():
            return Path(os.path.relpath(candidate, folder)).as_posix()
        if candidate_folder == root:
            break
    return SCHEMA_URL


def _write_validated(path: Path, text: str, *, force: bool) -> None:
    """Validate ``text`` as the kit at ``path`` from a temporary file beside it, then move it there."""
    from sandkit.kits.loader import load_kit

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".yaml", dir=path.parent)
    except OSError as exc:
        raise UsageError(f"sandkit init: cannot write {path.as_posix()}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)
        try:
            load_kit(Path(temporary), display=path.as_posix())
        except KitError as exc:  # a bug in the template: say so, and leave nothing behind
            raise KitError(exc.problems) from None
        if force:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)  # fails if a file appeared meanwhile: never overwrite it
    except FileExistsError:
        raise UsageError(f"sandkit init: {path.as_posix()} exists; pass --force to overwrite it") from None
    except OSError as exc:
        raise UsageError(f"sandkit init: cannot write {path.as_posix()}: {exc.strerror or exc}") from None
    finally:
        Path(temporary).unlink(missing_ok=True)
