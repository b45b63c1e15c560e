"""host-credentials: the host's own credentials made reachable from inside a sandbox."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from sandkit.lint import kinds
from sandkit.lint.facts.container_model import via
from sandkit.lint.facts.containers import CONTAINER_KINDS, containers
from sandkit.lint.facts.host_paths import (
    CACHE_FOLDERS,
    CREDENTIAL_TRIGGERS,
    above_project,
    beyond_climb,
    climbed_credential,
    credential_path,
    credential_variable,
    devcontainer_workspace,
    is_metadata,
    is_ssh_agent,
    normalize,
)
from sandkit.lint.facts.network import kit_allow_entries, network_policy_blocks
from sandkit.lint.model import Hit
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile

#: Agent configuration in the home folder whose settings the host's own agent obeys: a writable
#: mount lets the agent in the container write a hook or an MCP server there, which the host's
#: agent then starts outside the container at its next session.
_AGENT_SETTINGS_HOME = {
    "~/.claude": "hooks and a status line command (settings.json) that the host's Claude Code runs",
    "~/.claude.json": "MCP servers that the host's Claude Code starts",
    "~/.codex": "a notify command and MCP servers (config.toml) that the host's Codex runs",
    "~/.gemini": "MCP servers (settings.json) that the host's Gemini CLI starts",
}


@rule(
    "HC001",
    "credential-mount",
    category="host-credentials",
    severity="critical",
    kinds=CONTAINER_KINDS,
    triggers=CREDENTIAL_TRIGGERS,
)
def credential_mount(file: SourceFile) -> Iterator[Hit]:
    """A home credential folder or file (or the whole home) is mounted into a container.

    ~/.ssh, ~/.aws, ~/.kube, ~/.config/gcloud, ~/.azure, ~/.docker/config.json, ~/.netrc,
    ~/.npmrc, ~/.pypirc, ~/.git-credentials, ~/.config/gh, ~/.gnupg, ~/.dbt (profiles with
    warehouse passwords), ~/.m2/settings.xml, ~/.gradle/gradle.properties, ~/.cargo/credentials
    (.toml), ~/.terraform.d/credentials.tfrc.json, ~/.vault-token, the login files coding agents
    keep (~/.claude/.credentials.json, ~/.claude.json, ~/.codex/auth.json,
    ~/.gemini/oauth_creds.json and .env, ~/.qwen/oauth_creds.json,
    ~/.local/share/opencode/auth.json) and similar, a folder that contains them (~/.config, the
    whole home, /home, /), written as ~,
    $HOME, ${HOME}, ${localEnv:HOME}, /home/USER or /root, in every file kind that mounts (and
    kit `files` copied into the image). A source that is a variable naming credentials is one
    too: ${GOOGLE_APPLICATION_CREDENTIALS}, $AWS_SHARED_CREDENTIALS_FILE, ${KUBECONFIG},
    $DOCKER_CONFIG/config.json, ${localEnv:CLOUDSDK_CONFIG} and the like. The whole of ~/.m2,
    ~/.gradle or ~/.cargo (or $CARGO_HOME, $GRADLE_USER_HOME) is medium: those are package
    caches, mounted for the cache as often as for the login file they may hold. A relative
    source that climbs above the scanned folder (`../../..:/host`, `${localWorkspaceFolder}/..`)
    is one too: what lies above a checkout is the home folder, or more. One that climbs out and
    goes down into a named folder (`../../homelab/` from `jupyterlab/`) reaches a folder beside
    the checkout, another project or the checkout under its own name, not the home: it is a
    finding only when that name is a credential location of the home or of the root (`../.ssh`,
    `../../.config/gcloud`, `../../../home`).
    `${localWorkspaceFolder}` is the folder a dev container is opened from (the parent of its
    `.devcontainer/`, or of a `.devcontainer.json`), so `../../..` of a test project's nested
    configuration that stays inside the scanned folder is not a finding. Public keys,
    known_hosts and ~/.ssh/config are not findings, nor caches inside those folders
    (~/.m2/repository, ~/.cargo/registry, ~/.gradle/caches). An agent's own configuration
    (~/.claude, ~/.claude.json, ~/.codex, ~/.gemini) mounted writable is said to be: the agent
    in the container can then write a hook or an MCP server that the host's agent runs.

    Why:
    Everything in these files works from anywhere: a prompt-injected agent can push with your
    SSH key, spend on your cloud account or publish packages under your name.

    Fix:
    Do not mount personal credentials. Give the sandbox a narrowly scoped token through the
    kit's `secrets`, or a deploy key made for it.
    """
    start = "" if file.kind == kinds.WORKFLOW else posixpath.dirname(file.path)
    workspace = devcontainer_workspace(file.path) if file.kind == kinds.DEVCONTAINER else ""
    for box in containers(file):
        for mount in box.mounts:
            if mount.how == "admitted":
                continue  # a policy's host path prefix: RS001 reports what it lets pods reach
            found = credential_path(mount.source) if mount.source else ""
            variable, stands_for = credential_variable(mount.source) if mount.source and not found else ("", "")
            if variable and credential_path(stands_for):
                found = f"the credentials ${variable} names (the tool reads {stands_for} when it is unset)"
            climbed = above_project(mount.source, start, workspace) if mount.source and not found else ""
            reached = climbed_credential(climbed) if climbed else ""
            if climbed and not beyond_climb(climbed):
                found = f"{climbed} from the project's root, above the project (the home folder, or more)"
            elif reached:
                found = f"{climbed} from the project's root, which is {reached} if the folder above is the home"
            if found:
                verb = "copies" if mount.how == "copy" else "mounts"
                home_form = "~/" + beyond_climb(climbed) if reached else normalize(mount.source)
                cache = (stands_for if variable else home_form) in CACHE_FOLDERS
                settings = _AGENT_SETTINGS_HOME.get(stands_for if variable else home_form, "")
                if settings and not mount.read_only and mount.how != "copy":
                    found += f"; writable, so the agent can write {settings}, outside the container"
                yield Hit(
                    mount.pos,
                    f"{box.label} {verb} {mount.source}: {found}{via(mount)}",
                    severity="medium" if cache else "",
                    why="a package cache folder, mounted for its downloads as often as for the login file it may hold"
                    if cache
                    else "",
                )


@rule(
    "HC002",
    "ssh-agent-forwarding",
    category="host-credentials",
    severity="high",
    kinds=CONTAINER_KINDS,
    triggers=("SSH_AUTH_SOCK", "ssh-auth", "ssh-", "agent"),
)
def ssh_agent_forwarding(file: SourceFile) -> Iterator[Hit]:
    """The host's SSH agent is forwarded into a container.

    A mount of $SSH_AUTH_SOCK, /run/host-services/ssh-auth.sock or an ssh-agent socket, or
    SSH_AUTH_SOCK set in a container's environment.

    Why:
    The agent socket signs with every key loaded on the host, for as long as the container
    runs: the sandbox can log in wherever you can.

    Fix:
    Use a deploy key or a token scoped to the one repository the sandbox needs.
    """
    for box in containers(file):
        for mount in box.mounts:
            if mount.source and is_ssh_agent(mount.source):
                yield Hit(mount.pos, f"{box.label} mounts the SSH agent socket {mount.source}")
        for env in box.env:
            if env.name == "SSH_AUTH_SOCK":
                yield Hit(env.pos, f"{box.label} sets SSH_AUTH_SOCK, forwarding the SSH agent")


@rule(
    "HC003",
    "metadata-reachable",
    category="host-credentials",
    severity="high",
    kinds=(kinds.KIT, kinds.KUBERNETES, *CONTAINER_KINDS),
    triggers=("169.254.", "metadata.google", "metadata.azure", "fd00:ec2", "100.100.100.200", re.compile(r"\d/\d")),
)  # any CIDR may contain the address
def metadata_reachable(file: SourceFile) -> Iterator[Hit]:
    """The cloud metadata service is explicitly reachable from a sandbox.

    A kit `network.allow` entry for 169.254.169.254, fd00:ec2::254, metadata.google.internal
    and the like; a Kubernetes NetworkPolicy egress ipBlock whose CIDR contains
    169.254.169.254 without excepting it; an extra host mapped to the metadata address.

    Why:
    The metadata service hands out the node's cloud credentials to anyone who asks; an agent
    that can reach it holds the machine's cloud role.

    Fix:
    Remove the entry; deny 169.254.169.254/32 explicitly (NetworkPolicy `except`), and give the
    sandbox its own scoped credentials if it needs the cloud.
    """
    if file.kind == kinds.KIT:
        for entry, pos in kit_allow_entries(file):
            if is_metadata(entry):
                yield Hit(pos, f"network.allow lets the sandbox reach the metadata service ({entry})")
    if file.kind == kinds.KUBERNETES:
        for block, pos in network_policy_blocks(file):
            cidr = str(block.get("cidr") or "")
            excepted = any(is_metadata(str(e)) for e in block.get("except") or [])
            if is_metadata(cidr) and not excepted:
                yield Hit(pos, f"NetworkPolicy egress to {cidr} includes the cloud metadata address 169.254.169.254")
    for box in containers(file):
        for setting in box.setting("add-host"):
            if is_metadata(setting.value.rsplit(":", 1)[-1]) or is_metadata(setting.value.split(":", 1)[0]):
                yield Hit(setting.pos, f"{box.label} maps a host to the metadata address ({setting.value})")
