"""The kit model, version 1: its field names are the format's contract (docs/kit-format.md lists them).

Unknown keys are refused everywhere (``extra="forbid"``); the loader turns pydantic's errors into
located problems. Defaults here are the secure ones: allowlist egress, non-root, read-only root.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from sandkit.credentials import credential_kind, is_secret_name
from sandkit.kits.clone_auth import KnownHost, TokenUsername, ssh_problem, token_problem
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
    check_host,
    no_control,
)
from sandkit.kits.github_events import (
    COMMENT_EVENTS,
    MAY_NAME_PULL_REQUEST,
    PUBLISH_EVENTS,
    TRUSTED_ASSOCIATIONS,
    AuthorAssociation,
    BotLogin,
    Checkout,
    Publish,
    comment_problems,
)
from sandkit.kits.hosts import host_matches
from sandkit.kits.inject import HeaderFormat, HeaderName, InjectHost, Placeholder
from sandkit.kits.webhooks import (
    MAX_FIELDS,
    SHORTHAND_PATHS,
    FieldName,
    MatchValue,
    Selector,
    SlashCommand,
    WebhookSource,
    selector_or_field_schema,
    source_problems,
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
#: fork's code (pull_request_target, workflow_run). Comment events are held by their trigger's
#: command and author associations instead (sandkit/kits/github_events.py).
UNTRUSTED_EVENTS = {
    "pull_request_target": "runs with the repository's secrets on a fork's pull request",
    "workflow_run": "runs with the repository's secrets after workflows that may run a fork's code",
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


def _cidr(value: str) -> str:
    """An IPv4 or IPv6 network without host bits (`10.0.0.0/8`; a bare address is its /32 or /128)."""
    import ipaddress

    try:
        return str(ipaddress.ip_network(value, strict=True))
    except ValueError as error:
        raise ValueError(f"not a CIDR without host bits: {error}") from None


Cidr = Annotated[str, Field(max_length=64), AfterValidator(_cidr)]
_HTTP_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}")


#: Joins the messages of several cross-field problems found at once in one ValueError.
MANY = "\n\x1e"


def at(path: str, message: str) -> str:
    """Tag a cross-field error with the dotted path it belongs to (the loader locates it there)."""
    return f"@{path} {message}"


class Strict(BaseModel):
    """Base of every kit section: unknown keys are errors, values are never coerced silently."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class Packages(Strict):
    """Structured installs, compiled into few cache-friendly layers."""

    apt: list[AptPackage] = Field(
        default_factory=list, description="Debian packages, with a version if wanted (`git=1:2.39.5-0+deb12u1`)."
    )
    pip: list[PipPackage] = Field(
        default_factory=list,
        description="Python packages, pinned with `==` (`pytest==8.3.2`); they go into the virtual environment "
        "`/opt/sandkit/venv`, which is on PATH.",
    )
    npm: list[NpmPackage] = Field(
        default_factory=list, description="npm packages, pinned with `@version` (`@scope/name@1.2.3`)."
    )


class Image(Strict):
    """What the sandbox image is built from, and who runs in it."""

    base: ImageRef = Field(
        "debian:bookworm-slim", description="The base image, `name[:tag][@sha256:<64 hex>]`; a digest pins it."
    )
    user: UserName = Field("agent", description="The user the agent runs as: a POSIX user name, never `root`.")
    uid: int = Field(
        1000,
        ge=1,
        le=2**31 - 2,
        description="That user's uid, never 0; a user or group of the base image with this uid is replaced.",
    )
    workdir: AbsPath = Field(
        "/workspace", description="The working folder: an absolute path of `[A-Za-z0-9._@+=,~/-]`."
    )
    ca_certificates: list[RelPath] = Field(
        default_factory=list,
        description="Extra certificate authorities (PEM files relative to the kit), for TLS-inspecting proxies: "
        "the system, pip, npm, requests and git trust them while building and while running.",
    )
    packages: Packages = Field(
        default_factory=Packages, description="Packages to install, in few cache-friendly layers."
    )


class Injection(Strict):
    """Where the egress proxy puts a secret: one header on requests to one host."""

    host: InjectHost = Field(
        description="The host (port 443 implied, or `host:port`) whose HTTPS requests get the header: one exact "
        "name that `network.allow` reaches; never a wildcard."
    )
    header: HeaderName = Field(description="The header the proxy sets (`x-api-key`, `Authorization`).")
    format: HeaderFormat = Field(
        "{value}",
        description="The header's value, with `{value}` where the secret goes (`Bearer {value}`); printable "
        'ASCII without `"`, `\\` or `%`.',
    )


class Secret(Strict):
    name: EnvName = Field(description="The environment variable the agent finds the secret in.")
    description: str = Field("", description="What the secret is, for whoever supplies it.")
    required: bool = Field(
        True, description="A required secret that is missing or empty stops the sandbox (exit code 78)."
    )
    build: bool = Field(
        False,
        description="A build secret: `install` commands read it from the BuildKit secret file "
        "`/run/secrets/NAME` (never an ARG or ENV), and the agent never receives it.",
    )
    inject: list[Injection] = Field(
        default_factory=list,
        description="The egress proxy adds the secret to these hosts' requests, and the agent never holds it: "
        "its variable holds `placeholder` instead (docs/secrets.md). A target that cannot inject hands the agent "
        "the value and says so in the fidelity report.",
    )
    placeholder: Placeholder | None = Field(
        None,
        description="With `inject`: what the agent finds in its variable instead of the secret, a value its "
        "client accepts (a preset sets it); the variable is left unset when none is given.",
    )

    @model_validator(mode="after")
    def _injection(self) -> Secret:
        if self.inject and self.build:
            raise ValueError(at("inject", "a build secret is read by `install`, never sent by the proxy"))
        if self.placeholder is not None and not self.inject:
            raise ValueError(at("placeholder", "a placeholder stands in for an injected secret; add `inject`"))
        return self


