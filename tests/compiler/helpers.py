"""Compile kits in memory from the repository root, as CI does."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sandkit.compiler.command import KitOutput, compile_kit
from sandkit.compiler.targets import NAMES
from tests.conftest import REPO

EXAMPLES = sorted((REPO / "examples").glob("*/kit.yaml"))
OWN_KITS = sorted((REPO / "kits").glob("*.yaml"))


@contextmanager
def in_folder(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def committed_output_folder(kit: Path) -> Path:
    """Examples keep their output beside them; this repository's kits in sandbox/."""
    return kit.parent / "sandbox" if kit.parent.parent.name == "examples" else REPO / "sandbox"


def compile_from_repo(kit: Path, output: Path | None = None, targets: list[str] | None = None) -> KitOutput:
    """``targets`` None: the kit's own ``targets.build`` (as `sandkit build` without --target), else all."""
    with in_folder(REPO):
        relative = kit.relative_to(REPO)
        out = (output or committed_output_folder(kit)).relative_to(REPO) if output is None else output
        return compile_kit(relative, out, targets)


def compile_text(folder: Path, text: str, targets: list[str] | None = None, name: str = "kit.yaml") -> KitOutput:
    """Write ``text`` as folder/NAME and compile it (into folder/out) for ``targets`` (default: all)."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return compile_kit(path, folder / "out", targets or list(NAMES))


def schema_problems(builtin: str, path: Path) -> str:
    """What check-jsonschema's built-in schema ``builtin`` finds wrong with ``path`` ("" when valid)."""
    done = subprocess.run(
        ["check-jsonschema", "--builtin-schema", builtin, str(path)], capture_output=True, text=True, check=False
    )
    return "" if done.returncode == 0 else done.stdout + done.stderr


#: The Dev Containers reference CLI the tests open sandboxes with, installed once into the test cache.
DEVCONTAINER_CLI_VERSION = "0.89.0"


def devcontainer_cli() -> Path:
    """The CLI's executable, installed with npm under $SANDKIT_TEST_CACHE (~/.cache/sandkit-tests) when missing."""
    cache = Path(os.environ.get("SANDKIT_TEST_CACHE", Path.home() / ".cache" / "sandkit-tests")) / "devcontainer"
    binary = cache / "node_modules" / ".bin" / "devcontainer"
    if not binary.exists():
        if shutil.which("npm") is None:
            pytest.fail("npm is needed to install the Dev Containers CLI for this test")
        package = f"@devcontainers/cli@{DEVCONTAINER_CLI_VERSION}"
        subprocess.run(
            ["npm", "install", "--no-fund", "--no-audit", "--prefix", str(cache), package],
            check=True,
            capture_output=True,
            timeout=300,
        )
    return binary
