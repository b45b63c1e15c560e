"""Host paths as written in mounts, reduced to one spelling so rules compare like with like.

``~``, ``$HOME``, ``${HOME}``, ``${localEnv:HOME}``, ``%USERPROFILE%``, ``/home/alice``,
``/Users/alice`` and ``/root`` all become ``~``; ``$XDG_RUNTIME_DIR`` and ``/run/user/1000``
become ``/run/user/UID``; ``$TMPDIR`` becomes ``/tmp``; ``${VAR:-default}`` becomes its default
unless VAR is one of those, innermost first, so defaults may nest (``${A:-${HOME}/x}``).
"""

from __future__ import annotations

import ipaddress
import posixpath
import re

from sandkit.agents import CATALOGUE
from sandkit.lazy_regex import lazy

_HOME_VARS = {"HOME", "USERPROFILE"}
_RUNTIME_VARS = {"XDG_RUNTIME_DIR"}
_TEMP_VARS = {"TMPDIR", "TMP", "TEMP"}
#: A ``${...}`` with no ``${`` inside it: expanding these innermost ones first unwraps nested defaults.
_BRACED = lazy(r"\$\{(?:localEnv:|env:)?(\w+)(?:(:?[-=?+]|:)([^{}]*))?\}")
_MAX_NESTING = 8
_BARE = lazy(r"\$(\w+)")
_USER_HOME = lazy(r"^(?:/home/[^/]+|/Users/[^/]+|/root)(?=/|$)")
_USER_RUNTIME = lazy(r"^/run/user/(?:\d+|UID|\$\(id -u\)|\$\{?UID\}?)(?=/|$)")
#: Socket file names of the runtimes, whatever folder holds them: docker.sock, docker.raw.sock and
#: docker-cli.sock (Docker Desktop), podman-machine-default-api.sock (Podman machine),
#: containerd.sock.ttrpc, crio.sock, buildkitd.sock, docker_engine (the Windows named pipe) ...
_SOCKET_NAME = lazy(
    r"^(?:[\w.-]*?(?:docker|podman|containerd|crio|cri-dockerd|dockershim|buildkitd|colima|nerdctl)"
    r"[\w.-]*\.sock(?:\.raw|\.ttrpc)?|docker_engine)$"
)

RUNTIME_SOCKETS = (
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/var/run/containerd/containerd.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/var/run/podman/podman.sock",
    "/run/user/UID/podman/podman.sock",
    "/run/user/UID/docker.sock",
    "/var/run/crio/crio.sock",
    "/run/crio/crio.sock",
    "/var/run/cri-dockerd.sock",
    "/run/k3s/containerd/containerd.sock",
    # the containerd that MicroK8s (a snap) and k0s bundle, each at its own address
    "/var/snap/microk8s/common/run/containerd.sock",
    "/run/k0s/containerd.sock",
    "/run/buildkit/buildkitd.sock",
    "/run/host-services/docker.proxy.sock",
    "/var/run/docker.sock.raw",
    # Docker Desktop
    "~/.docker/run/docker.sock",
    "~/.docker/desktop/docker.sock",
    "~/Library/Containers/com.docker.docker/Data/docker.raw.sock",
    "~/Library/Containers/com.docker.docker/Data/docker-cli.sock",
    # colima (its older and its XDG folder), Lima, Rancher Desktop, OrbStack
    "~/.colima/default/docker.sock",
    "~/.colima/docker.sock",
    "~/.config/colima/default/docker.sock",
    "~/.lima/docker/sock/docker.sock",
    "~/.rd/docker.sock",
    "~/.orbstack/run/docker.sock",
    # Podman machine (macOS and Linux) and rootless Podman
    "~/.local/share/containers/podman/machine/podman.sock",
    "~/.local/share/containers/podman/machine/qemu/podman.sock",
    "/run/user/UID/podman/podman-machine-default-api.sock",
    "/tmp/podman/podman-machine-default-api.sock",
)
#: The sockets only a developer's desktop has: Docker Desktop's, colima's, Lima's, Rancher
#: Desktop's, OrbStack's and Podman machine's (its macOS ``/tmp`` one among them). A Kubernetes
#: node, a Nomad client, a systemd host or a CI runner has none of them, so there a folder that
#: would hold one of them (``/tmp``, ``/root/.docker``) holds no socket.
DESKTOP_SOCKETS = frozenset(
    socket
    for socket in RUNTIME_SOCKETS
    if socket.startswith(("~/.docker/", "~/Library/", "~/.colima/", "~/.config/colima/", "~/.lima/", "~/.rd/"))
    or socket.startswith(("~/.orbstack/", "~/.local/share/containers/podman/machine/", "/tmp/"))
)

