"""The workflow's own steps, run locally in order with the real Docker engine.

GitHub is not here, so the two `uses:` steps stand in as they would act: harden-runner has no
local equivalent (it is proven by schema and zizmor), and checkout is the compiled folder itself.
Every `run:` step runs exactly as written, with bash as GitHub runs it and the step's own env.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from tests.compiler.helpers import in_folder

NAME = "actions-e2e"
TOKEN = "e2e-token-value"
AGENT = r"""
echo "uid=$(id -u)"
grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status | tr -d '\t' | sed 's/:/=/'
if touch /etc/probe 2>/dev/null; then echo root=writable; else echo root=read-only; fi
cd /sys/fs/cgroup
echo "memory=$(cat memory/memory.limit_in_bytes) cpu=$(cat cpu/cpu.cfs_quota_us) pids=$(cat pids/pids.max)"
cd /
echo "workspace=$(ls -A /workspace | wc -l) $(awk '$2 == "/workspace" {print $3}' /proc/mounts)"
echo "token=$(printf %s "$DEMO_TOKEN" | sha256sum | cut -c1-16)"
exec 3<>/dev/tcp/egress/3128
printf 'CONNECT refused.example:443 HTTP/1.1\r\nHost: refused.example:443\r\n\r\n' >&3
read -r status <&3
echo "proxy=${status%$'\r'}"
echo "event=$(base64 -w0 <"$SANDKIT_EVENT")"
echo "environment=$(env | base64 -w0)"
"""
KIT = f"""\
apiVersion: sandkit/v1
name: {NAME}
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, {json.dumps(AGENT)}]}}
secrets: [{{name: DEMO_TOKEN}}]
network: {{allow: [allowed.example]}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 512Mi, timeout: 2m}}
triggers:
  - webhook:
      source: generic
      name: alerts
      secret: ALERTS_TOKEN
      match: {{$.state: [firing]}}
      fields: {{title: $.alert.title, first_label: "$.alert.labels[0]"}}
"""
#: A dispatch whose payload tries every way out of the data it is.
TITLE = '$(touch /tmp/pwned) `id` ${{ secrets.DEMO_TOKEN }} \'"\n--- !!binary |\n{"a": [}\u2028\u00e9'
LABELS = ["${{ github.event.client_payload }}", "unselected"]
PAYLOAD = {
    "state": "firing",
    "alert": {
        "title": '$(touch /tmp/pwned) `id` ${{ secrets.DEMO_TOKEN }} \'"\n--- !!binary |\n{"a": [}\u2028\u00e9',
        "labels": ["${{ github.event.client_payload }}", "unselected"],
        "runbook": "never selected",
    },
}


def _env(step: dict[str, Any]) -> dict[str, str]:
    """The step's env as the runner would set it, secrets taken from the test's stand-ins."""
    values = {"${{ secrets.DEMO_TOKEN }}": TOKEN}
    return {k: values.get(str(v), str(v)) for k, v in step.get("env", {}).items()}


def _cleanup(steps: list[dict[str, Any]]) -> None:
    """Remove what the workflow's steps create, by the names the workflow gives them."""
    env = {k: str(v) for step in steps for k, v in step.get("env", {}).items()}
    for container in (env["SANDKIT_AGENT"], env["SANDKIT_PROXY"], f"{NAME}-probe"):
        subprocess.run(["docker", "rm", "--force", container], capture_output=True, check=False)
    subprocess.run(["docker", "network", "rm", env["SANDKIT_NETWORK"]], capture_output=True, check=False)
    subprocess.run(
        ["docker", "rmi", "--force", env["SANDKIT_IMAGE"], env["SANDKIT_PROXY_IMAGE"]], capture_output=True, check=False
    )


