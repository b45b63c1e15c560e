"""``--respect-gitignore``: folder walks pass over what git ignores; off by default, since planted
files are often ignored ones; named files are read; when git cannot say, nothing is skipped."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from sandkit.lint.gitignored import git_ignored
from tests.lint.helpers import run_sandkit, write_tree

SOCKET = "services:\n  a:\n    image: x\n    volumes: ['/var/run/docker.sock:/var/run/docker.sock']\n"
HOOK = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./setup.sh"}]}]}}\n'


def _repository(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write_tree(
        root,
        {
            ".gitignore": "build/\n*.local.json\n",
            "build/compose.yaml": SOCKET,
            "build/deep/compose.yaml": SOCKET,
            "src/compose.yaml": SOCKET,
            "src/.gitignore": "generated.compose.yaml\n",
            "src/generated.compose.yaml": SOCKET,
            ".claude/settings.local.json": HOOK,
            ".claude/settings.json": HOOK,
        },
    )


def _paths(root: Path, *args: str, cwd: Path | None = None) -> list[str]:
    done = run_sandkit(["lint", "--format", "json", *args], cwd=cwd or root)
    assert done.returncode in (0, 1), done.stderr
    return sorted({f["path"] for f in json.loads(done.stdout)["findings"]})


def test_off_by_default_and_on_it_skips_what_git_ignores(tmp_path: Path) -> None:
    _repository(tmp_path)
    everything = [
        ".claude/settings.json",
        ".claude/settings.local.json",
        "build/compose.yaml",
        "build/deep/compose.yaml",
        "src/compose.yaml",
        "src/generated.compose.yaml",
    ]
    assert _paths(tmp_path, ".") == everything
    assert _paths(tmp_path, "--respect-gitignore", ".") == [".claude/settings.json", "src/compose.yaml"]
    # a file named on the command line is read even so (pre-commit names tracked files only)
    assert _paths(tmp_path, "--respect-gitignore", "build/compose.yaml", "src") == [
        "build/compose.yaml",
        "src/compose.yaml",
    ]


def test_a_scan_of_a_subfolder_reads_its_paths_relative_to_it(tmp_path: Path) -> None:
    _repository(tmp_path)
    assert _paths(tmp_path, "--respect-gitignore", "src", cwd=tmp_path) == ["src/compose.yaml"]
    assert _paths(tmp_path / "src", "--respect-gitignore", ".") == ["compose.yaml"]


def test_outside_a_repository_nothing_is_skipped_and_the_note_says_why(tmp_path: Path) -> None:
    write_tree(tmp_path, {".gitignore": "build/\n", "build/compose.yaml": SOCKET})
    done = run_sandkit(["lint", "--format", "json", "--respect-gitignore", "."], cwd=tmp_path)
    assert [f["path"] for f in json.loads(done.stdout)["findings"]] == ["build/compose.yaml"]
    assert "--respect-gitignore: git cannot list ignored files here (fatal: not a git repository" in done.stderr
    assert "no file is skipped for it" in done.stderr


def test_the_repository_config_cannot_run_a_command_through_git(tmp_path: Path) -> None:
    """core.fsmonitor names a command git would run; the scanned repository's config is not trusted."""
    _repository(tmp_path)
    marker = tmp_path.parent / f"{tmp_path.name}-ran"
    subprocess.run(["git", "-C", str(tmp_path), "config", "core.fsmonitor", f"touch {marker}; echo"], check=True)
    ignored, why = git_ignored(str(tmp_path))
    assert ignored is not None, why
    assert ignored.match("build/deep/compose.yaml") and not ignored.match("src/compose.yaml")
    assert not marker.exists()


def test_matching_covers_folders_above_and_nothing_else() -> None:
    from sandkit.lint.gitignored import _parse

    ignored = _parse(b"build/\0a/b.txt\0dist/x/\0")
    assert ignored.match("build") and ignored.match("build/x/y.yaml") and ignored.match("dist/x/z")
    assert ignored.match("a/b.txt")
    assert not ignored.match("buildx/y.yaml") and not ignored.match("a/b.txt2") and not ignored.match("dist/y")