#: The container engines' state on the host, and what a container that writes there changes:
#: other containers' files and images, which the engine runs as root (RS003).
RUNTIME_STATE = {
    "/var/lib/docker": "Docker's data root: every image, container layer, container configuration and volume",
    "/var/lib/containerd": "containerd's root: every image and snapshot",
    "/run/containerd": "containerd's state: the root filesystems of running containers",
    "/var/run/containerd": "containerd's state: the root filesystems of running containers",
    "/var/lib/containers": "Podman's and CRI-O's storage: every image and container layer",
    "/run/containers": "Podman's and CRI-O's state: the root filesystems of running containers",
    "/var/lib/k0s/containerd": "k0s's containerd root: every image and snapshot",
    "/run/k0s/containerd": "k0s's containerd state: the root filesystems of running containers",
    "/var/lib/kubelet/pods": "every pod's volumes on the node, their service-account tokens and secrets included",
    "/var/lib/kubelet/pki": "the kubelet's own client certificate and key",
}

#: Sockets of host services that run commands on the host for whoever connects as root: mounted
#: into a container they are a way out of it that no runtime socket is needed for (RS004).
HOST_SERVICE_SOCKETS = {
    "/run/dbus/system_bus_socket": "the host's system D-Bus: root on it asks systemd to start any command as a unit "
    "on the host",
    "/var/run/dbus/system_bus_socket": "the host's system D-Bus: root on it asks systemd to start any command as a "
    "unit on the host",
    "/run/systemd/private": "systemd's private manager socket: root on it starts any unit on the host",
    "/run/user/UID/bus": "a user's session D-Bus on the host: that user's systemd starts any command for it, "
    "outside the container",
    "/run/snapd.socket": "snapd's API: root on it installs and runs snaps on the host",
}

CREDENTIAL_PATHS = (
    "~/.ssh",
    "~/.aws",
    "~/.kube",
    "~/.config/gcloud",
    "~/.azure",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.npmrc",
    "~/.pypirc",
    "~/.git-credentials",
    "~/.config/gh",
    "~/.gnupg",
    "~/.vault-token",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.cargo/credentials.toml",
    "~/.config/hub",
    "~/.gem/credentials",
    # cluster and cloud clients: client certificates, keys and tokens
    "~/.minikube",
    "~/.talos",
    "~/.docker/machine",
    "~/.config/helm",
    "~/.config/doctl",
    "~/.config/hcloud",
    "~/.oci",
    "~/.bluemix",
    "~/.config/openstack",
    "~/.config/rclone",
    # warehouse, build and registry logins: dbt profiles (profiles.yml), Maven's servers and
    # master password, Gradle's user properties, Cargo's token file before it took .toml
    "~/.dbt",
    "~/.m2/settings.xml",
    "~/.m2/settings-security.xml",
    "~/.gradle/gradle.properties",
    "~/.cargo/credentials",
    # and the credential files coding agents leave in a home folder (the agent catalogue)
    *(path for agent in CATALOGUE for path in agent.credential_files),
)
#: A cluster's administrator credentials where its installers leave them on a node or host:
#: kubeadm's admin kubeconfigs and certificate authority keys, k3s's and RKE2's admin kubeconfig and
#: server TLS folder, k0s's pki folder and MicroK8s's certs and credentials folders. Reported when
#: mounted themselves or a folder inside them; a mount of /etc or /var/lib holds them only on a
#: cluster's node, so a parent is not reported for them.
SYSTEM_CREDENTIAL_PATHS = (
    "/etc/kubernetes/admin.conf",
    "/etc/kubernetes/super-admin.conf",
    "/etc/kubernetes/pki",
    "/etc/rancher/k3s/k3s.yaml",
    "/etc/rancher/rke2/rke2.yaml",
    "/var/lib/rancher/k3s/server/tls",
    "/var/lib/rancher/rke2/server/tls",
    # k0s: its data folder's pki holds the cluster's certificate authority and admin.conf
    "/var/lib/k0s/pki",
    # MicroK8s: the snap's data folder keeps the certificate authority's keys in certs and the
    # kubeconfigs and tokens of the administrator and of each component in credentials
    "/var/snap/microk8s/current/certs",
    "/var/snap/microk8s/current/credentials",
)
#: A certificate (or request) file inside such a folder: public, what a client checks a server with.
_PUBLIC_CERTIFICATE = lazy(r"\.(?:crt|cert|pub|csr)$")
#: Folders that build tools keep mostly as caches of downloaded packages, holding a credential file
#: only where someone logged in: a mount of the whole folder is usually made for the cache.
CACHE_FOLDERS = frozenset({"~/.m2", "~/.gradle", "~/.cargo"})
#: Variables that name a credential file or folder, and the home path the tool reads when the
#: variable is unset: a mount whose source is the variable mounts what it names.
CREDENTIAL_VARIABLES = {
    "GOOGLE_APPLICATION_CREDENTIALS": "~/.config/gcloud/application_default_credentials.json",
    "CLOUDSDK_CONFIG": "~/.config/gcloud",
    "AWS_SHARED_CREDENTIALS_FILE": "~/.aws/credentials",
    "AWS_CONFIG_FILE": "~/.aws/config",
    "AZURE_CONFIG_DIR": "~/.azure",
    "KUBECONFIG": "~/.kube/config",
    "DOCKER_CONFIG": "~/.docker",
    "GNUPGHOME": "~/.gnupg",
    "NETRC": "~/.netrc",
    "NPM_CONFIG_USERCONFIG": "~/.npmrc",
    "GH_CONFIG_DIR": "~/.config/gh",
    "DBT_PROFILES_DIR": "~/.dbt",
    "CODEX_HOME": "~/.codex",
    "CLAUDE_CONFIG_DIR": "~/.claude",
    "CARGO_HOME": "~/.cargo",
    "GRADLE_USER_HOME": "~/.gradle",
}
#: ``$NAME``, ``${NAME}``, ``${NAME:-default}``, ``${localEnv:NAME}`` at the start of a source,
#: and what follows it (``$DOCKER_CONFIG/config.json``).
_LEADING_VARIABLE = lazy(r"^\$(?:\{(?:localEnv:|env:)?(\w+)(?:[:?+=-][^{}]*)?\}|(\w+))(/[^\s]*)?$")
# Files inside ~/.ssh that hold nothing secret (public keys, host keys, client settings).
HARMLESS_SSH = lazy(r"^~/\.ssh/(known_hosts(\.old)?|[^/]+\.pub|config)$")