def _probe(env: dict[str, str]) -> dict[str, int]:
    """From the sandbox network: the proxy by its alias answers; the proxy's outside address does not."""
    outside = subprocess.run(
        ["docker", "inspect", "--format", "{{.NetworkSettings.Networks.bridge.IPAddress}}", env["SANDKIT_PROXY"]],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert outside, "the proxy has no address on Docker's default bridge"
    results = {}
    for label, host in (("egress", "egress"), ("outside", outside)):
        done = subprocess.run(
            [
                "docker",
                "run",
                "--rm",
                "--name",
                f"{NAME}-probe",
                "--network",
                env["SANDKIT_NETWORK"],
                "--entrypoint",
                "timeout",
                env["SANDKIT_PROXY_IMAGE"],
                "5",
                "bash",
                "-c",
                f"exec 3<>/dev/tcp/{host}/3128",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        results[label] = 0 if done.returncode == 0 else 1
    return results


@pytest.mark.docker
def test_the_jobs_steps_build_and_run_the_agent_behind_the_proxy(tmp_path: Path) -> None:
    (tmp_path / "kit.yaml").write_text(KIT, encoding="utf-8")
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q"]) == 0
    workflow = YAML(typ="safe").load((tmp_path / f"out/{NAME}/workflows/{NAME}.yml").read_text())
    steps = workflow["jobs"]["agent"]["steps"]
    assert [s.get("uses", "").split("@")[0] for s in steps[:2]] == ["step-security/harden-runner", "actions/checkout"]
    _cleanup(steps)
    outputs: dict[str, str] = {}
    probes: dict[str, int] = {}
    github = _dispatch(tmp_path)
    try:
        failed = False
        for step in steps[2:]:
            if failed and step.get("if") != "${{ always() }}":
                continue
            if step.get("if") == "${{ steps.event.outputs.skip != 1 }}":
                assert "skip=1" not in Path(github["GITHUB_OUTPUT"]).read_text()
            shell = (
                ["python3", "-c"]
                if step.get("shell") == "python"
                else ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]
            )
            done = subprocess.run(
                [*shell, step["run"]],
                cwd=tmp_path,
                env={**os.environ, **github, **_env(step)},
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            outputs[step["name"]] = done.stdout + done.stderr
            failed = failed or done.returncode != 0
            if step["name"].startswith("Start the egress proxy") and not failed:
                probes = _probe(_env(step))
        assert not failed, outputs
    finally:
        _cleanup(steps)
    agent = outputs["Run the agent in its sandbox"]
    assert "uid=1000" in agent
    assert "CapEff=0000000000000000" in agent and "NoNewPrivs=1" in agent and "Seccomp=2" in agent, agent
    assert "root=read-only" in agent, agent
    assert f"memory={512 * 2**20} cpu=100000 pids=512" in agent, agent  # the kit's 512Mi, 1 CPU, default pids
    assert "workspace=0 tmpfs" in agent, agent
    assert f"token={hashlib.sha256(TOKEN.encode()).hexdigest()[:16]}" in agent
    assert "proxy=HTTP/1.1 403 Forbidden" in agent, agent
    assert probes == {"egress": 0, "outside": 1}, "the sandbox network reaches the proxy and nothing beyond"
    assert "refused.example:443" in outputs["Egress proxy decisions"]
    lines = dict(line.split("=", 1) for line in agent.splitlines() if "=" in line)
    event = base64.b64decode(lines["event"])
    assert json.loads(event) == {"title": TITLE, "first_label": LABELS[0]}
    assert b"never selected" not in event and b"unselected" not in event
    assert "pwned" not in base64.b64decode(lines["environment"]).decode()


def _dispatch(folder: Path) -> dict[str, str]:
    """What the runner sets for a repository_dispatch: the event file, its name, a temp folder, the output file."""
    (folder / "runner-temp").mkdir()
    (folder / "event.json").write_text(
        json.dumps({"action": "alerts", "client_payload": PAYLOAD, "repository": {"full_name": "acme/app"}}),
        encoding="utf-8",
    )
    (folder / "output").touch()
    return {
        "GITHUB_EVENT_NAME": "repository_dispatch",
        "GITHUB_EVENT_PATH": str(folder / "event.json"),
        "GITHUB_OUTPUT": str(folder / "output"),
        "RUNNER_TEMP": str(folder / "runner-temp"),
    }
