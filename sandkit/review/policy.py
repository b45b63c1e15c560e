"""A kit's policy as a reviewer reads it, normalised so that kits that mean the same compare equal.

Built from the resolved kit (after ``extends`` and presets): what the agent is and runs, what it
can reach, which secrets it holds, what starts it, what it may write, how it is held. Lists that
are sets (hosts, secrets, packages, commands, triggers) are sets; ``host`` is ``host:443``;
durations are seconds and quantities bytes; a file is its digest. Comments, order and the file a
value was written in do not count, so moving a setting into a Mixin changes nothing here. Where a
value came from (a preset, a mixin) is kept beside the policy for display only.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from sandkit.compiler.plan import Destination
from sandkit.kits.fields import duration_seconds, quantity_bytes
from sandkit.kits.github_events import COMMENT_EVENTS, PUBLISH_SCOPES, TRUSTED_ASSOCIATIONS
from sandkit.kits.loader import LoadedKit, PathKey
from sandkit.kits.model import UNTRUSTED_EVENTS, Kit

#: Events whose runs act on text anyone may write or on code from forks (the model's untrusted
#: events, the comment and review events, issues and discussions).
UNTRUSTED_OR_COMMENT_EVENTS = frozenset({*UNTRUSTED_EVENTS, *COMMENT_EVENTS, "issues", "discussion"})
PRESET_PREFIX = "preset:"


def destination(entry: str) -> Destination:
    host, _, port = entry.partition(":")
    return Destination(host, int(port) if port else 443)


@dataclass(frozen=True)
class PlacedFile:
    """A file the kit places in the image: its digest, mode and size."""

    sha256: str
    mode: str
    size: int


@dataclass(frozen=True)
class Secret:
    build_only: bool
    required: bool
    #: ``HEADER@host:port`` for each place the egress proxy adds it (secrets[].inject): where a target
    #: injects, the agent holds a placeholder, never the value.
    inject: frozenset[str] = frozenset()

    @property
    def where(self) -> str:
        """Where the kit sends it, every target together (the routes of a Policy say per target)."""
        if self.build_only:
            return "install commands at build time only"
        if self.inject:
            return "the egress proxy, wherever the target injects it (the agent then holds the placeholder)"
        return "the agent at run time"


@dataclass(frozen=True)
class Filters:
    """A GitHub event's filters, merged over every trigger on it; None means "any"."""

    types: frozenset[str] | None
    branches: frozenset[str] | None
    paths: frozenset[str] | None


@dataclass(frozen=True)
class Hook:
    """A webhook trigger as a review sees it: who sends it, what must hold, what the agent is shown."""

    source: str
    filters: frozenset[tuple[str, frozenset[str]]]  # selector, the values it may equal
    fields: frozenset[tuple[str, str]]  # name, selector
    max_sessions: int
    per_minute: int


@dataclass(frozen=True)
class Port:
    host_ip: str
    host: int | None
    container: int
    protocol: str
    #: Served through the forwarder's HTTP proxy and its headers: turning it off is a change to review.
    http: bool = False

    def __str__(self) -> str:
        published = f"{self.host_ip}:{self.host}" if self.host else f"{self.host_ip}:(any)"
        return f"{published} -> {self.container}/{self.protocol}" + (" (http)" if self.http else "")


