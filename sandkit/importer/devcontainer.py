"""A dev container (devcontainer.json, and the compose file it names) as a sandkit kit.

Field meanings follow the Dev Container specification (its JSON Schema is in tests/compiler/data) and
the Compose Specification. A dev container names no agent: the kit is a Mixin unless the import is
told which preset to extend (``--extends claude-code``). Its network is open; the kit's is an empty
allowlist until hosts are listed, which the report says.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from sandkit.credentials import credential_kind, is_secret_name
from sandkit.errors import KitError, Location, Problem
from sandkit.importer import privileges
from sandkit.importer.dockerfile import base_image
from sandkit.importer.result import Imported
from sandkit.importer.sbx import memory_quantity
from sandkit.importer.source import Finding, Ledger, PathKey, has_placeholder, problem_with, read_jsonc, read_yaml
from sandkit.kits.fields import AbsPath, EnvName, ImageRef, UserName

_DEVCONTAINER_REASONS = {
    "features": "dev container features are not imported; list their packages under image.packages or install",
    "customizations": "editor settings; the kit describes the sandbox, not the editor",
    "workspaceMount": "sandkit mounts only the workspace, at workspace.path",
    "initializeCommand": "runs on the host before the container starts; the kit has no host step",
    "postAttachCommand": "runs when an editor attaches; a kit has no editor step",
    "hostRequirements": "",
}
_MOUNTS = "sandkit mounts only the workspace (workspace.mode mount)"
_BUILD_REASONS = {
    "args": "a build argument the FROM line does not use; the kit has no build arguments (use install)",
    "target": "the stage the image is taken from",
    "cacheFrom": "build caches are the builder's business, not the kit's",
    "options": "docker build options are not imported",
}
_SERVICE_REASONS = {
    "command": "a dev container's service runs an idle command; the kit runs agent.command",
    "entrypoint": "sandkit's image has its own entrypoint (secrets, workspace, startup, timeout)",
}
#: What a preset's installer needs from the base image: (a word in the image's name that promises it, the
#: runtime, the apt package by which a preset brings it itself, the apt packages that give it on a
#: Debian-like base, or None when Debian's is the wrong one).
_RUNTIMES: dict[str, tuple[str, str, str, tuple[str, ...] | None]] = {
    "npm": ("node", "Node", "nodejs", ("nodejs", "npm")),
    # Debian's python3 is one version (bookworm 3.11) and presets pin packages to their base's Python.
    "pip": ("python", "Python", "python3", None),
}
#: Images known to be Debian or Ubuntu based: by name, by a codename in the tag, or the Docker Library and
#: dev container images built on Debian unless their tag names another distribution.
_DEBIAN_NAMES = re.compile(
    r"(?:^|/)(?:debian|ubuntu|buildpack-deps|python|ruby|golang|rust|openjdk|eclipse-temurin|php|perl|gcc|"
    r"haskell|julia|r-base|maven|gradle|elixir|erlang|node)$|^mcr\.microsoft\.com/devcontainers/"
)
_DEBIAN_TAGS = re.compile(r"(?:^|[-_.])(?:bookworm|bullseye|buster|trixie|jammy|noble|focal)(?:$|[-_.])")
_OTHER_DISTRIBUTIONS = re.compile(r"alpine|windows|nanoserver|servercore|ubi|fedora|centos|rocky|alma|amazonlinux")
_SERVICE_NAMESPACES = ("network_mode", "pid", "ipc", "uts", "userns_mode", "cgroup")
_LIFECYCLE_INSTALL = ("onCreateCommand", "updateContentCommand", "postCreateCommand")


def import_devcontainer(path: Path, shown: str, extends: tuple[str, ...] = ()) -> Imported:
    root = read_jsonc(path, shown)
    project = path.resolve().parent
    if project.name == ".devcontainer":
        project = project.parent
    return _DevcontainerImport(Ledger(root), path.resolve().parent, project, shown, extends).run()


class _DevcontainerImport:
    def __init__(self, ledger: Ledger, folder: Path, project: Path, shown: str, extends: tuple[str, ...]) -> None:
        self.ledger = ledger
        self.folder = folder
        self.project = project
        self.shown = shown
        self.extends = extends
        self.kit: dict[str, Any] = {"apiVersion": "sandkit/v1", "kind": "Kit" if extends else "Mixin"}
        self.findings: list[Finding] = []
        self.workspace_source: Path | None = project

    def run(self) -> Imported:
        self._name()
        compose_files = self.ledger.get("dockerComposeFile")
        if compose_files is not None:
            self._compose(compose_files if isinstance(compose_files, list) else [compose_files])
        self._image()
        self._environment(("containerEnv",))
        self._environment(("remoteEnv",))
        self._user()
        self._workspace()
        self._ports()
        self._host_requirements()
        self._lifecycle()
        self._privileges()
        for key, reason in _DEVCONTAINER_REASONS.items():
            if reason:
                self.ledger.leave((key,), reason)
        self.ledger.take("$schema")
        self.ledger.note(
            "a dev container's network is open; the kit holds egress to network.allow, which this import leaves "
            "empty (plus what an extended preset allows): list the hosts the agent needs",
            "network",
        )
        if self.extends:
            self._preset_runtimes()
            self.ledger.note(
                f"a dev container names no agent: the agent is the one --extends {' '.join(self.extends)} gives",
                "agent",
            )
        else:
            self.ledger.note(
                "a dev container names no agent: the kit is a Mixin unless imported with --extends PRESET", "agent"
            )
        return Imported(
            self.shown,
            "dev container",
            self.kit,
            {},
            self.workspace_source,
            sorted(set(self.ledger.findings() + self.findings)),
        )

    def _name(self) -> None:
        name = self.ledger.take("name")
        slug = re.sub(r"[^a-z0-9-]+", "-", str(name or self.project.name).lower()).strip("-")[:63].strip("-")
        self.kit["name"] = slug or "imported"
        if name:
            self.kit["description"] = f"Imported from the dev container {name}"

    def _image(self) -> None:
        get, leave = self.ledger.get, self.ledger.leave
        #: build.dockerfile, or the legacy top-level dockerFile the devcontainer CLI still reads (likewise context)
        dockerfile = next((k for k in (("build", "dockerfile"), ("dockerFile",)) if get(*k) is not None), None)
        context = next((k for k in (("build", "context"), ("context",)) if get(*k) is not None), None)
        if "image" in self.kit:
            for setting in (("image",), ("build",), ("dockerFile",), ("context",)):
                leave(setting, "the compose service's image is used")
            return
        image = self.ledger.take_valid(("image",), ImageRef, "an image reference")
        if image is not None:
            self.kit["image"] = {"base": image}
        if dockerfile is not None and "image" not in self.kit:
            if context is not None:
                self.ledger.take(*context)
            arguments = get("build", "args")
            arguments = {str(k): str(v) for k, v in arguments.items()} if isinstance(arguments, dict) else {}
            target = get("build", "target")
            # The Dockerfile is relative to devcontainer.json (the spec), not to the build context.
            used = self._from_dockerfile(
                self.folder / str(get(*dockerfile)), self.ledger, dockerfile, arguments, target
            )
            for name in used & set(arguments):
                self.ledger.take("build", "args", name)
            if target is not None:
                self.ledger.take("build", "target")
        elif dockerfile is not None:
            leave(dockerfile, "the image named by `image` is used")
        for argument in get("build", "args") or {}:
            leave(("build", "args", str(argument)), _BUILD_REASONS["args"])
        for key, why in _BUILD_REASONS.items():
            if key != "args":
                leave(("build", key), why)

    def _from_dockerfile(
        self, path: Path, ledger: Ledger, where: PathKey, arguments: dict[str, str], target: Any
    ) -> set[str]:
        """image.base from the Dockerfile's final (or target) stage; the build arguments its FROM used."""
        text = _read_confined(path, self.project, ledger.location(*where))
        found = base_image(text, arguments, str(target) if target is not None else None)
        if not found.written:
            ledger.leave(where, "the Dockerfile has no FROM line")
            return set()
        if found.missing:
            ledger.leave(
                where,
                f"its FROM image {found.written!r} uses the build argument(s) {', '.join(found.missing)}, with no "
                "default and no value in the build's arguments: set image.base",
            )
            return set()
        why = problem_with(ImageRef, found.image)
        if why:
            ledger.leave(where, f"its FROM image {found.image!r} is not an image reference the kit accepts: {why}")
            return set(found.arguments)
        ledger.take(*where)
        self.kit.setdefault("image", {})["base"] = found.image
        said = [f"image.base is its FROM image {found.written!r}"]
        if found.arguments:
            said.append(
                "with the build argument(s) "
                + "; ".join(f"{name}={value} ({origin})" for name, (value, origin) in found.arguments.items())
            )
        if found.other_instructions:
            said.append(f"its other {found.other_instructions} instruction(s) are not imported (use install)")
        if len(said) > 1:
            ledger.differs(where, " ".join(said[:2]) + ("; " + said[2] if len(said) > 2 else ""))
        return set(found.arguments)

    def _preset_runtimes(self) -> None:
        """A preset that installs npm or pip packages relies on its base image's Node or Python: over the dev
        container's base, the kit gets Debian's nodejs and npm where that base is Debian-like, and is
        refused (nothing written, the reason said) where the runtime cannot be promised, rather than
        compiling into an image whose build stops at ``npm: not found``."""
        from sandkit.kits.extends import PRESET_DIR, load_merged, preset_names

        base = self.kit.get("image", {}).get("base")
        if not base:
            return
        repository, tag = _split_image(base)
        for name in self.extends:
            if name not in preset_names():
                continue  # a kit file of the user's own: its author knows its base
            preset = load_merged(PRESET_DIR / f"{name}.yaml", name).plain().get("image", {})
            packages = preset.get("packages", {})
            for installer, (word, runtime, brought, apt) in _RUNTIMES.items():
                if not packages.get(installer) or brought in packages.get("apt", []):
                    continue  # nothing to install, or the preset brings its runtime itself
                preset_tag = _split_image(preset["base"])[1]
                if word in repository.rsplit("/", 1)[-1] and (apt or _same_version(tag, preset_tag)):
                    continue
                if apt and _debian_like(repository, tag):
                    listed = self.kit["image"].setdefault("packages", {}).setdefault("apt", [])
                    listed += [p for p in apt if p not in listed]
                    self.ledger.note(
                        f"--extends {name} installs {installer} packages with the {runtime} of its base image "
                        f"{preset['base']}; over {base} the kit adds Debian's {' and '.join(apt)} "
                        f"(image.packages.apt), which may be older than that image's",
                        "image.packages.apt",
                    )
                    continue
                raise KitError(
                    [
                        Problem(
                            self.ledger.location("image") if self.ledger.get("image") else Location(self.shown),
                            f"--extends {name}: the preset installs {installer} packages with the {runtime} of its "
                            f"base image {preset['base']}, and nothing says {base} has "
                            + ("it" if apt else f"that {runtime} ({preset_tag.split('-')[0]})")
                            + (" or is Debian-based (apt)" if apt else "")
                            + f"; nothing was written: import without --extends, or with an image.base that has "
                            f"{runtime} (e.g. {preset['base']})",
                        )
                    ]
                )

    def _privileges(self) -> None:
        """Each privilege, host namespace and host mount the dev container asks for, refused by name."""
        get, leave = self.ledger.get, self.ledger.leave
        if get("privileged") is not None:
            leave(("privileged",), privileges.privileged() if get("privileged") is True else "sandkit's default")
        for key, explain in (("capAdd", privileges.capability), ("securityOpt", privileges.security_option)):
            for index, value in enumerate(_items(get(key))):
                leave((key, index) if isinstance(get(key), list) else (key,), explain(str(value)))
        args = get("runArgs")
        if isinstance(args, list):
            for index, count, why in privileges.run_args([str(a) for a in args]):
                leave(("runArgs", index), why)
                for value in range(index + 1, index + count):
                    self.ledger.take("runArgs", value)  # the flag's value: reported with the flag
        else:
            leave(("runArgs",), privileges.RUN_ARGS)
        mounts = get("mounts")
        for index, entry in enumerate(_items(mounts)):
            why = privileges.mount(privileges.mount_source(entry)) or _MOUNTS
            leave(("mounts", index) if isinstance(mounts, list) else ("mounts",), why)

    def _compose(self, names: list[Any]) -> None:
        service_name = self.ledger.take("service")
        self.ledger.take("dockerComposeFile")
        self.ledger.leave(("runServices",), "sandkit runs one agent container and its egress proxy")
        for index, name in enumerate(names):
            path = self.folder / str(name)
            _read_confined(
                path,
                self.project,
                self.ledger.location("dockerComposeFile", index)
                if len(names) > 1
                else self.ledger.location("dockerComposeFile"),
            )
            compose = Ledger(read_yaml(path, _display(path)))
            for other in compose.get("services") or {}:
                if other != service_name:
                    compose.leave(("services", other), "sandkit runs one agent container and its egress proxy")
            if service_name in (compose.get("services") or {}):
                _ComposeService(self, compose, ("services", service_name), path.parent).run()
            self.findings += compose.findings()

    def _environment(self, where: PathKey) -> None:
        for key in self.ledger.get(*where) or {}:
            self.put_env(self.ledger, (*where, key), str(key), self.ledger.get(*where, key))

    def put_env(self, ledger: Ledger, path: PathKey, key: str, value: Any) -> None:
        text = "" if value is None else str(value)
        if is_secret_name(key) or credential_kind(text):
            ledger.leave(path, "looks like a secret: its value is not copied; declare it under `secrets` (a reference)")
        elif problem_with(EnvName, key):
            ledger.leave(path, "not a variable name the kit accepts")
        elif has_placeholder(text):
            ledger.leave(path, "refers to another variable (${...}), which the kit does not expand; set the value")
        else:
            ledger.take(*path)
            self.kit.setdefault("env", {})[key] = text

    def _user(self) -> None:
        for key in ("remoteUser", "containerUser"):
            user = self.ledger.get(key)
            if user is None:
                continue
            why = problem_with(UserName, user)
            if why:
                self.ledger.leave((key,), why)
            elif self.kit.get("image", {}).get("user") in (None, user):
                self.kit.setdefault("image", {})["user"] = self.ledger.take(key)
        self.ledger.leave(("updateRemoteUserUID",), "the kit sets the agent's uid (image.uid)")

    def _workspace(self) -> None:
        folder = self.ledger.get("workspaceFolder")
        workspace: dict[str, Any] = self.kit.setdefault("workspace", {"mode": "mount"})
        if folder is not None:
            if problem_with(AbsPath, folder):
                self.ledger.leave(("workspaceFolder",), "not a path the kit accepts (a ${...} variable?)")
            else:
                workspace["path"] = self.ledger.take("workspaceFolder")
        if self.workspace_source is None:
            self.kit.pop("workspace")

    def _ports(self) -> None:
        for key in ("forwardPorts", "appPort"):
            value = self.ledger.get(key)
            entries = value if isinstance(value, list) else [value] if value is not None else []
            for index, entry in enumerate(entries):
                where: PathKey = (key, index) if isinstance(value, list) else (key,)
                service, _, number = str(entry).rpartition(":")
                port = _port_number(number)
                if service and service != self.ledger.get("service"):
                    self.ledger.leave(where, "a port of another service; sandkit runs only the agent's container")
                elif port is None:
                    self.ledger.leave(where, "not a port number the kit accepts")
                else:
                    self.ledger.take(*where)
                    self.add_port({"container": port})
        self.ledger.leave(("portsAttributes",), "labels and editor behaviour of forwarded ports")
        self.ledger.leave(("otherPortsAttributes",), "editor behaviour of forwarded ports")

    def add_port(self, port: dict[str, Any]) -> None:
        ports = self.kit.setdefault("ports", [])
        if all(p["container"] != port["container"] for p in ports):
            ports.append(port)

    def _host_requirements(self) -> None:
        get, take = self.ledger.get, self.ledger.take
        resources = self.kit.setdefault("resources", {})
        for key, field in (("cpus", "cpus"), ("memory", "memory"), ("storage", "disk")):
            value = get("hostRequirements", key)
            if value is None:
                continue
            if field in resources:
                self.ledger.leave(("hostRequirements", key), f"the compose service's own limit is the kit's {field}")
                continue
            quantity = float(value) if key == "cpus" else memory_quantity(str(value))
            if quantity:
                take("hostRequirements", key)
                resources[field] = quantity
                self.ledger.differs(
                    ("hostRequirements", key), f"a minimum of the host there; a limit in the kit ({field})"
                )
        if not resources:
            self.kit.pop("resources")
        self.ledger.leave(("hostRequirements", "gpu"), "sandkit has no GPU setting")

    def _lifecycle(self) -> None:
        for key in _LIFECYCLE_INSTALL:
            commands = self._commands((key,))
            if commands:
                self.kit.setdefault("install", []).extend(commands)
                self.ledger.differs(
                    (key,), "ran once in the created container as its user; a kit's install runs as root at image build"
                )
        commands = self._commands(("postStartCommand",))
        if commands:
            self.kit.setdefault("startup", []).extend(commands)
        self.ledger.leave(("waitFor",), "sandkit runs install at build and startup before the agent, in order")

    def _commands(self, where: PathKey) -> list[str]:
        value = self.ledger.get(*where)
        if value is None:
            return []
        self.ledger.take(*where)
        forms = list(value.values()) if isinstance(value, dict) else [value]
        return [form if isinstance(form, str) else shlex.join(str(a) for a in form) for form in forms if form]


