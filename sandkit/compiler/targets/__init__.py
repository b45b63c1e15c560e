"""Targets: each module renders a Plan into files and says how faithfully it enforces the kit.

A target module defines ``NAME``, ``render(plan, context) -> dict[str, bytes]`` (paths relative to
the kit's output folder) and ``fidelity(plan) -> list[Fidelity]``. Adding a target is one module
here plus an entry in TARGETS.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

#: Every target, in build order; compose builds on docker's files (its build context), and the
#: actions workflow builds the same Dockerfile and compose's egress proxy; kubernetes needs the
#: Dockerfile and writes the proxy's egress/ build context itself (the same bytes as compose); the
#: devcontainer opens compose's agent service.
TARGETS = ("docker", "compose", "kubernetes", "actions", "devcontainer")
REQUIRES = {
    "compose": ("docker",),
    "kubernetes": ("docker",),
    "actions": ("docker", "compose"),
    "devcontainer": ("docker", "compose"),
}


@dataclass(frozen=True)
class RenderContext:
    """What a renderer may know beyond the plan: where its files will be written."""

    output_folder: Path


def load_target(name: str) -> ModuleType:
    return importlib.import_module(f"sandkit.compiler.targets.{name}")