@dataclass(frozen=True)
class Policy:
    """Everything about one kit that a review compares (``origins`` and ``path`` excepted)."""

    name: str
    command: tuple[str, ...]
    instructions_file: str | None
    instructions: str | None
    image: str
    user: str
    uid: int
    workdir: str
    home: str
    packages: dict[str, frozenset[str]]
    ca_certificates: dict[str, str]
    install: frozenset[str]
    startup: frozenset[str]
    env: dict[str, str]
    secrets: dict[str, Secret]
    egress: str
    allow: frozenset[Destination]
    deny: frozenset[Destination]
    files: dict[str, PlacedFile]
    workspace_mode: str
    workspace_repo: str | None
    workspace_ref: str | None
    workspace_path: str
    workspace_source: str | None
    workspace_git: str
    #: The host keys an ssh clone trusts, as (host, key type, key) for every name of each known_hosts line.
    known_hosts: frozenset[tuple[str, str, str]]
    cpus: float
    memory: int
    pids: int
    disk: int
    timeout: int
    runtime: str
    docker: str
    read_only_root: bool
    ports: frozenset[Port]
    schedules: frozenset[str]
    manual: bool
    events: dict[str, Filters]
    #: Comment events every trigger of which admits only a command from owners, members and collaborators.
    gated_comments: frozenset[str]
    webhooks: dict[str, Hook]
    runs_on: str
    permissions: dict[str, str]
    kubernetes: dict[str, Any]
    #: targets.build: the targets the kit is built for (empty: every one); where its secrets can go.
    build_targets: tuple[str, ...] = ()
    # Display only: never compared.
    path: str = field(default="", compare=False)
    description: str = field(default="", compare=False)
    kind: str = field(default="Kit", compare=False)
    origins: dict[str, str] = field(default_factory=dict, compare=False)
    order: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    #: Makes :attr:`routes` when first asked (it computes the targets' fidelity rows, which a diff of
    #: kits that hold no injected secret never needs); derived from the fields above, never compared.
    route_maker: Callable[[], dict[str, dict[str, str]]] = field(default=dict, compare=False, repr=False)

    @cached_property
    def routes(self) -> dict[str, dict[str, str]]:
        """Secret -> target -> where it goes there (sandkit/compiler/secret_routes.py), the kit's own targets."""
        return self.route_maker()

    def origin(self, section: str, item: str) -> str:
        """Where a list item came from: "" for the kit itself, ``preset NAME`` or a mixin's path."""
        return self.origins.get(f"{section}\0{item}", "")

    @property
    def presets(self) -> tuple[str, ...]:
        names = {o.removeprefix("preset ") for o in self.origins.values() if o.startswith("preset ")}
        return tuple(sorted(names))

    @property
    def agent_packages(self) -> frozenset[str]:
        """Names of the npm and pip packages a preset installs: the agent itself."""
        return frozenset(
            package_name(manager, spec)
            for manager, specs in self.packages.items()
            if manager != "apt"
            for spec in specs
            if self.origin(f"image.packages.{manager}", spec).startswith("preset ")
        )

    def triggered_by_untrusted(self) -> list[str]:
        """GitHub events anyone can cause, and webhooks: whoever can post to the source writes the event."""
        events = [e for e in self.events if self.untrusted(e)]
        return sorted(events) + [f"the {h.source} webhook {n}" for n, h in sorted(self.webhooks.items())]

    def untrusted(self, event: str) -> bool:
        """Whether outsiders write what starts a run of ``event`` (a comment trigger held to trusted authors: no)."""
        return event in UNTRUSTED_OR_COMMENT_EVENTS and event not in self.gated_comments

    def runtime_secrets(self) -> list[str]:
        return sorted(n for n, s in self.secrets.items() if not s.build_only)

    def write_scopes(self) -> list[str]:
        return sorted(s for s, level in self.permissions.items() if level == "write")


def compared_fields() -> list[str]:
    """The names of every field a review compares (the catch-all in the diff relies on this)."""
    return [f.name for f in fields(Policy) if f.compare]


def package_name(manager: str, spec: str) -> str:
    """The package's name without its version (``@scope/pkg@1.0`` -> ``@scope/pkg``)."""
    if manager == "npm":
        at = spec.find("@", 1)
        return spec[:at] if at > 0 else spec
    if manager == "pip":
        for index, char in enumerate(spec):
            if char in "=<>~![":
                return spec[:index].lower()
        return spec.lower()
    return spec.split("=", 1)[0]


def package_version(manager: str, spec: str) -> str:
    """What follows the name: ``@1.0`` (npm), ``=1.0`` (apt), ``==1.0`` or ``>=1,<2`` (pip); "" when unpinned."""
    return spec[len(package_name(manager, spec)) :]