class _ComposeService:
    """One compose service (the one the dev container opens) folded into the kit."""

    def __init__(self, parent: _DevcontainerImport, ledger: Ledger, base: PathKey, folder: Path) -> None:
        self.parent = parent
        self.ledger = ledger
        self.base = base
        self.folder = folder

    def run(self) -> None:
        get, take, base = self.ledger.get, self.ledger.take, self.base
        for key, reason in _SERVICE_REASONS.items():
            self.ledger.leave((*base, key), reason)
        self._privileges()
        image = get(*base, "image")
        if image is not None and not problem_with(ImageRef, image):
            self.parent.kit.setdefault("image", {})["base"] = take(*base, "image")
        build = get(*base, "build")
        if build is not None and "base" not in self.parent.kit.get("image", {}):
            context = self.folder / str(build if isinstance(build, str) else build.get("context", "."))
            dockerfile = "Dockerfile" if isinstance(build, str) else str(build.get("dockerfile", "Dockerfile"))
            where = (
                (*base, "build")
                if isinstance(build, str) or "dockerfile" not in build
                else (*base, "build", "dockerfile")
            )
            arguments = _compose_args(build.get("args") if isinstance(build, dict) else None)
            target = build.get("target") if isinstance(build, dict) else None
            used = self.parent._from_dockerfile(context / dockerfile, self.ledger, where, arguments, target)
            if isinstance(build, dict):
                self.ledger.take(*base, "build", "context")
                if target is not None:
                    self.ledger.take(*base, "build", "target")
                self._build_args(build.get("args"), used)
        self._environment()
        for index, entry in enumerate(get(*base, "ports") or []):
            port = _compose_port(entry)
            if port is None:
                self.ledger.leave((*base, "ports", index), "not a single port mapping the kit accepts")
            else:
                take(*base, "ports", index)
                self.parent.add_port(port)
        self._user()
        self._volumes()
        self._limits()

    def _privileges(self) -> None:
        get, leave, base = self.ledger.get, self.ledger.leave, self.base
        if get(*base, "privileged") is not None:
            leave(
                (*base, "privileged"),
                privileges.privileged() if get(*base, "privileged") is True else "sandkit's default",
            )
        for key, reason in (
            ("cap_add", privileges.capability),
            ("security_opt", privileges.security_option),
            ("devices", privileges.device),
        ):
            value = get(*base, key)
            for index, item in enumerate(_items(value)):
                leave((*base, key, index) if isinstance(value, list) else (*base, key), reason(str(item)))
        for key in _SERVICE_NAMESPACES:
            if get(*base, key) is not None:
                leave((*base, key), privileges.namespace(key, str(get(*base, key))))

    def _build_args(self, arguments: Any, used: set[str]) -> None:
        """The build arguments the FROM line used are taken; the others are reported."""
        if isinstance(arguments, dict):
            entries: list[tuple[str | int, str]] = [(str(name), str(name)) for name in arguments]
        else:
            entries = [(index, str(a).partition("=")[0]) for index, a in enumerate(_items(arguments))]
        for key, name in entries:
            where = (*self.base, "build", "args", key)
            if name in used:
                self.ledger.take(*where)
            else:
                self.ledger.leave(where, _BUILD_REASONS["args"])

    def _environment(self) -> None:
        env = self.ledger.get(*self.base, "environment")
        items = env.items() if isinstance(env, dict) else (str(e).partition("=")[::2] for e in env or [])
        for index, (key, value) in enumerate(items):
            where = (*self.base, "environment", key if isinstance(env, dict) else index)
            self.parent.put_env(self.ledger, where, str(key), value)

    def _user(self) -> None:
        user = self.ledger.get(*self.base, "user")
        if user is None:
            return
        name = str(user).split(":")[0]
        image = self.parent.kit.setdefault("image", {})
        if name.isdigit() and int(name) > 0:
            image["uid"] = int(name)
            self.ledger.take(*self.base, "user")
        elif not problem_with(UserName, name):
            image.setdefault("user", name)
            self.ledger.take(*self.base, "user")
        else:
            self.ledger.leave((*self.base, "user"), "the agent never runs as root")

    def _volumes(self) -> None:
        target = self.parent.kit.get("workspace", {}).get("path") or self.parent.ledger.get("workspaceFolder")
        self.parent.workspace_source = None
        for index, entry in enumerate(self.ledger.get(*self.base, "volumes") or []):
            source, mount_target, mode = _bind(entry)
            where = (*self.base, "volumes", index)
            if source is not None and mount_target is not None and mount_target == target:
                self.ledger.take(*where)
                self.parent.workspace_source = (self.folder / source).resolve()
                if mode == "ro":
                    self.parent.kit.setdefault("workspace", {})["mode"] = "mount-readonly"
            else:
                socket = privileges.mount(source) if source is not None else None
                self.ledger.leave(where, socket or "sandkit mounts only the workspace (the volume at workspaceFolder)")

    def _limits(self) -> None:
        base, get, take = self.base, self.ledger.get, self.ledger.take
        resources = self.parent.kit.setdefault("resources", {})
        for path, field in (
            ((*base, "cpus"), "cpus"),
            ((*base, "deploy", "resources", "limits", "cpus"), "cpus"),
            ((*base, "mem_limit"), "memory"),
            ((*base, "deploy", "resources", "limits", "memory"), "memory"),
            ((*base, "pids_limit"), "pids"),
            ((*base, "deploy", "resources", "limits", "pids"), "pids"),
        ):
            value = get(*path)
            if value is None:
                continue
            if field == "memory":
                quantity = memory_quantity(str(value))
                if quantity:
                    resources[field] = quantity
                    take(*path)
            elif field == "cpus" and float(value) > 0:
                resources[field] = float(take(*path))
            elif field == "pids" and 16 <= int(value) <= 4_194_304:
                resources[field] = int(take(*path))


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def _read_confined(path: Path, project: Path, where: Location) -> str:
    """A file the dev container names, only inside its project folder, bounded like every input."""
    resolved = path.resolve()
    if resolved != project and project not in resolved.parents:
        raise KitError([Problem(where, f"{path} is outside the project folder {project}; not read")])
    if not resolved.is_file():
        raise KitError([Problem(where, f"{path} not found")])
    with resolved.open("rb") as stream:
        data = stream.read(1024 * 1024 + 1)
    if len(data) > 1024 * 1024:
        raise KitError([Problem(where, f"{path} is larger than 1 MiB")])
    return data.decode("utf-8", "replace")


