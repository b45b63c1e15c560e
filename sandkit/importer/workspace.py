"""Where an imported kit's workspace comes from when its project lies outside the kit's repository.

A dev container mounts its own project folder, and the importer writes that as ``workspace.source``
relative to the kit. A kit may name only paths inside its repository (``sandkit validate`` refuses the
rest, so that a kit from a pull request cannot mount ``/home``), and that rule stays. Importing into a
central kits repository, the usual place for a platform team's kits, puts the project outside it. So
the importer does not write a path the kit could not hold: the workspace becomes a clone of the
project's ``origin`` when that is an ``https://`` URL without credentials (its host allowed, as a clone
needs), and otherwise an empty folder (``mode: none``); the report says which, and why.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from sandkit.errors import Location
from sandkit.importer.result import Imported
from sandkit.importer.source import Finding, problem_with
from sandkit.kits.fields import RepoURL
from sandkit.kits.reading import PathRefused, inside, read_regular, real

_CONFIG_LIMIT = 64 * 1024
_SECTION = re.compile(r"^\s*\[\s*remote\s+\"origin\"\s*\]\s*$", re.IGNORECASE)
_URL = re.compile(r"^\s*url\s*=\s*(\S+)\s*$", re.IGNORECASE)


def git_origin(project: Path) -> str | None:
    """The ``url`` of the ``origin`` remote in ``project/.git/config`` (bounded, links not followed)."""
    try:
        text = read_regular(project / ".git" / "config", _CONFIG_LIMIT).decode("utf-8", "replace")
    except PathRefused:
        return None
    in_origin = False
    for line in text.splitlines():
        if line.lstrip().startswith("["):
            in_origin = bool(_SECTION.match(line))
        elif in_origin and (match := _URL.match(line)):
            return match.group(1)
    return None


def place_workspace(imported: Imported, root: Path) -> None:
    """Keep the mount when the project is inside the kit's repository ``root``; else clone or empty."""
    source = imported.workspace_source
    if source is None or inside(real(source), root):
        return
    kit = imported.kit
    workspace = kit.setdefault("workspace", {})
    workspace.pop("git", None)
    why = (
        f"the project folder {source.as_posix()} is outside the kit's repository ({root.as_posix()}), and a kit "
        "mounts only folders inside it (`--root DIR` moves that bound)"
    )
    origin = git_origin(source)
    usable = origin is not None and origin.startswith("https://") and not problem_with(RepoURL, origin)
    if origin is not None and usable and urlsplit(origin).username is None:
        host = urlsplit(origin).hostname or ""
        workspace.update(mode="clone", repo=origin)
        allow = kit.setdefault("network", {}).setdefault("allow", [])
        if host not in allow:
            allow.append(host)
        finding = Finding(
            Location(imported.source, 1, 1),
            "workspace",
            "differs",
            f"{why}: the workspace is a clone of its origin {origin}, and network.allow gets {host} for it",
        )
    else:
        workspace["mode"] = "none"
        if origin is None:
            what = "it has no git origin"
        elif "@" in (urlsplit(origin).netloc if "://" in origin else ""):
            what = "its origin's URL holds credentials, which are never copied"
        else:
            what = "its origin is not an https:// URL (an ssh clone needs known_hosts)"
        finding = Finding(
            Location(imported.source, 1, 1),
            "workspace",
            "dropped",
            f"{why}, and {what}: the workspace is an empty folder (mode none); set workspace.repo to clone it",
        )
    imported.workspace_source = None
    imported.findings = sorted({*imported.findings, finding})
