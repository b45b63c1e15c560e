"""Write an imported kit: its findings as a comment block on top, checked by the kit loader first.

Nothing is written unless the whole result validates: the kit and its side files are first laid out in
a temporary folder and loaded there, exactly as ``sandkit validate`` would load them.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any

from sandkit import __version__
from sandkit.errors import KitError, Location, Problem, UsageError
from sandkit.importer.result import Imported

#: The order a person reads a kit in (the model's field order).
KEY_ORDER = (
    "apiVersion",
    "kind",
    "name",
    "description",
    "extends",
    "image",
    "install",
    "startup",
    "env",
    "secrets",
    "network",
    "agent",
    "files",
    "workspace",
    "resources",
    "isolation",
    "ports",
    "triggers",
    "targets",
)
_UNSAFE = re.compile(r"[^\x20-\x7e]")


def comment_safe(text: str) -> str:
    """``text`` on one printable-ASCII line: a source key holding a newline cannot leave the comment."""
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii") or "?", text)


def render(imported: Imported, kit_path: Path) -> str:
    kit = dict(imported.kit)
    if imported.workspace_source is not None:
        relative = os.path.relpath(imported.workspace_source, kit_path.resolve().parent)
        kit.setdefault("workspace", {})["source"] = Path(relative).as_posix()
    ordered = {key: kit[key] for key in KEY_ORDER if key in kit}
    header = [
        f"Imported by sandkit {__version__} from {imported.source} ({imported.kind}). Review it before use.",
        "Every setting of the source that did not come over as it was:" if imported.findings else "",
    ]
    lines = [line for line in header if line]
    lines += [f"  {finding.line()}" for finding in imported.findings]
    if not imported.findings:
        lines.append("Every setting of the source came over.")
    return "".join(f"# {comment_safe(line)}\n" for line in lines) + _dump(ordered)


def _dump(data: dict[str, Any]) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.allow_unicode = False  # escape NEL, bidi controls and friends, as dump_kit does
    yaml.width = 4096
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]  # the importer's order: the model's field order
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue()


def write(imported: Imported, kit_path: Path, *, force: bool, root: Path | None = None) -> str:
    """Validate the kit with its side files where they will be, in memory; then write them; return the text."""
    from sandkit.compiler.output import write_atomic

    targets = [kit_path, *(kit_path.parent / name for name in imported.files)]
    existing = [p.as_posix() for p in targets if p.exists()]
    if existing and not force:
        raise UsageError(f"{', '.join(existing)} exist(s); pass --force to overwrite")
    text = render(imported, kit_path)
    _validate(text, imported, kit_path, root)
    for name, data in sorted(imported.files.items()):
        write_atomic(kit_path.parent / name, data)
    write_atomic(kit_path, text.encode("utf-8"))
    return text


def _validate(text: str, imported: Imported, kit_path: Path, root: Path | None) -> None:
    """Load the kit as ``sandkit validate`` would once it is written, without writing anything yet."""
    from sandkit.kits.files import KitFiles, repository_root
    from sandkit.kits.loader import load_kit
    from sandkit.kits.yamlnodes import Node, nodes_from_text

    folder = kit_path.absolute().parent
    pending = {(folder / name).resolve(): data for name, data in imported.files.items()}
    kit_file = kit_path.absolute().resolve()
    pending[kit_file] = text.encode("utf-8")

    class Pending(KitFiles):
        """The file system, with the kit and its side files already in place."""

        def is_file(self, path: Path) -> bool:
            return path.resolve() in pending or super().is_file(path)

        def size(self, path: Path) -> int:
            data = pending.get(path.resolve())
            return len(data) if data is not None else super().size(path)

        def read_bytes(self, path: Path, limit: int) -> bytes:
            data = pending.get(path.resolve())
            return data[: limit + 1] if data is not None else super().read_bytes(path, limit)

        def load_nodes(self, path: Path, display: str) -> Node:
            if path.resolve() == kit_file:
                return nodes_from_text(text, display)
            return super().load_nodes(path, display)

    files = Pending(root if root is not None else repository_root(kit_path))
    try:
        load_kit(kit_path, files=files, display=kit_path.as_posix())
    except KitError as exc:
        raise KitError(
            [
                *exc.problems,
                Problem(Location(kit_path.as_posix()), "the imported kit does not validate; nothing was written"),
            ]
        ) from None
