"""The kit model, version 1: its field names are the format's contract (docs/kit-format.md lists them).

Unknown keys are refused everywhere (``extra="forbid"``); the loader turns pydantic's errors into
located problems. Defaults here are the secure ones: allowlist egress, non-root, read-only root.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from sandkit.credentials import credential_kind, is_secret_name
from sandkit.kits.cron import check_cron
from sandkit.kits.fields import (
    AbsPath,
    AptPackage,
    Duration,
    EnvName,
    GitRef,
    HostPattern,
    ImageRef,
    KitName,
    NpmPackage,
    OctalMode,
    PipPackage,
    PlainName,
    Quantity,
    RelPath,
    RepoURL,
    UserName,
    WorkspaceFile,
    no_control,
)

API_VERSION = "sandkit/v1"

GITHUB_EVENTS = frozenset(
    {
        "branch_protection_rule",
        "check_run",
        "check_suite",
        "create",
        "delete",
        "deployment",
        "deployment_status",
        "discussion",
        "discussion_comment",
        "fork",
        "gollum",
        "issue_comment",
        "issues",
        "label",
        "merge_group",
        "milestone",
        "page_build",
        "public",
        "pull_request",
        "pull_request_review",
        "pull_request_review_comment",
        "pull_request_target",
        "push",
        "registry_package",
        "release",
        "repository_dispatch",
        "status",
        "watch",
        "workflow_call",
        "workflow_run",
    }
)
#: Events whose runs hold the base repository's secrets while acting on what outsiders control: a
#: fork's code (pull_request_target, workflow_run) or text anyone may post (issue and discussion comments).
UNTRUSTED_EVENTS = {
    "pull_request_target": "runs with the repository's secrets on a fork's pull request",
    "workflow_run": "runs with the repository's secrets after workflows that may run a fork's code",
    "issue_comment": "runs with the repository's secrets whenever anyone comments",
    "discussion_comment": "runs with the repository's secrets whenever anyone comments",
}
ACTIONS_SCOPES = frozenset(
    {
        "actions",
        "attestations",
        "checks",
        "contents",
        "deployments",
        "discussions",
        "id-token",
        "issues",
        "models",
        "packages",
        "pages",
        "pull-requests",
        "security-events",
        "statuses",
    }
)


def _not_secret_name(key: str) -> str:
    if is_secret_name(key):
        raise ValueError(
            f"{key} looks like a secret; declare it under `secrets` (a reference) instead of writing its value in `env`"
        )
    return key


def _not_credential(value: str) -> str:
    kind = credential_kind(value)
    if kind:
        raise ValueError(f"this value looks like a credential ({kind}); move it to `secrets`")
    return value


EnvKey = Annotated[EnvName, AfterValidator(_not_secret_name)]
EnvValue = Annotated[str, AfterValidator(_not_credential)]
CronLine = Annotated[str, AfterValidator(no_control), AfterValidator(check_cron)]
Port = Annotated[int, Field(ge=1, le=65535)]


def at(path: str, message: str) -> str:
    """Tag a cross-field error with the dotted path it belongs to (the loader locates it there)."""
    return f"@{path} {message}"


class Strict(BaseModel):
    """Base of every kit section: unknown keys are errors, values are never coerced silently."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class Packages(Strict):
    """Structured installs, compiled into few cache-friendly layers."""

    apt: list[AptPackage] = Field(default_factory=list, description="Debian packages")
    pip: list[PipPackage] = Field(default_factory=list, description="Python packages (pin with ==)")
    npm: list[NpmPackage] = Field(default_factory=list, description="npm packages (pin with @version)")


class Image(Strict):
    base: ImageRef = Field("debian:bookworm-slim", description="a tag, or tag@sha256:digest")
    user: UserName = Field("agent", description="non-root user the agent runs as")
    uid: int = Field(1000, ge=1, le=2**31 - 2, description="the agent user's uid (never 0)")
    workdir: AbsPath = "/workspace"
    ca_certificates: list[RelPath] = Field(
        default_factory=list,
        description="PEM files (relative to the kit) trusted at build and run time",
    )
    packages: Packages = Field(default_factory=Packages)


class Secret(Strict):
    name: EnvName
    description: str = ""
    required: bool = True
    build: bool = Field(
        False,
        description="a build-time secret: given to `install` commands as the BuildKit secret file "
        "/run/secrets/NAME (never ARG or ENV), and not to the agent at run time",
    )


