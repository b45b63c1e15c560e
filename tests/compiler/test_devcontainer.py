"""devcontainer: the Dev Container schema, what the file may never add, and a real `devcontainer up`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from sandkit.compiler.command import compile_kit, parse_targets
from sandkit.compiler.output import write_atomic
from sandkit.compiler.targets import NAMES
from sandkit.kits.dump import dump_kit
from sandkit.kits.model import Kit
from tests.compiler.helpers import EXAMPLES, compile_from_repo
from tests.conftest import REPO

SCHEMA = json.loads((Path(__file__).parent / "data" / "devContainer.base.schema.json").read_text())
CLI_VERSION = "0.89.0"
FORBIDDEN = (
    "privileged",
    "capAdd",
    "securityOpt",
    "mounts",
    "features",
    "runArgs",
    "initializeCommand",
    "postCreateCommand",
    "postStartCommand",
    "postAttachCommand",
    "onCreateCommand",
)


def _jsonc(data: bytes) -> dict[str, object]:
    """devcontainer.json allows // comments; sandkit writes them only as whole header lines."""
    text = "\n".join(line for line in data.decode().splitlines() if not line.startswith("//"))
    return dict(json.loads(text))


@pytest.mark.parametrize("kit", EXAMPLES, ids=lambda p: p.parent.name)
def test_passes_the_dev_container_schema_and_adds_no_privilege(kit: Path) -> None:
    files = compile_from_repo(kit, None, list(NAMES)).files
    config = _jsonc(files[".devcontainer/devcontainer.json"])
    jsonschema.Draft201909Validator(SCHEMA).validate(config)
    assert not set(FORBIDDEN) & set(config), "the dev container must not loosen the compose sandbox"
    assert config["dockerComposeFile"] == ["../compose.yaml", "compose.devcontainer.yaml"]
    assert config["overrideCommand"] is False, "the editor's override would replace sandkit's entrypoint"


def test_hostile_env_values_stay_json_values(tmp_path: Path) -> None:
    hostile = 'a"b\\c\n}, "privileged": true, "x": "\u202e\n// comment'
    kit = Kit.model_validate(
        {
            "apiVersion": "sandkit/v1",
            "name": "dv",
            "agent": {"command": ["x"]},
            "workspace": {"mode": "none"},
            "network": {"egress": "none"},
            "env": {"V": hostile},
        }
    )
    path = tmp_path / "kit.yaml"
    path.write_text(dump_kit(kit))
    files = compile_kit(path, tmp_path / "out", parse_targets("devcontainer")).files
    config = _jsonc(files[".devcontainer/devcontainer.json"])
    assert "privileged" not in config
    assert config["remoteEnv"] == {"V": hostile}


def _cli(cache: Path) -> Path:
    binary = cache / "node_modules" / ".bin" / "devcontainer"
    if not binary.exists():
        if shutil.which("npm") is None:
            pytest.fail("npm is needed to install the Dev Containers CLI for this test")
        subprocess.run(
            ["npm", "install", "--no-fund", "--no-audit", "--prefix", str(cache), f"@devcontainers/cli@{CLI_VERSION}"],
            check=True,
            capture_output=True,
            timeout=300,
        )
    return binary


@pytest.mark.docker
def test_devcontainer_up_keeps_the_sandbox(tmp_path: Path) -> None:
    """The reference CLI opens the sandbox: entrypoint, user, read-only root and no network all hold."""
    kit = tmp_path / "kit.yaml"
    kit.write_text(
        "apiVersion: sandkit/v1\nname: sandkit-dv-e2e\nagent: {command: [x]}\n"
        "workspace: {mode: none}\nnetwork: {egress: none}\nenv: {GREETING: hello}\n"
        "startup: ['echo ran > /tmp/startup-ran']\nresources: {timeout: 10m}\n"
    )
    result = compile_kit(kit, tmp_path / "out", parse_targets("devcontainer"))
    for name, data in result.files.items():
        write_atomic(result.folder / name, data)
    cli = _cli(Path(os.environ.get("SANDKIT_TEST_CACHE", Path.home() / ".cache" / "sandkit-tests")) / "devcontainer")
    project = ["docker", "compose", "-p", "sandkit-dv-e2e", "-f", str(result.folder / "compose.yaml")]
    try:
        up = subprocess.run(
            [str(cli), "up", "--workspace-folder", str(result.folder)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert up.returncode == 0, up.stdout[-2000:] + up.stderr[-2000:]
        probe = (
            'id -u; cat /tmp/startup-ran; echo "G=$GREETING"; touch /probe 2>/dev/null || echo read-only; '
            "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; grep -a -h timeout /proc/[0-9]*/cmdline | tr '\\0' ' '"
        )
        done = subprocess.run(
            [str(cli), "exec", "--workspace-folder", str(result.folder), "sh", "-c", probe],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        lines = done.stdout.split("\n")
        assert lines[0] == "1000", done.stdout + done.stderr
        assert "ran" in lines, "the entrypoint's startup commands did not run"
        assert "G=hello" in lines, "the kit's env did not reach the editor's shell"
        assert "read-only" in lines, "the root filesystem is writable"
        assert "eth0" not in done.stdout, "egress none, yet the container has a network interface"
        assert "timeout --kill-after=30 600 sleep infinity" in done.stdout, "the session is not bounded"
    finally:
        subprocess.run(
            [*project, "down", "-v", "--remove-orphans", "--rmi", "local"], capture_output=True, check=False, cwd=REPO
        )
