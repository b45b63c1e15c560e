"""privileged: container settings that remove the isolation between container and host."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.container_model import Container, Mount, Setting, via
from sandkit.lint.facts.containers import CONTAINER_KINDS, containers
from sandkit.lint.model import SEVERITIES, Finding, Hit
from sandkit.lint.registry import rule
from sandkit.lint.repository import RepositoryView, repository_pass
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap

DANGEROUS_CAPABILITIES = frozenset(
    {"ALL", "SYS_ADMIN", "NET_ADMIN", "SYS_PTRACE", "SYS_MODULE", "SYS_RAWIO", "DAC_READ_SEARCH", "BPF", "SYS_BOOT"}
)
#: Capabilities whose reach is the processes of the PID namespace the container is in: an escape
#: with the host's (or another container's) PID namespace, nothing outside the container without
#: one (measured with the engine: tests/lint/test_capability_reach.py).
PID_ONLY_CAPABILITIES = frozenset({"SYS_PTRACE"})
#: Capabilities whose reach is the network namespace the container is in: its own interfaces,
#: routes and firewall, the host's only with the host's network (same tests).
NETWORK_ONLY_CAPABILITIES = frozenset({"NET_ADMIN"})
#: Capabilities that are a way out by themselves: mounts, modules, raw I/O, open_by_handle_at, BPF.
ESCAPE_CAPABILITIES = DANGEROUS_CAPABILITIES - PID_ONLY_CAPABILITIES - NETWORK_ONLY_CAPABILITIES
_NAMESPACES = ("network", "pid", "ipc", "uts", "userns", "cgroupns")
#: Kubernetes (and Terraform's kubernetes provider) letting a pod's containers share one PID namespace.
_SHARED_PROCESSES = lazy(r"(?i)share_?process_?namespace[\"']?\s*[:=]\s*[\"']?(?:true|yes|on|y)\b")
_DOCKER_FEATURES = ("docker-in-docker", "docker-outside-of-docker", "docker-from-docker")


#: Why a policy's finding is one level below the rule's: it admits such pods, it runs none itself.
_POLICY = "a policy that admits such pods, not a pod that runs"
#: Runtimes that run a container in a virtual machine (Kata Containers' handlers and shims, AKS's
#: kata-vm-isolation, Firecracker) or under gVisor's own kernel (runsc, GKE Sandbox's gvisor),
#: by the names their documentation gives a RuntimeClass or a Docker/containerd runtime.
_VM_RUNTIME = lazy(
    r"(?i)^(?:kata(?:[-_.][\w.-]*)?|io\.containerd\.(?:kata[\w-]*|runsc)\.v[12]|gvisor(?:[-_.][\w.-]*)?|"
    r"runsc(?:[-_.][\w.-]*)?|(?:aws[-.])?firecracker(?:[-_.][\w.-]*)?)$"
)


@rule(
    "PV001",
    "privileged-container",
    category="privileged",
    severity="critical",
    kinds=CONTAINER_KINDS,
    triggers=("privileged", "raw_exec"),
)
def privileged_container(file: SourceFile) -> Iterator[Hit]:
    """A container runs in privileged mode, or a job runs on the host with no container at all.

    Compose `privileged: true`, Kubernetes `securityContext.privileged: true` (Tekton steps
    and sidecars, Argo templates and kustomize patches included), devcontainer
    `"privileged": true`, `--privileged` in runArgs, workflow container options and
    `docker|podman run` commands, a PodSecurityPolicy that lets pods run privileged (high: it
    admits such pods, it runs none), Nomad's docker and podman `config { privileged = true }`,
    Terraform's `docker_container` and kubernetes provider resources. A Nomad task with the
    `raw_exec` driver is reported too: it runs on the client host without any isolation.

    Why:
    A privileged container has every capability and every host device; mounting the host's
    disk from inside it is one command.

    Fix:
    Drop privileged mode; add only the specific capability or device the workload needs.
    """
    for box in containers(file):
        for setting in box.setting("privileged"):
            if box.admits:
                yield Hit(setting.pos, f"{box.label} lets pods run privileged", severity="high", why=_POLICY)
            else:
                yield Hit(setting.pos, f"{box.label} runs privileged{via(setting)}")
        for setting in box.setting("no-isolation"):
            yield Hit(setting.pos, f"{box.label} {setting.value}")


@rule("PV002", "host-namespace", category="privileged", severity="high", kinds=CONTAINER_KINDS, triggers=("host",))
def host_namespace(file: SourceFile) -> Iterator[Hit]:
    """A container shares the host's network, PID, IPC, UTS, user or cgroup namespace.

    Compose `network_mode`/`pid`/`ipc`/`uts`/`userns_mode`/`cgroup: host`, Kubernetes
    `hostNetwork`/`hostPID`/`hostIPC` (in a PodSecurityPolicy, medium: it admits such pods),
    and `--network/--pid/--ipc/--uts/--userns host` flags.
    Host networking for a coding agent is reported as EG003 instead.

    Why:
    With the host's PID namespace a process can see and signal (or ptrace) host processes;
    with its network it reaches every service bound to localhost and the cloud metadata
    address; IPC and user namespaces expose shared memory and root mapping.

    Fix:
    Remove the host namespace setting; publish the ports you need instead of host networking.
    """
    for box in containers(file):
        for name in _NAMESPACES:
            for setting in box.setting(name):
                if setting.value.strip().lower() != "host":
                    continue
                if name == "network" and box.is_agent:
                    continue  # EG003 reports host networking for agents
                if box.admits:
                    message = f"{box.label} lets pods use the host's {name} namespace"
                    yield Hit(setting.pos, message, severity="medium", why=_POLICY)
                else:
                    yield Hit(setting.pos, f"{box.label} uses the host's {name} namespace{via(setting)}")


@rule(
    "PV003",
    "dangerous-capability",
    category="privileged",
    severity="high",
    kinds=CONTAINER_KINDS,
    triggers=("cap", "CAP", "Cap"),
)
def dangerous_capability(file: SourceFile) -> Iterator[Hit]:
    """A container is given a capability that escapes it, alone or with a shared namespace.

    SYS_ADMIN, NET_ADMIN, SYS_PTRACE, SYS_MODULE, SYS_RAWIO, DAC_READ_SEARCH, BPF, SYS_BOOT
    or ALL, with or without the CAP_ prefix, in Compose `cap_add`, Kubernetes
    `capabilities.add`, devcontainer `capAdd` and `--cap-add` flags. Graded by what the
    capability reaches (measured with Docker's engine and default seccomp profile): SYS_PTRACE
    reaches the processes of the container's PID namespace, so it is info when no container of
    the file shares the host's or another container's PID namespace (`pid: host`, `hostPID`,
    `--pid container:X`, `pid: service:X`, `shareProcessNamespace`) and high when one does;
    NET_ADMIN reconfigures the container's own network namespace, so it is medium unless the
    file uses the host's (or another container's) network. Under a VM-isolated runtime (a pod's
    `runtimeClassName`, Compose `runtime`, `--runtime`: Kata, gVisor's runsc, Firecracker, or a
    RuntimeClass of the same file with such a handler) each is one level lower: the capability
    acts on the guest's kernel. A PodSecurityPolicy's `allowedCapabilities` (`'*'`: any) and
    `defaultAddCapabilities` are reported one level below, as PV001 and PV002 report a policy: it
    admits such pods, it runs none. NET_RAW is not reported: Docker and containerd give it by
    default.

    Why:
    SYS_ADMIN alone allows mounting filesystems and most known container escapes; SYS_PTRACE
    reads the memory (and secrets) of every process it can see, which with the host's PID
    namespace is the host's; NET_ADMIN rewrites the firewall of the namespace it is in, so an
    egress firewall set inside the container holds only against a user who cannot become root.

    Fix:
    Remove the capability; if a tool really needs it, run that tool outside the agent's
    sandbox.
    """
    for box in containers(file):
        for setting in [*box.setting("cap-add"), *box.setting("cap-default")]:
            capability = _capability(setting.value)
            if capability not in DANGEROUS_CAPABILITIES:
                continue
            severity, why = _capability_reach(file, capability)
            if box.admits:
                yield _policy_capability(setting, box.label, capability, severity, why)
                continue
            runtime = _vm_runtime(file, box)
            if runtime and severity != "info":
                severity = SEVERITIES[SEVERITIES.index(severity or "high") + 1]
                inside = f"under {runtime} the container has a kernel of its own (a VM's or gVisor's)"
                why = "; ".join(filter(None, (why, f"{inside}, which the capability acts on, not the host's")))
            yield Hit(
                setting.pos, f"{box.label} adds capability {capability}{via(setting)}", severity=severity, why=why
            )


def _capability(value: str) -> str:
    """A capability as written (``cap_sys_admin``, ``SYS_ADMIN``) in one spelling; ``*`` (a
    PodSecurityPolicy's any) is ALL."""
    name = value.strip().upper().removeprefix("CAP_")
    return "ALL" if name == "*" else name


def _policy_capability(setting: Setting, label: str, capability: str, severity: str, why: str) -> Hit:
    """PV003 on a PodSecurityPolicy's capability list: one level below what the capability in a pod
    would be (it admits such pods, it runs none); info stays info."""
    if severity != "info":
        severity = SEVERITIES[SEVERITIES.index(severity or "high") + 1]
    what = "any capability (*)" if setting.value.strip() == "*" else f"capability {capability}"
    if setting.name == "cap-default":
        message = f"{label} adds {what} to every pod it admits"
    else:
        message = f"{label} lets pods add {what}"
    return Hit(setting.pos, message, severity=severity, why="; ".join(filter(None, (_POLICY, why))))


def _vm_runtime(file: SourceFile, box: Container) -> str:
    """The VM-isolated runtime (Kata, gVisor, Firecracker) the container runs under, as written
    ("" for runc or none named): a runtime of that name, or a RuntimeClass of the same file whose
    handler is one (``name: sandboxed``, ``handler: runsc``)."""
    for setting in box.setting("runtime"):
        name = setting.value.strip()
        if _VM_RUNTIME.match(name):
            return f"runtime {name}"
        handler = _runtime_classes(file).get(name)
        if handler:
            return f"runtime class {name} (handler {handler})"
    return ""


def _runtime_classes(file: SourceFile) -> dict[str, str]:
    """The RuntimeClasses a Kubernetes file declares with a VM-isolated handler: name -> handler."""
    if file.kind != kinds.KUBERNETES:
        return {}

    def declared() -> dict[str, str]:
        found = {}
        for document in file.documents:
            if not isinstance(document, PMap) or document.get("kind") != "RuntimeClass":
                continue
            meta, handler = document.get("metadata"), document.get("handler")
            name = meta.get("name") if isinstance(meta, PMap) else None
            if isinstance(name, str) and isinstance(handler, str) and _VM_RUNTIME.match(handler.strip()):
                found[name] = handler.strip()
        return found

    return file.memo("vm_runtime_classes", declared)


def _joins(file: SourceFile, namespace: str) -> bool:
    """Some container of the file is in a ``namespace`` (pid, network) that is not its own: the
    host's, another container's (``container:NAME``) or another service's (``service:NAME``); for
    PID also a Kubernetes pod whose containers share one. Read per file, not per container: a pod's
    hostPID and its containers' capabilities are separate objects, and a file where one container
    shares keeps every finding of the file at the rule's severity."""
    for box in containers(file):
        for setting in box.setting(namespace):
            value = setting.value.strip().lower()
            if value == "host" or value.startswith(("container:", "service:")):
                return True
    return namespace == "pid" and _SHARED_PROCESSES.search(file.text) is not None


def _capability_reach(file: SourceFile, capability: str) -> tuple[str, str]:
    """(severity, why) of a dangerous capability by what it reaches from where it is; ("", "")
    for the rule's own."""
    if capability in PID_ONLY_CAPABILITIES and not _joins(file, "pid"):
        why = (
            "it reaches only this container's own processes, as no container here shares the host's or "
            "another's PID namespace; with one it would read their memory"
        )
        return "info", why
    if capability in NETWORK_ONLY_CAPABILITIES and not _joins(file, "network"):
        why = (
            "it reconfigures this container's own network namespace, not the host's: a firewall set inside "
            "the container holds only against a user who cannot become root there"
        )
        return "medium", why
    return "", ""


@rule(
    "PV004",
    "unconfined-profile",
    category="privileged",
    severity="high",
    kinds=CONTAINER_KINDS,
    triggers=("unconfined", "Unconfined", "disable", "Disable", "spc_t", "nmask"),  # "nmask": Unmasked too
)
def unconfined_profile(file: SourceFile) -> Iterator[Hit]:
    """Seccomp, AppArmor or SELinux confinement is switched off for a container.

    `seccomp:unconfined`, `apparmor:unconfined`, `label:disable`, `label=type:spc_t` (SELinux's
    super-privileged container type), `unmask=ALL` and `systempaths=unconfined` security options
    (either separator; Quadlet's `SeccompProfile=`, `AppArmor=`, `SecurityLabelDisable=`,
    `SecurityLabelType=` and `Unmask=` are the same options), Kubernetes `seccompProfile`/`appArmorProfile` of
    type Unconfined, `seLinuxOptions.type: spc_t`, `procMount: Unmasked` (Kubernetes' `unmask=ALL`),
    and the legacy AppArmor/seccomp annotations set to unconfined. Seccomp, AppArmor and SELinux
    switched off are medium when no container of the file runs privileged or has a capability
    that is a way out by itself (SYS_ADMIN, SYS_MODULE, SYS_RAWIO, DAC_READ_SEARCH, BPF,
    SYS_BOOT, ALL): unconfined, a container can make user namespaces and mount inside them
    (measured with Docker's engine), more kernel for a bug to be found in, but it reaches nothing
    outside itself alone. Unmasked system paths stay high: the host's /proc/sys is then writable.

    Why:
    These profiles block the system calls and paths most container escapes use; without
    them a kernel bug or a stray capability is much easier to turn into host access.

    Fix:
    Keep the runtime's default profile (RuntimeDefault in Kubernetes), or ship a custom
    profile that allows only what the workload needs.
    """
    alone = "", ""
    if not _escapes(file):
        alone = (
            "medium",
            "kernel attack surface, not a way out alone: nothing in this file is privileged "
            "or has an escaping capability",
        )
    for box in containers(file):
        for setting in box.settings:
            value = setting.value.strip().lower().replace("=", ":")
            if setting.name == "security-opt" and value in _UNMASKED:
                yield Hit(setting.pos, f"{box.label} sets security option {setting.value}{via(setting)}")
            elif setting.name == "security-opt" and value in _PROFILES_OFF:
                message = f"{box.label} sets security option {setting.value}{via(setting)}"
                yield Hit(setting.pos, message, severity=alone[0], why=alone[1])
            elif setting.name in ("seccomp", "apparmor") and value == "unconfined":
                message = f"{box.label} runs with an unconfined {setting.name} profile"
                yield Hit(setting.pos, message, severity=alone[0], why=alone[1])
            elif setting.name == "proc-mount" and setting.value == "Unmasked":
                yield Hit(setting.pos, f"{box.label} sets procMount: Unmasked (the host's /proc paths are not masked)")
            elif setting.name == "selinux-type" and value == "spc_t":
                message = f"{box.label} runs as SELinux type spc_t, which SELinux does not confine"
                yield Hit(setting.pos, message, severity=alone[0], why=alone[1])


#: Security options that switch a confinement profile off (medium alone, high beside an escape).
_PROFILES_OFF = frozenset({"seccomp:unconfined", "apparmor:unconfined", "label:disable", "label:type:spc_t"})
#: Security options that unmask the host's kernel paths: /proc/sys writable is a way out by itself.
_UNMASKED = frozenset({"systempaths:unconfined", "unmask:all"})


def _escapes(file: SourceFile) -> bool:
    """Some container of the file runs privileged or has a capability that is a way out by itself:
    then a profile switched off removes what stood between that power and the host."""
    for box in containers(file):
        if box.setting("privileged"):
            return True
        for setting in [*box.setting("cap-add"), *box.setting("cap-default")]:
            if _capability(setting.value) in ESCAPE_CAPABILITIES:
                return True
    return False


@rule(
    "PV005",
    "privilege-escalation",
    category="privileged",
    severity="medium",
    kinds=CONTAINER_KINDS,
    triggers=("allowPrivilegeEscalation",),
)
def privilege_escalation(file: SourceFile) -> Iterator[Hit]:
    """A Kubernetes container explicitly allows privilege escalation.

    `securityContext.allowPrivilegeEscalation: true` lets setuid binaries and file
    capabilities raise a process's privileges above its parent's. A PodSecurityPolicy's
    `allowPrivilegeEscalation: true` is low: it admits such pods, it runs none (as PV001-PV003
    grade a policy); one that leaves it unset (which also admits them) is not reported.

    Why:
    An agent running as a non-root user can become root inside the container through any
    setuid binary, which turns every other weakness into a root one.

    Fix:
    Set `allowPrivilegeEscalation: false` (and run as a non-root user).
    """
    for box in containers(file):
        for setting in box.setting("allow-privilege-escalation"):
            if box.admits:
                yield Hit(setting.pos, f"{box.label} lets pods escalate privileges", severity="low", why=_POLICY)
            else:
                yield Hit(setting.pos, f"{box.label} sets allowPrivilegeEscalation: true")


@rule(
    "PV006",
    "docker-feature",
    category="privileged",
    severity="high",
    kinds=CONTAINER_KINDS,
    triggers=("docker-", "dind"),
)
def docker_feature(file: SourceFile) -> Iterator[Hit]:
    """A devcontainer feature or a CI service runs Docker inside the container or hands it the host's daemon.

    The docker-in-docker feature makes the container privileged; docker-outside-of-docker
    (formerly docker-from-docker) mounts the host's Docker socket. A Docker-in-Docker
    service (`docker:dind`) in GitLab CI or a CircleCI executor only starts on a runner
    that runs privileged containers. The devcontainer lock file is not read: it repeats
    what devcontainer.json says.

    Why:
    Either gives code in the dev container or CI job (an agent included) control over a
    Docker daemon with host-level power.

    Fix:
    Remove the feature from the agent's dev container; build images in CI or in a separate,
    non-agent container. In CI, build with a daemonless builder (BuildKit rootless, kaniko,
    buildah) instead of a privileged dind service.
    """
    for box in containers(file):
        for setting in box.setting("dind"):
            yield Hit(
                setting.pos, f"{box.label} starts Docker-in-Docker ({setting.value}), which needs a privileged runner"
            )
    for box in containers(file):
        for setting in box.setting("feature"):
            feature = setting.value.lower()
            for name in _DOCKER_FEATURES:
                if f"/{name}" in feature or feature.startswith(name):
                    yield Hit(
                        setting.pos,
                        f"devcontainer feature {setting.value} gives the container a Docker daemon with host power",
                    )


#: Host sides of a mount that are the project folder itself: the compose file's or devcontainer's
#: folder and its parents, the working folder, the checkout of a workflow.
_PROJECT_FOLDERS = frozenset(
    {
        ".",
        "..",
        "../..",
        "$PWD",
        "${PWD}",
        "$(pwd)",
        "${localWorkspaceFolder}",
        "$GITHUB_WORKSPACE",
        "${GITHUB_WORKSPACE}",
        "${{ github.workspace }}",
    }
)


#: Host devices that hand a container the host itself: memory and I/O ports, raw block devices
#: (disks, partitions, device-mapper and loop devices), the kernel's module and message interfaces.
#: GPUs, sound, serial adapters, /dev/fuse and /dev/kvm are ordinary workloads' devices: quiet.
_HOST_DEVICE = lazy(
    r"^/dev/(?:mem|kmem|port|kmsg|(?:sd|hd|vd|xvd)[a-z]+\d*|nvme\d+(?:n\d+(?:p\d+)?)?|mmcblk\d+(?:p\d+)?"
    r"|dm-\d+|loop\d*|mapper/.+|disk/.+|md\d+|sg\d+)$"
)


@rule(
    "PV008",
    "host-device",
    category="privileged",
    severity="high",
    kinds=CONTAINER_KINDS,
    triggers=("/dev/",),
)
def host_device(file: SourceFile) -> Iterator[Hit]:
    """A container is given a host device that reaches the host itself: its memory or a disk.

    `/dev/mem`, `/dev/kmem`, `/dev/port`, `/dev/kmsg` and raw block devices (`/dev/sda`,
    `/dev/nvme0n1`, `/dev/vda1`, `/dev/dm-0`, `/dev/loop0`, `/dev/mapper/...`) in Compose
    `devices`, `--device` flags, Ansible and Nomad/Terraform device settings.

    Why:
    A process that can read and write the host's disk or memory reads every secret on the host
    and can write its way out (a cron entry, a binary, the kernel's memory); the container's other
    walls no longer matter.

    Fix:
    Remove the device; give the workload a volume or a file instead. GPUs, sound and serial
    devices are not findings.
    """
    for box in containers(file):
        for setting in box.setting("device"):
            host = setting.value.strip().split(":", 1)[0]
            if _HOST_DEVICE.search(host):
                yield Hit(setting.pos, f"{box.label} is given the host device {host}{via(setting)}")


def _folder(path: str) -> str:
    trimmed = path.strip().rstrip("/")
    while trimmed.startswith("./") and len(trimmed) > 2:
        trimmed = trimmed[2:]
    return trimmed or ("/" if path.strip().startswith("/") else ".")


def _writable_git(mount: Mount, protected: set[str]) -> str | None:
    """Why ``mount`` gives its container a writable .git of the project, or None."""
    if mount.read_only or mount.how not in ("bind", "volume") or not mount.source.strip():
        return None  # an anonymous volume (`- /app/node_modules`) is the engine's, not a host folder
    source, target = _folder(mount.source), _folder(mount.target)
    if source == ".git" or source.endswith("/.git"):
        return f"mounts {mount.source} (a repository's .git) writable"
    if source in _PROJECT_FOLDERS and target and f"{target}/.git" not in protected:
        return f"mounts the project folder {mount.source} at {mount.target} with its .git writable"
    return None


def _protected(box: Container) -> set[str]:
    return {_folder(m.target) for m in box.mounts if m.read_only and _folder(m.target).endswith("/.git")}


@rule("PV007", "agent-writable-git", category="privileged", severity="high", kinds=CONTAINER_KINDS)
def agent_writable_git(file: SourceFile) -> Iterator[Hit]:
    """A coding agent's container gets the repository it works on with `.git` writable.

    Compose volumes, `docker run -v/--mount`, devcontainer `mounts` and `workspaceMount` (or its
    default, the repository) that bind the project folder (`.`, `..`, `$PWD`,
    `${localWorkspaceFolder}`, `$GITHUB_WORKSPACE`) or a `.git` read-write into a container that
    runs a coding agent, with no read-only mount over its `.git`; and kits with
    `workspace.git: writable`. Anonymous volumes (`- /app/node_modules`) are not findings, nor,
    in a checkout, a relative project folder (`..`, `../..`) that holds no `.git` of its own.

    Why:
    git on the host runs what `.git` configures: `core.fsmonitor` on the next `git status` (a
    shell prompt runs one), `core.sshCommand` on the next fetch, hooks on the next commit. An agent
    that can write `.git/config` or `.git/hooks` runs commands as the developer, outside its
    container.

    Fix:
    Mount the repository's `.git` read-only over it: in compose a second bind of `./.git` to
    `TARGET/.git` with `read_only: true`, for `docker run`
    `--mount type=bind,source=$PWD/.git,target=TARGET/.git,readonly`, in a devcontainer a `mounts`
    entry `source=${localWorkspaceFolder}/.git,target=${containerWorkspaceFolder}/.git,type=bind,readonly`;
    in a kit leave `workspace.git: read-only`, the default.
    """
    if file.kind == kinds.KIT:
        yield from _writable_git_kits(file)
        return
    for box in containers(file):
        if not box.is_agent:  # a dev container with an agent's feature or install command is one too
            continue
        protected = _protected(box)
        for mount in box.mounts:
            why = _writable_git(mount, protected)
            if why:
                yield Hit(mount.pos, f"{box.label} {why}: git on the host runs what the agent writes there")
        if file.kind == kinds.DEVCONTAINER and _default_workspace(file) and not protected:
            yield Hit(box.pos, f"{box.label} gets the repository (the default workspace mount) with its .git writable")


def _default_workspace(file: SourceFile) -> bool:
    """A devcontainer.json that leaves the repository's mount to the tools (image or Dockerfile based)."""
    config = file.documents[0] if file.documents else None
    return isinstance(config, PMap) and "workspaceMount" not in config and "dockerComposeFile" not in config


def _writable_git_kits(file: SourceFile) -> Iterator[Hit]:
    for kit in file.documents:
        workspace = kit.get("workspace") if isinstance(kit, PMap) else None
        if isinstance(workspace, PMap) and workspace.get("mode") == "mount" and workspace.get("git") == "writable":
            yield Hit(workspace.pos_of("git"), "the kit mounts its repository with .git writable (workspace.git)")


_PROJECT_MOUNT = lazy(r"mounts the project folder (\.\.?(?:/\.\.)*) at ")


@repository_pass("project-folder-git")
def keep_project_mounts_that_hold_git(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
    """Settle PV007 for relative project folders: in a checkout (the scan root holds ``.git``),
    ``..`` or ``../..`` that lands on a folder with no ``.git`` of its own exposes no git
    configuration; outside a checkout, or above the root, it cannot be told and the finding stays."""
    if not any(f.rule == "PV007" for f in findings) or not repo.exists(".git"):
        return findings
    out = []
    for finding in findings:
        match = _PROJECT_MOUNT.search(finding.message) if finding.rule == "PV007" else None
        if match is not None:
            folder = posixpath.normpath(posixpath.join(posixpath.dirname(finding.path), match.group(1)))
            if folder != ".." and not folder.startswith("../") and not repo.exists(posixpath.join(folder, ".git")):
                continue
        out.append(finding)
    return out