# Rule triggers (see the rules package docs): a mount can only be a finding if the text spells
# one of these. The host's root "/" is caught by a slash that ends a token (a superset that
# starts with a literal, so the regex engine can skip ahead quickly).
ROOT_MOUNT = re.compile(r"/(?=[:\s\"',\]}]|$)", re.MULTILINE)
HOME_SPELLINGS = ("~", "HOME", "/home", "/root", "/Users", "USERPROFILE", "%h")  # %h: systemd's home
SOCKET_TRIGGERS = (
    "/run",
    "/var",
    ".sock",
    "docker_engine",
    "isolation",
    ".docker",
    ".colima",
    ".rd",
    ".orbstack",
    ".local",
    "lima",
    "com.docker",
    "XDG_RUNTIME_DIR",
    "%t",  # systemd's runtime folder in a Quadlet unit
    "/tmp",
    "TMPDIR",
    "PodSecurityPolicy",  # one that lists no allowedHostPaths admits any
    ROOT_MOUNT,
)
#: A relative source that may climb out of the project (`../../..:/host`).
CLIMB_TRIGGERS = ("..",)
CREDENTIAL_TRIGGERS: tuple[str | re.Pattern[str], ...] = (
    *HOME_SPELLINGS,
    ROOT_MOUNT,
    *CLIMB_TRIGGERS,
    *CREDENTIAL_VARIABLES,
    "/etc/kubernetes",
    "/etc/rancher",
    "/var/lib/rancher",
    "/var/lib/k0s",
    "/var/snap/microk8s",
)

METADATA_ADDRESSES = (
    "169.254.169.254",
    "fd00:ec2::254",
    "metadata.google.internal",
    "169.254.170.2",
    "100.100.100.200",
    "metadata.azure.com",
)
_METADATA_V4 = ipaddress.ip_address("169.254.169.254")


def _var(name: str, default: str | None, raw: str) -> str:
    if name in _HOME_VARS:
        return "~"
    if name in _RUNTIME_VARS:
        return "/run/user/UID"
    if name in _TEMP_VARS:
        return "/tmp"
    if name in ("UID", "EUID"):
        return "UID"
    if default is not None and default != "":
        return default
    return raw


def expand(raw: str) -> str:
    """Replace the variables the mount spellings use; keep unknown ones as written."""
    text = raw.strip().strip("\"'")
    for _ in range(_MAX_NESTING):  # defaults may themselves hold a variable: ${A:-${HOME}/x}
        new = _BRACED.sub(lambda m: _var(m.group(1), m.group(3), m.group(0)), text)
        new = _BARE.sub(lambda m: _var(m.group(1), None, m.group(0)), new)
        if new == text:
            break
        text = new
    text = text.replace("%USERPROFILE%", "~").replace("%HOMEPATH%", "~")
    return re.sub(r"^~+", "~", text)  # ${localEnv:HOME}${localEnv:USERPROFILE} gives "~~"