class Network(Strict):
    egress: Literal["allowlist", "none", "open"] = Field("allowlist", description="allowlist (default) | none | open")
    allow: list[HostPattern] = Field(default_factory=list, description="host (port 443 implied), host:port, or *.host")
    deny: list[HostPattern] = Field(default_factory=list, description="always wins over allow")


class Agent(Strict):
    command: list[str] = Field(min_length=1, description="exec form; the entry point")
    instructions: str | None = Field(None, description="written to the agent's instruction file")
    instructions_file: WorkspaceFile | None = Field(
        None, description="file name the agent reads, relative to the workspace"
    )


class FileSpec(Strict):
    path: AbsPath
    content: str | None = None
    source: RelPath | None = Field(None, description="a file relative to the kit")
    mode: OctalMode = "0644"

    @model_validator(mode="after")
    def _one_source(self) -> FileSpec:
        if (self.content is None) == (self.source is None):
            raise ValueError("give exactly one of `content` or `source`")
        return self


class Workspace(Strict):
    mode: Literal["clone", "mount", "mount-readonly", "none"] = "clone"
    repo: RepoURL | None = Field(None, description="repository to clone (mode: clone)")
    ref: GitRef | None = None
    path: AbsPath = "/workspace"
    source: RelPath | None = Field(None, description="host folder to mount, relative to the kit (mount modes)")

    @model_validator(mode="after")
    def _mode_fields(self) -> Workspace:
        if self.mode.startswith("mount") and self.source is None:
            raise ValueError(f"workspace mode {self.mode} needs `source`, the host folder to mount")
        if self.mode != "clone" and (self.repo or self.ref):
            raise ValueError("`repo` and `ref` apply only to workspace mode clone")
        return self


class Resources(Strict):
    cpus: float = Field(2, gt=0, le=1024)
    memory: Quantity = "4Gi"
    pids: int = Field(512, ge=16, le=4_194_304)
    disk: Quantity = "10Gi"
    timeout: Duration = Field("1h", description="the longest a run may last")


class Isolation(Strict):
    runtime: Literal["default", "gvisor", "kata"] = "default"
    docker: Literal["none", "rootless"] = "none"
    read_only_root: bool = True


class PortSpec(Strict):
    container: Port
    host: Port | None = None
    host_ip: Annotated[str, AfterValidator(no_control)] = "127.0.0.1"
    protocol: Literal["tcp", "udp"] = "tcp"

    @field_validator("host_ip")
    @classmethod
    def _ip(cls, value: str) -> str:
        import ipaddress

        try:
            ipaddress.ip_address(value)
        except ValueError as exc:
            raise ValueError("must be an IP address such as 127.0.0.1") from exc
        return value


class GithubTrigger(Strict):
    event: str
    types: list[PlainName] = Field(default_factory=list)
    branches: list[PlainName] = Field(default_factory=list)
    paths: list[PlainName] = Field(default_factory=list)
    acknowledge_risk: bool = Field(False, description="required for pull_request_target and workflow_run")

    @field_validator("event")
    @classmethod
    def _known_event(cls, value: str) -> str:
        if value not in GITHUB_EVENTS:
            hint = " (use `schedule:` or `manual:` triggers)" if value in ("schedule", "workflow_dispatch") else ""
            raise ValueError(f"{value!r} is not a GitHub Actions event{hint}")
        return value

    @model_validator(mode="after")
    def _risky(self) -> GithubTrigger:
        if self.event in UNTRUSTED_EVENTS and not self.acknowledge_risk:
            raise ValueError(
                f"{self.event} {UNTRUSTED_EVENTS[self.event]}; set `acknowledge_risk: true` if you mean it"
            )
        return self


class ManualTrigger(Strict):
    pass


