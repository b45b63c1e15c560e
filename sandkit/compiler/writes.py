"""Whole-or-nothing writes of a build, and the manifest that lets the next build clean up after it.

A build writes into one or two roots: the output folder (``-o``) and, with ``--actions-dir``, the
workflows folder. Each root holds a manifest, :data:`MANIFEST`, that lists what sandkit generated
there, by kit. From it the next build knows which files no kit makes any more (a deleted or
renamed kit, a dropped target) and removes them with the folders they leave empty; ``--check``
fails naming each of them, so a deleted agent's workflow cannot keep running.

Nothing is touched until every kit has compiled and every destination has been checked. Then every
file is written into a temporary folder inside its root (same file system, so the moves cannot
fail half-way on space or a cross-device rename), and only when all of them are written are they
moved into place, orphans removed and the manifest replaced last. A path problem is one line and
exit code 2.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from sandkit.errors import UsageError
from sandkit.kits.reading import PathRefused, inside, read_regular, real

MANIFEST = ".sandkit-manifest.json"
MANIFEST_LIMIT = 4 * 1024 * 1024
STAGING_PREFIX = ".sandkit-staging-"
#: What an earlier build of a kit wrote in its own folder, before manifests (fidelity.json's list).
LEGACY_LIST = "fidelity.json"

KitKey = str  # a kit's path relative to the root holding the manifest


@dataclass
class Root:
    """One folder a build writes into, and what it wants there (paths relative to the folder)."""

    folder: Path
    flag: str
    files: dict[str, bytes] = field(default_factory=dict)
    owners: dict[str, KitKey] = field(default_factory=dict)

    @property
    def real(self) -> Path:
        return real(self.folder)

    def add(self, relative: str, data: bytes, owner: KitKey) -> None:
        self.files[relative] = data
        self.owners[relative] = owner


@dataclass
class RootPlan:
    """What one root gets: its files, the new manifest, and the orphans to remove."""

    root: Root
    manifest: bytes
    orphans: dict[str, KitKey]

    def wanted(self) -> dict[str, bytes]:
        return {**self.root.files, MANIFEST: self.manifest}


def kit_key(root: Root, kit: Path) -> KitKey:
    """How a root's manifest names a kit: its path relative to the root, in POSIX form."""
    return PurePosixPath(Path(os.path.relpath(kit, root.real))).as_posix()


def plan_root(root: Root, in_scope: Callable[[Path], bool]) -> RootPlan:
    """The manifest after this build, and the orphans: files of kits this build was asked about (or
    whose kit file is gone) that no kit makes now. Kits outside the build keep their entries."""
    previous = read_manifest(root)
    kept: dict[KitKey, set[str]] = {}
    orphans: dict[str, KitKey] = {}
    for key, names in previous.items():
        kit = Path(os.path.normpath(root.real / key))
        current = in_scope(kit) or not kit.exists()
        for name in names:
            if name in root.files:
                continue
            if current:
                orphans[name] = key
            else:
                kept.setdefault(key, set()).add(name)
    for name, owner in root.owners.items():
        kept.setdefault(owner, set()).add(name)
    return RootPlan(root, _manifest_bytes(kept), dict(sorted(orphans.items())))


def _manifest_bytes(kits: dict[KitKey, set[str]]) -> bytes:
    document = {
        "$comment": "Written by sandkit build: the files it generated in this folder, by kit. The next "
        "build removes those no kit makes any more. Do not edit.",
        "version": 1,
        "kits": {key: sorted(names) for key, names in sorted(kits.items())},
    }
    return (json.dumps(document, indent=2, ensure_ascii=True) + "\n").encode()


def read_manifest(root: Root) -> dict[KitKey, list[str]]:
    """The previous build's manifest, keeping only entries that are plain relative paths; without a
    manifest, the file lists earlier builds kept in each kit folder (their fidelity.json)."""
    try:
        data = read_regular(root.folder / MANIFEST, MANIFEST_LIMIT)
        document = json.loads(data.decode("utf-8"))
        kits = document["kits"]
        assert isinstance(kits, dict)
    except (PathRefused, ValueError, KeyError, TypeError, AssertionError, UnicodeDecodeError):
        return _legacy_lists(root)
    return {
        str(key): [n for n in names if _plain_relative(n)]
        for key, names in kits.items()
        if isinstance(key, str) and isinstance(names, list)
    }


def _legacy_lists(root: Root) -> dict[KitKey, list[str]]:
    """Before manifests: each kit folder's fidelity.json named its files (kits built now only)."""
    found: dict[KitKey, list[str]] = {}
    for folder in sorted({name.split("/", 1)[0] for name in root.files if "/" in name}):
        try:
            names = json.loads(read_regular(root.folder / folder / LEGACY_LIST, MANIFEST_LIMIT)).get("files", [])
        except (PathRefused, ValueError, AttributeError, UnicodeDecodeError):
            continue
        owner = root.owners.get(f"{folder}/{LEGACY_LIST}")
        if owner is not None and isinstance(names, list):
            found[owner] = [f"{folder}/{n}" for n in names if isinstance(n, str) and _plain_relative(f"{folder}/{n}")]
    return found


