"""What a target is: the shape every module in sandkit/compiler/targets/ has, and what it is handed.

A target turns one Plan into files and says, for each kit setting, how faithfully those files hold
it. Three rules keep targets independent of each other:

- it reads only the Plan (every fact it needs is there; it never looks at the kit);
- it never imports another target: what several targets share lives in a module beside them
  (``proxy``, ``engine``, ``fidelity``, ``addresses``, ``plan``);
- it never renders another target's files itself: it names the targets it builds on in
  ``REQUIRES`` and reads their rendered files from ``context.files_of(name)``.

A target module satisfies the ``Target`` protocol with two constants and two functions::

    NAME = "compose"
    REQUIRES = ("docker",)          # rendered first; their files arrive in the render context
    def render(plan: Plan, context: RenderContext) -> Files: ...
    def fidelity(plan: Plan) -> list[Fidelity]: ...

and is listed once in ``REGISTRY`` in sandkit/compiler/targets/__init__.py, where mypy checks it
against this protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sandkit.compiler.fidelity import Fidelity
    from sandkit.compiler.plan import Plan

#: A target's output: paths relative to the kit's output folder, and their bytes.
Files = dict[str, bytes]


@dataclass(frozen=True)
class RenderContext:
    """What a target may know beyond the plan: where its files go, and its required targets' files."""

    output_folder: Path
    #: Target name to the files it rendered, for exactly the targets this one REQUIRES.
    inputs: Mapping[str, Mapping[str, bytes]] = field(default_factory=dict)
    #: The kit's repository (its git top level, its folder outside git, or --root), when on disk.
    repository_root: Path | None = None

    def files_of(self, target: str) -> Mapping[str, bytes]:
        """The files ``target`` rendered for this kit; only a target named in REQUIRES is there."""
        try:
            return self.inputs[target]
        except KeyError:
            raise LookupError(f"the {target} target's files were not handed over: add it to REQUIRES") from None


class Target(Protocol):
    """One output format. A module with these members satisfies it (see the module docstring)."""

    @property
    def NAME(self) -> str:
        """The name users pass to ``--target`` and that fidelity.json uses."""
        ...

    @property
    def REQUIRES(self) -> tuple[str, ...]:
        """Targets rendered before this one whose files it reads (and which are built with it)."""
        ...

    def render(self, plan: Plan, context: RenderContext) -> Files:
        """Every file of this target, in memory; nothing is written here."""
        ...

    def fidelity(self, plan: Plan) -> list[Fidelity]:
        """One row per setting this target enforces, enforces in part, or cannot enforce."""
        ...