def _split_image(image: str) -> tuple[str, str]:
    """(repository, tag) of an image reference; the tag is "" when none is written."""
    name = image.split("@", 1)[0]
    repository, colon, tag = name.rpartition(":")
    if not colon or "/" in tag:
        return name, ""
    return repository, tag


def _debian_like(repository: str, tag: str) -> bool:
    if _OTHER_DISTRIBUTIONS.search(tag) or _OTHER_DISTRIBUTIONS.search(repository.rsplit("/", 1)[-1]):
        return False
    return bool(_DEBIAN_TAGS.search(tag) or _DEBIAN_NAMES.search(repository))


def _same_version(tag: str, wanted: str) -> bool:
    """Whether ``tag`` names the runtime version ``wanted`` names (``3.12-slim`` and ``3.12-bookworm``)."""
    version = re.match(r"\d+(?:\.\d+)?", wanted)
    return version is None or re.match(rf"{re.escape(version.group())}(?!\d)", tag) is not None


def _items(value: Any) -> list[Any]:
    """A list, or a single value as a list of one (None: empty)."""
    return value if isinstance(value, list) else [] if value is None else [value]


def _compose_args(arguments: Any) -> dict[str, str]:
    """A compose build's ``args``, mapping or ``[NAME=value]`` list; a name without a value is left out."""
    if isinstance(arguments, dict):
        return {str(k): str(v) for k, v in arguments.items() if v is not None}
    pairs = (str(a).partition("=") for a in arguments or [])
    return {name: value for name, eq, value in pairs if eq}


