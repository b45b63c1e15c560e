"""Where each of a kit's secrets really goes on each target, for reviewers (`sandkit summary`, `diff`).

A secret reaches the agent in one of a few ways, and which one depends on the target as much as on
the kit: a secret the kit injects (``secrets[].inject``) stays with the egress proxy only where that
target's proxy injects (its ``secrets.inject`` fidelity row is enforced); elsewhere the agent holds
its value like any other secret's. The injection claim is read from the targets' own fidelity rows,
so this never says more than the build does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sandkit.compiler.plan import Plan

#: The egress proxy adds it to requests; the agent holds the placeholder (or nothing).
INJECTED = "injected"
#: A read-only file /run/secrets/NAME of the agent's container, which the entrypoint exports into the
#: agent's environment: the agent can read it.
FILE = "file"
#: The environment the agent (or the tool that starts it) is started with: the agent can read it.
ENVIRONMENT = "environment"
#: Install commands at build time; the agent never gets it.
BUILD = "build"
#: Nowhere the agent can read it (sbx without an inject rule for it: its proxy puts the key nowhere).
WITHHELD = "withheld"
#: The ways in which the agent holds the value.
REACHABLE = frozenset({FILE, ENVIRONMENT})
#: Targets that run the compiled image and hand it secrets as files under /run/secrets.
FILE_TARGETS = frozenset({"compose", "devcontainer", "kubernetes", "actions"})
#: Targets that only build or describe the image (who runs it decides), so they route nothing.
NO_ROUTE = frozenset({"docker"})
WORDS = {
    INJECTED: "injected by the egress proxy (the agent holds the placeholder)",
    FILE: "a read-only file /run/secrets/NAME, exported into the agent's environment",
    ENVIRONMENT: "the agent's environment",
    BUILD: "install commands at build time only",
    WITHHELD: "withheld (no inject rule: the sandbox holds no value)",
}


def routes(plan: Plan, inject_levels: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Secret name -> target -> one of the kinds above, for the kit's own targets (``targets.build``,
    else every target). ``inject_levels``: each target's ``secrets.inject`` fidelity level."""
    from sandkit.compiler.targets import NAMES

    targets = [t for t in (plan.build_targets or NAMES) if t not in NO_ROUTE]
    sbx_injects = {c.secret for c in plan.sbx.credentials if c.inject}
    out: dict[str, dict[str, str]] = {name: dict.fromkeys(targets, BUILD) for name in plan.build_secrets}
    for name, _ in plan.secrets:
        out[name] = {}
        for target in targets:
            if target == "sbx":
                out[name][target] = INJECTED if name in sbx_injects else WITHHELD
            elif name in plan.injected_secrets and inject_levels.get(target) == "enforced":
                out[name][target] = INJECTED
            else:
                out[name][target] = FILE if target in FILE_TARGETS else ENVIRONMENT
    return out


def routes_of(plan: Plan) -> dict[str, dict[str, str]]:
    """:func:`routes`, with the targets' fidelity rows computed here."""
    from sandkit.compiler.targets import REGISTRY

    levels = {
        name: row.level
        for name, target in REGISTRY.items()
        for row in target.fidelity(plan)
        if row.setting == "secrets.inject"
    }
    return routes(plan, levels)


def reachable(per_target: Mapping[str, str]) -> set[str]:
    """The targets on which the agent can read the secret's value."""
    return {target for target, kind in per_target.items() if kind in REACHABLE}
