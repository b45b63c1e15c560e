"""devcontainer: the Dev Container schema, what the file may never add, and a real `devcontainer up`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest

from sandkit.compiler.command import compile_kit, parse_targets
from sandkit.compiler.output import write_atomic
from sandkit.compiler.targets import NAMES
from sandkit.kits.dump import dump_kit
from sandkit.kits.model import Kit
from tests.compiler.helpers import EXAMPLES, compile_from_repo, devcontainer_cli
from tests.conftest import REPO

SCHEMA = json.loads((Path(__file__).parent / "data" / "devContainer.base.schema.json").read_text())
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


def _ports_config(tmp_path: Path, network: str, ports: str) -> tuple[dict[str, object], str]:
    tmp_path.mkdir()
    kit = tmp_path / "kit.yaml"
    kit.write_text(
        f"apiVersion: sandkit/v1\nname: dv\nagent: {{command: [x]}}\nworkspace: {{mode: none}}\n"
        f"network: {network}\nports: {ports}\n"
    )
    out = compile_kit(kit, tmp_path / "out", parse_targets("devcontainer"))
    config = _jsonc(out.files[".devcontainer/devcontainer.json"])
    jsonschema.Draft201909Validator(SCHEMA).validate(config)
    return config, out.fidelity["ports"]["devcontainer"].level if "ports" in out.fidelity else ""


def test_the_editor_forwards_the_kits_tcp_ports_and_no_other(tmp_path: Path) -> None:
    """forwardPorts lists each TCP port once (editors forward no UDP); every other port an editor sees a
    process listen on stays where it is; with an allowlist the forwarder runs with the editor's container."""
    ports = "[{container: 3000}, {container: 3000, host: 8443}, {container: 53, protocol: udp}]"
    config, level = _ports_config(tmp_path / "allow", "{allow: [api.example.com]}", ports)
    assert config["forwardPorts"] == [3000] and config["portsAttributes"] == {"3000": {"label": "agent port 3000"}}
    assert config["otherPortsAttributes"] == {"onAutoForward": "ignore"}
    assert config["runServices"] == ["agent", "deadline", "egress", "host-addresses", "ready-gate", "forwarder"]
    assert level == "enforced"
    config, level = _ports_config(tmp_path / "open", "{egress: open}", ports)
    assert config["forwardPorts"] == [3000] and "forwarder" not in config["runServices"] and level == "enforced"  # type: ignore[operator]
    config, level = _ports_config(tmp_path / "none", "{egress: none}", ports)
    assert config["forwardPorts"] == [3000] and level == "best-effort"  # only an editor's own forwarding
    # an allowlist's http port is served by the forwarder alone, with its headers: the editor does not forward it
    preview = "[{container: 3000}, {container: 5173, http: true}]"
    config, level = _ports_config(tmp_path / "preview", "{allow: [api.example.com]}", preview)
    assert config["forwardPorts"] == [3000] and level == "enforced"
    config, level = _ports_config(tmp_path / "open-preview", "{egress: open}", preview)
    assert config["forwardPorts"] == [3000, 5173]  # no forwarder: the editor's forwarding is the only one
    config, level = _ports_config(tmp_path / "no-ports", "{egress: none}", "[]")
    assert config["otherPortsAttributes"] == {"onAutoForward": "ignore"} and "forwardPorts" not in config
    assert level == ""


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
    assert config["remoteEnv"]["V"] == hostile  # type: ignore[index]


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
    cli = devcontainer_cli()
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


@pytest.mark.docker
def test_the_reference_cli_reads_a_mounted_injecting_sandbox(tmp_path: Path) -> None:
    """`devcontainer read-configuration` on the generated file of a kit with a mounted folder and an injecting
    proxy: the CLI takes it, and the editor starts the workspace guard and the proxy with the agent."""
    (tmp_path / "repo").mkdir()
    kit = tmp_path / "kit.yaml"
    kit.write_text(
        "apiVersion: sandkit/v1\nname: sandkit-dv-read\nagent: {command: [x]}\n"
        "workspace: {mode: mount, source: repo}\nnetwork: {allow: [api.example.com]}\n"
        "secrets: [{name: KEY, inject: [{host: api.example.com, header: x-key}]}]\n"
    )
    result = compile_kit(kit, tmp_path / "out", parse_targets("devcontainer"))
    for name, data in result.files.items():
        write_atomic(result.folder / name, data)
    read = subprocess.run(
        [str(devcontainer_cli()), "read-configuration", "--workspace-folder", str(result.folder)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert read.returncode == 0, read.stdout[-2000:] + read.stderr[-2000:]
    configuration = json.loads(read.stdout)["configuration"]
    assert configuration["service"] == "agent" and configuration["remoteUser"] == "agent"
    assert {"workspace-guard", "egress", "deadline"} <= set(configuration["runServices"]), configuration


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ("{}", {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "credential.helper", "GIT_CONFIG_VALUE_0": ""}),
        (
            "{GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: safe.directory, GIT_CONFIG_VALUE_0: /w, LANG: C.UTF-8}",
            {
                "GIT_CONFIG_COUNT": "2",
                "GIT_CONFIG_KEY_0": "safe.directory",
                "GIT_CONFIG_VALUE_0": "/w",
                "GIT_CONFIG_KEY_1": "credential.helper",
                "GIT_CONFIG_VALUE_1": "",
                "LANG": "C.UTF-8",
            },
        ),
    ],
)
def test_the_editors_processes_ask_no_git_credential_helper(tmp_path: Path, env: str, expected: dict[str, str]) -> None:
    """remoteEnv empties git's helper list after the kit's own GIT_CONFIG_* entries; the container's settings
    turn off the git extension's askpass; the fidelity row names what only the user's settings turn off."""
    kit = tmp_path / "kit.yaml"
    kit.write_text(
        f"apiVersion: sandkit/v1\nname: dv\nagent: {{command: [x]}}\nworkspace: {{mode: none}}\nenv: {env}\n"
    )
    out = compile_kit(kit, tmp_path / "out", parse_targets("devcontainer"))
    config = _jsonc(out.files[".devcontainer/devcontainer.json"])
    assert config["remoteEnv"] == expected
    assert config["customizations"] == {
        "vscode": {"settings": {"git.terminalAuthentication": False, "github.gitAuthentication": False}}
    }
    row = out.fidelity["editor credentials"]["devcontainer"]
    assert row.level == "best-effort" and not row.requested
    for setting in ("gitCredentialHelperConfigLocation", "copyGitConfig", "dockerCredentialHelper", "SSH_AUTH_SOCK"):
        assert setting in row.reason