def _port_number(text: str) -> int | None:
    return int(text) if text.isdigit() and 1 <= int(text) <= 65535 else None


def _compose_port(entry: Any) -> dict[str, Any] | None:
    """A compose port (short "[ip:][host:]container[/proto]" or long form) as a kit port."""
    if isinstance(entry, dict):
        container = _port_number(str(entry.get("target", "")))
        published = entry.get("published")
        host_ip, protocol = entry.get("host_ip"), entry.get("protocol", "tcp")
    else:
        text, _, protocol = str(entry).partition("/")
        parts = text.rsplit(":", 2)
        container = _port_number(parts[-1])
        published = parts[-2] if len(parts) >= 2 else None
        host_ip = parts[0] if len(parts) == 3 else None
        protocol = protocol or "tcp"
    if container is None or protocol not in ("tcp", "udp"):
        return None
    port: dict[str, Any] = {"container": container}
    if published is not None:
        host = _port_number(str(published))
        if host is None:
            return None
        port["host"] = host
    if host_ip:
        port["host_ip"] = host_ip
    if protocol != "tcp":
        port["protocol"] = protocol
    return port


def _bind(entry: Any) -> tuple[str | None, str | None, str]:
    """(source, target, mode) of a compose bind mount, short or long form."""
    if isinstance(entry, dict):
        if entry.get("type") != "bind":
            return None, None, "rw"
        return entry.get("source"), entry.get("target"), "ro" if entry.get("read_only") else "rw"
    parts = str(entry).split(":")
    if len(parts) < 2 or not parts[0].startswith((".", "/")):
        return None, None, "rw"
    return parts[0], parts[1], parts[2] if len(parts) > 2 else "rw"
