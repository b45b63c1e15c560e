"""Secrets: the run-time one reaches the agent as the variable it expects; neither it nor the
build-time one is in any image layer, the image history or config, the container's config or any
generated file."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, run

pytestmark = pytest.mark.docker


def _image_tags(project: Project) -> list[str]:
    config = json.loads(project.compose("config", "--format", "json").stdout)
    return sorted({service["image"] for name, service in config["services"].items() if name in ("agent", "egress")})


def test_runtime_secret_is_exported_from_run_secrets(net_project: Project, secret_values: dict[str, str]) -> None:
    script = """
    printf 'value=%s\\n' "$E2E_RUN_TOKEN"
    [ -r /run/secrets/E2E_RUN_TOKEN ] && echo "file=readable"
    printenv E2E_OPTIONAL_TOKEN >/dev/null && echo "optional=set"
    printenv E2E_BUILD_TOKEN >/dev/null && echo "build=set"
    [ -e /run/secrets/E2E_BUILD_TOKEN ] && echo "build=file"
    sha256sum < /etc/e2e-build-token.sha256 >/dev/null && cat /etc/e2e-build-token.sha256
    """
    result = net_project.agent(script)
    assert f"value={secret_values['E2E_RUN_TOKEN']}\n" in result.stdout, (
        f"the run-time secret did not reach the agent's environment:\n{result}"
    )
    assert "file=readable" in result.stdout, result
    assert "optional=set" not in result.stdout, "an optional secret nobody gave is set anyway"
    assert "build=" not in result.stdout, "the build-time secret reached the agent at run time"
    digest = hashlib.sha256(secret_values["E2E_BUILD_TOKEN"].encode()).hexdigest()
    assert digest in result.stdout, f"the install command did not see the build secret:\n{result}"


def test_missing_required_secret_stops_the_agent_with_a_message(net_project: Project, tmp_path: Path) -> None:
    no_secrets = tmp_path / "no-secrets.env"  # E2E_RUN_TOKEN_FILE unset: Compose mounts /dev/null
    no_secrets.write_text("")
    result = net_project.agent("echo agent-started", env_file=no_secrets)
    assert result.returncode == 78, f"the agent started without its required secret:\n{result}"
    assert "agent-started" not in result.stdout
    assert "required secret E2E_RUN_TOKEN is missing" in result.stderr, result


def test_secrets_are_in_no_image_layer(net_project: Project, secret_values: dict[str, str]) -> None:
    """`docker save` writes each layer as an uncompressed tar, so a byte search covers every file."""
    for tag in _image_tags(net_project):
        saved = subprocess.run(["docker", "save", tag], capture_output=True, check=True, timeout=120).stdout
        assert len(saved) > 10_000_000, f"docker save of {tag} looks empty"
        for name, value in secret_values.items():
            assert value.encode() not in saved, f"{name}'s value is in a layer of {tag}"


def test_secrets_are_not_in_history_image_config_or_container_config(
    net_project: Project, secret_values: dict[str, str]
) -> None:
    texts = {}
    for tag in _image_tags(net_project):
        texts[f"history of {tag}"] = run(["docker", "history", "--no-trunc", tag], check=True).stdout
        texts[f"config of {tag}"] = run(["docker", "image", "inspect", tag], check=True).stdout
    with net_project.detached("secrets", "sleep", "30") as record:
        texts["container config"] = json.dumps(record)
    for where, text in texts.items():
        for secret, value in secret_values.items():
            assert value not in text, f"{secret}'s value is in the {where}"


def test_secrets_are_in_no_generated_file(net_project: Project, secret_values: dict[str, str]) -> None:
    """The kit was compiled with both values in sandkit's own environment."""
    files = [p for p in net_project.folder.rglob("*") if p.is_file()]
    assert len(files) >= 8, files
    for path in files:
        data = path.read_bytes()
        for secret, value in secret_values.items():
            assert value.encode() not in data, f"{secret}'s value is in {path.relative_to(net_project.folder)}"