def normalize(raw: str) -> str:
    """The canonical form of a host path (see the module doc), or "" if it is not a path."""
    text = expand(raw)
    if text.startswith("~"):
        text = "~" + ("/" + text[1:].lstrip("/") if len(text) > 1 else "")
        if not (text == "~" or text.startswith("~/")):
            return ""  # ~otheruser is out of scope: it is also a home, keep it simple
    elif not text.startswith("/"):
        return ""
    if text.startswith("/"):
        text = _USER_HOME.sub("~", text)
        text = _USER_RUNTIME.sub("/run/user/UID", text)
    if text.startswith("~"):
        rest = posixpath.normpath("/" + text[2:]) if len(text) > 1 else "/"
        return "~" + ("" if rest == "/" else rest)
    return posixpath.normpath(text).replace("//", "/")


def _is_ancestor(parent: str, child: str) -> bool:
    if parent == "/":
        return child.startswith("/")
    return child.startswith(parent.rstrip("/") + "/")


_WORKSPACE_FOLDER = lazy(r"^\$\{localWorkspaceFolder\}(?=/|$)")
_WORKING_FOLDER = lazy(r"^(?:\$\{PWD\}|\$PWD|\$\(pwd\)|`pwd`)(?=/|$)")


def devcontainer_workspace(path: str) -> str:
    """The folder a dev container configuration is opened from, which ``${localWorkspaceFolder}``
    names: the parent of its ``.devcontainer`` folder (``a/b/.devcontainer/x/devcontainer.json``
    gives ``a/b``), or the folder of a ``.devcontainer.json`` or other file. A configuration
    nested in a repository (a test project's) is opened from its own folder, not the root."""
    parts = path.split("/")[:-1]
    if ".devcontainer" in parts:
        parts = parts[: len(parts) - 1 - parts[::-1].index(".devcontainer")]
    return "/".join(parts)


def above_project(raw: str, folder: str, workspace: str = "") -> str:
    """Where a relative mount source leads when it climbs above the scanned tree's root, or "".

    ``folder`` is where relative sources start, from the root ("" for the root itself: a
    compose file's own folder, a workflow's checkout), ``workspace`` the folder
    ``${localWorkspaceFolder}`` names (see :func:`devcontainer_workspace`), and ``$PWD`` or
    ``$(pwd)`` the folder. ``../../..`` from ``deploy/`` gives ``../..``; a path that stays
    inside the tree gives "" (it is the repository, not the home folder), and one that leaves
    it upward is returned, since what lies there cannot be told from here.
    """
    text = raw.strip().strip("\"'")
    if _WORKSPACE_FOLDER.match(text):
        folder, text = workspace, "." + _WORKSPACE_FOLDER.sub("", text)
    elif _WORKING_FOLDER.match(text):
        text = "." + _WORKING_FOLDER.sub("", text)
    if text not in (".", "..") and not text.startswith(("./", "../")):
        return ""  # absolute (the rules above judge it), a named volume, or a variable
    resolved = posixpath.normpath(posixpath.join(folder or ".", text))
    return resolved if resolved == ".." or resolved.startswith("../") else ""


def beyond_climb(climbed: str) -> str:
    """What a path :func:`above_project` returned names below the folders it climbed to, or "".

    ``../..`` names an ancestor of the checkout (""), ``../homelab`` a folder beside it
    (``homelab``): a sibling project, or the checkout itself under its own name, not the home.
    """
    return "/".join(part for part in climbed.split("/") if part not in ("..", "."))


def climbed_credential(climbed: str) -> str:
    """The credential location a climb into a named folder reaches if the folder it climbed to
    is the home folder (``../.ssh`` is ~/.ssh then) or the root (``../../../home``, ``../../root``),
    else ""."""
    rest = beyond_climb(climbed)
    if not rest:
        return ""
    for base in ("~/", "/"):
        found = credential_path(base + rest)
        if found:
            return found
    return ""