def _packages(manager: str, specs: list[str]) -> frozenset[str]:
    """One spec per package name: of two (a preset's and the kit's), the later one is what installs last."""
    return frozenset({package_name(manager, spec): spec for spec in specs}.values())


def _origin_label(location_path: str, kit_display: str) -> str:
    if location_path.startswith(PRESET_PREFIX):
        return "preset " + location_path.removeprefix(PRESET_PREFIX)
    return "" if location_path == kit_display else location_path


def _origins(loaded: LoadedKit) -> dict[str, str]:
    """``section\\0item`` -> where that list or mapping item was written, for items not in the kit itself."""
    kit = loaded.kit
    lists: dict[PathKey, list[str]] = {
        ("network", "allow"): [str(destination(a)) for a in kit.network.allow],
        ("network", "deny"): [str(destination(d)) for d in kit.network.deny],
        ("secrets",): [s.name for s in kit.secrets],
        ("install",): list(kit.install),
        ("startup",): list(kit.startup),
        ("files",): [f.path for f in kit.files],
        ("image", "packages", "apt"): list(kit.image.packages.apt),
        ("image", "packages", "pip"): list(kit.image.packages.pip),
        ("image", "packages", "npm"): list(kit.image.packages.npm),
    }
    out: dict[str, str] = {}
    for key, items in lists.items():
        section = ".".join(str(k) for k in key)
        for index, item in enumerate(items):
            location = loaded.origins.get((*key, index))
            label = _origin_label(location.path, loaded.display) if location else ""
            if label:
                out[f"{section}\0{item}"] = label
    for name in kit.env:
        location = loaded.origins.get(("env", name))
        label = _origin_label(location.path, loaded.display) if location else ""
        if label:
            out[f"env\0{name}"] = label
    for key in (("agent", "command"), ("image", "base"), ("agent", "instructions_file")):
        location = loaded.origins.get(key)
        label = _origin_label(location.path, loaded.display) if location else ""
        if label:
            out[f"{'.'.join(key)}\0"] = label
    return out


def _events(kit: Kit) -> dict[str, Filters]:
    merged: dict[str, Filters] = {}
    for trigger in kit.triggers:
        github = trigger.github
        if github is None:
            continue
        given = Filters(
            frozenset(github.types) or None, frozenset(github.branches) or None, frozenset(github.paths) or None
        )
        before = merged.get(github.event)
        merged[github.event] = given if before is None else _union(before, given)
    return merged


def _permissions(kit: Kit) -> dict[str, str]:
    """The agent job's read scopes, and the publishing job's write scope: the one write the kit holds."""
    actions = kit.targets.actions
    scopes: dict[str, str] = dict(actions.permissions)
    if actions.publish is not None:
        scopes[PUBLISH_SCOPES[actions.publish]] = "write"
    return scopes


def _gated_comments(kit: Kit) -> frozenset[str]:
    """Comment events whose triggers all admit only trusted authors' commands, and no bot."""
    comments = [t.github for t in kit.triggers if t.github is not None and t.github.event in COMMENT_EVENTS]
    wide = {g.event for g in comments if g.bots or not set(g.author_associations) <= set(TRUSTED_ASSOCIATIONS)}
    return frozenset(g.event for g in comments if g.event not in wide)


def _webhooks(kit: Kit) -> dict[str, Hook]:
    hooks = {}
    for trigger in kit.triggers:
        hook = trigger.webhook
        if hook is not None:
            hooks[hook.event_name] = Hook(
                hook.source,
                frozenset((path, frozenset(values)) for path, values in hook.filters()),
                frozenset((name, spec.path) for name, spec in hook.fields.items()),
                hook.max_sessions,
                hook.per_minute,
            )
    return hooks


def _union(a: Filters, b: Filters) -> Filters:
    def one(x: frozenset[str] | None, y: frozenset[str] | None) -> frozenset[str] | None:
        return None if x is None or y is None else x | y

    return Filters(one(a.types, b.types), one(a.branches, b.branches), one(a.paths, b.paths))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _relative(path: str, root: Path | None) -> str:
    if root is None:
        return path
    text, base = posixpath.normpath(path), root.as_posix().rstrip("/")
    return text[len(base) + 1 :] if text.startswith(base + "/") else ("." if text == base else text)


