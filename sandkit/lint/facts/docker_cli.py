"""``docker run`` / ``podman run`` arguments read into container facts.

Used for scripts, Makefiles, Dockerfile RUN lines, workflow steps, devcontainer ``runArgs``,
workflow ``container.options`` and MCP servers started with ``docker``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sandkit.lazy_regex import lazy
from sandkit.lint.consumers.booleans import go_parse_bool
from sandkit.lint.facts.container_model import (
    Container,
    Mount,
    Setting,
    kv_read_only,
    short_volume_read_only,
    split_kv_list,
    split_volume,
)
from sandkit.lint.syntax.shell import Command, Word
from sandkit.lint.syntax.tree import Pos

RUNTIMES = frozenset({"docker", "podman", "nerdctl", "finch"})
_SHORT_WITH_VALUE = set("acehlmpuvw")
_LONG_WITH_VALUE = frozenset(
    {
        "add-host",
        "annotation",
        "attach",
        "blkio-weight",
        "cap-add",
        "cap-drop",
        "cgroup-parent",
        "cgroupns",
        "cidfile",
        "cpu-period",
        "cpu-quota",
        "cpu-shares",
        "cpus",
        "cpuset-cpus",
        "cpuset-mems",
        "device",
        "device-cgroup-rule",
        "dns",
        "dns-option",
        "dns-search",
        "domainname",
        "entrypoint",
        "env",
        "env-file",
        "expose",
        "gpus",
        "group-add",
        "health-cmd",
        "health-interval",
        "health-retries",
        "health-start-period",
        "health-timeout",
        "hostname",
        "ip",
        "ip6",
        "ipc",
        "isolation",
        "kernel-memory",
        "label",
        "label-file",
        "link",
        "log-driver",
        "log-opt",
        "mac-address",
        "memory",
        "memory-reservation",
        "memory-swap",
        "mount",
        "name",
        "network",
        "net",
        "network-alias",
        "oom-score-adj",
        "pid",
        "pids-limit",
        "platform",
        "publish",
        "pull",
        "restart",
        "runtime",
        "security-opt",
        "shm-size",
        "stop-signal",
        "stop-timeout",
        "storage-opt",
        "sysctl",
        "tmpfs",
        "ulimit",
        "user",
        "userns",
        "uts",
        "volume",
        "volumes-from",
        "workdir",
        "volume-driver",
        "arch",
        "os",
        "secret",
        "hooks-dir",
        "pod",
        "userns-uid-map",
        "uidmap",
        "gidmap",
        "subuidname",
    }
)
_FLAG_NAMES = {
    "v": "volume",
    "e": "env",
    "net": "network",
    "u": "user",
    "p": "publish",
    "w": "workdir",
    "h": "hostname",
    "l": "label",
    "m": "memory",
    "a": "attach",
    "c": "cpu-shares",
}
_GLOBAL_WITH_VALUE = frozenset(
    {
        "-H",
        "--host",
        "-c",
        "--context",
        "--config",
        "-l",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
        "--url",
        "--connection",
        "--remote",
    }
)


def run_invocation(command: Command) -> tuple[list[Word], list[Word]] | None:
    """For ``docker [global flags] run|create ...``: (global flags, run arguments), else None."""
    program, index = command.program()
    if program not in RUNTIMES:
        return None
    words = command.words[index + 1 :]
    globals_: list[Word] = []
    i = 0
    while i < len(words) and words[i].text.startswith("-"):
        globals_.append(words[i])
        if words[i].text in _GLOBAL_WITH_VALUE and i + 1 < len(words):
            globals_.append(words[i + 1])
            i += 1
        i += 1
    rest = [w.text for w in words[i : i + 2]]
    if rest[:1] in (["run"], ["create"]):
        return globals_, words[i + 1 :]
    if rest == ["container", "run"] or rest == ["container", "create"]:
        return globals_, words[i + 2 :]
    return None


def container_from_args(words: Sequence[Word], label: str, pos: Pos, image_known: str = "") -> Container:
    """Read ``run`` flags (up to the image) into a Container; the rest is its command."""
    box = Container(label=label, pos=pos, image=image_known)
    i = _flags(words, box)
    if not image_known and i < len(words):
        box.image = words[i].text
        i += 1
    box.command = " ".join(w.text for w in words[i:])
    return box


def _flags(words: Sequence[Word], box: Container | None = None) -> int:
    """The index of the first word after ``run``'s flags (the image), applying each to ``box``."""
    i = 0
    while i < len(words):
        word = words[i]
        text = word.text
        if text == "--":
            return i + 1
        if not text.startswith("-") or text == "-":
            break
        name, value, consumed = read_flag(words, i)
        if name and box is not None:
            _apply(box, name, value, _value_pos(words, i, consumed, value))
        i += consumed
    return i


