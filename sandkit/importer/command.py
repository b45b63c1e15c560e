"""``sandkit import FILE``: a Docker Sandboxes spec.yaml or a devcontainer.json becomes a kit."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sandkit.errors import UsageError
from sandkit.importer.result import Imported


def detect(path: Path) -> Path:
    """The file to import: ``path`` itself, or the spec or dev container file inside a folder; a
    UsageError (exit 2, as every command gives for a missing file) when there is nothing there."""
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{path.as_posix()}: no such file or folder")
    if path.is_dir():
        for candidate in ("spec.yaml", "devcontainer.json", ".devcontainer/devcontainer.json", ".devcontainer.json"):
            if (path / candidate).is_file():
                return path / candidate
        raise UsageError(f"{path}: no spec.yaml or devcontainer.json in this folder")
    return path


def load(path: Path, extends: tuple[str, ...] = ()) -> Imported:
    shown = path.as_posix()
    if path.name.endswith(".json"):
        from sandkit.importer.devcontainer import import_devcontainer

        return import_devcontainer(path, shown, extends)
    if path.suffix in (".yaml", ".yml"):
        from sandkit.importer.sbx import import_sbx

        return import_sbx(path, shown)
    raise UsageError(f"{shown}: import reads an sbx spec.yaml or a devcontainer.json (by the file's extension)")


def run(args: argparse.Namespace) -> int:
    from sandkit.importer.writer import write

    extends = tuple(args.extends or ())
    if extends:
        from sandkit.kits.extends import preset_names

        unknown = [p for p in extends if p not in preset_names() and not p.endswith((".yaml", ".yml"))]
        if unknown:
            raise UsageError(f"unknown preset(s) {', '.join(unknown)}; bundled presets: {', '.join(preset_names())}")
    imported = load(detect(Path(args.file)), extends)
    if extends:
        imported.kit["extends"] = list(extends)
        if imported.kit.get("kind") == "Mixin" and not imported.declared_mixin:
            imported.kit["kind"] = "Kit"
    from sandkit.importer.workspace import place_workspace
    from sandkit.kits.reading import repository_root, root_folder

    kit_path = Path(args.output)
    root = root_folder(getattr(args, "root", None))
    place_workspace(imported, root if root is not None else repository_root(kit_path))
    write(imported, kit_path, force=args.force, root=root)
    for finding in imported.findings:
        print(finding.line(), file=sys.stderr)
    count = len(imported.findings)
    print(
        f"wrote {kit_path.as_posix()} from {imported.source}; "
        + (
            f"{count} setting(s) did not come over as they were (listed above and at the top of the kit)"
            if count
            else "every setting came over"
        )
    )
    return 0