class Trigger(Strict):
    """Exactly one of ``schedule``, ``github`` or ``manual``."""

    schedule: CronLine | None = None
    github: GithubTrigger | None = None
    manual: ManualTrigger | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Trigger:
        given = [k for k in ("schedule", "github", "manual") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a trigger is exactly one of `schedule`, `github` or `manual`")
        return self


class DockerTarget(Strict):
    pass


class ComposeTarget(Strict):
    pass


class KubernetesTarget(Strict):
    namespace: KitName | None = Field(None, description="defaults to the kit name")
    create_namespace: bool = Field(True, description="emit the Namespace (false: use an existing one)")
    egress: Literal["networkpolicy", "cilium"] = "networkpolicy"
    sandbox_crd: bool = Field(False, description="emit agent-sandbox SandboxTemplate/SandboxClaim")
    secret_name: KitName | None = Field(None, description="the Secret holding the kit's secrets")


class ActionsTarget(Strict):
    runs_on: PlainName = "ubuntu-latest"
    permissions: dict[str, Literal["read", "write"]] = Field(default_factory=dict)

    @field_validator("permissions")
    @classmethod
    def _scopes(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - ACTIONS_SCOPES)
        if unknown:
            raise ValueError(f"unknown permission scope(s) {', '.join(unknown)}")
        return value


class DevcontainerTarget(Strict):
    pass


class Targets(Strict):
    docker: DockerTarget = Field(default_factory=DockerTarget)
    compose: ComposeTarget = Field(default_factory=ComposeTarget)
    kubernetes: KubernetesTarget = Field(default_factory=KubernetesTarget)
    actions: ActionsTarget = Field(default_factory=ActionsTarget)
    devcontainer: DevcontainerTarget = Field(default_factory=DevcontainerTarget)


class Kit(Strict):
    """A sandbox for one unattended coding agent."""

    model_config = ConfigDict(
        title="sandkit kit",
        json_schema_extra={"$id": "https://sandkit.dev/schemas/kit.schema.json"},
    )

    api_version: Literal["sandkit/v1"] = Field(alias="apiVersion")
    kind: Literal["Kit", "Mixin"] = Field("Kit", description="Kit, or Mixin: a partial kit for extends")
    name: KitName = Field(description="DNS-1123 label; names images, services, jobs, workflows")
    description: str = ""
    extends: list[PlainName] = Field(
        default_factory=list, description="bundled presets by name, or paths relative to this file"
    )
    image: Image = Field(default_factory=Image)
    install: list[str] = Field(default_factory=list, description="run once at build, as root")
    startup: list[str] = Field(default_factory=list, description="run at every start, as the agent")
    env: dict[EnvKey, EnvValue] = Field(default_factory=dict, description="plain, non-secret values")
    secrets: list[Secret] = Field(default_factory=list, description="references only")
    network: Network = Field(default_factory=Network)
    agent: Agent
    files: list[FileSpec] = Field(default_factory=list)
    workspace: Workspace = Field(default_factory=Workspace)
    resources: Resources = Field(default_factory=Resources)
    isolation: Isolation = Field(default_factory=Isolation)
    ports: list[PortSpec] = Field(default_factory=list)
    triggers: list[Trigger] = Field(default_factory=list)
    targets: Targets = Field(default_factory=Targets)

    @model_validator(mode="after")
    def _consistent(self) -> Kit:
        names = [s.name for s in self.secrets]
        clash = sorted(set(names) & set(self.env))
        if clash:
            raise ValueError(f"{', '.join(clash)} is both an env value and a secret")
        if len(set(names)) != len(names):
            raise ValueError("secret names must be unique")
        if self.workspace.mode == "clone" and self.workspace.repo:
            self._check_clone_reachable()
        paths = [f.path for f in self.files]
        if len(set(paths)) != len(paths):
            raise ValueError("two entries of `files` have the same path")
        return self

    def _check_clone_reachable(self) -> None:
        """A clone needs its host allowed; say so now rather than fail inside the sandbox."""
        from sandkit.kits.fields import repo_host_port

        if self.network.egress == "none":
            raise ValueError(
                at(
                    "workspace.mode",
                    "workspace mode clone needs the network, but egress is none; use mode mount or none",
                )
            )
        if self.network.egress == "open" or self.workspace.repo is None:
            return
        host, port = repo_host_port(self.workspace.repo)
        wanted = f"{host}:{port}"
        allowed = any(_matches(entry, host, port) for entry in self.network.allow)
        denied = any(_matches(entry, host, port) for entry in self.network.deny)
        if denied or not allowed:
            why = "is denied" if denied else "is not in `network.allow`"
            raise ValueError(at("workspace.repo", f"the clone of workspace.repo needs {wanted}, which {why}"))


def _matches(entry: str, host: str, port: int) -> bool:
    pattern, _, port_text = entry.partition(":")
    if (int(port_text) if port_text else 443) != port:
        return False
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return pattern == host
