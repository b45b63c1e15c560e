"""Write kits to a temporary folder and collect the errors loading them gives."""

from __future__ import annotations

import textwrap
from pathlib import Path

from sandkit.errors import KitError
from sandkit.kits.loader import LoadedKit, load_kit

MINIMAL = """\
apiVersion: sandkit/v1
name: demo
agent:
  command: [agent, --run]
"""


def write(folder: Path, text: str, name: str = "kit.yaml") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def errors(folder: Path, text: str, name: str = "kit.yaml") -> list[str]:
    """Every problem as 'LINE:COL: message' (the file part stripped), in order."""
    path = write(folder, text, name)
    try:
        load_kit(path)
    except KitError as exc:
        return [
            f"{p.location.line}:{p.location.column}: {p.message}" + (f" ({p.hint})" if p.hint else "")
            for p in exc.problems
        ]
    return []


def load(folder: Path, text: str, name: str = "kit.yaml") -> LoadedKit:
    return load_kit(write(folder, text, name))
