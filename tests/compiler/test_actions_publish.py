"""The publishing job's push step refuses a patch that would make a clone or a checkout of the new branch
run or fetch something: a symbolic link, a gitlink, .gitmodules, a .gitattributes driver. Each patch is
made by real git from a working copy, and the step runs as the workflow says, against a local repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from tests.compiler.helpers import in_folder

NAME = "publisher"
KIT = f"""\
apiVersion: sandkit/v1
name: {NAME}
agent: {{command: [a]}}
network: {{egress: open}}
workspace: {{repo: "https://git.example.com/repo.git", ref: main}}
triggers: [{{manual: {{}}}}]
targets: {{actions: {{publish: branch}}}}
"""
ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def _git(*args: str, cwd: Path) -> str:
    env = {**os.environ, **ENV, "HOME": str(cwd)}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _step(tmp_path: Path, kit: str) -> dict[str, Any]:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "kit.yaml").write_text(kit)
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "actions"]) == 0
    workflow = YAML(typ="safe").load((tmp_path / f"out/{NAME}/workflows/{NAME}.yml").read_text())
    return next(s for s in workflow["jobs"]["publish"]["steps"] if "run" in s)


@pytest.fixture
def publish_step(tmp_path: Path) -> dict[str, Any]:
    return _step(tmp_path, KIT)


def _origin(tmp_path: Path, workflow: str = "") -> Path:
    work = tmp_path / "work"
    work.mkdir()
    _git("init", "-q", "-b", "main", cwd=work)
    (work / "README.md").write_text("readme\n")
    (work / ".gitattributes").write_text("*.bin -diff\n")
    if workflow:
        (work / ".github/workflows").mkdir(parents=True)
        (work / ".github/workflows/ci.yml").write_text(workflow)
    _git("add", ".", cwd=work)
    _git("commit", "-q", "-m", "base", cwd=work)
    bare = tmp_path / "origin.git"
    _git("clone", "-q", "--bare", str(work), str(bare), cwd=tmp_path)
    return bare


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    return _origin(tmp_path)


def _agents_patch(origin: Path, folder: Path, change: str) -> Path:
    """The agent's changes.patch, as `git diff --binary` of its working copy makes it."""
    work = folder / "agent"
    _git("clone", "-q", str(origin), str(work), cwd=folder)
    subprocess.run(["sh", "-c", change], cwd=work, env={**os.environ, **ENV, "HOME": str(folder)}, check=True)
    _git("add", "-A", cwd=work)
    results = folder / "results"
    results.mkdir()
    (results / "changes.patch").write_text(_git("diff", "--cached", "--binary", cwd=work) + "\n")
    return results


def _publish(
    step: dict[str, Any], origin: Path, folder: Path, results: Path, attempt: int = 1
) -> subprocess.CompletedProcess[str]:
    checkout, temp = folder / "checkout", folder / "temp"
    _git("clone", "-q", "--branch", "main", str(origin), str(checkout), cwd=folder)
    temp.mkdir()
    (temp / "sandkit-output").mkdir()
    (temp / "sandkit-output" / "changes.patch").write_bytes((results / "changes.patch").read_bytes())
    runner = {"RUNNER_TEMP": str(temp), "GITHUB_RUN_ID": "7", "GITHUB_RUN_ATTEMPT": str(attempt), "HOME": str(folder)}
    env = {**os.environ, **ENV, **runner, **{k: str(v) for k, v in step["env"].items()}, "GITHUB_TOKEN": "t"}
    command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]]
    return subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        ("ln -s /etc/passwd notes.txt", "symbolic link or a gitlink"),
        ("ln -s ../../.ssh docs", "symbolic link or a gitlink"),
        (
            "mkdir -p vendor/lib && git -C vendor/lib init -q && git -C vendor/lib commit -q --allow-empty -m x",
            "symbolic link or a gitlink",
        ),
        (
            "printf '[submodule \"x\"]\\n\\tpath = x\\n\\turl = https://evil.example.com/x\\n' > .gitmodules",
            ".gitmodules",
        ),
        ("mkdir -p lib && printf '[submodule \"y\"]\\n' > lib/.gitmodules", ".gitmodules"),
        ("printf '*.md filter=lfs\\n' >> .gitattributes", "driver in .gitattributes"),
        ("mkdir -p src && printf '*.c diff=mine\\n' > src/.gitattributes", "driver in .gitattributes"),
    ],
)
def test_a_patch_that_a_checkout_would_run_or_fetch_from_is_refused(
    tmp_path: Path, publish_step: dict[str, Any], origin: Path, change: str, refusal: str
) -> None:
    results = _agents_patch(origin, tmp_path, change)
    published = _publish(publish_step, origin, tmp_path, results)
    assert published.returncode != 0 and refusal in published.stderr, published
    assert _git("branch", "--list", f"sandkit/{NAME}/run-7-1", cwd=origin) == "", "the branch was pushed"


