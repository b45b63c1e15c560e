"""`sandkit import` of dev containers shaped like the ones teams really write.

The shapes follow the devcontainers/templates repository and the Dev Container specification: the
legacy top-level ``dockerFile`` and ``context`` (still read by the devcontainer CLI), a FROM line that
takes its variant from a build argument, multi-stage Dockerfiles, ``runArgs`` that ask for privileges,
the Docker socket mounted for docker-outside-of-docker, an app service on its database's network
(``network_mode: service:db``), and an import into a central kits repository.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from sandkit.cli import main
from sandkit.kits.loader import load_kit


def _project(tmp_path: Path, config: dict[str, object], files: dict[str, str], name: str = "app") -> Path:
    """A project folder with .devcontainer/devcontainer.json and the files it names (paths from the project)."""
    project = tmp_path / name
    (project / ".devcontainer").mkdir(parents=True)
    (project / ".devcontainer" / "devcontainer.json").write_text(json.dumps(config, indent=2))
    for relative, text in files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text)
    return project


def _import(source: Path, out: Path, *extra: str) -> tuple[int, dict[str, str], str]:
    """Exit code, {setting: the report's line for it}, and stderr as a whole."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["import", str(source), "-o", str(out), *extra])
    lines: dict[str, str] = {}
    for line in err.getvalue().splitlines():
        for kind in ("not imported", "imported with a difference"):
            if f": {kind}: " in line:
                setting, _, reason = line.split(f": {kind}: ", 1)[1].partition(": ")
                lines[setting] = f"{kind}: {reason}"
    return code, lines, err.getvalue()


def test_the_legacy_dockerfile_key_and_a_from_line_with_a_build_argument(tmp_path: Path) -> None:
    """The Python template's shape: `ARG VARIANT`, `FROM ...:${VARIANT}`, the variant in build.args."""
    project = _project(
        tmp_path,
        {
            "name": "Python 3",
            "dockerFile": "Dockerfile",
            "context": "..",
            "build": {"args": {"VARIANT": "3.11-bookworm", "NODE_VERSION": "none"}},
        },
        {
            ".devcontainer/Dockerfile": "ARG VARIANT=3-bookworm\n"
            "FROM mcr.microsoft.com/devcontainers/python:${VARIANT}\n"
            "ARG NODE_VERSION\nRUN echo $NODE_VERSION\n"
        },
    )
    code, lines, _ = _import(project, tmp_path / "kit.yaml", "--root", str(tmp_path))
    assert code == 0
    kit = load_kit(tmp_path / "kit.yaml", root=tmp_path).kit
    assert kit.image.base == "mcr.microsoft.com/devcontainers/python:3.11-bookworm"
    assert "dockerFile" in lines and "VARIANT=3.11-bookworm (the build's argument)" in lines["dockerFile"]
    assert lines["build.args.NODE_VERSION"].startswith("not imported: a build argument the FROM line does not use")
    assert "context" not in lines and "build.args.VARIANT" not in lines


@pytest.mark.parametrize(
    ("dockerfile", "args", "expected"),
    [
        ("ARG VARIANT=3.12-bookworm\nFROM python:${VARIANT}\n", {}, "python:3.12-bookworm"),
        ("ARG V=3.12\nFROM python:$V-slim AS base\nFROM base AS dev\nRUN true\n", {}, "python:3.12-slim"),
        ("FROM python:${V:-3.13}-slim\n", {}, "python:3.13-slim"),
        (
            "FROM --platform=$BUILDPLATFORM golang:1.23 AS build\nFROM debian:bookworm-slim\n",
            {},
            "debian:bookworm-slim",
        ),
        ("ARG IMAGE=ubuntu\nARG TAG\nFROM ${IMAGE}:\\\n  ${TAG}\n", {"TAG": "24.04"}, "ubuntu:24.04"),
    ],
)
def test_the_final_stage_with_its_build_arguments_resolved(
    tmp_path: Path, dockerfile: str, args: dict[str, str], expected: str
) -> None:
    config: dict[str, object] = {"build": {"dockerfile": "Dockerfile", "args": args}}
    project = _project(tmp_path, config, {".devcontainer/Dockerfile": dockerfile})
    code, _, err = _import(project, tmp_path / "kit.yaml", "--root", str(tmp_path))
    assert code == 0, err
    assert load_kit(tmp_path / "kit.yaml", root=tmp_path).kit.image.base == expected


def test_a_build_argument_without_a_value_is_a_ledger_line(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        {"build": {"dockerfile": "Dockerfile", "target": "dev"}},
        {".devcontainer/Dockerfile": "ARG VARIANT\nFROM mcr.microsoft.com/devcontainers/base:${VARIANT} AS dev\n"},
    )
    code, lines, _ = _import(project, tmp_path / "kit.yaml", "--root", str(tmp_path))
    assert code == 0
    assert lines["build.dockerfile"] == (
        "not imported: its FROM image 'mcr.microsoft.com/devcontainers/base:${VARIANT}' uses the build argument(s) "
        "VARIANT, with no default and no value in the build's arguments: set image.base"
    )


def test_run_args_and_mounts_name_the_privilege_refused(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        {
            "image": "mcr.microsoft.com/devcontainers/base:bookworm",
            "runArgs": [
                "--privileged",
                "--cap-add=SYS_PTRACE",
                "--cap-add",
                "NET_ADMIN",
                "--security-opt",
                "seccomp=unconfined",
                "--security-opt=apparmor=unconfined",
                "--network=host",
                "--device=/dev/fuse",
                "-v",
                "/var/run/docker.sock:/var/run/docker.sock",
                "--init",
            ],
            "mounts": [
                "source=/var/run/docker.sock,target=/var/run/docker-host.sock,type=bind",
                {"source": "${localEnv:HOME}/.docker/run/docker.sock", "target": "/d.sock", "type": "bind"},
                "source=project-cache,target=/cache,type=volume",
            ],
            "privileged": True,
            "securityOpt": ["label=disable"],
        },
        {},
    )
    code, lines, _ = _import(project, tmp_path / "kit.yaml")
    assert code == 0
    assert lines["runArgs[0]"] == (
        "not imported: refused: privileged mode (every capability and the host's devices); sandkit never grants it"
    )
    assert "the capability SYS_PTRACE" in lines["runArgs[1]"] and "the capability NET_ADMIN" in lines["runArgs[2]"]
    assert "runArgs[3]" not in lines, "a flag's value is reported with its flag"
    assert "refused: seccomp=unconfined (no system call filter)" in lines["runArgs[4]"]
    assert "refused: apparmor=unconfined" in lines["runArgs[6]"]
    assert "refused: the host's network namespace" in lines["runArgs[7]"]
    assert "refused: the host device /dev/fuse" in lines["runArgs[8]"]
    assert lines["runArgs[9]"] == "not imported: the host's Docker socket: never imported"
    assert (
        lines["runArgs[11]"]
        == "not imported: docker run arguments are not imported; each kit field says what the sandbox gets"
    )
    assert lines["mounts[0]"] == lines["mounts[1]"] == "not imported: the host's Docker socket: never imported"
    assert lines["mounts[2]"].endswith("sandkit mounts only the workspace (workspace.mode mount)")
    assert "refused: privileged mode" in lines["privileged"]
    assert "refused: label=disable" in lines["securityOpt[0]"]


def test_a_service_on_its_databases_network_is_not_a_host_namespace(tmp_path: Path) -> None:
    """The python-postgres template: the app shares the db service's network; docker-outside-of-docker."""
    compose = """\
services:
  app:
    build:
      context: ..
      dockerfile: .devcontainer/Dockerfile
      args: [VARIANT=3.12-bookworm, UNUSED=1]
    volumes:
      - ../..:/workspaces:cached
      - /var/run/docker.sock:/var/run/docker-host.sock
    command: sleep infinity
    network_mode: service:db
    pid: host
    ipc: "container:sidecar"
    devices: [/dev/kvm]
    security_opt: [seccomp:unconfined]
  db:
    image: postgres:16
"""
    project = _project(
        tmp_path,
        {"dockerComposeFile": "docker-compose.yml", "service": "app", "workspaceFolder": "/workspaces/app"},
        {
            ".devcontainer/docker-compose.yml": compose,
            ".devcontainer/Dockerfile": "ARG VARIANT=3\nFROM mcr.microsoft.com/devcontainers/python:${VARIANT}\n",
        },
    )
    code, lines, _ = _import(project, tmp_path / "kit.yaml", "--root", str(tmp_path))
    assert code == 0
    assert load_kit(tmp_path / "kit.yaml", root=tmp_path).kit.image.base == (
        "mcr.microsoft.com/devcontainers/python:3.12-bookworm"
    )
    network = lines["services.app.network_mode"]
    assert "host" not in network and "shares the network namespace of the compose service db" in network
    assert "refused: the host's process (PID) namespace" in lines["services.app.pid"]
    assert "of the container sidecar" in lines["services.app.ipc"]
    assert "refused: the host device /dev/kvm" in lines["services.app.devices[0]"]
    assert "refused: seccomp=unconfined" in lines["services.app.security_opt[0]"]
    assert lines["services.app.volumes[1]"] == "not imported: the host's Docker socket: never imported"
    assert "a build argument the FROM line does not use" in lines["services.app.build.args[1]"]
    assert "services.app.build.args[0]" not in lines


def test_extends_says_where_the_agent_comes_from_not_that_the_kit_is_a_mixin(tmp_path: Path) -> None:
    project = _project(tmp_path, {"image": "node:22-bookworm-slim"}, {})
    code, lines, err = _import(project, tmp_path / "kit.yaml", "--extends", "claude-code")
    assert code == 0 and "Mixin" not in err
    assert (
        lines["agent"]
        == "imported with a difference: a dev container names no agent: the agent is the one --extends claude-code gives"
    )
    assert "image.packages.apt" not in lines, "a Node image needs no Node from apt"
    assert load_kit(tmp_path / "kit.yaml", allow_mixin=False).kit.kind == "Kit"


def test_extends_claude_code_over_a_base_without_node_adds_it(tmp_path: Path) -> None:
    project = _project(tmp_path, {"image": "python:3.12-slim-bookworm"}, {})
    code, lines, _ = _import(project, tmp_path / "kit.yaml", "--extends", "claude-code")
    assert code == 0
    kit = load_kit(tmp_path / "kit.yaml", allow_mixin=False).kit
    assert kit.image.base == "python:3.12-slim-bookworm"
    assert {"nodejs", "npm"} <= set(kit.image.packages.apt)
    assert "adds Debian's nodejs and npm" in lines["image.packages.apt"]
    assert main(["build", str(tmp_path / "kit.yaml"), "-o", str(tmp_path / "out"), "-q", "--target", "docker"]) == 0
    dockerfile = next((tmp_path / "out").rglob("Dockerfile")).read_text()
    assert dockerfile.index("'nodejs' 'npm'") < dockerfile.index("npm install"), "Node is installed before npm runs"


@pytest.mark.parametrize(
    ("image", "preset", "why"),
    [
        ("node:22-alpine", "codex", None),  # the codex preset brings nodejs itself
        ("python:3.12-alpine", "claude-code", "nothing says python:3.12-alpine has it or is Debian-based (apt)"),
        ("registry.example.com/team/dev:1", "gemini-cli", "nothing says registry.example.com/team/dev:1 has it"),
        ("python:3.11-bookworm", "openhands", "nothing says python:3.11-bookworm has that Python (3.12)"),
        ("python:3.12-bookworm", "openhands", None),
        ("debian:bookworm-slim", "aider", None),  # the aider preset installs Debian's python3 itself
    ],
)
def test_extends_over_a_base_that_cannot_run_the_preset_is_refused(
    tmp_path: Path, image: str, preset: str, why: str | None
) -> None:
    project = _project(tmp_path, {"image": image}, {})
    code, _, err = _import(project, tmp_path / "kit.yaml", "--extends", preset)
    if why is None:
        assert code == 0, err
        return
    assert code == 1 and not (tmp_path / "kit.yaml").exists()
    assert f"--extends {preset}: the preset installs" in err and why in err and "nothing was written" in err
    assert "devcontainer.json:2:" in err, "located at the image"


def _git_repository(folder: Path, origin: str | None) -> None:
    (folder / ".git").mkdir(parents=True)
    remote = f'[remote "origin"]\n\turl = {origin}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n' if origin else ""
    (folder / ".git" / "config").write_text(f"[core]\n\tbare = false\n{remote}")


def test_into_a_central_kits_repository_the_workspace_is_a_clone_of_the_origin(tmp_path: Path) -> None:
    """The kit cannot mount a folder outside its repository (validate refuses it): it clones the project."""
    project = _project(tmp_path, {"image": "debian:bookworm-slim", "workspaceFolder": "/workspaces/app"}, {})
    _git_repository(project, "https://git.example.com/acme/app.git")
    _git_repository(tmp_path / "kits", None)
    code, lines, err = _import(project, tmp_path / "kits" / "app.yaml")
    assert code == 0, err
    kit = load_kit(tmp_path / "kits" / "app.yaml").kit  # confined to the kits repository, as validate loads it
    assert (kit.workspace.mode, kit.workspace.repo) == ("clone", "https://git.example.com/acme/app.git")
    assert kit.workspace.path == "/workspaces/app" and kit.network.allow == ["git.example.com"]
    assert "outside the kit's repository" in lines["workspace"] and "a clone of its origin" in lines["workspace"]


@pytest.mark.parametrize(
    ("origin", "why"),
    [
        (None, "it has no git origin"),
        ("https://deploy:s3cr3t-t0ken@git.example.com/acme/app.git", "holds credentials, which are never copied"),
        ("git@git.example.com:acme/app.git", "not an https:// URL"),
    ],
)
def test_into_a_central_kits_repository_without_a_usable_origin(tmp_path: Path, origin: str | None, why: str) -> None:
    project = _project(tmp_path, {"image": "debian:bookworm-slim"}, {})
    _git_repository(project, origin)
    _git_repository(tmp_path / "kits", None)
    code, lines, err = _import(project, tmp_path / "kits" / "app.yaml")
    assert code == 0, err
    text = (tmp_path / "kits" / "app.yaml").read_text()
    assert load_kit(tmp_path / "kits" / "app.yaml").kit.workspace.mode == "none"
    assert why in lines["workspace"] and "s3cr3t" not in text + err


def test_a_linked_git_config_is_not_followed(tmp_path: Path) -> None:
    """A project's .git/config that is a link (to another repository's config, or anywhere) is not read."""
    project = _project(tmp_path, {"image": "debian:bookworm-slim"}, {})
    _git_repository(tmp_path / "elsewhere", "https://git.example.com/other/secret.git")
    (project / ".git").mkdir()
    (project / ".git" / "config").symlink_to(tmp_path / "elsewhere" / ".git" / "config")
    _git_repository(tmp_path / "kits", None)
    code, lines, _ = _import(project, tmp_path / "kits" / "app.yaml")
    assert code == 0 and "other/secret" not in (tmp_path / "kits" / "app.yaml").read_text()
    assert "it has no git origin" in lines["workspace"]


def test_inside_the_kits_repository_the_mount_stays(tmp_path: Path) -> None:
    _git_repository(tmp_path, "https://git.example.com/acme/mono.git")
    project = _project(tmp_path, {"image": "debian:bookworm-slim"}, {})
    code, lines, _ = _import(project, tmp_path / "kits" / "app.yaml")
    assert code == 0 and "workspace" not in lines
    kit = load_kit(tmp_path / "kits" / "app.yaml").kit
    assert kit.workspace.mode == "mount" and Path(kit.workspace.source or "") == project.resolve()