class Network(Strict):
    egress: Literal["allowlist", "none", "open"] = Field(
        "allowlist",
        description="`allowlist`: only the hosts in `allow`, through a proxy; `none`: no network at all; "
        "`open`: anywhere (the linter reports it).",
    )
    allow: list[HostPattern] = Field(
        default_factory=list,
        description="Hosts the sandbox may reach: `host` (port 443), `host:port`, or `*.domain` (exactly one label "
        "in front, like a TLS wildcard). `*`, broader wildcards, IP literals and `localhost` are errors.",
    )
    deny: list[HostPattern] = Field(
        default_factory=list, description="Hosts never reached, in the forms of `allow`; a deny wins over an allow."
    )


class Agent(Strict):
    command: list[str] = Field(
        min_length=1,
        description="The agent's command line in exec form, at least one element; `extends` replaces it whole, "
        "never appends to it.",
    )
    instructions: str | None = Field(None, description="Text written to the agent's instruction file.")
    instructions_file: WorkspaceFile | None = Field(
        None,
        description="The instruction file's name, relative to the workspace (a preset sets it; `AGENTS.md` when "
        "`instructions` is given and nothing names a file).",
    )
    user_instructions_file: WorkspaceFile | None = Field(
        None,
        description="Where the agent reads user-level instructions, relative to its home folder "
        "(`.claude/CLAUDE.md`; a preset sets it). With a `mount` or `mount-readonly` workspace, which is the host's "
        "folder and never written to, the instructions go here instead; such a kit needs it.",
    )
    instructions_env: EnvName | None = Field(
        None,
        description="A variable set to the instruction file's absolute path wherever it is placed, for an agent "
        "that is pointed at its instructions that way (aider's `AIDER_READ`; a preset sets it).",
    )


class FileSpec(Strict):
    path: AbsPath = Field(description="Where the file goes in the image: an absolute path.")
    content: str | None = Field(None, description="The file's text; give exactly one of `content` and `source`.")
    source: RelPath | None = Field(None, description="A file, relative to the kit, copied as it is.")
    mode: OctalMode = Field("0644", description='Permissions as a quoted octal string (`"0600"`).')

    @model_validator(mode="after")
    def _one_source(self) -> FileSpec:
        if (self.content is None) == (self.source is None):
            raise ValueError("give exactly one of `content` or `source`")
        return self


class Workspace(Strict):
    mode: Literal["clone", "mount", "mount-readonly", "none"] = Field(
        "clone",
        description="`clone`: a clone of `repo`; `mount`, `mount-readonly`: the host folder `source`; "
        "`none`: an empty folder.",
    )
    repo: RepoURL | None = Field(
        None,
        description="The repository to clone (mode `clone` only): `https://`, `http://`, `ssh://`, `git://` or "
        "`git@host:path`, without a password. With an allowlist its host:port must be allowed and not denied; "
        "`egress: none` cannot clone.",
    )
    ref: GitRef | None = Field(None, description="The branch, tag or commit to check out (mode `clone` only).")
    path: AbsPath = Field("/workspace", description="Where the workspace is in the sandbox: an absolute path.")
    source: RelPath | None = Field(
        None, description="The host folder to mount, relative to the kit; the mount modes require it."
    )
    git: Literal["read-only", "writable"] = Field(
        "read-only",
        description="Mode `mount`: the repository's `.git` in `source` is mounted read-only over the writable "
        "folder, so the agent cannot plant hooks or configuration (`core.fsmonitor`, `core.sshCommand`) that git "
        "on the host would run. `writable` lets the agent commit and accepts that risk (the linter reports it).",
    )
    token: EnvName | None = Field(
        None,
        description="An `https://` repository's credential: the name of one of `secrets` holding a token. The "
        "image's git credential helper gives it to git for the repository's own host only, read from the secret "
        "when the server asks: never in the URL, on a command line or in a file of the image.",
    )
    token_username: TokenUsername = Field(
        "x-access-token",
        description="The user name sent with `token` (GitHub takes any; GitLab wants `oauth2`, Bitbucket "
        "`x-token-auth`).",
    )
    ssh_key: EnvName | None = Field(
        None,
        description="An ssh repository's credential (`ssh://`, `git@host:path`): the name of one of `secrets` "
        "holding a private key (a deploy key). The image's ssh wrapper copies it into a private file for each "
        "connection and removes it after; the connection goes through the egress proxy's CONNECT (allow "
        "`host:22`), and the image gets an ssh client.",
    )
    known_hosts: list[KnownHost] = Field(
        default_factory=list,
        description="An ssh repository's pinned host keys, as `ssh-keyscan` prints them (`git.example.com "
        "ssh-ed25519 AAAA...`): required for an ssh repository, one line must name its host (`[host]:port` off "
        "port 22), and ssh trusts no other key.",
    )

    @model_validator(mode="after")
    def _mode_fields(self) -> Workspace:
        if self.mode.startswith("mount") and self.source is None:
            raise ValueError(f"workspace mode {self.mode} needs `source`, the host folder to mount")
        if self.mode != "clone" and (self.repo or self.ref or self.token or self.ssh_key or self.known_hosts):
            raise ValueError("`repo`, `ref`, `token`, `ssh_key` and `known_hosts` apply only to workspace mode clone")
        for problem in (token_problem(self.repo, self.token), ssh_problem(self.repo, self.ssh_key, self.known_hosts)):
            if problem is not None:
                raise ValueError(problem)
        if self.git == "writable" and self.mode != "mount":
            raise ValueError("`git: writable` applies only to workspace mode mount (the other modes mount no .git)")
        return self