def policy_of(loaded: LoadedKit, root: Path | None = None) -> Policy:
    """The policy of a loaded kit; paths it names are shown relative to ``root``."""
    kit = loaded.kit
    home = posixpath.join("/home", kit.image.user)
    placed = {
        f.path: PlacedFile(_digest(data), f.mode, len(data))
        for f in kit.files
        for data in [f.content.encode() if f.content is not None else loaded.sources[f.source or ""]]
    }
    cas = {_relative(c, root): _digest(loaded.sources[c]) for c in kit.image.ca_certificates}
    targets = kit.targets
    return Policy(
        name=kit.name,
        command=tuple(kit.agent.command),
        instructions_file=kit.agent.instructions_file,
        instructions=kit.agent.instructions,
        image=kit.image.base,
        user=kit.image.user,
        uid=kit.image.uid,
        workdir=kit.image.workdir,
        home=home,
        packages={m: _packages(m, getattr(kit.image.packages, m)) for m in ("apt", "pip", "npm")},
        ca_certificates=cas,
        install=frozenset(kit.install),
        startup=frozenset(kit.startup),
        env=dict(kit.env),
        secrets={
            s.name: Secret(s.build, s.required, frozenset(f"{i.header}@{destination(i.host)}" for i in s.inject))
            for s in kit.secrets
        },
        egress=kit.network.egress,
        allow=frozenset(destination(a) for a in kit.network.allow),
        deny=frozenset(destination(d) for d in kit.network.deny),
        files=placed,
        workspace_mode=kit.workspace.mode,
        workspace_repo=kit.workspace.repo,
        workspace_ref=kit.workspace.ref,
        workspace_path=kit.workspace.path,
        workspace_source=_relative(kit.workspace.source, root) if kit.workspace.source else None,
        workspace_git=kit.workspace.git,
        known_hosts=frozenset(_host_keys(kit.workspace.known_hosts)),
        cpus=kit.resources.cpus,
        memory=quantity_bytes(kit.resources.memory),
        pids=kit.resources.pids,
        disk=quantity_bytes(kit.resources.disk),
        timeout=duration_seconds(kit.resources.timeout),
        runtime=kit.isolation.runtime,
        docker=kit.isolation.docker,
        read_only_root=kit.isolation.read_only_root,
        ports=frozenset(Port(p.host_ip, p.host, p.container, p.protocol, p.http) for p in kit.ports),
        schedules=frozenset(t.schedule for t in kit.triggers if t.schedule),
        manual=any(t.manual is not None for t in kit.triggers),
        events=_events(kit),
        gated_comments=_gated_comments(kit),
        webhooks=_webhooks(kit),
        runs_on=targets.actions.runs_on,
        # the publishing job's write scope is the kit's one write scope (the agent's job reads only)
        permissions=_permissions(kit),
        kubernetes=targets.kubernetes.model_dump(),
        build_targets=tuple(targets.build or ()),
        path=_relative(loaded.display, None),
        description=kit.description,
        kind=kit.kind,
        origins=_origins(loaded),
        order={
            "install": tuple(kit.install),
            "startup": tuple(kit.startup),
            "allow": tuple(str(destination(a)) for a in kit.network.allow),
        },
        route_maker=lambda: _routes(loaded),
    )


def _routes(loaded: LoadedKit) -> dict[str, dict[str, str]]:
    """Where each secret goes on each of the kit's targets (a Mixin has no plan, so none)."""
    if loaded.kit.kind != "Kit":
        return {}
    from sandkit.compiler.plan import make_plan
    from sandkit.compiler.secret_routes import routes_of

    return routes_of(make_plan(loaded))


def _host_keys(lines: list[str]) -> Iterator[tuple[str, str, str]]:
    """(host, key type, key) for each name of each known_hosts line (the model has checked their form)."""
    for line in lines:
        hosts, kind, key = line.split()[:3]
        for host in hosts.split(","):
            yield host, kind, key