def run_image(command: Command) -> Word | None:
    """The image word of a ``docker|podman run`` command line (None for any other command)."""
    invocation = run_invocation(command)
    if invocation is None:
        return None
    args = invocation[1]
    index = _flags(args)
    return args[index] if index < len(args) else None


#: Tags a publisher moves to each new build: latest and its kin, alone or with a variant suffix
#: (``stable-alpine``), and a major or major.minor version (``:1``, ``:v2.3``), which follows the
#: newest patch release as ``npx pkg@1`` does.
_MOVING_TAG = lazy(
    r"(?i)(?:latest|main|master|stable|edge|nightly|dev|develop|development|canary|beta|alpha|next|rc|"
    r"release|current|lts|head|trunk|unstable|preview|experimental|insiders?)(?:[-_.][\w.-]*)?"
    r"|v?\d{1,3}(?:\.\d{1,3})?(?:-[A-Za-z][\w.-]*)?"
)
_LOCAL_REGISTRY = lazy(r"(?i)^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d+)?$")


def unpinned_image(reference: str) -> str:
    """Why an image reference names no fixed build ("no tag, so :latest", "the moving tag :edge"),
    or "" when it is pinned by digest, carries a fixed version tag, or cannot be judged here: a
    variable, a one-word name (an official library image or one built on this machine) or a
    local registry's image."""
    text = reference.strip().strip("\"'")
    if not text or "$" in text or "{" in text or "@" in text:
        return ""  # a variable decides it, or a digest (name@sha256:...) fixes it
    slash = text.rfind("/")
    colon = text.rfind(":")
    name, tag = (text[:colon], text[colon + 1 :]) if colon > slash else (text, "")
    if "/" not in name or _LOCAL_REGISTRY.match(name.split("/", 1)[0]):
        return ""
    if not tag:
        return "no tag, so :latest"
    if _MOVING_TAG.fullmatch(tag):
        return f"the moving tag :{tag}"
    return ""


def _value_pos(words: Sequence[Word], i: int, consumed: int, value: str) -> Pos:
    """Where a flag's value is written: the next word, or inside ``--flag=value`` (the flag itself
    when the command ends before its value)."""
    if consumed == 2 and i + 1 < len(words):
        return words[i + 1].pos
    word = words[i]
    glued = word.text.rfind(value) if value and value != "true" else -1
    return Pos(word.pos.line, word.pos.column + glued) if glued > 0 else word.pos


def read_flag(words: Sequence[Word], i: int) -> tuple[str, str, int]:
    """(long flag name, value, words consumed) for the flag at ``words[i]`` (also read by the importer)."""
    text = words[i].text
    nxt = words[i + 1].text if i + 1 < len(words) else ""
    if text.startswith("--"):
        name, eq, value = text[2:].partition("=")
        name = _FLAG_NAMES.get(name, name)
        if eq:
            return name, value, 1
        if name in _LONG_WITH_VALUE:
            return name, nxt, 2
        return name, "true", 1
    cluster = text[1:]
    for k, ch in enumerate(cluster):
        if ch in _SHORT_WITH_VALUE:
            glued = cluster[k + 1 :].lstrip("=")
            name = _FLAG_NAMES.get(ch, ch)
            return (name, glued, 1) if glued else (name, nxt, 2)
    return "", "", 1