class Resources(Strict):
    cpus: float = Field(2, gt=0, le=1024, description="CPUs, fractions allowed (more than 0, at most 1024).")
    memory: Quantity = Field(
        "4Gi", description="Memory: a Kubernetes-style quantity (`512Mi`, `4Gi`) or a number of bytes."
    )
    pids: int = Field(512, ge=16, le=4_194_304, description="The most processes at once (16 to 4,194,304).")
    disk: Quantity = Field("10Gi", description="Writable disk space, a quantity like `memory`.")
    timeout: Duration = Field("1h", description="The longest a run may last: `90s`, `15m`, `2h`, `1h30m`.")


class Isolation(Strict):
    runtime: Literal["default", "gvisor", "kata"] = Field(
        "default",
        description="The container runtime: the engine's `default`, `gvisor` (Docker's `runsc`) or `kata` "
        "(`kata-runtime`).",
    )
    docker: Literal["none", "rootless"] = Field(
        "none",
        description="`rootless` asks for a private Docker daemon inside the sandbox (each target's fidelity "
        "report says whether it can give one); the host's socket is never an option.",
    )
    read_only_root: bool = Field(
        True, description="A read-only root filesystem; the workspace, the home folder and `/tmp` stay writable."
    )


class PortSpec(Strict):
    container: Port = Field(description="The port inside the sandbox.")
    host: Port | None = Field(None, description="The port on the host; the container's port when left out.")
    host_ip: Annotated[str, AfterValidator(no_control)] = Field(
        "127.0.0.1", description="The host address the port is published on: an IP address."
    )
    protocol: Literal["tcp", "udp"] = Field("tcp", description="`tcp` or `udp`.")
    http: bool = Field(
        False,
        description="A TCP port that serves HTTP (a preview): with `egress: allowlist` the port forwarder serves it "
        "through a reverse proxy (nginx) that sets a Content-Security-Policy and other headers keeping the page "
        "from sending to other origins, in place of any such header the application sets.",
    )

    @model_validator(mode="after")
    def _http_is_tcp(self) -> PortSpec:
        if self.http and self.protocol != "tcp":
            raise ValueError("`http: true` needs `protocol: tcp`: HTTP previews go over TCP")
        return self

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
    event: str = Field(
        description="A GitHub Actions event (`pull_request`, `push`, ...); "
        + ", ".join(f"`{event}`" for event in UNTRUSTED_EVENTS)
        + " need `acknowledge_risk: true`."
    )
    types: list[PlainName] = Field(default_factory=list, description="Activity types (`opened`, `synchronize`).")
    branches: list[PlainName] = Field(default_factory=list, description="Branch filters.")
    paths: list[PlainName] = Field(default_factory=list, description="Path filters.")
    acknowledge_risk: bool = Field(
        False,
        description="Accepts an event whose runs hold the repository's secrets while acting on what outsiders "
        "control (a fork's code), or comments from people without write access.",
    )
    command: SlashCommand | None = Field(
        None,
        description="Comment events ("
        + ", ".join(f"`{event}`" for event in COMMENT_EVENTS)
        + ") need it: the command a comment's first line must start with (`/review`); other comments start "
        "nothing.",
    )
    author_associations: list[AuthorAssociation] = Field(
        default_factory=lambda: list(TRUSTED_ASSOCIATIONS),
        min_length=1,
        description="Comment events: whose comments may start the agent, by GitHub's `author_association` "
        "(`OWNER`, `MEMBER`, `COLLABORATOR` unless given; any other needs `acknowledge_risk: true`). The workflow "
        "checks it and `command` before any secret is touched.",
    )
    bots: list[BotLogin] = Field(
        default_factory=list,
        description="Comment events: bot accounts whose comments may start the agent (`renovate[bot]`); every "
        "other bot's comments are ignored.",
    )
    checkout: Checkout = Field(
        "head",
        description="Events about a pull request (`pull_request`, reviews, a comment on a pull request): the "
        "workspace is the pull request's head commit (`head`), fetched through the egress proxy, or `workspace.ref` "
        "(`base`). `pull_request_target` with `head` is an error.",
    )

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
        given = set(self.model_fields_set) - ({"command"} if self.command is None else set())
        for problem in comment_problems(self.event, given, list(self.author_associations), self.acknowledge_risk):
            raise ValueError(problem)
        if "checkout" in self.model_fields_set and self.event not in MAY_NAME_PULL_REQUEST:
            raise ValueError(f"@checkout applies only to events about a pull request, not {self.event}")
        return self

    @property
    def head_checkout(self) -> bool:
        """Whether a run of this trigger may work on a pull request's head commit."""
        return self.event in MAY_NAME_PULL_REQUEST and self.checkout == "head"


