"""The facts container rules share: what a file says about the containers it configures."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from sandkit.agents import CATALOGUE
from sandkit.lazy_regex import case_folded, lazy
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, pos_of

if TYPE_CHECKING:
    from typing import Any

#: Words that name a coding agent in an image, container name or command: each agent's own (from
#: the catalogue), and the generic names agent images go by.
_GENERIC_AGENT_WORDS = {r"(?:coding|ai|llm)[-_]agent": "agent", r"agent[-_]sandbox": "agent"}  # word -> its hint
_AGENT_WORD_PATTERNS = (*(word for agent in CATALOGUE for word in agent.image_words), *_GENERIC_AGENT_WORDS)
_AGENT_WORDS = lazy(r"(?i)(?<![a-z])(" + "|".join(_AGENT_WORD_PATTERNS) + r")(?![a-z])")


def _hint(word: str) -> str:
    """Letters every match of ``word`` holds, lower-case: the word's leading letters and hyphens,
    less the last if a quantifier makes it optional ("" when there is no such start, or the word
    has alternatives)."""
    if word in _GENERIC_AGENT_WORDS:
        return _GENERIC_AGENT_WORDS[word]
    if "|" in word:
        return ""
    end = 0
    while end < len(word) and ((word[end].isascii() and word[end].isalnum()) or word[end] == "-"):
        end += 1
    if word[end : end + 1] in ("?", "*", "{"):
        end -= 1
    return word[:end].lower()


_HINTS = tuple(map(_hint, _AGENT_WORD_PATTERNS))
#: Text that holds none of these (case-folded) cannot name an agent; None when some word has no hint.
_AGENT_WORD_HINTS = _HINTS if all(_HINTS) else None


#: An agent's package being installed (npm, pip, pipx, uv) or its installer fetched: the names
#: come from the catalogue (``@anthropic-ai/claude-code``, ``@openai/codex``, ``aider-chat`` ...).
_AGENT_PACKAGES = lazy(
    r"(?<![\w@/.-])(?:"
    + "|".join(re.escape(package) for agent in CATALOGUE for package in agent.packages)
    + r")(?![\w/-])"
)


def names_agent(text: str) -> bool:
    """``text`` (an image, a feature id, a command) names a coding agent.

    Text that holds no word's hint, case-folded as the pattern reads it (``ſ`` is an ``s``), is
    answered without the pattern (compiling it was a millisecond of a pre-commit run).
    """
    if _AGENT_WORD_HINTS is not None:
        folded = case_folded(text)
        if not any(hint in folded for hint in _AGENT_WORD_HINTS):
            return False
    return bool(_AGENT_WORDS.search(text))


#: Images of servers that run beside an agent (telemetry, monitoring, databases, proxies), by
#: their last path segment: ``otel/opentelemetry-collector-contrib:0.1``, ``grafana/grafana``.
_SERVER_IMAGE = lazy(
    r"(?i)(?:^|/)(?:opentelemetry-collector[\w.-]*|otel[\w.-]*collector[\w.-]*|otelcol[\w.-]*|prometheus|"
    r"grafana|loki|tempo|jaeger[\w.-]*|zipkin|postgres|postgresql|mysql|mariadb|redis|valkey|mongo|nginx|"
    r"traefik|caddy|envoy|vector|fluent-bit|fluentd|elasticsearch|kibana|minio|rabbitmq|kafka|clickhouse|"
    r"squid|memcached|alertmanager|pushgateway|node-exporter)(?=[:@\s]|$)"
)


def installs_agent(command: str) -> bool:
    """A command that installs a coding agent's package (or names one in an image)."""
    return bool(_AGENT_PACKAGES.search(command))


class Mount(NamedTuple):
    """A host path (or named volume) made visible inside a container.

    ``source`` is the host side as written ("" for anonymous volumes and Dockerfile VOLUME);
    ``how`` is bind, volume, hostPath, declared (Dockerfile VOLUME) or copy (kit files);
    ``read_only`` where the file says so (`:ro`, `read_only: true`, `readonly`).
    """

    source: str
    target: str
    pos: Pos
    how: str = "bind"
    read_only: bool = False
    via: str = ""  # how the consumer came to this value, when the file does not say it outright


class Setting(NamedTuple):
    """One container setting, normalised to docker-run vocabulary.

    Names: privileged, network, pid, ipc, uts, userns, cgroupns, cap-add, security-opt,
    device, add-host, allow-privilege-escalation, seccomp, apparmor, feature, docker (kit
    isolation.docker), no-isolation (the workload runs on the host itself: the value says why),
    runtime (`--runtime`, Compose `runtime`, a pod's `runtimeClassName`: what runs the container).
    A PodSecurityPolicy's ``defaultAddCapabilities`` are cap-default (its allowedCapabilities, cap-add).
    Environment variables use the same shape (name, value, pos).
    """

    name: str
    value: str
    pos: Pos
    via: str = ""  # how the consumer came to this value (a variable, extends), when not written outright


