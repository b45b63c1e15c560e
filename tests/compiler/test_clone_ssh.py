"""The ssh clone in the compiled image: git's ssh wrapper trusts only the pinned host keys, tunnels
through the proxy named in HTTPS_PROXY (or refuses a malformed one), and hands ssh the key in a
private file that is gone when ssh ends; the image gets ssh and nc only when the kit clones over ssh."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sandkit.cli import main
from tests.compiler.helpers import in_folder
from tests.kits.test_clone_ssh import ED25519

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
KIT = f"""\
apiVersion: sandkit/v1
name: private
agent: {{command: [agent]}}
secrets: [{{name: DEPLOY_KEY}}, {{name: API_KEY}}]
network: {{allow: ["git.example.com:22"]}}
workspace:
  repo: "git@git.example.com:acme/app.git"
  ssh_key: DEPLOY_KEY
  known_hosts: ["git.example.com {ED25519}"]
"""
#: Stands in for ssh: what it was called with, and the key file's mode and content at that moment.
FAKE_SSH = """#!/bin/sh
for arg in "$@"; do printf 'arg %s\\n' "$arg"; done
for arg in "$@"; do
  case "$arg" in IdentityFile=*) key="${arg#IdentityFile=}" ;; esac
done
printf 'key %s %s\\n' "$key" "$(stat -c %a "$key")"
cat "$key"
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ssh")
    (folder / "kit.yaml").write_text(KIT)
    with in_folder(folder):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "compose,kubernetes"]) == 0
    return folder / "out/private"


def _wrapper(built: Path, tmp_path: Path, proxy: str) -> subprocess.CompletedProcess[str]:
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir(exist_ok=True)
    (bin_folder / "ssh").write_text(FAKE_SSH)
    (bin_folder / "ssh").chmod(0o755)
    env = {"PATH": f"{bin_folder}:/usr/bin:/bin", "HTTPS_PROXY": proxy, "DEPLOY_KEY": KEY, "TMPDIR": str(tmp_path)}
    return subprocess.run(
        ["sh", str(built / "git-ssh.sh"), "-o", "SendEnv=GIT_PROTOCOL", "git@git.example.com", "git-upload-pack 'x'"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_wrapper_pins_host_keys_tunnels_through_the_proxy_and_removes_the_key(built: Path, tmp_path: Path) -> None:
    done = _wrapper(built, tmp_path, "http://egress:3128/")
    assert done.returncode == 0, done.stderr
    args = [line[4:] for line in done.stdout.splitlines() if line.startswith("arg ")]
    assert args[:2] == ["-o", "IdentityFile=" + args[1].split("=", 1)[1]]
    assert args[2:4] == ["-o", "ProxyCommand=nc -X connect -x egress:3128 %h %p"]
    for option in (
        "StrictHostKeyChecking=yes",
        "UserKnownHostsFile=/etc/sandkit/known_hosts",
        "GlobalKnownHostsFile=/dev/null",
        "BatchMode=yes",
        "IdentitiesOnly=yes",
    ):
        assert option in args, option
    assert args[args.index("-F") + 1] == "/dev/null", "ssh would read a configuration the agent can write"
    assert args[-3:] == ["SendEnv=GIT_PROTOCOL", "git@git.example.com", "git-upload-pack 'x'"]
    key_line = next(line for line in done.stdout.splitlines() if line.startswith("key "))
    key_file, mode = key_line.split()[1:]
    assert mode == "600" and KEY in done.stdout and not any(KEY.splitlines()[1] in arg for arg in args)
    assert not os.path.exists(key_file), "the key's file outlives the connection"
    pinned = [line for line in (built / "known_hosts").read_text().splitlines() if not line.startswith("#")]
    assert pinned == [f"git.example.com {ED25519}"]


@pytest.mark.parametrize(
    "proxy", ["http://egress:3128;touch${IFS}x", "http://egress", "socks5://egress:1080", "http://[::1]:3128", "x:y:1"]
)
def test_the_wrapper_refuses_a_proxy_it_cannot_name_safely(built: Path, tmp_path: Path, proxy: str) -> None:
    done = _wrapper(built, tmp_path, proxy)
    assert done.returncode == 78 and "HTTPS_PROXY is not an http://host:port proxy" in done.stderr, done
    assert "arg " not in done.stdout and list(tmp_path.glob("tmp.*")) == []


def test_the_image_gets_ssh_only_for_an_ssh_clone(built: Path, tmp_path: Path) -> None:
    dockerfile = (built / "Dockerfile").read_text()
    assert "'openssh-client' 'netcat-openbsd'" in dockerfile
    assert "COPY --chmod=0755 git-ssh.sh /etc/sandkit/git-ssh" in dockerfile
    entrypoint = (built / "entrypoint.sh").read_text()
    assert "GIT_SSH_VARIANT=ssh GIT_SSH_COMMAND=/etc/sandkit/git-ssh git" in entrypoint
    https = KIT.split("workspace:")[0].replace("git.example.com:22", "git.example.com")
    (tmp_path / "kit.yaml").write_text(https + "workspace: {repo: 'https://git.example.com/a.git'}\n")
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "docker"]) == 0
    assert "openssh" not in (tmp_path / "out/private/Dockerfile").read_text()
    assert not (tmp_path / "out/private/git-ssh.sh").exists()


def test_the_kubernetes_clone_container_gets_the_key_and_no_other_secret(built: Path) -> None:
    from ruamel.yaml import YAML

    spec = YAML(typ="safe").load((built / "kubernetes/job.yaml").read_text())["spec"]["template"]["spec"]

    def secrets(container: dict[str, Any]) -> list[str]:
        """The keys of the secret volume the container mounts at /run/secrets (never env values)."""
        assert not any("valueFrom" in e for e in container["env"] if e["name"] != "SANDKIT_NAMESPACE")
        (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == "/run/secrets"]
        (volume,) = [v for v in spec["volumes"] if v["name"] == mount["name"]]
        return [item["key"] for item in volume["secret"]["items"]]

    assert secrets(spec["initContainers"][0]) == ["DEPLOY_KEY"]
    assert secrets(spec["containers"][0]) == ["DEPLOY_KEY", "API_KEY"]
