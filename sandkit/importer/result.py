"""What an importer hands the writer: the kit document, its side files, and the findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandkit.importer.source import Finding


@dataclass
class Imported:
    """A kit made from another format, not yet written anywhere."""

    source: str
    kind: str  # what the source was: "Docker Sandboxes spec" or "dev container"
    kit: dict[str, Any]
    #: Files the kit names by `source:`, relative to the kit's folder, with their bytes.
    files: dict[str, bytes] = field(default_factory=dict)
    #: The host folder a mount workspace should point at; the writer makes it relative to the kit.
    workspace_source: Path | None = None
    findings: list[Finding] = field(default_factory=list)
    #: The source itself is a partial kit (an sbx mixin); otherwise a Mixin only lacks an agent.
    declared_mixin: bool = False
