"""Where a kit, its parents and the files it names are read from.

The loader does every read through a :class:`KitFiles`: the file system by default, or a git
revision read as data (``sandkit diff``, :mod:`sandkit.review.gitfiles`), so that ``extends`` and
``files[].source`` resolve inside the revision being reviewed and never in the working tree.
Bundled presets always come from the installed package.
"""

from __future__ import annotations

from pathlib import Path

from sandkit.kits.yamlnodes import Node, load_yaml_nodes


class PathRefused(Exception):
    """A path a kit names that the reader will not follow; the message says why, in words."""


class KitFiles:
    """The file system, as ``sandkit validate`` and ``build`` read it."""

    def resolve(self, folder: Path, relative: str) -> Path:
        """``relative`` (as written in a kit below ``folder``) as an absolute path, or PathRefused."""
        return (folder / relative).resolve()

    def identity(self, path: Path) -> str:
        """One string per file, so that ``extends`` cycles are found however a path is spelled."""
        return str(path.resolve())

    def is_file(self, path: Path) -> bool:
        return path.is_file()

    def is_dir(self, path: Path) -> bool:
        return path.is_dir()

    def size(self, path: Path) -> int:
        return path.stat().st_size

    def read_bytes(self, path: Path) -> bytes:
        return path.read_bytes()

    def load_nodes(self, path: Path, display: str) -> Node:
        return load_yaml_nodes(path, display)

    def display(self, path: Path) -> str:
        """Relative to the working folder when below it, absolute otherwise."""
        try:
            return path.resolve().relative_to(Path.cwd()).as_posix()
        except ValueError:
            return path.as_posix()


FILE_SYSTEM = KitFiles()