def _plain_relative(name: object) -> bool:
    """A manifest entry sandkit could have written: relative, normalised, no '..', no odd bytes."""
    if not isinstance(name, str) or not name or "\\" in name or "\x00" in name or name.startswith("/"):
        return False
    parts = name.split("/")
    return all(part not in ("", ".", "..") for part in parts) and name != MANIFEST


# ----- checks before anything is written ---------------------------------------------------------


def preflight(plans: list[RootPlan]) -> None:
    """Every destination is a folder where a folder goes and a file (or nothing) where a file goes,
    inside its root after links; a UsageError (exit 2) otherwise. Nothing is written."""
    for plan in plans:
        root = plan.root
        if root.folder.exists() and not root.folder.is_dir():
            raise UsageError(f"sandkit build: {root.flag} {root.folder.as_posix()}: is a file, not a folder")
        if not root.folder.exists() and root.folder.is_symlink():
            raise UsageError(f"sandkit build: {root.flag} {root.folder.as_posix()}: is a broken symbolic link")
        for name in plan.wanted():
            _check_destination(root, name)


def _check_destination(root: Root, name: str) -> None:
    path = root.folder
    parts = name.split("/")
    for index, part in enumerate(parts):
        path = path / part
        last = index == len(parts) - 1
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise UsageError(f"sandkit build: cannot write {path.as_posix()}: {exc.strerror}") from None
        if stat.S_ISLNK(info.st_mode) and not inside(real(path), root.real):
            raise UsageError(
                f"sandkit build: {path.as_posix()} is a symbolic link out of {root.folder.as_posix()}; "
                "sandkit writes only inside its output folder"
            )
        if last and path.is_dir():
            raise UsageError(f"sandkit build: {path.as_posix()} is a folder where sandkit writes a file")
        if not last and not path.is_dir():
            raise UsageError(f"sandkit build: {path.as_posix()} is a file where sandkit writes a folder")


# ----- writing -----------------------------------------------------------------------------------


def write(plans: list[RootPlan]) -> None:
    """Stage every file, then move all of them into place; a UsageError (exit 2) if staging fails."""
    preflight(plans)
    created: list[Path] = []
    staged: list[tuple[RootPlan, Path]] = []
    try:
        for plan in plans:
            _make_folder(plan.root.folder, created)
            staged.append((plan, Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=plan.root.folder))))
            for name, data in plan.wanted().items():
                _write_file(staged[-1][1] / name, data)
    except BaseException as exc:  # a full disk, or Ctrl-C: leave no staging folder behind
        for _, staging in staged:
            shutil.rmtree(staging, ignore_errors=True)
        for folder in reversed(created):
            _remove_empty(folder)
        if not isinstance(exc, OSError):
            raise
        where = Path(exc.filename).as_posix() if exc.filename else "the output folder"
        raise UsageError(f"sandkit build: cannot write {where}: {exc.strerror or exc}; nothing written") from None
    for plan, staging in staged:
        _move_into_place(plan, staging)


def _make_folder(folder: Path, created: list[Path]) -> None:
    """Create ``folder`` and its missing parents, outermost first, noting each one made."""
    for missing in reversed([p for p in (folder, *folder.parents) if not p.exists()]):
        missing.mkdir()
        created.append(missing)


def _write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "xb") as stream:
        stream.write(data)
    os.chmod(path, 0o644)


def _move_into_place(plan: RootPlan, staging: Path) -> None:
    root = plan.root.folder
    try:
        for name in sorted(plan.root.files):
            destination = root / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / name, destination)
        remove_orphans(plan)
        os.replace(staging / MANIFEST, root / MANIFEST)
    except OSError as exc:
        raise UsageError(f"sandkit build: cannot write {exc.filename or root}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def remove_orphans(plan: RootPlan) -> None:
    """Delete each orphan (never through a link out of the root) and the folders it leaves empty."""
    root = plan.root
    for name in plan.orphans:
        path = root.folder / name
        if not inside(real(path.parent), root.real) or (path.is_dir() and not path.is_symlink()):
            continue
        try:
            path.unlink()
        except (FileNotFoundError, NotADirectoryError):
            continue  # already gone, or a manifest entry below a file: nothing there to remove
        for folder in _parents_below(root.folder, name):
            if not _remove_empty(folder):
                break


def _parents_below(root: Path, name: str) -> Iterator[Path]:
    parts = name.split("/")[:-1]
    for end in range(len(parts), 0, -1):
        yield root.joinpath(*parts[:end])


def _remove_empty(folder: Path) -> bool:
    try:
        folder.rmdir()
    except OSError:
        return False
    return True


# ----- what a build would do ---------------------------------------------------------------------


def actions(plans: list[RootPlan]) -> list[tuple[str, Path]]:
    """(create | update | same | remove, path) for everything a build would do, in write order."""
    out: list[tuple[str, Path]] = []
    for plan in plans:
        out += [("remove", plan.root.folder / name) for name in plan.orphans]
        out += [(_action(plan.root.folder / n, d), plan.root.folder / n) for n, d in sorted(plan.wanted().items())]
    return out


def _action(path: Path, data: bytes) -> str:
    try:
        current = read_regular(path, len(data))
    except PathRefused as exc:
        return "create" if str(exc) == "not found" else "update"
    return "same" if current == data else "update"
