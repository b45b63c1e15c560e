"""The kits the process-sandbox tests build: every example that builds the target, and hostile kits;
and what a kit's network rules say of one ``host:port``, by the kit's meaning and by a host-name
filter's (which is what srt and Claude Code's sandbox are)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from sandkit.compiler.command import KitOutput, compile_kit
from sandkit.compiler.plan import Plan
from sandkit.kits.dump import dump_kit
from sandkit.kits.hosts import host_matches, wildcard_domain
from sandkit.kits.model import Kit
from tests.compiler.helpers import EXAMPLES, compile_from_repo

#: A value meant to break a shell, an env file or a JSON/TOML writer, kept whole to the agent.
TRICKY = "$(touch /var/tmp/sandkit-pwned)'\"`id`;\n\\n rm -rf ~ # \u00e9"

#: Kits written to find what the examples do not: a wildcard with a deny inside it, a host on another
#: port, a hostile env value and a secret; no network with a read-only workspace; open egress.
HOSTILE: dict[str, dict[str, Any]] = {
    "wildcard-deny-port": {
        "network": {
            "allow": ["api.example.com", "git.example.com:8443", "*.cdn.example.com"],
            "deny": ["bad.cdn.example.com"],
        },
        "env": {"MODE": "ci", "TRICKY": TRICKY},
        "secrets": [{"name": "EXAMPLE_API_KEY"}],
        "workspace": {"mode": "mount", "source": "src"},
    },
    "offline-read-only": {
        "network": {"egress": "none"},
        "workspace": {"mode": "mount-readonly", "source": "src"},
        "env": {"lower_case": "kept"},
    },
    "open": {"network": {"egress": "open"}, "workspace": {"mode": "mount", "source": "src"}},
}


def builds(kit: Path, target: str) -> bool:
    document = YAML(typ="safe").load(kit.read_text(encoding="utf-8"))
    return target in ((document.get("targets") or {}).get("build") or [])


def cases(target: str, hostile: tuple[str, ...]) -> list[str]:
    """``example:NAME`` for every example that builds ``target``, ``hostile:NAME`` for the hostile kits."""
    return [f"example:{k.parent.name}" for k in EXAMPLES if builds(k, target)] + [f"hostile:{h}" for h in hostile]


def build(case: str, folder: Path, target: str) -> KitOutput:
    kind, _, name = case.partition(":")
    if kind == "example":
        return compile_from_repo(next(k for k in EXAMPLES if k.parent.name == name), folder / "out", [target])
    (folder / "src").mkdir(parents=True, exist_ok=True)
    base: dict[str, Any] = {"apiVersion": "sandkit/v1", "name": name, "agent": {"command": ["agent", "run"]}}
    path = folder / "kit.yaml"
    path.write_text(dump_kit(Kit.model_validate({**base, **HOSTILE[name]})), encoding="utf-8")
    return compile_kit(path, folder / "out", [target])


def _concrete(host: str, label: str = "sandkit-probe") -> str:
    domain = wildcard_domain(host)
    return host if domain is None else f"{label}.{domain}"


def probe_targets(plan: Plan) -> list[str]:
    """``host:port`` names worth trying: each allowed and denied one, another port of each, one level
    deeper under a wildcard, and a host the kit does not name."""
    found: list[str] = []
    for destination in (*plan.allow, *plan.deny):
        name = _concrete(destination.host)
        found += [f"{name}:{destination.port}", f"{name}:8081"]
        if destination.wildcard:
            found.append(f"deeper.{name}:{destination.port}")
    found.append("unlisted.example.net:443")
    return list(dict.fromkeys(found))


def kit_denies(plan: Plan, target: str) -> bool:
    """Whether the kit's deny list names this host (on any port: srt and Claude Code deny them all)."""
    host, _ = _split(target)
    return any(host_matches(d.host, host) for d in plan.deny)


def _split(target: str) -> tuple[str, int]:
    host, _, port = target.rpartition(":")
    return host, int(port)


def kit_allows(plan: Plan, target: str) -> bool:
    """The kit's own meaning: an allowed host:port (one label per wildcard) that no deny names."""
    if plan.egress == "open":
        return True
    host, port = _split(target)
    if any(host_matches(d.host, host) and d.port == port for d in plan.deny):
        return False
    return any(host_matches(d.host, host) and d.port == port for d in plan.allow)


def _name_matches(pattern: str, host: str) -> bool:
    """srt's matcher: the name itself, or any depth under a ``*.`` wildcard's domain."""
    domain = wildcard_domain(pattern)
    return host == pattern if domain is None else host.endswith("." + domain)


def filter_allows(allowed: list[str], denied: list[str], target: str) -> bool:
    """What a name filter with these entries (``host`` or ``host:port``) lets through: deny first."""
    host, port = _split(target)

    def hit(entry: str) -> bool:
        name, colon, entry_port = entry.rpartition(":")
        if not colon or not entry_port.isdigit():
            name, entry_port = entry, ""
        return _name_matches(name, host) and (not entry_port or int(entry_port) == port)

    return not any(hit(e) for e in denied) and any(hit(e) for e in allowed)
