"""Why a dev container's privileges, host namespaces and host mounts are not imported, each by name.

A kit grants none of them, so none is imported; but "not imported" alone hides what the dev container
relied on. The report names the privilege that is refused (``--privileged``, the capability, the
unconfined profile, the host namespace, the host's Docker socket), so a reader knows what the agent
loses, and a setting that only looks like one (``network_mode: service:db``) is not called one.
Flags are split as the linter splits ``docker run`` (:func:`sandkit.lint.facts.docker_cli.read_flag`),
and socket paths are recognised as the linter recognises them.
"""

from __future__ import annotations

from collections.abc import Iterator

from sandkit.lint.facts.container_model import split_kv_list, split_volume
from sandkit.lint.facts.docker_cli import read_flag
from sandkit.lint.facts.host_paths import runtime_socket
from sandkit.lint.syntax.shell import Word
from sandkit.lint.syntax.tree import Pos

NEVER = "sandkit never grants it"
RUN_ARGS = "docker run arguments are not imported; each kit field says what the sandbox gets"
_NAMESPACES = {
    "network": "network",
    "net": "network",
    "network_mode": "network",
    "pid": "process (PID)",
    "ipc": "IPC",
    "uts": "UTS (host name)",
    "userns": "user",
    "userns_mode": "user",
    "cgroupns": "cgroup",
    "cgroup": "cgroup",
}
_UNCONFINED = {
    "seccomp": "no system call filter",
    "apparmor": "no AppArmor profile",
    "systempaths": "the host's /proc and /sys paths unmasked",
}


def capability(name: str) -> str:
    return f"refused: the capability {name.upper()}; sandkit drops every capability and never adds one"


def privileged() -> str:
    return f"refused: privileged mode (every capability and the host's devices); {NEVER}"


def device(path: str) -> str:
    return f"refused: the host device {path.split(':')[0]}; {NEVER}"


def security_option(value: str) -> str:
    """A ``--security-opt`` / ``securityOpt`` / ``security_opt`` value."""
    key, _, setting = value.replace(":", "=", 1).partition("=")
    if setting == "unconfined" and key in _UNCONFINED:
        return f"refused: {key}=unconfined ({_UNCONFINED[key]}); sandkit keeps the runtime's default profile"
    if key == "label" and setting == "disable":
        return "refused: label=disable (no SELinux separation); sandkit keeps the runtime's default labels"
    if key == "no-new-privileges":
        return "sandkit always sets no-new-privileges"
    return f"refused: the security option {value}; sandkit sets its own (no-new-privileges, the default profiles)"


def namespace(key: str, value: str) -> str:
    """``network_mode``, ``pid``, ``ipc``, ... (compose) or ``--network``, ``--pid``, ... (docker run)."""
    kind = _NAMESPACES.get(key, key)
    if value == "host":
        return f"refused: the host's {kind} namespace ({key}: host); {NEVER}"
    for prefix, what in (("service:", "the compose service"), ("container:", "the container")):
        if value.startswith(prefix):
            return (
                f"shares the {kind} namespace of {what} {value[len(prefix) :]}, which sandkit does not run; "
                "the agent gets its own"
            )
    if kind == "network":
        return "sandkit puts the agent on its own network behind the egress proxy (network.egress)"
    return f"the agent gets its own {kind} namespace"


def mount(source: str) -> str | None:
    """Why a bind of ``source`` is never imported, when it exposes a container runtime (else None)."""
    found = runtime_socket(source)
    if not found:
        return None
    name = source.rstrip("/").rsplit("/", 1)[-1]
    if found == "parent folder":
        return f"{source} holds the host's container runtime socket: never imported"
    if "docker" in name:
        return "the host's Docker socket: never imported"
    return f"the host's container runtime socket ({name}): never imported"


def mount_source(entry: object) -> str:
    """The host side of a dev container ``mounts`` entry (``source=...,target=...`` or a mapping)."""
    if isinstance(entry, dict):
        return str(entry.get("source") or entry.get("src") or "")
    fields = split_kv_list(str(entry))
    return fields.get("source") or fields.get("src") or ""


def _flag_reason(name: str, value: str) -> str:
    if name == "privileged":
        return privileged() if value.lower() not in ("false", "0") else "privileged mode off is sandkit's default"
    if name == "cap-add":
        return capability(value)
    if name == "security-opt":
        return security_option(value)
    if name == "device":
        return device(value)
    if name in _NAMESPACES:
        return namespace(name, value)
    if name == "volume":
        return mount(split_volume(value)[0]) or RUN_ARGS
    if name == "mount":
        return mount(mount_source(value)) or RUN_ARGS
    return RUN_ARGS


def run_args(args: list[str]) -> Iterator[tuple[int, int, str]]:
    """(index, words, reason) for each flag of ``runArgs``; a flag and its value are one entry."""
    words = [Word(str(a), Pos(i + 1, 1)) for i, a in enumerate(args)]
    i = 0
    while i < len(words):
        text = words[i].text
        name, value, consumed = read_flag(words, i) if text.startswith("-") and text != "-" else ("", "", 1)
        yield i, min(consumed, len(words) - i), _flag_reason(name, value) if name else RUN_ARGS
        i += consumed
