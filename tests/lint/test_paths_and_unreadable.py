"""Report paths are relative to the working folder (or --root) in every format, SARIF's to the
repository's top folder; what cannot be read is an SK006 finding and exit code 2, and FIFOs,
sockets and devices in a walk are passed over without blocking."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from sandkit.cli import main
from tests.lint.helpers import chdir, write_tree

COMPOSE = "services:\n  a:\n    volumes: [/var/run/docker.sock:/var/run/docker.sock]\n"
FORMATS_WITH_PATHS = ("text", "concise", "json", "github", "junit")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(tmp_path / "repo", {"sub/compose.yaml": COMPOSE, ".git/HEAD": "ref: refs/heads/main\n"})
    (tmp_path / "elsewhere").mkdir()
    return tmp_path / "repo"


def lint(capsys: pytest.CaptureFixture[str], cwd: Path, *args: str) -> tuple[int, str]:
    old = chdir(cwd)
    try:
        code = main(["lint", *args])
    finally:
        os.chdir(old)
    return code, capsys.readouterr().out


@pytest.mark.parametrize("fmt", FORMATS_WITH_PATHS)
def test_a_sub_folder_scanned_from_the_root_reports_paths_from_the_root(
    repo: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    code, out = lint(capsys, repo, "sub", "--format", fmt)
    assert code == 1
    assert "sub/compose.yaml" in out
    assert "compose.yaml" not in out.replace("sub/compose.yaml", "")


@pytest.mark.parametrize("fmt", FORMATS_WITH_PATHS)
def test_a_sub_folder_scanned_from_elsewhere_reports_paths_from_there(
    repo: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    _, out = lint(capsys, repo.parent / "elsewhere", "../repo/sub", "--format", fmt)
    assert "../repo/sub/compose.yaml" in out
    _, out = lint(capsys, repo.parent / "elsewhere", str(repo / "sub"), "--root", str(repo), "--format", fmt)
    assert "sub/compose.yaml" in out and "repo/sub" not in out


def test_json_paths_match_files_that_exist_from_the_working_folder(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for cwd, target in ((repo, "sub"), (repo / "sub", "."), (repo.parent / "elsewhere", "../repo/sub")):
        _, out = lint(capsys, cwd, target, "--format", "json")
        paths = [f["path"] for f in json.loads(out)["findings"]]
        assert paths and all((cwd / p).is_file() for p in paths), (cwd, paths)


def test_sarif_locations_are_relative_to_the_repository_top(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for cwd, target in ((repo, "sub"), (repo / "sub", "."), (repo.parent / "elsewhere", "../repo/sub")):
        _, out = lint(capsys, cwd, target, "--format", "sarif")
        run = json.loads(out)["runs"][0]
        assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": repo.as_uri() + "/"}}
        location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location == {"uri": "sub/compose.yaml", "uriBaseId": "%SRCROOT%"}


def test_gitlab_paths_are_relative_to_the_repository_top(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GitLab opens Code Quality paths from the project folder, like SARIF's %SRCROOT%."""
    for cwd, target in ((repo, "sub"), (repo / "sub", "."), (repo.parent / "elsewhere", "../repo/sub")):
        _, out = lint(capsys, cwd, target, "--format", "gitlab")
        assert [issue["location"]["path"] for issue in json.loads(out)] == ["sub/compose.yaml"]


def test_a_fifo_named_on_the_command_line_is_an_error(repo: Path) -> None:
    fifo = repo / "sub" / "pipe.yaml"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "lint", "--format", "concise", str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=repo,
    )
    assert done.returncode == 2, done
    assert "sub/pipe.yaml:1:1: high SK006 this path is a FIFO" in done.stdout


def test_fifos_and_sockets_met_in_a_walk_are_passed_over_without_blocking(repo: Path) -> None:
    os.mkfifo(repo / "sub" / "compose.override.yaml")
    os.mkfifo(repo / "Dockerfile")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(repo / "sub" / "agent.sock"))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "sandkit", "lint", "--format", "json", "--exit-zero", "."],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=repo,
        )
    finally:
        server.close()
    assert done.returncode == 0, done
    assert [f["rule"] for f in json.loads(done.stdout)["findings"]] == ["RS001"]


def test_an_unreadable_file_is_an_error_even_with_exit_zero(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def refuse(path: str, flags: int, *args: int) -> int:
        if str(path).endswith("compose.yaml"):
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refuse)
    for target in ("sub", "sub/compose.yaml"):
        code, out = lint(capsys, repo, target, "--format", "concise", "--exit-zero")
        assert code == 2
        assert "sub/compose.yaml:1:1: high SK006 this path cannot be read: Permission denied" in out
    code, out = lint(capsys, repo, "sub", "--ignore", "SK006")
    assert code == 0 and "SK006" not in out


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file and lists every folder")
def test_unreadable_files_and_folders_for_real(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "sub" / "compose.yaml").chmod(0)
    write_tree(repo, {"closed/compose.yaml": COMPOSE})
    (repo / "closed").chmod(0)
    try:
        code, out = lint(capsys, repo, ".", "--format", "concise")
    finally:
        (repo / "closed").chmod(0o755)
    assert code == 2
    assert "sub/compose.yaml:1:1: high SK006" in out and "closed:1:1: high SK006" in out