class ManualTrigger(Strict):
    pass


class EventField(Strict):
    path: Selector = Field(description="Where the value is in the payload: `$` then `.key` or `[index]` steps.")
    type: Literal["string", "number", "boolean"] = Field(
        "string",
        description="The value's type: a `workflow_dispatch` input of this type on Actions; Kubernetes passes "
        "the value as the source sent it.",
    )
    description: str = Field("", description="What the field holds, for the person who dispatches by hand.")


class WebhookTrigger(Strict):
    source: WebhookSource = Field(
        description="Who sends the event: `slack`, `jira`, `datadog`, `twilio` or `generic` (any JSON POST)."
    )
    name: KitName | None = Field(
        None,
        description="Tells the kit's webhooks apart (the `repository_dispatch` event type, the Argo Events "
        "event and Sensor); the source's name when left out.",
    )
    secret: EnvName = Field(
        description="A reference, never a value: the key of the webhook Secret that holds Slack's signing "
        "secret, or for the other sources the bearer token the sender puts in `Authorization`. The agent "
        "never receives it, so it must not be one of `secrets`."
    )
    verification_token: EnvName | None = Field(
        None,
        description="`slack` only, and required there: the key of the webhook Secret holding the app's "
        "verification token, which Argo Events' Slack source also checks.",
    )
    command: SlashCommand | None = Field(
        None, description="`slack` only: the slash command that starts the agent (`/agent`)."
    )
    events: list[MatchValue] = Field(
        default_factory=list,
        description="The event types that start the agent: Slack Events API types (`app_mention`), Jira "
        "`webhookEvent` values (`jira:issue_updated`), Datadog `event_type` values.",
    )
    transition: MatchValue | None = Field(
        None, description="`jira` only: the workflow transition's name (`transition.transitionName`)."
    )
    match: dict[Selector, list[MatchValue]] = Field(
        default_factory=dict,
        description="More filters, any source: the value at each selector must equal one of the listed "
        "strings exactly.",
    )
    fields: dict[FieldName, EventField] = Field(
        min_length=1,
        json_schema_extra=selector_or_field_schema,
        description="What the agent may see: each name maps to a selector (`$.text`) or to `{path, type, "
        f"description}}`; at most {MAX_FIELDS}. The agent reads them as one JSON object from the file "
        "`$SANDKIT_EVENT`; nothing else of the event reaches the sandbox.",
    )
    dispatch: Literal["repository_dispatch", "workflow_dispatch"] = Field(
        "repository_dispatch",
        description="Actions only: the API the sender calls; `workflow_dispatch` makes each field a typed input.",
    )
    max_sessions: int = Field(
        1, ge=1, le=100, description="Kubernetes: the most sessions this kit's webhooks run at once."
    )
    per_minute: int = Field(
        10, ge=1, le=600, description="Kubernetes: the most sessions this webhook starts a minute (more wait)."
    )

    @field_validator("fields", mode="before")
    @classmethod
    def _selector_shorthand(cls, value: object) -> object:
        """``name: $.path`` is short for ``name: {path: $.path}``."""
        if isinstance(value, dict):
            return {k: {"path": v} if isinstance(v, str) else v for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _source_fields(self) -> WebhookTrigger:
        for problem in source_problems(self):
            raise ValueError(problem)
        return self

    @property
    def event_name(self) -> str:
        return self.name or self.source

    def filters(self) -> list[tuple[str, list[str]]]:
        """Every filter as (selector, the values it may equal): the source's shorthands first, then ``match``."""
        shorthands = {
            "command": [self.command] if self.command else [],
            "events": list(self.events),
            "transition": [self.transition] if self.transition else [],
        }
        given = [(SHORTHAND_PATHS[self.source, key], values) for key, values in shorthands.items() if values]
        return given + [(path, list(values)) for path, values in self.match.items()]


class Trigger(Strict):
    """Exactly one of ``schedule``, ``github``, ``manual`` or ``webhook``."""

    schedule: CronLine | None = Field(
        None, description="Five cron fields (`0 9 * * 1`); shorthands such as `@daily` are errors."
    )
    github: GithubTrigger | None = Field(None, description="A GitHub event.")
    manual: ManualTrigger | None = Field(None, description="A start by hand: `manual: {}`.")
    webhook: WebhookTrigger | None = Field(
        None, description="An event from Slack, Jira, Datadog, Twilio or any JSON POST (docs/triggers.md)."
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> Trigger:
        given = [k for k in ("schedule", "github", "manual", "webhook") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a trigger is exactly one of `schedule`, `github`, `manual` or `webhook`")
        return self


class DockerTarget(Strict):
    pass


class ComposeTarget(Strict):
    pass


class KubernetesTarget(Strict):
    namespace: KitName | None = Field(None, description="The namespace; the kit's name when left out.")
    create_namespace: bool = Field(True, description="Write the Namespace; `false` uses an existing one.")
    egress: Literal["networkpolicy", "cilium"] = Field(
        "networkpolicy",
        description="How egress is enforced: a NetworkPolicy with an egress proxy, or a CiliumNetworkPolicy.",
    )
    sandbox_crd: bool = Field(
        False, description="Write agent-sandbox `SandboxTemplate` and `SandboxClaim` resources instead of a Job."
    )
    secret_name: KitName | None = Field(
        None, description="The Secret that holds the kit's secrets; `NAME-secrets` when left out."
    )
    api_server: list[Cidr] = Field(
        default_factory=list,
        description="The API server's addresses as CIDRs (`10.96.0.1/32`): with `secrets[].inject`, the "
        "injecting proxy's NetworkPolicy lets it reach ports 443 and 6443 of these alone, for its one API call. "
        "Left out: of the private ranges 10/8, 100.64/10, 172.16/12, 192.168/16 and fc00::/7, where a cluster's API "
        "server usually is; a public API endpoint must be listed here, else the proxy cannot publish its authority "
        "and no agent pod starts.",
    )


class GithubApp(Strict):
    """A GitHub App whose short-lived installation token the publishing job posts with."""

    client_id: EnvName = Field(
        description="The repository or organisation variable (`vars.NAME`) holding the App's client ID."
    )
    private_key: EnvName = Field(
        description="The Actions secret holding the App's private key; never one of `secrets`, so the agent "
        "never holds it."
    )


class ActionsTarget(Strict):
    runs_on: PlainName = Field("ubuntu-latest", description="The runner label (`runs-on`).")
    permissions: dict[str, Literal["read", "write"]] = Field(
        default_factory=dict,
        description="Read scopes the agent's job gets beyond `contents: read` (`issues: read`); an unknown scope "
        "or `write` is an error: the agent's job holds no write token.",
    )
    publish: Publish | None = Field(
        None,
        description="How the agent's results leave, from the files it writes to the folder `$SANDKIT_OUTPUT`: a "
        "pull request `review` (`review.md`), a `comment` on the issue or pull request (`comment.md`), or a new "
        "`branch` (`changes.patch`, applied as data on `workspace.ref` and pushed as `sandkit/NAME/run-ID-ATTEMPT`). "
        "A second job that runs no agent or pull request code publishes them with the one write scope it needs "
        "(`pull-requests: write`, `issues: write`, `contents: write`).",
    )

    app: GithubApp | None = Field(
        None,
        description="Post as this GitHub App instead of with `GITHUB_TOKEN`: the publishing job mints an "
        "installation token (actions/create-github-app-token) for this repository and the one write scope of "
        "`publish` only, in the step before it posts; the token is revoked when the job ends.",
    )

    app_push_runs_workflows: bool = Field(
        False,
        description="With `app` and `publish: branch`: accept that the App's push starts the repository's "
        "`on: push` workflows, which then run the agent's code (its Makefile, scripts, tests) with the "
        "repository's secrets before anyone has looked. Without it the publishing job refuses to push when a "
        "workflow of the base branch has a push trigger. (With `GITHUB_TOKEN` the push starts no workflow: "
        "GitHub runs none for that token's events, and a person opens the pull request.)",
    )

    @model_validator(mode="after")
    def _app_publishes(self) -> ActionsTarget:
        if self.app is not None and self.publish is None:
            raise ValueError("@app posts the agent's results: it needs `publish`")
        if self.app_push_runs_workflows and (self.app is None or self.publish != "branch"):
            raise ValueError(
                "@app_push_runs_workflows is about an App's branch push: it needs `app` and `publish: branch`"
            )
        return self

    @field_validator("permissions")
    @classmethod
    def _scopes(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - ACTIONS_SCOPES)
        if unknown:
            raise ValueError(f"unknown permission scope(s) {', '.join(unknown)}")
        written = sorted(scope for scope, level in value.items() if level != "read")
        if written:
            raise ValueError(
                f"{', '.join(written)}: write: the agent's job holds no write token; its results leave through "
                "`targets.actions.publish`, whose own job gets the one write scope it needs"
            )
        return value


class DevcontainerTarget(Strict):
    pass


def _header_name(value: str) -> str:
    if not _HTTP_TOKEN.fullmatch(value):
        raise ValueError("must be an HTTP header name (letters, digits and ! # $ % & ' * + - . ^ _ ` | ~)")
    return value


def _one_placeholder(value: str) -> str:
    if value.replace("%%", "").count("%s") != 1 or "%" in value.replace("%%", "").replace("%s", ""):
        raise ValueError("must hold exactly one %s, where the proxy puts the key (write a literal % as %%)")
    return no_control(value)


class SbxInject(Strict):
    """Where the Docker Sandboxes host proxy puts one credential: a domain and how it is sent."""

    domain: Annotated[str, AfterValidator(check_host)] = Field(
        description="The host the proxy adds the key on; it must be allowed by `network` (no port)."
    )
    header: Annotated[str, AfterValidator(_header_name)] | None = Field(
        None, description="The HTTP header the key goes in (`x-api-key`); with `format`."
    )
    format: Annotated[str, AfterValidator(_one_placeholder)] | None = Field(
        None, description='The header value, with one `%s` where the key goes (`"Bearer %s"`).'
    )
    scheme: Literal["bearer", "basic"] | None = Field(
        None,
        description="`bearer` (an `Authorization: Bearer` header) or `basic` (HTTP Basic, with `username`), "
        "instead of `format`.",
    )
    username: PlainName | None = Field(None, description="The HTTP Basic user name, with scheme `basic`.")

    @model_validator(mode="after")
    def _shape(self) -> SbxInject:
        if self.scheme and self.format:
            raise ValueError("give `scheme` or `format`, not both")
        if self.scheme == "basic" and not self.username:
            raise ValueError("scheme basic needs `username`")
        if self.scheme != "basic" and self.username:
            raise ValueError("`username` applies to scheme basic only")
        if not self.scheme and not (self.header and self.format):
            raise ValueError("give `header` and `format`, or a `scheme`")
        return self


class SbxCredential(Strict):
    """A secret as a Docker Sandboxes credential: its service and the proxy's inject rules."""

    service: KitName = Field(
        description="The credential's service in sbx (`anthropic`, `github`): the name its key is stored under "
        "on the host."
    )
    inject: list[SbxInject] = Field(
        default_factory=list,
        description="Where sbx's host proxy adds the key, in sbx's own terms; none: the secret's `inject`.",
    )
    proxy_managed: bool = Field(
        True,
        description="Set the secret's variable to sbx's sentinel inside the sandbox (the real key never enters it).",
    )


class SbxTarget(Strict):
    image_from: Literal["compiled", "base"] = Field(
        "compiled",
        description="`compiled`: sbx runs the image sandkit's Dockerfile builds; `base`: sbx runs `image.base` and "
        "runs `install` itself when it creates the sandbox.",
    )
    image: ImageRef | None = Field(
        None, description="Where you pushed the compiled image (default: its local tag, `sandkit/NAME:HASH`)."
    )
    credentials: dict[EnvName, SbxCredential] = Field(
        default_factory=dict,
        description="Per run-time secret name: its sbx service and the inject rules of sbx's host proxy.",
    )

    @model_validator(mode="after")
    def _image(self) -> SbxTarget:
        if self.image and self.image_from == "base":
            raise ValueError("`image` names the pushed compiled image; with image_from base, sbx runs image.base")
        return self


class OpenhandsTarget(Strict):
    pass


class SrtTarget(Strict):
    pass


class ClaudeCodeTarget(Strict):
    pass


class CodexTarget(Strict):
    pass


class Targets(Strict):
    docker: DockerTarget = Field(default_factory=DockerTarget, description="No settings yet.")
    compose: ComposeTarget = Field(default_factory=ComposeTarget, description="No settings yet.")
    kubernetes: KubernetesTarget = Field(
        default_factory=KubernetesTarget, description="Kubernetes settings (docs/kubernetes.md)."
    )
    actions: ActionsTarget = Field(
        default_factory=ActionsTarget, description="GitHub Actions settings (docs/actions.md)."
    )
    devcontainer: DevcontainerTarget = Field(default_factory=DevcontainerTarget, description="No settings yet.")
    sbx: SbxTarget = Field(default_factory=SbxTarget, description="Docker Sandboxes settings (docs/sbx.md).")
    openhands: OpenhandsTarget = Field(default_factory=OpenhandsTarget, description="No settings yet.")
    srt: SrtTarget = Field(default_factory=SrtTarget, description="No settings yet.")
    claude_code: ClaudeCodeTarget = Field(
        default_factory=ClaudeCodeTarget, alias="claude-code", description="No settings yet."
    )
    codex: CodexTarget = Field(default_factory=CodexTarget, description="No settings yet.")

    build: list[PlainName] | None = Field(
        None,
        description="The targets this kit is for: `sandkit build` without `--target` builds these (and what they "
        "need) and `--strict` judges these; every target when left out.",
    )

    @field_validator("build")
    @classmethod
    def _known_targets(cls, value: list[str] | None) -> list[str] | None:
        known = [info.alias or name for name, info in cls.model_fields.items() if name != "build"]
        unknown = [name for name in value or () if name not in known]
        if unknown:
            raise ValueError(f"unknown target(s) {', '.join(unknown)}; the targets are {', '.join(known)}")
        if value is not None and not value:
            raise ValueError("name at least one target, or leave `build` out for every target")
        return list(dict.fromkeys(value)) if value is not None else None


class Kit(Strict):
    """A sandbox for one unattended coding agent."""

    model_config = ConfigDict(
        title="sandkit kit",
        json_schema_extra={"$id": "https://sandkit.dev/schemas/kit.schema.json"},
    )

    api_version: Literal["sandkit/v1"] = Field(alias="apiVersion", description="The format's version.")
    kind: Literal["Kit", "Mixin"] = Field(
        "Kit", description="A `Kit`, or a `Mixin`: a partial kit that is only pulled in by `extends`, never built."
    )
    name: KitName = Field(
        description="Names the images, services, jobs and workflows: a DNS-1123 label of at most 63 characters "
        "(a Mixin may leave it out)."
    )
    description: str = Field("", description="Free text for the reader; not inherited.")
    extends: list[PlainName] = Field(
        default_factory=list,
        description="Kits merged under this one, in order: bundled presets by name, or paths relative to this "
        "file (a single string is accepted too).",
    )
    image: Image = Field(default_factory=Image, description="The image the agent runs in.")
    install: list[str] = Field(
        default_factory=list,
        description="Shell commands run once while the image builds, as root, after the packages; each becomes "
        "its own script `install/NN.sh`.",
    )
    startup: list[str] = Field(
        default_factory=list, description="Shell commands run at every start, as the agent's user, before the agent."
    )
    env: dict[EnvKey, EnvValue] = Field(
        default_factory=dict,
        description="Plain values only: a secret-looking name (`*_KEY`, `*_TOKEN`, `*_SECRET`, `PASSWORD`, ...) or a "
        "value in a known credential format is an error that points to `secrets`.",
    )
    secrets: list[Secret] = Field(
        default_factory=list,
        description="Secrets by name, never by value. Each reaches the agent's container as the read-only file "
        "`/run/secrets/NAME` (compose: the host file named by `NAME_FILE`, readable by uid 1000; Kubernetes: a key "
        "of the kit's Secret, as a secret volume; Actions: the job's secret), which the entrypoint exports into the "
        "agent's environment at each start; a secret with `inject` stays with the egress proxy instead.",
    )
    network: Network = Field(default_factory=Network, description="Where the sandbox may connect.")
    agent: Agent = Field(description="The agent that runs; a Mixin, or a kit whose parents give it, may leave it out.")
    files: list[FileSpec] = Field(default_factory=list, description="Extra files placed in the image.")
    workspace: Workspace = Field(default_factory=Workspace, description="The code the agent works on.")
    resources: Resources = Field(default_factory=Resources, description="Limits of the sandbox.")
    isolation: Isolation = Field(default_factory=Isolation, description="How the sandbox is set apart from the host.")
    ports: list[PortSpec] = Field(default_factory=list, description="Ports published on the host.")
    triggers: list[Trigger] = Field(
        default_factory=list,
        description="What starts a run, each exactly one of `schedule`, `github`, `manual` or `webhook`; each "
        "target's fidelity report says which it honours.",
    )
    targets: Targets = Field(default_factory=Targets, description="Settings for each target.")

    @model_validator(mode="after")
    def _consistent(self) -> Kit:
        """Every cross-field check, each run whatever the others found, so that one round of
        ``sandkit validate`` names every such problem (joined by :data:`MANY`; the loader splits them)."""
        names = [s.name for s in self.secrets]
        found: list[str] = []
        for check in (
            self._check_env_and_secrets,
            lambda: self._check_clone_reachable() if self.workspace.mode == "clone" and self.workspace.repo else None,
            self._check_files_unique,
            self._check_instructions_reach_the_agent,
            lambda: self._check_webhooks(set(names)),
            self._check_injections,
            self._check_github_events,
            self._check_clone_token,
            self._check_app_key,
            self._check_sbx_credentials,
            self._check_http_ports,
        ):
            try:
                check()
            except ValueError as exc:
                found.append(str(exc))
        if found:
            raise ValueError(MANY.join(found))
        return self

    def _check_env_and_secrets(self) -> None:
        names = [s.name for s in self.secrets]
        clash = sorted(set(names) & set(self.env))
        if clash:
            raise ValueError(f"{', '.join(clash)} is both an env value and a secret")
        if len(set(names)) != len(names):
            raise ValueError("secret names must be unique")

    def _check_http_ports(self) -> None:
        """A container port is served one way: through the HTTP proxy or byte for byte, never both."""
        http = {p.container for p in self.ports if p.protocol == "tcp" and p.http}
        raw = {p.container for p in self.ports if p.protocol == "tcp" and not p.http}
        if http & raw:
            listed = ", ".join(str(port) for port in sorted(http & raw))
            raise ValueError(f"container port {listed} is listed with and without `http: true`: say it on every entry")

    def _check_files_unique(self) -> None:
        paths = [f.path for f in self.files]
        if len(set(paths)) != len(paths):
            raise ValueError("two entries of `files` have the same path")

    def _check_app_key(self) -> None:
        """The App's private key mints tokens: it is the publishing job's alone, never the agent's."""
        app = self.targets.actions.app
        if app is not None and app.private_key in {s.name for s in self.secrets}:
            raise ValueError(
                at(
                    "targets.actions.app.private_key",
                    f"{app.private_key} is one of `secrets`: the agent would hold the key that mints tokens; keep it "
                    "an Actions secret of its own",
                )
            )

    def _check_clone_token(self) -> None:
        """The clone's token or key is a run-time secret of the kit's own (the clone runs when the sandbox starts)."""
        runtime = {s.name for s in self.secrets if not s.build}
        for key in ("token", "ssh_key"):
            name = getattr(self.workspace, key)
            if name is not None and name not in runtime:
                raise ValueError(
                    at(f"workspace.{key}", f"{name} is not one of `secrets` (a run-time one, not `build: true`)")
                )

    def _check_injections(self) -> None:
        """Each injection host reachable through the proxy, each (host, header) given one secret."""
        seen: dict[tuple[str, str], str] = {}
        for index, secret in enumerate(self.secrets):
            for number, injection in enumerate(secret.inject):
                where = f"secrets.{index}.inject.{number}"
                host, _, port_text = injection.host.partition(":")
                port = int(port_text) if port_text else 443
                if self.network.egress == "allowlist":
                    denied = any(_reaches(entry, host, port) for entry in self.network.deny)
                    if denied or not any(_reaches(entry, host, port) for entry in self.network.allow):
                        why = "is denied" if denied else "is not in `network.allow`"
                        raise ValueError(
                            at(f"{where}.host", f"{host}:{port} {why}; the proxy injects only on allowed hosts")
                        )
                key = (f"{host}:{port}", injection.header.lower())
                if key in seen:
                    raise ValueError(
                        at(where, f"{seen[key]} already sets {injection.header} on {key[0]}; a header has one value")
                    )
                seen[key] = secret.name

    def _check_github_events(self) -> None:
        """No pull request head under pull_request_target: its runs hold the secrets while the head is a fork's."""
        cloned = self.workspace.mode == "clone" and self.workspace.repo is not None
        events = {t.github.event for t in self.triggers if t.github is not None}
        publish = self.targets.actions.publish
        if self.kind == "Kit" and publish in PUBLISH_EVENTS and not events & PUBLISH_EVENTS[publish]:
            raise ValueError(
                at(
                    "targets.actions.publish",
                    f"a {publish} needs a trigger whose event names a "
                    + ("pull request" if publish == "review" else "pull request or an issue")
                    + f" ({', '.join(sorted(PUBLISH_EVENTS[publish]))})",
                )
            )
        for index, trigger in enumerate(self.triggers):
            github = trigger.github
            if github is None:
                continue
            if publish == "branch" and github.event in MAY_NAME_PULL_REQUEST and github.checkout == "head" and cloned:
                raise ValueError(
                    at(
                        f"triggers.{index}.github.checkout",
                        "with `targets.actions.publish: branch` the agent's changes go on a branch of this repository "
                        "cut from workspace.ref; a pull request's head may be a fork's code, which a push would carry "
                        "into the repository. Use `checkout: base`",
                    )
                )
            if github.event == "pull_request_target" and github.checkout == "head" and cloned:
                raise ValueError(
                    at(
                        f"triggers.{index}.github.checkout",
                        "pull_request_target runs with the repository's secrets on a fork's pull request; checking "
                        "out its head would hand the fork's code those secrets (a 'pwn request'). Use "
                        "`event: pull_request` to work on the head, or `checkout: base` to work on workspace.ref",
                    )
                )

    def _check_instructions_reach_the_agent(self) -> None:
        """A mounted workspace is the host's folder, which sandkit never writes: the agent needs a place of its own."""
        if self.kind != "Kit" or self.agent.instructions is None or self.agent.user_instructions_file:
            return
        if self.workspace.mode in ("mount", "mount-readonly"):
            raise ValueError(
                at(
                    "agent.instructions",
                    f"with workspace mode {self.workspace.mode} the workspace is the host's folder, which sandkit "
                    "does not write to, so the instructions must go where the agent reads user-level "
                    "instructions: set agent.user_instructions_file to that file, relative to the agent's home "
                    "(.claude/CLAUDE.md for Claude Code), or extend a preset that sets it",
                )
            )

    def _check_webhooks(self, agent_secrets: set[str]) -> None:
        """Webhook names unique, their keys never the agent's secrets, one set of dispatch inputs."""
        seen: set[str] = set()
        dispatched = 0
        for index, trigger in enumerate(self.triggers):
            hook = trigger.webhook
            if hook is None:
                continue
            where = f"triggers.{index}.webhook"
            if hook.event_name in seen:
                raise ValueError(at(where, f"two webhooks are named {hook.event_name}; give one a `name`"))
            seen.add(hook.event_name)
            for key in ("secret", "verification_token"):
                if getattr(hook, key) in agent_secrets:
                    raise ValueError(
                        at(
                            f"{where}.{key}",
                            f"{getattr(hook, key)} is one of `secrets`: the agent would hold the "
                            "key that lets anyone start it; use a key of its own",
                        )
                    )
            dispatched += hook.dispatch == "workflow_dispatch"
            if dispatched > 1:
                raise ValueError(
                    at(
                        f"{where}.dispatch",
                        "only one webhook can use workflow_dispatch (a workflow has one set of inputs)",
                    )
                )

    def _check_sbx_credentials(self) -> None:
        """Each sbx credential names a run-time secret, and the proxy may only inject where egress goes."""
        runtime = {s.name for s in self.secrets if not s.build}
        for name, credential in self.targets.sbx.credentials.items():
            where = f"targets.sbx.credentials.{name}"
            if name not in runtime:
                raise ValueError(at(where, f"{name} is not a run-time secret of this kit (declare it in `secrets`)"))
            if self.network.egress == "none":
                continue  # no network: the sbx target injects nothing (its fidelity report says so)
            for index, rule in enumerate(credential.inject):
                reachable = self.network.egress == "open" or (
                    any(_reaches(entry, rule.domain, 443) for entry in self.network.allow)
                    and not any(_reaches(entry, rule.domain, 443) for entry in self.network.deny)
                )
                if not reachable:
                    raise ValueError(
                        at(
                            f"{where}.inject.{index}.domain",
                            f"{rule.domain}:443 is not allowed by `network`; sbx injects a credential only on an "
                            "allowed host (add it to network.allow)",
                        )
                    )

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
        allowed = any(_reaches(entry, host, port) for entry in self.network.allow)
        denied = any(_reaches(entry, host, port) for entry in self.network.deny)
        if denied or not allowed:
            why = "is denied" if denied else "is not in `network.allow`"
            raise ValueError(at("workspace.repo", f"the clone of workspace.repo needs {wanted}, which {why}"))


def _reaches(entry: str, host: str, port: int) -> bool:
    """Whether the allowlist entry ``entry`` (``host[:port]``, port 443 implied) covers host:port."""
    pattern, _, port_text = entry.partition(":")
    return (int(port_text) if port_text else 443) == port and host_matches(pattern, host)
