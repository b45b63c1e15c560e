"""Write an imported kit: its findings as a comment block on top, checked by the kit loader first.

Nothing is written unless the whole result validates: the kit and its side files are first laid out in
a temporary folder and loaded there, exactly as ``sandkit validate`` would load them.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
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


def write(imported: Imported, kit_path: Path, *, force: bool) -> str:
    """Validate the kit with its side files in a scratch folder, then write them; return the kit text."""
    from sandkit.compiler.output import write_atomic
    from sandkit.kits.loader import load_kit

    targets = [kit_path, *(kit_path.parent / name for name in imported.files)]
    existing = [p.as_posix() for p in targets if p.exists()]
    if existing and not force:
        raise UsageError(f"{', '.join(existing)} exist(s); pass --force to overwrite")
    text = render(imported, kit_path)
    with tempfile.TemporaryDirectory(prefix="sandkit-import-") as scratch:
        folder = Path(scratch)
        for name, data in imported.files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        trial = folder / kit_path.name
        trial_text = text
        if imported.workspace_source is not None:  # the relative source must resolve from the scratch folder too
            trial_text = render(imported, trial)
        trial.write_text(trial_text, encoding="utf-8")
        try:
            load_kit(trial)
        except KitError as exc:
            shown = kit_path.as_posix()
            raise KitError(
                [Problem(Location(shown, p.location.line, p.location.column), p.message, p.hint) for p in exc.problems]
                + [Problem(Location(shown), "the imported kit does not validate, so nothing was written")]
            ) from None
    for name, data in sorted(imported.files.items()):
        write_atomic(kit_path.parent / name, data)
    write_atomic(kit_path, text.encode("utf-8"))
    return text
