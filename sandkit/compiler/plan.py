"""One normalised plan per kit: every default applied, every per-target decision made once.

Targets only render a Plan; none of them looks at the kit again (the Plan holds no Kit). That keeps
policy decisions (which packages the image needs, which host:port pairs the proxy allows, what the
timeout is in seconds) in one place, so Docker, Compose, Kubernetes and Actions cannot drift apart.
A new fact a target needs is a field here, filled in make_plan(); a target's own kit settings
(``targets.NAME``) become a frozen settings record such as KubernetesSettings.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal, NamedTuple

from sandkit import OUTPUT_VERSION
from sandkit.kits.clone_auth import repo_kind
from sandkit.kits.fields import duration_seconds, quantity_bytes
from sandkit.kits.github_events import COMMENT_EVENTS
from sandkit.kits.hosts import host_matches, wildcard_domain
from sandkit.kits.inject import VALUE_SLOT
from sandkit.kits.loader import LoadedKit
from sandkit.kits.model import GithubTrigger, Kit, Trigger, WebhookTrigger
from sandkit.kits.webhooks import WebhookSource, parse_selector

DEBIAN_LIKE = ("debian", "ubuntu")
ENTRYPOINT_PATH = "/usr/local/bin/sandkit-entrypoint"
SANDKIT_ETC = "/etc/sandkit"
#: Where the image keeps the kit's files for the home folder, copied into the (tmpfs) home at start.
HOME_SKELETON = f"{SANDKIT_ETC}/home"
VENV = "/opt/sandkit/venv"
#: The instruction file when a kit gives instructions and names none: the name most agents read.
DEFAULT_INSTRUCTIONS_FILE = "AGENTS.md"
#: Service (and host) names of the agent and its egress proxy, as compose and the devcontainer use them.
AGENT_SERVICE = "agent"
PROXY_SERVICE = "egress"
PROXY_PORT = 3128
PROXY_BASE_IMAGE = "debian:bookworm-slim"
#: The longest an agent may take to exit once asked to at its timeout (shorter timeouts: as long).
MAX_GRACE_SECONDS = 30
RUNTIMES = {"default": None, "gvisor": "runsc", "kata": "kata-runtime"}
K8S_RUNTIME_CLASSES = {"default": None, "gvisor": "gvisor", "kata": "kata"}
#: The lowest uid a Kubernetes pod runs as: a container user below it may match a node's own user
#: (Checkov's CKV_K8S_40 asks for this bound). A kit's uid below it runs there as uid + HIGH_UID.
HIGH_UID = 10000

#: The event that started a run (a webhook's selected fields, a GitHub event) reaches the agent as
#: one JSON file at EVENT_PATH, named by the variable EVENT_VARIABLE: data in a read-only file,
#: never in the environment, a command line or a generated script. Every target that passes an
#: event mounts the folder EVENT_FOLDER read-only and sets the variable.
EVENT_VARIABLE = "SANDKIT_EVENT"
EVENT_FOLDER = "/run/sandkit"
EVENT_FILE = "event.json"
EVENT_PATH = f"{EVENT_FOLDER}/{EVENT_FILE}"
#: A comment event's text, beside the payload ($SANDKIT_COMMENT_FILE): the comment as it was written.
COMMENT_FILE = "comment.md"

Egress = Literal["allowlist", "none", "open"]
WorkspaceMode = Literal["clone", "mount", "mount-readonly", "none"]
Runtime = Literal["default", "gvisor", "kata"]


@dataclass(frozen=True, order=True)
class Destination:
    """One egress rule: a host (or ``*.suffix``) and a port."""

    host: str
    port: int

    @property
    def wildcard(self) -> bool:
        return wildcard_domain(self.host) is not None

    def covers(self, other: Destination) -> bool:
        """Whether every connection ``other`` allows, this allows too (one label per wildcard)."""
        if self.port != other.port:
            return False
        if self.host == other.host:
            return True
        return not other.wildcard and host_matches(self.host, other.host)

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


class PublishedPort(NamedTuple):
    """One entry of the kit's ``ports``: the agent's ``container`` port, published on ``host_ip``:``host``."""

    host_ip: str
    host: int | None  # None: the container's port number
    container: int
    protocol: Literal["tcp", "udp"]
    #: Served through the forwarder's HTTP proxy, which sets the preview's headers (see forwarder.py).
    http: bool = False

    @property
    def host_port(self) -> int:
        return self.host or self.container


@dataclass(frozen=True)
class Injection:
    """The egress proxy sets ``header`` (``format`` with the secret's value) on HTTPS requests to ``destination``."""

    secret: str
    destination: Destination
    header: str
    format: str


@dataclass(frozen=True)
class PlacedFile:
    """A file the image holds: where it goes, its bytes and mode."""

    path: str
    content: bytes
    mode: str
    context_name: str  # its name under files/ in the build context


@dataclass(frozen=True)
class GithubEvent:
    """A GitHub event that starts the agent, with the kit's activity types and branch and path filters."""

    event: str
    types: tuple[str, ...] = ()
    branches: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    #: Comment events: the command a comment starts with, whose comments count, and which bots'.
    command: str | None = None
    author_associations: tuple[str, ...] = ()
    bots: tuple[str, ...] = ()
    #: Whether a run works on the pull request's head commit (events about a pull request).
    head_checkout: bool = False

    @property
    def comment(self) -> bool:
        return self.event in COMMENT_EVENTS


#: A step of a payload selector: a key or an array index (sandkit/kits/webhooks.py).
Step = str | int


@dataclass(frozen=True)
class EventField:
    """One field of a webhook's payload the agent may see: its name in the event file, where it is, its type."""

    name: str
    path: tuple[Step, ...]
    type: Literal["string", "number", "boolean"] = "string"
    description: str = ""


@dataclass(frozen=True)
class EventMatch:
    """A webhook filter: the payload's value at ``path`` must equal one of ``values``."""

    path: tuple[Step, ...]
    values: tuple[str, ...]


@dataclass(frozen=True)
class Webhook:
    """A webhook trigger, its source's filter shorthands turned into matches on the source's payload."""

    name: str
    source: WebhookSource
    secret: str  # a key of the webhook Secret, never a value
    verification_token: str | None
    matches: tuple[EventMatch, ...]
    fields: tuple[EventField, ...]
    dispatch: Literal["repository_dispatch", "workflow_dispatch"] = "repository_dispatch"
    max_sessions: int = 1
    per_minute: int = 10
    slack_events: bool = False  # a Slack Events API hook (its payload is the inner event), not a slash command


@dataclass(frozen=True)
class Triggers:
    """What starts the agent besides a person: the kit's triggers by kind, each kind in the kit's order."""

    schedules: tuple[str, ...] = ()  # cron lines, repeats kept
    github: tuple[GithubEvent, ...] = ()
    manual: bool = False
    webhooks: tuple[Webhook, ...] = ()

    @property
    def requested(self) -> bool:
        """Whether the kit lists any trigger (a target that starts no runs itself reports them)."""
        return bool(self.schedules or self.github or self.manual or self.webhooks)

    @property
    def comments(self) -> tuple[GithubEvent, ...]:
        """The comment triggers, each held by its command and author associations."""
        return tuple(g for g in self.github if g.comment)

    @property
    def head_checkout(self) -> bool:
        """Whether some run may work on a pull request's head commit."""
        return any(g.head_checkout for g in self.github)


@dataclass(frozen=True)
class KubernetesSettings:
    """``targets.kubernetes`` of the kit, the namespace defaulted to the kit's name."""

    namespace: str
    create_namespace: bool = True
    egress: Literal["networkpolicy", "cilium"] = "networkpolicy"
    sandbox_crd: bool = False
    secret_name: str | None = None  # None: the kubernetes target names the Secret after the kit
    #: targets.kubernetes.api_server: the CIDRs the injecting proxy's API call may reach (empty: the
    #: non-public ranges, where a cluster's API server usually is).
    api_server: tuple[str, ...] = ()


@dataclass(frozen=True)
class ActionsSettings:
    """``targets.actions`` of the kit; permissions sorted by scope."""

    runs_on: str = "ubuntu-latest"
    permissions: tuple[tuple[str, Literal["read", "write"]], ...] = ()
    publish: Literal["review", "comment", "branch"] | None = None
    #: targets.actions.app: the variable holding the App's client ID, and the secret holding its key.
    app: tuple[str, str] | None = None
    #: targets.actions.app_push_runs_workflows: the App's branch push may start on: push workflows.
    app_push_runs_workflows: bool = False


@dataclass(frozen=True)
class SbxInject:
    """One place the Docker Sandboxes proxy puts a credential (targets.sbx.credentials.NAME.inject)."""

    domain: str
    header: str | None = None
    format: str | None = None
    scheme: Literal["bearer", "basic"] | None = None
    username: str | None = None


@dataclass(frozen=True)
class SbxCredential:
    """A run-time secret as an sbx credential: the service it belongs to and where the proxy injects it."""

    secret: str
    service: str
    description: str = ""
    required: bool = True
    inject: tuple[SbxInject, ...] = ()
    proxy_managed: bool = True


@dataclass(frozen=True)
class SbxSettings:
    """``targets.sbx`` of the kit."""

    image_from: Literal["compiled", "base"] = "compiled"
    image: str | None = None  # where the compiled image was pushed; None: its local tag
    credentials: tuple[SbxCredential, ...] = ()


@dataclass(frozen=True)
class Plan:
    name: str
    #: The kit as the user named it (for messages).
    kit_display: str
    #: The kit's path from its repository's top folder (for headers: the same from any folder).
    kit_path: str
    #: The sha256 of the kit file's bytes: the header's "kit sha256" line.
    kit_sha256: str
    #: The sha256 of the normalised kit (comments, layout and key order aside): names the images.
    config_sha256: str
    version: str
    base_image: str
    debian_like: bool
    user: str
    uid: int
    home: str
    workdir: str
    apt: tuple[str, ...]
    pip: tuple[str, ...]
    npm: tuple[str, ...]
    ca_certificates: tuple[PlacedFile, ...]
    install: tuple[str, ...]
    build_secrets: tuple[str, ...]
    startup: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    secrets: tuple[tuple[str, bool], ...]
    command: tuple[str, ...]
    #: The instruction file in the workspace (AGENTS.md when the kit gives instructions and no name).
    instructions_file: str | None
    instructions: str | None
    #: Where the agent reads user-level instructions, relative to its home (used for mounted workspaces).
    user_instructions_file: str | None
    #: A variable the entrypoint sets to the placed instruction file's absolute path.
    instructions_env: str | None
    files: tuple[PlacedFile, ...]
    home_files: tuple[PlacedFile, ...]
    egress: Egress
    allow: tuple[Destination, ...]
    deny: tuple[Destination, ...]
    workspace_mode: WorkspaceMode
    workspace_path: str
    workspace_repo: str | None
    workspace_ref: str | None
    workspace_source: Path | None
    #: mode mount: the repository's .git in the mounted folder, mounted read-only over it (None: there is
    #: none, or the kit accepts a writable one); decided when the kit is compiled.
    workspace_git: Path | None
    workspace_git_writable: bool
    #: workspace.token: the name of the secret git's credential helper answers with, and its user name.
    workspace_token: str | None
    workspace_token_username: str
    #: workspace.ssh_key and known_hosts: the secret holding an ssh clone's key, and the host keys it trusts.
    workspace_ssh_key: str | None
    workspace_known_hosts: tuple[str, ...]
    cpus: float
    memory_bytes: int
    pids: int
    disk_bytes: int
    timeout_seconds: int
    runtime: Runtime
    docker_runtime: str | None
    in_sandbox_docker: Literal["none", "rootless"]
    read_only_root: bool
    ports: tuple[PublishedPort, ...]
    triggers: Triggers
    kubernetes: KubernetesSettings
    actions: ActionsSettings
    description: str
    apt_declared: tuple[str, ...]  # the kit's own apt packages, without those sandkit adds for its features
    sbx: SbxSettings
    #: The resources and isolation fields the kit writes (or sets to something other than sandkit's
    #: default), dotted; a target that cannot hold a limit the kit leaves out reports it without
    #: failing ``--strict``.
    explicit: frozenset[str]
    #: The targets the kit lists in ``targets.build`` (empty: every target).
    build_targets: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    #: Secrets the egress proxy adds to requests (docs/secrets.md), in the kit's order.
    injections: tuple[Injection, ...] = ()
    #: (secret, placeholder): what the agent's variable holds where the proxy injects the secret.
    placeholders: tuple[tuple[str, str], ...] = ()

    @property
    def proxy_injects(self) -> bool:
        """Whether a proxy that injects can exist: the kit injects, and its egress goes through a proxy."""
        return bool(self.injections) and self.egress == "allowlist"

    @property
    def injected_secrets(self) -> tuple[str, ...]:
        """The names of the secrets the proxy injects, each once, in the kit's order."""
        return tuple(dict.fromkeys(i.secret for i in self.injections))

    @property
    def mounted_workspace(self) -> bool:
        """Whether the workspace is the host's own folder, which sandkit never writes to."""
        return self.workspace_mode in ("mount", "mount-readonly")

    @property
    def instructions_target(self) -> str | None:
        """Where the entrypoint places the instruction file at start, or None when it places none."""
        if not self.instructions_file:
            return None
        if not self.mounted_workspace:
            return posixpath.join(self.workspace_path, self.instructions_file)
        return posixpath.join(self.home, self.user_instructions_file) if self.user_instructions_file else None

    @property
    def cloned(self) -> bool:
        """Whether the entrypoint clones workspace.repo."""
        return self.workspace_mode == "clone" and self.workspace_repo is not None

    @property
    def clone_over_ssh(self) -> bool:
        """Whether the clone connects with ssh (`ssh://`, `git@host:path`), through the image's ssh wrapper."""
        return self.cloned and repo_kind(self.workspace_repo or "") == "ssh"

    @property
    def clone_secrets(self) -> tuple[tuple[str, bool], ...]:
        """The secrets the clone itself needs (workspace.token or ssh_key), with whether each is required."""
        names = {self.workspace_token, self.workspace_ssh_key} - {None}
        return tuple((name, required) for name, required in self.secrets if name in names)

    @property
    def cluster_uid(self) -> int:
        """The uid the agent's Kubernetes pods run as: the kit's, raised by HIGH_UID when below it. The
        image holds an account for it too (with the kit's user's home), so pod and image agree."""
        return high_uid(self.uid)

    @property
    def cluster_user(self) -> str:
        """The name of the image's account for :attr:`cluster_uid` (a POSIX name of at most 32 characters)."""
        return f"{self.user[:28]}-k8s"

    @property
    def image_tag(self) -> str:
        return f"sandkit/{self.name}:{self.config_sha256[:12]}"

    @property
    def proxy_url(self) -> str:
        return f"http://{PROXY_SERVICE}:{PROXY_PORT}"

    @property
    def header_fields(self) -> tuple[str, str, str]:
        return self.version, self.kit_path, self.kit_sha256

    @property
    def grace_seconds(self) -> int:
        """How long an agent asked to stop at its timeout (SIGTERM) may take before SIGKILL."""
        return min(MAX_GRACE_SECONDS, self.timeout_seconds)

    @property
    def deadline_seconds(self) -> int:
        """When a session ends however it behaves: the timeout, the grace, and as much again for start-up."""
        return self.timeout_seconds + 2 * self.grace_seconds


def high_uid(uid: int) -> int:
    """``uid`` where it is HIGH_UID or more, else ``uid + HIGH_UID``: one fixed uid per kit uid."""
    return uid if uid >= HIGH_UID else uid + HIGH_UID


def _destination(entry: str) -> Destination:
    host, _, port = entry.partition(":")
    return Destination(host, int(port) if port else 443)


def _auto_packages(kit: Kit, debian_like: bool) -> tuple[str, ...]:
    """What the kit's own features need from apt on a Debian-like base (git for clone, ...)."""
    wanted = list(kit.image.packages.apt)
    if debian_like:
        needs = []
        if kit.image.packages.pip:
            needs += ["python3", "python3-venv"]
        if kit.image.packages.npm:
            needs += ["nodejs", "npm"]
        if kit.workspace.mode == "clone":
            needs += ["git", "ca-certificates"]
        if kit.workspace.mode == "clone" and kit.workspace.repo and repo_kind(kit.workspace.repo) == "ssh":
            needs += ["openssh-client", "netcat-openbsd"]  # ssh, and nc for its tunnel through the proxy's CONNECT
        if kit.image.ca_certificates:
            needs += ["ca-certificates"]
        wanted += [p for p in needs if p not in wanted]
    return tuple(dict.fromkeys(wanted))


def is_under(path: str, folder: str) -> bool:
    """Whether the absolute path ``path`` is ``folder`` or inside it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _placed_files(
    kit: Kit, home: str, sources: Mapping[str, bytes]
) -> tuple[tuple[PlacedFile, ...], tuple[PlacedFile, ...]]:
    """Kit files, split into those under the home folder (copied in at start) and the rest."""
    regular: list[PlacedFile] = []
    in_home: list[PlacedFile] = []
    for index, spec in enumerate(kit.files, start=1):
        content = spec.content.encode() if spec.content is not None else sources[spec.source or ""]
        base = PurePosixPath(spec.path).name or "file"
        placed = PlacedFile(spec.path, content, spec.mode, f"{index:02d}-{base}")
        (in_home if is_under(spec.path, home) else regular).append(placed)
    return tuple(regular), tuple(in_home)


def _ca_files(kit: Kit, sources: Mapping[str, bytes]) -> tuple[PlacedFile, ...]:
    out = []
    for index, source in enumerate(kit.image.ca_certificates, start=1):
        name = f"sandkit-{index:02d}-{PurePosixPath(source).stem}.crt"
        out.append(PlacedFile(f"/usr/local/share/ca-certificates/{name}", sources[source], "0644", name))
    return tuple(out)


def _triggers(triggers: list[Trigger], cloned: bool) -> Triggers:
    return Triggers(
        schedules=tuple(t.schedule for t in triggers if t.schedule is not None),
        github=tuple(_github_event(t.github, cloned) for t in triggers if t.github is not None),
        manual=any(t.manual is not None for t in triggers),
        webhooks=tuple(_webhook(t.webhook) for t in triggers if t.webhook is not None),
    )


def _webhook(hook: WebhookTrigger) -> Webhook:
    matches = tuple(EventMatch(parse_selector(path), tuple(values)) for path, values in hook.filters())
    fields = tuple(
        EventField(name, parse_selector(spec.path), spec.type, spec.description) for name, spec in hook.fields.items()
    )
    return Webhook(
        name=hook.event_name,
        source=hook.source,
        secret=hook.secret,
        verification_token=hook.verification_token,
        matches=matches,
        fields=fields,
        dispatch=hook.dispatch,
        max_sessions=hook.max_sessions,
        per_minute=hook.per_minute,
        slack_events=hook.source == "slack" and bool(hook.events),
    )


#: The activity types a comment trigger runs on unless the kit names others: a new comment or review
#: (an edit or a deletion of an old one starts nothing).
COMMENT_TYPES = {"pull_request_review": ("submitted",)}


def _github_event(github: GithubTrigger, cloned: bool) -> GithubEvent:
    comment = github.event in COMMENT_EVENTS
    types = tuple(github.types) or (COMMENT_TYPES.get(github.event, ("created",)) if comment else ())
    return GithubEvent(
        github.event,
        types,
        tuple(github.branches),
        tuple(github.paths),
        command=github.command,
        author_associations=tuple(github.author_associations) if comment else (),
        bots=tuple(github.bots),
        # pull_request_target never: the kit model refuses its head in a clone
        head_checkout=cloned and github.head_checkout and github.event != "pull_request_target",
    )


def config_digest(loaded: LoadedKit) -> str:
    """The sha256 of the kit as sandkit understands it: the validated, merged model with every file it
    names replaced by its name and content digest, and sandkit.OUTPUT_VERSION. Comments, quoting, key
    order and where the repository lies on disk do not change it; anything that changes an image does.
    """
    kit = loaded.kit.model_dump(mode="json", by_alias=True)
    files = [
        {**spec, "source": _content(spec["source"], loaded)} if spec.get("source") else spec for spec in kit["files"]
    ]
    image = {**kit["image"], "ca_certificates": [_content(c, loaded) for c in kit["image"]["ca_certificates"]]}
    workspace = dict(kit["workspace"])
    if workspace.get("source") and loaded.root is not None:
        workspace["source"] = Path(os.path.relpath(workspace["source"], loaded.root)).as_posix()
    normal = {"sandkit": OUTPUT_VERSION, "kit": {**kit, "files": files, "image": image, "workspace": workspace}}
    return hashlib.sha256(json.dumps(normal, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def _content(source: str, loaded: LoadedKit) -> str:
    return f"{PurePosixPath(source).name} sha256:{hashlib.sha256(loaded.sources[source]).hexdigest()}"


def _protected_git(kit: Kit) -> Path | None:
    """The .git of a folder mounted read-write, unless the kit accepts a writable one.

    A folder or a file (a worktree's or a submodule's pointer) alike: git on the host reads either.
    """
    workspace = kit.workspace
    if workspace.mode != "mount" or workspace.git == "writable" or workspace.source is None:
        return None
    git = Path(workspace.source) / ".git"
    return git if os.path.lexists(git) else None


def make_plan(loaded: LoadedKit) -> Plan:
    """Normalise a validated kit into the plan every target renders."""
    kit = loaded.kit
    home = posixpath.join("/home", kit.image.user)
    debian_like = kit.image.base.split("/")[-1].split(":")[0] in DEBIAN_LIKE
    deny = tuple(sorted({_destination(d) for d in kit.network.deny}))
    allow_all = tuple(dict.fromkeys(_destination(a) for a in kit.network.allow))
    allow = tuple(a for a in allow_all if not any(d.covers(a) for d in deny))
    regular, in_home = _placed_files(kit, home, loaded.sources)
    notes = tuple(f"{a} is denied, so it is dropped from the allowlist" for a in allow_all if a not in allow)
    return Plan(
        name=kit.name,
        kit_display=loaded.display,
        kit_path=loaded.relative_path,
        kit_sha256=loaded.sha256,
        config_sha256=config_digest(loaded),
        version=OUTPUT_VERSION,
        base_image=kit.image.base,
        debian_like=debian_like,
        user=kit.image.user,
        uid=kit.image.uid,
        home=home,
        workdir=kit.image.workdir,
        apt=_auto_packages(kit, debian_like),
        pip=tuple(kit.image.packages.pip),
        npm=tuple(kit.image.packages.npm),
        ca_certificates=_ca_files(kit, loaded.sources),
        install=tuple(kit.install),
        build_secrets=tuple(s.name for s in kit.secrets if s.build),
        startup=tuple(kit.startup),
        env=tuple(sorted(kit.env.items())),
        secrets=tuple((s.name, s.required) for s in kit.secrets if not s.build),
        command=tuple(kit.agent.command),
        instructions_file=kit.agent.instructions_file
        or (DEFAULT_INSTRUCTIONS_FILE if kit.agent.instructions is not None else None),
        instructions=kit.agent.instructions,
        user_instructions_file=kit.agent.user_instructions_file,
        instructions_env=kit.agent.instructions_env,
        files=regular,
        home_files=in_home,
        egress=kit.network.egress,
        allow=allow if kit.network.egress == "allowlist" else (),
        deny=deny,
        workspace_mode=kit.workspace.mode,
        workspace_path=kit.workspace.path,
        workspace_repo=kit.workspace.repo,
        workspace_ref=kit.workspace.ref,
        workspace_source=Path(kit.workspace.source) if kit.workspace.source else None,
        workspace_git=_protected_git(kit),
        workspace_git_writable=kit.workspace.git == "writable",
        workspace_token=kit.workspace.token,
        workspace_token_username=kit.workspace.token_username,
        workspace_ssh_key=kit.workspace.ssh_key,
        workspace_known_hosts=tuple(kit.workspace.known_hosts),
        cpus=kit.resources.cpus,
        memory_bytes=quantity_bytes(kit.resources.memory),
        pids=kit.resources.pids,
        disk_bytes=quantity_bytes(kit.resources.disk),
        timeout_seconds=duration_seconds(kit.resources.timeout),
        runtime=kit.isolation.runtime,
        docker_runtime=RUNTIMES[kit.isolation.runtime],
        in_sandbox_docker=kit.isolation.docker,
        read_only_root=kit.isolation.read_only_root,
        ports=tuple(PublishedPort(p.host_ip, p.host, p.container, p.protocol, p.http) for p in kit.ports),
        triggers=_triggers(kit.triggers, kit.workspace.mode == "clone" and kit.workspace.repo is not None),
        kubernetes=KubernetesSettings(
            namespace=kit.targets.kubernetes.namespace or kit.name,
            create_namespace=kit.targets.kubernetes.create_namespace,
            egress=kit.targets.kubernetes.egress,
            sandbox_crd=kit.targets.kubernetes.sandbox_crd,
            secret_name=kit.targets.kubernetes.secret_name,
            api_server=tuple(kit.targets.kubernetes.api_server),
        ),
        actions=ActionsSettings(
            runs_on=kit.targets.actions.runs_on,
            permissions=tuple(sorted(kit.targets.actions.permissions.items())),
            publish=kit.targets.actions.publish,
            app=(app.client_id, app.private_key) if (app := kit.targets.actions.app) else None,
            app_push_runs_workflows=kit.targets.actions.app_push_runs_workflows,
        ),
        build_targets=tuple(kit.targets.build or ()),
        description=kit.description,
        apt_declared=tuple(kit.image.packages.apt),
        sbx=_sbx_settings(kit),
        explicit=_explicit(kit),
        notes=notes,
        injections=tuple(
            Injection(s.name, _destination(i.host), i.header, i.format) for s in kit.secrets for i in s.inject
        ),
        placeholders=tuple((s.name, s.placeholder) for s in kit.secrets if s.placeholder is not None),
    )


def _explicit(kit: Kit) -> frozenset[str]:
    """resources.* and isolation.* fields the kit writes (itself or through ``extends``), whatever
    their value: a limit written equal to the default (`sandkit init` writes them so) is still one
    the kit asks for, and ``--strict`` judges it; and any field whose value is not the default."""
    found = []
    for section, model in (("resources", kit.resources), ("isolation", kit.isolation)):
        defaults = type(model)()
        found += [
            f"{section}.{name}"
            for name in type(model).model_fields
            if name in model.model_fields_set or getattr(model, name) != getattr(defaults, name)
        ]
    return frozenset(found)


def _sbx_settings(kit: Kit) -> SbxSettings:
    """targets.sbx, with a credential for every run-time secret.

    Its inject rules are targets.sbx.credentials.NAME.inject when given, else the secret's own
    ``inject`` (on port 443: an sbx rule names a domain, no port); none with egress none.
    """
    given = kit.targets.sbx.credentials
    credentials = []
    for secret in kit.secrets:
        if secret.build:
            continue
        spec = given.get(secret.name)
        service = spec.service if spec else re.sub(r"[^a-z0-9]+", "-", secret.name.lower()).strip("-")[:63].strip("-")
        if spec and spec.inject:
            rules = tuple(SbxInject(r.domain, r.header, r.format, r.scheme, r.username) for r in spec.inject)
        else:
            rules = tuple(
                _sbx_rule(i.host, i.header, i.format) for i in secret.inject if _destination(i.host).port == 443
            )
        credentials.append(
            SbxCredential(
                secret.name,
                service or "secret",
                secret.description,
                secret.required,
                rules if kit.network.egress != "none" else (),
                spec.proxy_managed if spec else True,
            )
        )
    return SbxSettings(kit.targets.sbx.image_from, kit.targets.sbx.image, tuple(credentials))


def _sbx_rule(host: str, header: str, value_format: str) -> SbxInject:
    """A secrets[].inject entry as an sbx rule: sbx's format puts the key at %s (kit formats hold no %)."""
    return SbxInject(_destination(host).host, header, value_format.replace(VALUE_SLOT, "%s"))
