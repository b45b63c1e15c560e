"""``sandkit build`` and its pre-commit hook take the kits from the command line or [tool.sandkit]."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from tests.conftest import REPO

KIT = "apiVersion: sandkit/v1\nname: {name}\nagent: {{command: ['true']}}\n"


def _repo(tmp_path: Path, config: str, name: str = "pyproject.toml") -> Path:
    (tmp_path / "agents").mkdir(parents=True)
    (tmp_path / "agents" / "one.yaml").write_text(KIT.format(name="one"))
    (tmp_path / name).write_text(config)
    return tmp_path


def test_build_without_kits_reads_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, '[project]\nname = "x"\n\n[tool.sandkit]\nkits = ["agents/"]\noutput = "out/sandbox"\n')
    monkeypatch.chdir(repo)
    assert main(["build", "--check", "--target", "docker"]) == 1  # nothing built yet: stale
    capsys.readouterr()
    assert main(["build", "--target", "docker", "-q"]) == 0
    assert (repo / "out" / "sandbox" / "one" / "Dockerfile").is_file()
    assert main(["build", "--check", "--target", "docker"]) == 0
    assert "1 kit(s) up to date" in capsys.readouterr().out
    (repo / "sub").mkdir()
    monkeypatch.chdir(repo / "sub")  # found upwards; paths are relative to the config's folder
    assert main(["build", "--target", "docker", "-q"]) == 0
    assert sorted(p.name for p in (repo / "out" / "sandbox").iterdir() if p.is_dir()) == ["one"]


def test_the_command_line_wins_over_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, 'kits = ["agents/"]\n', ".sandkit.toml")
    (repo / "other.yaml").write_text(KIT.format(name="other"))
    monkeypatch.chdir(repo)
    assert main(["build", "other.yaml", "-o", "elsewhere", "--target", "docker", "-q"]) == 0
    assert (repo / "elsewhere" / "other" / "Dockerfile").is_file()
    assert not (repo / "sandbox").exists()
    assert main(["build", "--target", "docker", "-q"]) == 0
    assert (repo / "sandbox" / "one" / "Dockerfile").is_file()  # the default output folder


def test_no_kits_anywhere_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()  # the config search stops at the repository's top
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--check"]) == 2
    assert "no kits given: name kit files or folders, or set kits in" in capsys.readouterr().err
    (tmp_path / ".sandkit.toml").write_text('kits = "agents"\n')
    assert main(["build"]) == 2
    assert ".sandkit.toml:1:1: error: 'kits' must be a list of strings" in capsys.readouterr().err


def _published_hook() -> dict[str, Any]:
    hooks = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())
    return next(h for h in hooks if h["id"] == "sandkit-build-check")


@pytest.mark.skipif(shutil.which("pre-commit") is None or shutil.which("git") is None, reason="needs pre-commit, git")
@pytest.mark.parametrize("how", ["args", "pyproject"])
def test_the_pre_commit_hook_in_a_real_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """The published hook, run by pre-commit (as a local system hook on the installed sandkit)."""
    config = '[tool.sandkit]\nkits = ["agents/"]\n' if how == "pyproject" else '[project]\nname = "x"\n'
    repo = _repo(tmp_path / "repo", config)
    hook = {k: v for k, v in _published_hook().items() if k != "description"} | {"language": "system"}
    if how == "args":
        hook["args"] = ["agents/", "-o", "sandbox"]
    (repo / ".pre-commit-config.yaml").write_text(
        _yaml({"repos": [{"repo": "local", "hooks": [hook | {"entry": hook["entry"] + " --target docker"}]}]})
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {
            "PRE_COMMIT_HOME": str(tmp_path / "cache"),
            "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
            "HOME": str(tmp_path),
        }
        return subprocess.run(args, cwd=repo, capture_output=True, text=True, env=env, check=False)

    run("git", "init", "-q")
    monkeypatch.chdir(repo)
    assert main(["build", "agents", "--target", "docker", "-q"]) == 0
    run("git", "add", "-A")
    # pre-commit from this interpreter: a pyenv shim would put its own bin folder, and the sandkit
    # installed there (another checkout's), first on the hook's PATH.
    pre_commit = (sys.executable, "-m", "pre_commit")
    passed = run(*pre_commit, "run", "sandkit-build-check", "--all-files")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    (repo / "agents" / "one.yaml").write_text(KIT.format(name="one") + "env: {A: '1'}\n")
    failed = run(*pre_commit, "run", "sandkit-build-check", "--all-files")
    assert failed.returncode == 1 and "generated files are stale" in failed.stdout


def _yaml(data: object) -> str:
    import io

    stream = io.StringIO()
    YAML().dump(data, stream)
    return stream.getvalue()
