"""Versions the repository already locks, for pinning an MCP server's package (``--fix`` of AM001).

The fix never looks a version up online: it takes the one version that lockfiles or MCP
registry metadata (``server.json``) in the repository name for the package, looking in the
folder of the configuration file first and then in each folder above it up to the scan root.
When files there disagree, or name none, nothing is pinned and a note says why.

Read (each bounded in size, parse failures are notes, never errors):
npm: package-lock.json, npm-shrinkwrap.json, pnpm-lock.yaml, yarn.lock (v1 and berry), bun.lock,
server.json; PyPI: uv.lock, poetry.lock, pylock.toml, requirements.txt (``name==version``
lines, as pip-compile writes them), server.json.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from sandkit.lazy_regex import lazy
from sandkit.syntax.jsonc import load_json
from sandkit.syntax.toml import load_toml_plain

if TYPE_CHECKING:
    from typing import Any

MAX_LOCKFILE_BYTES = 32 * 1024 * 1024
VERSION = {
    "npm": re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]{1,64})?"),
    "pypi": re.compile(r"\d+(?:\.\d+){0,4}(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?"),
}
Versions = dict[str, set[str]]
Reader = Callable[[str], Versions]


def normalise(ecosystem: str, name: str) -> str:
    """PyPI names compare case-insensitively with runs of -, _ and . as one -; npm names exactly."""
    return re.sub(r"[-_.]+", "-", name).lower() if ecosystem == "pypi" else name


class _Collector:
    def __init__(self, ecosystem: str) -> None:
        self.ecosystem = ecosystem
        self.found: Versions = {}

    def add(self, name: Any, version: Any) -> None:
        if isinstance(name, str) and isinstance(version, str) and VERSION[self.ecosystem].fullmatch(version):
            self.found.setdefault(normalise(self.ecosystem, name), set()).add(version)


def _npm_lock(text: str) -> Versions:
    data = load_json(text)
    out = _Collector("npm")
    if not isinstance(data, dict):
        return out.found
    packages = data.get("packages")
    for key, entry in packages.items() if isinstance(packages, dict) else ():
        if not (isinstance(key, str) and key.startswith("node_modules/") and isinstance(entry, dict)):
            continue
        name = key.removeprefix("node_modules/")
        if "/node_modules/" not in key and entry.get("name", name) == name:  # top level, not an alias
            out.add(name, entry.get("version"))
    dependencies = data.get("dependencies")  # lockfile version 1
    for name, entry in dependencies.items() if isinstance(dependencies, dict) else ():
        if isinstance(entry, dict):
            out.add(name, entry.get("version"))
    return out.found


def _pnpm_lock(text: str) -> Versions:
    import importlib

    yaml = importlib.import_module("yaml")  # PyYAML (untyped): libyaml's loader is fast on big lockfiles
    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    out = _Collector("npm")
    if not isinstance(data, dict):
        return out.found
    importers = data.get("importers")
    for importer in importers.values() if isinstance(importers, dict) else [data]:  # lockfile 5 has no importers
        for section in ("dependencies", "devDependencies", "optionalDependencies"):
            entries = importer.get(section) if isinstance(importer, dict) else None
            for name, entry in entries.items() if isinstance(entries, dict) else ():
                version = entry.get("version") if isinstance(entry, dict) else entry
                out.add(name, version.split("(", 1)[0] if isinstance(version, str) else None)
    return out.found


_YARN_VERSION = lazy(r'  version:? "?([^"\s]+)"?\s*$')


def _yarn_name(spec: str) -> str:
    spec = spec.strip().strip('"')
    at = spec.find("@", 1)
    return spec[:at] if at > 0 else spec


def _yarn_lock(text: str) -> Versions:
    out = _Collector("npm")
    names: list[str] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith((" ", "\t")):
            names = [_yarn_name(spec) for spec in line.rstrip().rstrip(":").split(",")]
        elif match := _YARN_VERSION.match(line):
            for name in names:
                out.add(name, match.group(1))
    return out.found


def _bun_lock(text: str) -> Versions:
    from sandkit.lint.syntax.jsonc import load_jsonc

    data = load_jsonc(text)
    out = _Collector("npm")
    packages = data.get("packages") if isinstance(data, dict) else None
    for key, entry in packages.items() if isinstance(packages, dict) else ():
        if isinstance(entry, list) and entry and isinstance(entry[0], str):
            at = entry[0].rfind("@")
            if at > 0 and entry[0][:at] == key:  # the top-level copy ("parent/name" keys are nested)
                out.add(key, entry[0][at + 1 :])
    return out.found


def _registry_metadata(ecosystem: str) -> Reader:
    """An MCP registry ``server.json``: ``packages`` with a registry type, identifier and version."""

    def read(text: str) -> Versions:
        data = load_json(text)
        out = _Collector(ecosystem)
        packages = data.get("packages") if isinstance(data, dict) else None
        for package in packages if isinstance(packages, list) else ():
            if not isinstance(package, dict):
                continue
            kind = package.get("registryType") or package.get("registry_type") or package.get("registry_name")
            if kind == ecosystem:
                out.add(package.get("identifier") or package.get("name"), package.get("version"))
        return out.found

    return read


_LOCAL_SOURCES = frozenset({"editable", "virtual", "path", "directory", "file", "git", "url", "vcs", "archive"})


def _from_an_index(package: dict[str, Any]) -> bool:
    """False for the project itself and for packages from a folder, an archive or git: their
    version may never have been published, so pinning a runner to it would break the server."""
    source = package.get("source")
    if isinstance(source, dict) and (_LOCAL_SOURCES & source.keys() or source.get("type") in _LOCAL_SOURCES):
        return False  # uv.lock: {editable = "."}; poetry.lock: [package.source] type = "directory"
    return not (_LOCAL_SOURCES & package.keys())  # pylock.toml: directory, vcs, archive tables


def _toml_packages(table: str) -> Reader:
    """uv.lock and poetry.lock (``[[package]]``), pylock.toml (``[[packages]]``)."""

    def read(text: str) -> Versions:
        data = load_toml_plain(text)
        out = _Collector("pypi")
        for package in data.get(table, []) if isinstance(data.get(table), list) else ():
            if isinstance(package, dict) and _from_an_index(package):
                out.add(package.get("name"), package.get("version"))
        return out.found

    return read


_REQUIREMENT = lazy(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*==\s*([^\s;#\\]+)")


def _requirements(text: str) -> Versions:
    out = _Collector("pypi")
    for line in text.splitlines():
        if match := _REQUIREMENT.match(line.strip()):
            out.add(match.group(1), match.group(2))
    return out.found


SOURCES: dict[str, tuple[tuple[str, Reader], ...]] = {
    "npm": (
        ("package-lock.json", _npm_lock),
        ("npm-shrinkwrap.json", _npm_lock),
        ("pnpm-lock.yaml", _pnpm_lock),
        ("yarn.lock", _yarn_lock),
        ("bun.lock", _bun_lock),
        ("server.json", _registry_metadata("npm")),
    ),
    "pypi": (
        ("uv.lock", _toml_packages("package")),
        ("poetry.lock", _toml_packages("package")),
        ("pylock.toml", _toml_packages("packages")),
        ("requirements.txt", _requirements),
        ("server.json", _registry_metadata("pypi")),
    ),
}


class LockedVersions:
    """The :class:`sandkit.lint.model.FixContext` of a scan: lockfiles under ``root``, read once."""

    def __init__(self, root: str, note: Callable[[str], None]) -> None:
        self.root = os.path.realpath(root)
        self._note = note
        self._said: set[str] = set()
        self._read_files: dict[tuple[str, str], Versions] = {}

    def note(self, message: str) -> None:
        if message not in self._said:
            self._said.add(message)
            self._note(message)

    def locked_version(self, ecosystem: str, name: str, near: str) -> str | None:
        key = normalise(ecosystem, name)
        for folder in self._folders(near):
            found = {}
            for filename, reader in SOURCES.get(ecosystem, ()):
                rel = f"{folder}/{filename}" if folder else filename
                versions = self._versions(rel, ecosystem, reader).get(key)
                if versions:
                    found[rel] = versions
            if not found:
                continue
            distinct = set().union(*found.values())
            if len(distinct) == 1:
                return distinct.pop()
            named = "; ".join(f"{rel}: {', '.join(sorted(v))}" for rel, v in sorted(found.items()))
            self.note(f"{near}: {name} is not pinned: the repository names more than one version ({named})")
            return None
        self.note(f"{near}: {name} is not pinned: no lockfile or server.json in the repository names its version")
        return None

    @staticmethod
    def _folders(near: str) -> list[str]:
        """The folder of ``near`` and each folder above it, up to the root ("")."""
        parts = near.split("/")[:-1]
        if ".." in parts or near.startswith("/"):
            return [""]
        return ["/".join(parts[:depth]) for depth in range(len(parts), -1, -1)]

    def _versions(self, rel: str, ecosystem: str, reader: Reader) -> Versions:
        cached = self._read_files.get((rel, ecosystem))
        if cached is None:
            cached = self._read_files[(rel, ecosystem)] = self._parse(rel, reader)
        return cached

    def _parse(self, rel: str, reader: Reader) -> Versions:
        path = os.path.realpath(os.path.join(self.root, rel))
        if not path.startswith(self.root.rstrip(os.sep) + os.sep) or not os.path.isfile(path):
            return {}
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_LOCKFILE_BYTES + 1)
        except OSError:
            return {}
        if len(data) > MAX_LOCKFILE_BYTES:
            self.note(f"{rel}: larger than {MAX_LOCKFILE_BYTES} bytes; not read for versions")
            return {}
        try:
            return reader(data.decode("utf-8"))
        except Exception as exc:  # a broken or hostile lockfile is a note, never a crash
            self.note(f"{rel}: could not be read for versions ({type(exc).__name__})")
            return {}
