"""The clone's token in the compiled image: a credential helper that answers for the repository's host
alone, and no trace of the token in the build context or the compose file."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from sandkit.cli import main
from tests.compiler.helpers import in_folder

KIT = """\
apiVersion: sandkit/v1
name: private
agent: {command: [agent]}
secrets: [{name: GIT_TOKEN}]
network: {allow: ["git.example.com:8443"]}
workspace: {repo: "https://git.example.com:8443/a/b.git", token: GIT_TOKEN, token_username: oauth2}
"""


def _helper(folder: Path, request: str, token: str = "t0k3n") -> str:
    done = subprocess.run(
        ["sh", str(folder / "git-credential.sh"), "get"],
        input=request,
        env={"GIT_TOKEN": token, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_the_helper_answers_for_the_repositorys_host_only(tmp_path: Path) -> None:
    (tmp_path / "kit.yaml").write_text(KIT)
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "compose"]) == 0
    folder = tmp_path / "out/private"
    assert _helper(folder, "protocol=https\nhost=git.example.com:8443\npath=a/b.git\n") == (
        "username=oauth2\npassword=t0k3n\n"
    )
    for other in ("protocol=https\nhost=git.example.com\n", "protocol=http\nhost=git.example.com:8443\n"):
        assert _helper(folder, other) == "", other
    assert _helper(folder, "protocol=https\nhost=evil.example.com\n") == ""
    assert "COPY --chmod=0755 git-credential.sh /etc/sandkit/git-credential" in (folder / "Dockerfile").read_text()
    entrypoint = (folder / "entrypoint.sh").read_text()
    assert '"GIT_CONFIG_VALUE_$((n + 1))=/etc/sandkit/git-credential" git' in entrypoint
    assert "https://git.example.com:8443/a/b.git" in entrypoint and "GIT_TOKEN@" not in entrypoint


def test_the_kubernetes_clone_container_gets_the_token_and_no_other_secret(tmp_path: Path) -> None:
    from ruamel.yaml import YAML

    (tmp_path / "kit.yaml").write_text(
        KIT.replace("secrets: [{name: GIT_TOKEN}]", "secrets: [{name: GIT_TOKEN}, {name: KEY}]")
    )
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "kubernetes"]) == 0
    job = YAML(typ="safe").load((tmp_path / "out/private/kubernetes/job.yaml").read_text())
    spec = job["spec"]["template"]["spec"]

    def secrets(container: dict[str, Any]) -> list[str]:
        """The keys of the secret volume the container mounts at /run/secrets (never env values)."""
        assert not any("valueFrom" in e for e in container["env"] if e["name"] != "SANDKIT_NAMESPACE")
        (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == "/run/secrets"]
        (volume,) = [v for v in spec["volumes"] if v["name"] == mount["name"]]
        return [item["key"] for item in volume["secret"]["items"]]

    assert secrets(spec["initContainers"][0]) == ["GIT_TOKEN"]
    assert secrets(spec["containers"][0]) == ["GIT_TOKEN", "KEY"]