class Container:
    """A container (or pod) configuration found in a file, filled in as the file is read.

    ``admits`` marks a policy that lets pods have these settings (a PodSecurityPolicy), not a pod
    that has them; ``command_pos`` is where ``command`` is written, when it is one place (otherwise
    findings in it point at ``pos``).
    """

    __slots__ = ("admits", "agent", "command", "command_pos", "env", "image", "label", "mounts", "pos", "settings")

    def __init__(
        self,
        label: str,
        pos: Pos,
        image: str = "",
        command: str = "",
        *,
        agent: bool = False,
        admits: bool = False,
        command_pos: Pos | None = None,
    ) -> None:
        self.label = label
        self.pos = pos
        self.image = image
        self.command = command
        self.mounts: list[Mount] = []
        self.settings: list[Setting] = []
        self.env: list[Setting] = []
        self.agent = agent
        self.admits = admits
        self.command_pos = command_pos

    @property
    def is_agent(self) -> bool:
        """Runs a coding agent: a kit, or an agent's name in its image, command or name.

        A well-known server's image (an OpenTelemetry collector, Prometheus, a database, a proxy)
        runs that server whatever its service is called: ``claude-otel-collector`` collects an
        agent's telemetry, it is not the agent; only its image can say otherwise."""
        if self.agent:
            return True
        if _SERVER_IMAGE.search(self.image):
            return names_agent(self.image)
        return names_agent(f"{self.label} {self.image} {self.command}")

    def setting(self, name: str) -> list[Setting]:
        return [s for s in self.settings if s.name == name]


def via(fact: Setting | Mount) -> str:
    """What a finding adds about a fact the file does not spell out (" (decided by ${PRIV}: ...)")."""
    return f" ({fact.via})" if fact.via else ""


def split_volume(spec: str) -> tuple[str, str]:
    """``SRC:DST[:MODE]`` -> (SRC, DST), aware of ``${VAR:-default}``; ("", DST) when alone."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in spec:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        if ch == ":" and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    if len(parts) == 1:
        return "", parts[0]
    return parts[0], parts[1]


def short_volume_read_only(spec: str) -> bool:
    """``SRC:DST:ro`` (or ``ro`` among the mode's comma-separated options)."""
    source, target = split_volume(spec)
    mode = spec[len(source) + len(target) + 2 :] if source else ""
    return "ro" in mode.split(",")


def kv_read_only(fields: dict[str, str]) -> bool:
    """``--mount``/devcontainer mount options: ``readonly``, ``ro``, ``readonly=true``."""
    value = fields.get("readonly", fields.get("ro", "false")).lower()
    return value in ("true", "1", "")


def split_kv_list(spec: str) -> dict[str, str]:
    """``type=bind,source=/a,target=/b`` -> a dict (keys lower-case)."""
    out: dict[str, str] = {}
    for part in spec.split(","):
        key, eq, value = part.partition("=")
        out[key.strip().lower()] = value.strip() if eq else "true"
    return out


def strings(value: Any) -> list[Any]:
    """A YAML list (or a single scalar) as a list of its items."""
    if isinstance(value, list):
        return list(value)
    return [] if value is None else [value]


def env_items(value: Any, default: Pos) -> Iterator[Setting]:
    """Environment written as a mapping or as a list of NAME=value strings."""
    if isinstance(value, PMap):
        for key, item in value.items():
            text = "" if item is None else str(item).lower() if isinstance(item, bool) else str(item)
            yield Setting(str(key), text, value.pos_of(key))
    elif isinstance(value, PSeq):
        for index, item in enumerate(value):
            if isinstance(item, str):
                name, _, text = item.partition("=")
                yield Setting(name, text, value.pos_of(index))
            elif isinstance(item, PMap) and "name" in item:  # Kubernetes env
                yield Setting(
                    str(item["name"]),
                    str(item.get("value") or ""),
                    item.pos_of("value") if "value" in item else item.pos,
                )


def list_settings(box: Container, value: Any, name: str, default: Pos) -> None:
    """Add a setting named ``name`` for each item of a list (or entry of a mapping) to ``box``."""
    if isinstance(value, PMap):  # extra_hosts may be a mapping host: ip
        for key, item in value.items():
            box.settings.append(Setting(name, f"{key}:{item}", value.pos_of(key)))
        return
    for index, item in enumerate(strings(value)):
        at = value.pos_of(index) if isinstance(value, PSeq) else default
        box.settings.append(Setting(name, str(item), pos_of(item, at)))