def runtime_socket(raw: str, *, desktop: bool = True) -> str:
    """Why ``raw`` exposes a container runtime: "socket", "parent folder", or "".

    ``desktop``: the mount may be made on a developer's machine (a Compose file, a dev container,
    ``docker run``); False where it is made on a server or a CI runner (a Kubernetes hostPath, a
    Nomad job, a systemd unit, a CI job), where the folders of :data:`DESKTOP_SOCKETS` hold none.
    A socket named as a runtime's (``docker.sock``) is one wherever it is."""
    path = normalize(raw)
    if not path:
        return ""
    name = path.rsplit("/", 1)[-1]
    if path in RUNTIME_SOCKETS or _SOCKET_NAME.match(name):
        return "socket"
    if path == "~":
        return ""  # the whole home is reported as a credential mount
    if any(_is_ancestor(path, socket) for socket in RUNTIME_SOCKETS if desktop or socket not in DESKTOP_SOCKETS):
        return "parent folder"
    return ""


def host_service_socket(raw: str) -> tuple[str, str]:
    """The host service socket (see :data:`HOST_SERVICE_SOCKETS`) ``raw`` reaches: (the socket,
    "" when ``raw`` is the socket, "folder" when it is the folder that holds it, as ``/run/dbus``
    is); ("", "") for any other path. Folders above that (``/run``, ``/var/run``, ``/``, a user's
    runtime folder) hold a runtime socket as well and are left to :func:`runtime_socket`."""
    path = normalize(raw)
    if not path or runtime_socket(path):
        return "", ""
    for socket in HOST_SERVICE_SOCKETS:
        if path == socket:
            return socket, ""
        if path == posixpath.dirname(socket):
            return socket, "folder"
    return "", ""


def runtime_state(raw: str) -> tuple[str, str]:
    """The engine state (see :data:`RUNTIME_STATE`) ``raw`` reaches: (the state's folder, "" when
    ``raw`` is that folder, "inside" when it is below it, or "parent folder" when it holds it, as
    ``/var/lib`` does); ("", "") for any other path, and for a certificate (``*.crt``) in the
    kubelet's ``pki``, which is public. A folder that holds a runtime socket too is left to
    :func:`runtime_socket` (``/run``, ``/var``, ``/``)."""
    path = normalize(raw)
    if not path or path.startswith("~") or runtime_socket(path):
        return "", ""
    for state in RUNTIME_STATE:
        if path == state:
            return state, ""
        if _is_ancestor(state, path):
            if state.endswith("/pki") and path.endswith(".crt"):
                return "", ""  # a certificate, public; its key is what the folder keeps secret
            return state, "inside"
    for state in RUNTIME_STATE:
        if _is_ancestor(path, state):
            return state, "parent folder"
    return "", ""


def credential_variable(raw: str) -> tuple[str, str]:
    """For a source that starts with a variable naming credentials (``${KUBECONFIG}``,
    ``$DOCKER_CONFIG/config.json``): (the variable, the home path it stands for); else ("", "")."""
    match = _LEADING_VARIABLE.match(raw.strip().strip("\"'"))
    name = (match.group(1) or match.group(2)) if match else ""
    if name not in CREDENTIAL_VARIABLES:
        return "", ""
    rest = match.group(3) if match else ""
    return name, CREDENTIAL_VARIABLES[name] + (rest or "")


def credential_path(raw: str) -> str:
    """The credential location ``raw`` exposes ("~/.ssh", "the whole home", ...), or ""."""
    path = normalize(raw)
    if not path:
        return ""
    if path == "~" or path in ("/home", "/Users", "/"):
        return "the whole home folder" if path == "~" else f"every home folder ({path})"
    for secret in SYSTEM_CREDENTIAL_PATHS:
        if path == secret or (_is_ancestor(secret, path) and not _PUBLIC_CERTIFICATE.search(path)):
            return secret
    for secret in CREDENTIAL_PATHS:
        if path == secret:
            return secret
        if _is_ancestor(secret, path) and not HARMLESS_SSH.match(path):
            return secret
        if _is_ancestor(path, secret) and path != "~":
            return f"{path} (holds {secret})"
    return ""


def is_ssh_agent(raw: str) -> bool:
    """A mount source or value that forwards the host's SSH agent socket."""
    text = raw.strip()
    return (
        "SSH_AUTH_SOCK" in text
        or "/run/host-services/ssh-auth.sock" in text
        or bool(re.search(r"/tmp/ssh-[^/\s]+/agent\.\d+|/ssh-agent\.sock|gpg-agent\.ssh", text))
    )


def is_metadata(host: str) -> bool:
    """A host, IP or CIDR that is (or contains) a cloud metadata address."""
    value = host.strip().strip("[]").lower()
    value = re.sub(r"^[a-z]+://", "", value).split("/", 1)[0] if "://" in value else value
    if value.split(":")[0] in METADATA_ADDRESSES or value in METADATA_ADDRESSES:
        return True
    try:
        network = ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return network.version == 4 and _METADATA_V4 in network and network.prefixlen > 0
