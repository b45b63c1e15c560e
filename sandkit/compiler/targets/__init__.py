"""The targets, one module each, and the registry that lists them in build order.

Each module here satisfies ``sandkit.compiler.target.Target`` (read that module's docstring for the
shape and its rules). Adding a target is one module here plus one entry in ``REGISTRY``; modules
here that are not in it (``action_pins``) are pieces of a target, not targets.
"""

from __future__ import annotations

from collections.abc import Iterable

from sandkit.compiler.target import Target
from sandkit.compiler.targets import (
    actions,
    claude_code,
    codex,
    compose,
    devcontainer,
    docker,
    kubernetes,
    openhands,
    sbx,
    srt,
)


def _registry(*targets: Target) -> dict[str, Target]:
    """Name to target, in the order given; each target must come after every target it requires."""
    registry: dict[str, Target] = {}
    for target in targets:
        missing = [r for r in target.REQUIRES if r not in registry]
        if target.NAME in registry or missing:
            raise ValueError(f"target {target.NAME}: registered twice or before {', '.join(missing)}")
        registry[target.NAME] = target
    return registry


#: Every target, in build order. compose runs docker's build context; kubernetes mounts docker's
#: env.sh and instruction file from a ConfigMap (and writes the proxy's egress/ build context
#: itself, the same bytes as compose); the actions workflow builds docker's Dockerfile and
#: compose's egress proxy; the devcontainer opens compose's agent service; sbx points its spec at
#: docker's build context; openhands builds on docker's image and joins compose's internal network;
#: srt, claude-code and codex configure sandboxes on a developer's host and need no other target.
REGISTRY = _registry(docker, compose, kubernetes, actions, devcontainer, sbx, openhands, srt, claude_code, codex)
NAMES = tuple(REGISTRY)


def with_requirements(names: Iterable[str]) -> list[str]:
    """``names`` and every target they require, directly or not, in build order."""
    wanted: set[str] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        if name not in wanted:
            wanted.add(name)
            pending.extend(REGISTRY[name].REQUIRES)
    return [name for name in NAMES if name in wanted]