def test_an_ordinary_patch_is_published(tmp_path: Path, publish_step: dict[str, Any], origin: Path) -> None:
    """The control: a plain change (and a .gitattributes line that sets no driver) becomes the branch."""
    results = _agents_patch(origin, tmp_path, "echo fixed >> README.md && printf '*.png binary\\n' >> .gitattributes")
    published = _publish(publish_step, origin, tmp_path, results)
    assert published.returncode == 0 and f"pushed the agent's changes as sandkit/{NAME}/run-7-1" in published.stdout
    assert _git("show", f"sandkit/{NAME}/run-7-1:README.md", cwd=origin) == "readme\nfixed"


APP = KIT.replace("publish: branch}", "publish: branch, app: {client_id: APP_ID, private_key: APP_KEY}ACK}")
ON_PUSH = [
    "on: push\njobs: {}\n",
    "on: [pull_request, push]\njobs: {}\n",
    "'on':\n  push:\n    branches: ['**']\njobs: {}\n",
    "on:\n  - pull_request\n  - push\njobs: {}\n",
]


@pytest.mark.parametrize("workflow", ON_PUSH)
def test_an_app_push_that_would_start_an_on_push_workflow_is_refused(tmp_path: Path, workflow: str) -> None:
    """GITHUB_TOKEN's push starts no workflow; an App's starts the base branch's on: push ones, with the
    repository's secrets, on the agent's code: refused unless the kit accepts it."""
    origin = _origin(tmp_path, workflow)
    results = _agents_patch(origin, tmp_path, "echo fixed >> README.md")
    refused = _publish(_step(tmp_path / "app", APP.replace("ACK", "")), origin, tmp_path / "app", results)
    assert refused.returncode != 0 and "runs on push" in refused.stderr, refused
    assert _git("branch", "--list", f"sandkit/{NAME}/run-7-1", cwd=origin) == ""
    token = _publish(_step(tmp_path / "token", KIT), origin, tmp_path / "token", results, attempt=2)
    assert token.returncode == 0, f"GITHUB_TOKEN's push (which starts no workflow) was refused:\n{token}"
    accepted = _step(tmp_path / "ack", APP.replace("ACK", ", app_push_runs_workflows: true"))
    pushed = _publish(accepted, origin, tmp_path / "ack", results, attempt=3)
    assert pushed.returncode == 0, pushed


@pytest.mark.parametrize("workflow", ["on: pull_request\njobs: {}\n", "on: {workflow_dispatch: {}}\njobs: {}\n"])
def test_an_app_push_is_published_where_no_workflow_runs_on_push(tmp_path: Path, workflow: str) -> None:
    origin = _origin(tmp_path, workflow)
    results = _agents_patch(origin, tmp_path, "echo fixed >> README.md")
    pushed = _publish(_step(tmp_path / "app", APP.replace("ACK", "")), origin, tmp_path / "app", results)
    assert pushed.returncode == 0 and "pushed the agent's changes" in pushed.stdout, pushed


def test_accepting_push_workflows_needs_an_apps_branch_push(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kit.yaml").write_text(
        KIT.replace("publish: branch}", "publish: branch, app_push_runs_workflows: true}")
    )
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "actions"]) == 1
    assert "kit.yaml:7:63: error: targets.actions.app_push_runs_workflows: is about an App's branch push" in (
        capsys.readouterr().err
    )
