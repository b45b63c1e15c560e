"""Where a kit, its parents and the files it names are read from.

The loader does every read through a :class:`KitFiles`: the file system by default, or a git
revision read as data (``sandkit diff``, :mod:`sandkit.review.gitfiles`), so that ``extends`` and
``files[].source`` resolve inside the revision being reviewed and never in the working tree.
Bundled presets always come from the installed package.

On the file system a kit reaches only its own repository: every path it names must resolve, after
following links, inside ``root`` (the git top level above the kit, its own folder outside git, or
what ``--root`` says), and is read with a bounded read that never trusts ``stat``.
"""

from __future__ import annotations

from pathlib import Path

from sandkit.kits.reading import PathRefused, inside, read_regular, real, repository_root
from sandkit.kits.yamlnodes import Node, load_yaml_nodes

__all__ = ["FILE_SYSTEM", "KitFiles", "PathRefused", "repository_root"]


class KitFiles:
    """The file system, as ``sandkit validate`` and ``build`` read it; confined below ``root`` when given."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = real(root) if root is not None else None

    def resolve(self, folder: Path, relative: str) -> Path:
        """``relative`` (as written in a kit below ``folder``) as an absolute path, or PathRefused."""
        resolved = real(folder / relative)
        self.check_inside(resolved, relative)
        return resolved

    def check_inside(self, resolved: Path, shown: str) -> None:
        """PathRefused when ``resolved`` lies outside the kit's repository."""
        if self.root is not None and not inside(resolved, self.root):
            raise PathRefused(
                f"{shown} leads outside the kit's repository ({self.root.as_posix()}); a kit may name only "
                "files inside it (`--root DIR` sets another top folder)"
            )

    def identity(self, path: Path) -> str:
        """One string per file, so that ``extends`` cycles are found however a path is spelled."""
        return str(real(path))

    def is_file(self, path: Path) -> bool:
        return path.is_file()

    def is_dir(self, path: Path) -> bool:
        return path.is_dir()

    def size(self, path: Path) -> int:
        return path.stat().st_size

    def read_bytes(self, path: Path, limit: int) -> bytes:
        """At most ``limit + 1`` bytes of the regular file ``path`` (more than ``limit``: too large)."""
        return read_regular(path, limit)

    def load_nodes(self, path: Path, display: str) -> Node:
        return load_yaml_nodes(path, display)

    def display(self, path: Path) -> str:
        """Relative to the working folder when below it, absolute otherwise."""
        try:
            return real(path).relative_to(Path.cwd()).as_posix()
        except ValueError:
            return path.as_posix()


FILE_SYSTEM = KitFiles()
