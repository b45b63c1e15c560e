"""The repository's own .pre-commit-config.yaml: pre-commit accepts it, every hook runs a tool the
test extra installs, the sandkit hooks are the ones .pre-commit-hooks.yaml offers other
repositories, and the hooks pass on the repository."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.conftest import REPO

CONFIG = REPO / ".pre-commit-config.yaml"
#: Hooks whose commands other tests already run on the whole repository (test_repository.py:
#: ruff, ruff format --check, mypy, build --check; tests/lint/test_integrations.py: sandkit lint).
RUN_ELSEWHERE = ("ruff-check", "ruff-format", "mypy", "sandkit-lint", "sandkit-build-check")


def _hooks() -> list[dict[str, Any]]:
    config = YAML(typ="safe").load(CONFIG.read_text(encoding="utf-8"))
    return [hook | {"repo": repo["repo"]} for repo in config["repos"] for hook in repo["hooks"]]


def _pre_commit() -> str:
    found = shutil.which("pre-commit")
    if found is None:
        pytest.fail("pre-commit is not installed (a test dependency)")
    return found


def test_pre_commit_accepts_the_config() -> None:
    done = subprocess.run([_pre_commit(), "validate-config", str(CONFIG)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_hook_runs_an_installed_tool() -> None:
    """Local system hooks: the versions are pyproject.toml's pins, not a second list to keep in step."""
    for hook in _hooks():
        assert (hook["repo"], hook["language"]) == ("local", "system"), hook["id"]
        command = shlex.split(hook["entry"])[0]
        assert shutil.which(command), f"{hook['id']}: {command} is not installed"


def test_the_sandkit_hooks_are_the_published_ones() -> None:
    """The repository runs the hooks it offers, so their entries and file filters are exercised here."""
    published = {hook["id"]: hook for hook in YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())}
    own = {hook["id"]: hook for hook in _hooks() if hook["id"] in published}
    assert own.keys() == published.keys()
    for hook_id, hook in own.items():
        offered = published[hook_id]
        for key in ("entry", "pass_filenames", "types", "always_run", "require_serial", "files"):
            assert hook.get(key) == offered.get(key), f"{hook_id}: {key}"


@pytest.mark.slow
def test_the_hooks_pass_on_the_repository(tmp_path: Path) -> None:
    """Each hook not run elsewhere passes, and none is skipped for want of files to check."""
    if not (REPO / ".git").exists():
        pytest.skip("pre-commit needs a git checkout")
    env = os.environ | {"SKIP": ",".join(RUN_ELSEWHERE), "PRE_COMMIT_HOME": str(tmp_path)}
    done = subprocess.run(
        [_pre_commit(), "run", "--all-files", "--color", "never", "--config", str(CONFIG)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    passed = {line.rsplit(".", 1)[0].rstrip(".") for line in done.stdout.splitlines() if line.endswith("Passed")}
    expected = {hook["name"] for hook in _hooks() if hook["id"] not in RUN_ELSEWHERE}
    assert passed == expected, done.stdout
