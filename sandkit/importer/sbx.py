"""A Docker Sandboxes kit (spec.yaml, schemaVersion 2, and its files/ folder) as a sandkit kit.

Field meanings follow docker/sbx-kits-contrib spec/SPEC-v2.md and the decoder in spec/v2.go (commit
cc502cd9). The spec is first checked against sandkit's schema of that grammar, so only what sbx itself
would accept is imported. The kit keeps sbx's own way of running it: ``targets.sbx.image_from: base``
(sbx starts ``image.base`` and runs ``install`` when it creates the sandbox) and the credentials' inject
rules under ``targets.sbx.credentials``, so that building the sbx target gives back the same spec.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path, PurePosixPath
from typing import Any

from sandkit.credentials import credential_kind, is_secret_name
from sandkit.errors import KitError, Location, Problem
from sandkit.importer.result import Imported
from sandkit.importer.source import Ledger, PathKey, problem_with, read_yaml
from sandkit.kits.fields import AbsPath, EnvName, HostPattern, ImageRef, KitName, OctalMode, WorkspaceFile

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "sbx-spec-v2.schema.json"
#: sbx's agent user and home (SPEC-v2 9.1); files/home/ lands here.
SBX_HOME = "/home/agent"
MAX_FILES = 256
MAX_FILE_BYTES = 8 * 1024 * 1024
_SIZE = re.compile(r"([0-9]+)(?:\.([0-9]+))? ?([kKmMgGtTpP])?[iI]?[bB]?")
_UNITS = {None: 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}
_KIT_UNITS = {2**10: "Ki", 2**20: "Mi", 2**30: "Gi", 2**40: "Ti", 2**50: "Pi"}


def import_sbx(path: Path, shown: str) -> Imported:
    root = read_yaml(path, shown)
    _check_grammar(root.plain(), Ledger(root), shown)
    importer = _SbxImport(Ledger(root), path.parent)
    return importer.run(shown)


def _check_grammar(document: Any, ledger: Ledger, shown: str) -> None:
    """Refuse what sbx refuses (strict decoding, its patterns), each problem at its place."""
    import jsonschema

    version = document.get("schemaVersion")
    if version != "2":
        raise KitError(
            [
                Problem(
                    ledger.location("schemaVersion"),
                    f'schemaVersion {version!r}: sandkit imports schemaVersion "2" specs '
                    "(migrate a v1 spec with sbx-kits-contrib's v1 to v2 guide first)",
                )
            ]
        )
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    problems = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
        where = tuple(error.absolute_path)
        message = error.message if len(error.message) < 300 else error.message[:297] + "..."
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = error.schema.get("properties", {})
            extra = [key for key in error.instance if key not in known]
            for key in extra:  # point at each unknown key, as sbx's strict decoder names it
                problems.append(Problem(ledger.location(*where, key), f"not a valid sbx spec: unknown key {key!r}"))
            continue
        problems.append(Problem(ledger.location(*where), f"not a valid sbx spec (schemaVersion 2): {message}"))
    if problems:
        raise KitError(problems)


def memory_quantity(size: str) -> str | None:
    """An sbx byte size (go-units RAMInBytes: k, m, g, ... are powers of 1024) as a kit quantity."""
    match = _SIZE.fullmatch(size.strip())
    if not match:
        return None
    whole, fraction, unit = match.groups()
    factor = _UNITS[unit.lower() if unit else None]
    if not fraction and factor in _KIT_UNITS:
        return f"{whole}{_KIT_UNITS[factor]}"
    value = int(whole) * factor + (int(fraction) * factor // 10 ** len(fraction) if fraction else 0)
    return str(value) if value > 0 else None


def startup_text(argv: list[str]) -> str:
    """An exec-form startup command as the shell line a kit holds (``sh -c X`` gives back X)."""
    if len(argv) == 3 and argv[0] in ("sh", "/bin/sh") and argv[1] == "-c":
        return argv[2]
    return shlex.join(argv)


class _SbxImport:
    def __init__(self, ledger: Ledger, folder: Path) -> None:
        self.ledger = ledger
        self.folder = folder
        self.kit: dict[str, Any] = {"apiVersion": "sandkit/v1"}
        self.sbx: dict[str, Any] = {"image_from": "base"}
        self.files: dict[str, bytes] = {}

    def run(self, shown: str) -> Imported:
        take, leave = self.ledger.take, self.ledger.leave
        is_mixin = take("kind") == "mixin"
        take("schemaVersion")
        self.kit["kind"] = "Mixin" if is_mixin else "Kit"
        self._name()
        if self.ledger.get("description"):
            self.kit["description"] = take("description")
        for key, why in _METADATA.items():
            leave((key,), why)
        if self.ledger.get("security", "privileged") is False:
            take("security")
        leave(("security",), "sandkit never runs an agent privileged")
        self._sandbox(is_mixin)
        self._instructions()
        self._network()
        self._credentials()
        self._environment()
        self._ports()
        self._setup()
        self._files_folder()
        leave(
            ("volumes",), "sandkit manages the sandbox's own storage (workspace, tmpfs home and /tmp; resources.disk)"
        )
        self._placeholders()
        self.ledger.note(
            "sbx mounts or clones the folder you run it in; the kit keeps its default workspace (clone, no repo): "
            "set `workspace` for the other targets",
            "workspace",
        )
        if self.kit["kind"] == "Kit":
            self.kit["targets"] = {"sbx": self.sbx}
        elif "credentials" in self.sbx:
            self.kit["targets"] = {"sbx": {"credentials": self.sbx["credentials"]}}
        return Imported(
            shown, "Docker Sandboxes spec", self.kit, self.files, None, self.ledger.findings(), declared_mixin=is_mixin
        )

    def _name(self) -> None:
        name = self.ledger.get("name")
        if problem_with(KitName, name) is None:
            self.kit["name"] = self.ledger.take("name")
            return
        fitted = re.sub(r"-+$", "", str(name)[:63])
        self.kit["name"] = fitted
        self.ledger.take("name")
        self.ledger.differs(("name",), f"shortened to {fitted!r}: a kit name has at most 63 characters")

    def _sandbox(self, is_mixin: bool) -> None:
        take, leave, get = self.ledger.take, self.ledger.leave, self.ledger.get
        image = self.ledger.take_valid(("sandbox", "image"), ImageRef, "an image reference")
        if image is not None:
            self.kit.setdefault("image", {})["base"] = image
        leave(("sandbox", "build"), "sandkit compiles its own Dockerfile from the kit; this Dockerfile is not read")
        entrypoint = take("sandbox", "entrypoint") or []
        command = get("sandbox", "command")
        default, interactive = (command, None) if isinstance(command, list) else _command_map(command)
        if isinstance(command, list):
            take("sandbox", "command")
        else:
            take("sandbox", "command", "default")
            if interactive is None or interactive == default:
                take("sandbox", "command", "interactive")
            else:
                leave(
                    ("sandbox", "command", "interactive"),
                    "sandkit runs the agent headless; the interactive (TTY) arguments have no equivalent",
                )
        argv = [*entrypoint, *(default or [])]
        if argv:
            self.kit["agent"] = {"command": argv}
        elif not is_mixin:
            self.kit["kind"] = "Mixin"
            self.ledger.note(
                "the spec runs the image's own entrypoint; a kit names its agent.command, so the kit is a Mixin: "
                "extend it from a kit that sets agent.command",
                "sandbox.entrypoint",
            )
        self._resources()

    def _resources(self) -> None:
        take, leave, get = self.ledger.take, self.ledger.leave, self.ledger.get
        cpu = get("sandbox", "resources", "cpu")
        if cpu:
            self.kit.setdefault("resources", {})["cpus"] = float(take("sandbox", "resources", "cpu"))
        elif cpu is not None:
            leave(("sandbox", "resources", "cpu"), "0 means no CPU limit in sbx; a kit always has one (default 2)")
        memory = get("sandbox", "resources", "memory")
        if memory is not None:
            quantity = memory_quantity(str(memory))
            if quantity is None:
                leave(("sandbox", "resources", "memory"), "not a size the kit accepts")
            else:
                take("sandbox", "resources", "memory")
                self.kit.setdefault("resources", {})["memory"] = quantity
        leave(("sandbox", "resources", "gpu"), "sandkit has no GPU setting")

    def _instructions(self) -> None:
        take, get = self.ledger.take, self.ledger.get
        filename = self.ledger.take_valid(("agentInstructions", "filename"), WorkspaceFile, "a file name")
        if filename is not None:
            self.kit.setdefault("agent", {})["instructions_file"] = filename
        content = get("agentInstructions", "content")
        if content is not None:
            self.kit.setdefault("agent", {})["instructions"] = take("agentInstructions", "content")
            if "${WORKDIR}" in content:
                self.ledger.differs(
                    ("agentInstructions", "content"),
                    "sbx replaces ${WORKDIR} with the workspace path; sandkit writes the text as it is",
                )

    def _network(self) -> None:
        network: dict[str, Any] = {}
        for key in ("allow", "deny"):
            entries = self.ledger.get("permissions", "network", key) or []
            kept = []
            for index, entry in enumerate(entries):
                path: PathKey = ("permissions", "network", key, index)
                why = problem_with(HostPattern, entry)
                if why is None:
                    kept.append(self.ledger.take(*path))
                else:
                    self.ledger.leave(path, f"{_pattern_note(str(entry))}{why}")
            if kept:
                network[key] = kept
        if network:
            self.kit["network"] = network

    def _credentials(self) -> None:
        secrets: list[dict[str, Any]] = []
        credentials: dict[str, Any] = {}
        allowed = set(self.kit.get("network", {}).get("allow", []))
        for index, _ in enumerate(self.ledger.get("credentials") or []):
            self._credential(index, secrets, credentials, allowed)
        if secrets:
            self.kit["secrets"] = secrets
        if credentials:
            self.sbx["credentials"] = credentials

    def _credential(
        self, index: int, secrets: list[dict[str, Any]], credentials: dict[str, Any], allowed: set[str]
    ) -> None:
        take, leave, get = self.ledger.take, self.ledger.leave, self.ledger.get
        base: PathKey = ("credentials", index)
        name = get(*base, "apiKey", "name")
        if get(*base, "apiKey") is None:
            leave(base, "an OAuth-only credential: sbx's token exchange through its proxy has no kit equivalent")
            return
        if not name or problem_with(EnvName, name) or name in credentials:
            why = (
                "the proxy injects this key but sets no variable; a kit secret is a variable"
                if not name
                else f"{name!r} is not a variable name the kit accepts, or is declared twice"
            )
            leave(base, why)
            return
        leave((*base, "oauth"), "sbx's OAuth token exchange through its proxy has no kit equivalent")
        leave((*base, "provider"), "a placeholder for sbx's provider registry (no effect in sbx either)")
        service = get(*base, "service")
        if problem_with(KitName, service):
            leave(base, f"service {service!r} is not a lowercase name the kit accepts")
            return
        secret: dict[str, Any] = {"name": take(*base, "apiKey", "name")}
        take(*base, "service")
        if get(*base, "description"):
            secret["description"] = take(*base, "description")
        secret["required"] = bool(take(*base, "required"))
        rules = [self._inject(base, i, allowed) for i, _ in enumerate(get(*base, "apiKey", "inject") or [])]
        credential: dict[str, Any] = {"service": service, "inject": [r for r in rules if r]}
        credential["proxy_managed"] = bool(take(*base, "apiKey", "proxyManaged"))
        secrets.append(secret)
        credentials[name] = credential

    def _inject(self, base: PathKey, index: int, allowed: set[str]) -> dict[str, Any] | None:
        from pydantic import ValidationError

        from sandkit.kits.model import SbxInject

        path: PathKey = (*base, "apiKey", "inject", index)
        rule = self.ledger.get(*path)
        try:
            SbxInject.model_validate(rule)
        except ValidationError as exc:
            self.ledger.leave(path, str(exc.errors(include_url=False)[0]["msg"]).removeprefix("Value error, "))
            return None
        domain = rule["domain"]
        if not any(_covers(entry, domain) for entry in allowed):
            self.ledger.leave(
                path, f"{domain} is not in permissions.network.allow (sbx requires that; the kit refuses it)"
            )
            return None
        self.ledger.take(*path)
        return dict(rule)

    def _environment(self) -> None:
        env: dict[str, str] = {}
        for key in self.ledger.get("environment", "variables") or {}:
            path: PathKey = ("environment", "variables", key)
            value = str(self.ledger.get(*path))
            if is_secret_name(key) or credential_kind(value):
                self.ledger.leave(
                    path, "looks like a secret: its value is not copied; declare it under `secrets` (a reference)"
                )
            elif problem_with(EnvName, key):
                self.ledger.leave(path, "not a variable name the kit accepts")
            else:
                env[key] = str(self.ledger.take(*path))
        if env:
            self.kit["env"] = env
        self.ledger.leave(("environment", "proxyManaged"), "a v1 leftover; sbx itself replaces it (see credentials)")

    def _ports(self) -> None:
        ports = []
        for index, port in enumerate(self.ledger.get("ports") or []):
            entry: dict[str, Any] = {"container": self.ledger.take("ports", index, "container")}
            if port.get("protocol"):
                entry["protocol"] = self.ledger.take("ports", index, "protocol")
            else:
                self.ledger.take("ports", index, "protocol")
            self.ledger.leave(("ports", index, "name"), "an informational label; sandkit ports have none")
            ports.append(entry)
        if ports:
            self.kit["ports"] = ports
            self.ledger.note(
                "sbx publishes ports on an ephemeral 127.0.0.1 port; the kit publishes each on the same port number "
                "(host, host_ip) in the targets that publish ports",
                "ports",
            )

    def _setup(self) -> None:
        take, leave, get = self.ledger.take, self.ledger.leave, self.ledger.get
        install = []
        for index, _ in enumerate(get("setup", "install") or []):
            install.append(take("setup", "install", index, "command"))
            self._user(("setup", "install", index), "0", "sandkit runs install commands as root")
            leave(("setup", "install", index, "description"), "a description; the kit has no comment field")
        if install:
            self.kit["install"] = install
        startup = []
        for index, entry in enumerate(get("setup", "startup") or []):
            text = startup_text(take("setup", "startup", index, "command"))
            if entry.get("background"):
                take("setup", "startup", index, "background")
                text = f"{text} &"
                self.ledger.differs(("setup", "startup", index, "background"), "runs in the background through `&`")
            startup.append(text)
            self._user(("setup", "startup", index), "1000", "sandkit runs startup commands as the agent user")
            leave(("setup", "startup", index, "description"), "a description; the kit has no comment field")
        if startup:
            self.kit["startup"] = startup
        for index, _ in enumerate(get("setup", "files") or []):
            self._setup_file(index)

    def _user(self, base: PathKey, default: str, why: str) -> None:
        user = self.ledger.get(*base, "user")
        if user is None or str(user) == default:
            self.ledger.take(*base, "user")
        else:
            self.ledger.differs((*base, "user"), f"{why}; sbx ran this one as user {user}")
            self.ledger.take(*base, "user")

    def _setup_file(self, index: int) -> None:
        base: PathKey = ("setup", "files", index)
        path = self.ledger.get(*base, "path")
        if problem_with(AbsPath, path) or path in {f["path"] for f in self.kit.get("files", [])}:
            self.ledger.leave(base, "a path the kit does not accept (or the same path twice)")
            return
        spec: dict[str, Any] = {
            "path": self.ledger.take(*base, "path"),
            "content": self.ledger.take(*base, "content") or "",
        }
        mode = self.ledger.get(*base, "mode")
        if mode is not None and problem_with(OctalMode, mode) is None:
            spec["mode"] = self.ledger.take(*base, "mode")
        elif mode is not None:
            self.ledger.leave(
                (*base, "mode"), "the kit takes three-digit modes such as 0644 (no setuid, setgid, sticky)"
            )
        self.ledger.leave((*base, "onlyIfMissing"), "kit files are always written; there is no only-if-missing")
        self.ledger.leave((*base, "description"), "a description; the kit has no comment field")
        if "${WORKDIR}" in spec["content"]:
            self.ledger.differs((*base, "content"), "sbx replaces ${WORKDIR}; sandkit writes the text as it is")
        self.kit.setdefault("files", []).append(spec)

    def _files_folder(self) -> None:
        """files/home/** becomes kit files under /home/agent; files/workspace/** is reported."""
        folder = self.folder / "files"
        if not folder.is_dir():
            return
        found = _walk_files(folder)
        for relative, data, executable in found:
            target, _, rest = relative.partition("/")
            where = f"files/{relative}"
            if target != "home" or not rest:
                self.ledger.note(
                    "files/workspace/ is written into the workspace by sbx; kit files are placed in the image, "
                    "under the workspace a clone or mount would hide them"
                    if target == "workspace"
                    else "sbx ignores files outside files/home/ and files/workspace/",
                    where,
                    "dropped",
                )
                continue
            path = f"{SBX_HOME}/{rest}"
            if problem_with(AbsPath, path) or path in {f["path"] for f in self.kit.get("files", [])}:
                self.ledger.note("a file name the kit does not accept (or a path given twice)", where, "dropped")
                continue
            self.files[where] = data
            self.kit.setdefault("files", []).append(
                {"path": path, "source": where, "mode": "0755" if executable else "0644"}
            )

    def _placeholders(self) -> None:
        """sbx substitutes ${{ kit.args.NAME }} before it reads the spec; the kit keeps the text."""
        for path, value in _strings(self.ledger.root.plain(), ()):
            if "${{" in value and "kit.args" in value:
                self.ledger.differs(path, "holds ${{ kit.args... }}, which sbx substitutes; the kit keeps it literally")


_METADATA = {
    "displayName": "sandkit has one name and a description; the display name is not kept",
    "version": "kit files are versioned by their repository; the kit has no version field",
    "sourceURL": "the kit has no source URL field",
    "licenses": "the kit has no license field",
    "locked": "kits have no lock on inherited fields",
    "extends": "an sbx parent kit; sandkit's `extends` names sandkit presets or kit files (import the parent too)",
    "mixins": "sbx mixins; import each and list it in the kit's `extends`",
    "requires": "sandkit mixins have no base-agent affinity",
    "args": "sbx substitutes kit arguments before it reads the spec; a kit has no arguments",
}


def _command_map(command: Any) -> tuple[list[str] | None, list[str] | None]:
    if isinstance(command, dict):
        return command.get("default"), command.get("interactive")
    return None, None


def _pattern_note(entry: str) -> str:
    if entry.startswith("**.") or "/" in entry or entry.endswith(":*") or re.search(r":\d+-\d+$", entry):
        return "sbx declares this form but does not enforce it this release; "
    return ""


def _covers(entry: str, host: str) -> bool:
    pattern, _, port = entry.partition(":")
    if port and port != "443":
        return False
    if pattern.startswith("*."):
        label, _, rest = host.partition(".")
        return bool(label) and rest == pattern[2:]
    return pattern == host


def _strings(value: Any, path: PathKey) -> list[tuple[PathKey, str]]:
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [item for key, child in value.items() for item in _strings(child, (*path, key))]
    if isinstance(value, list):
        return [item for index, child in enumerate(value) for item in _strings(child, (*path, index))]
    return []


def _walk_files(folder: Path) -> list[tuple[str, bytes, bool]]:
    """Regular files below ``folder`` (no symlinks followed), bounded in number and size."""
    import os
    import stat

    out: list[tuple[str, bytes, bool]] = []
    for directory, subdirs, names in os.walk(folder, followlinks=False):
        subdirs.sort()
        names = [*names, *(d for d in subdirs if (Path(directory) / d).is_symlink())]
        for name in sorted(names):
            full = Path(directory) / name
            info = full.lstat()
            relative = PurePosixPath(full.relative_to(folder).as_posix())
            if not stat.S_ISREG(info.st_mode):
                raise KitError(
                    [Problem(Location(str(full)), "not a regular file (a symlink?); sbx kits may not hold one")]
                )
            if info.st_size > MAX_FILE_BYTES or len(out) >= MAX_FILES:
                raise KitError(
                    [Problem(Location(str(full)), f"files/ holds more than {MAX_FILES} files or one over 8 MiB")]
                )
            out.append((relative.as_posix(), full.read_bytes(), bool(info.st_mode & 0o111)))
    return out