def _apply(box: Container, name: str, value: str, pos: Pos) -> None:
    if name == "volume":
        source, target = split_volume(value)
        box.mounts.append(Mount(source, target, pos, "bind" if source else "volume", short_volume_read_only(value)))
    elif name == "mount":
        fields = split_kv_list(value)
        source = fields.get("source") or fields.get("src") or ""
        target = fields.get("target") or fields.get("dst") or fields.get("destination") or ""
        box.mounts.append(Mount(source, target, pos, fields.get("type", "volume"), kv_read_only(fields)))
    elif name == "env":
        key, _, val = value.partition("=")
        box.env.append(Setting(key, val, pos))
    elif name in (
        "privileged",
        "network",
        "pid",
        "ipc",
        "uts",
        "userns",
        "cgroupns",
        "cap-add",
        "security-opt",
        "device",
        "add-host",
        "runtime",
    ):
        if name == "privileged" and go_parse_bool(value) is not True:
            return  # false, or a value pflag refuses (strconv.ParseBool): the command does not run
        box.settings.append(Setting(name, value, pos))


def from_commands(commands: list[Command]) -> Iterator[Container]:
    """Containers started by ``docker|podman run`` in shell commands."""
    for command in commands:
        invocation = run_invocation(command)
        if invocation is None:
            continue
        globals_, args = invocation
        program = command.program()[0]
        box = container_from_args(args, f"`{program} run`", command.pos)
        box.env.extend(global_host(globals_))
        for word in command.assignments:
            name, _, value = word.text.partition("=")
            box.env.append(Setting(name, value, word.pos))
        yield box


def global_host(words: list[Word]) -> Iterator[Setting]:
    """DOCKER_HOST as the global ``-H``/``--host``/``--url`` flags of docker or podman set it."""
    for i, word in enumerate(words):
        name, eq, value = word.text.partition("=")
        if name in ("-H", "--host", "--url"):
            host = value if eq else (words[i + 1].text if i + 1 < len(words) else "")
            yield Setting("DOCKER_HOST", host, word.pos)


def daemon_hosts(words: Sequence[Word]) -> tuple[list[Word], bool]:
    """What ``dockerd ARGS`` listens on: its ``-H``/``--host`` values (each where it is written)
    and whether it verifies its clients' certificates (``--tlsverify``; ``--tls`` alone encrypts
    but lets any client in)."""
    hosts: list[Word] = []
    verify = False
    for index, word in enumerate(words):
        text = word.text
        name, eq, value = text.partition("=")
        following = words[index + 1] if index + 1 < len(words) else None
        if name in ("-H", "--host"):
            if eq:
                hosts.append(Word(value, Pos(word.pos.line, word.pos.column + len(name) + 1)))
            elif following is not None:
                hosts.append(following)
        elif text.startswith("-H") and len(text) > 2 and not text.startswith("--"):
            hosts.append(Word(text[2:], Pos(word.pos.line, word.pos.column + 2)))
        elif name == "--tlsverify":
            verify = go_parse_bool(value) is not False if eq else True
    return hosts, verify


_LOOPBACK = lazy(r"(?i)^(?:localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[?::1\]?)$")


def tcp_scope(address: str) -> str:
    """Who can reach a daemon address: "any" (a TCP address on every interface or a named one),
    "loopback" (this machine's or pod's own), or "" for a unix socket, ``fd://`` or a pipe."""
    text = address.strip().strip("\"'")
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = ("tcp", text) if ":" in text else ("", text)
    if scheme.lower() not in ("tcp", "http"):
        return ""
    host = rest.split("/", 1)[0]
    host = host.rsplit(":", 1)[0] if host.count(":") == 1 or host.endswith("]") or "]:" in host else host
    return "loopback" if _LOOPBACK.match(host) else "any"
