"""The workflow's own steps, run locally in order with the real Docker engine, against a hostile agent.

GitHub is not here, so the two `uses:` steps stand in as they would act: harden-runner has no
local equivalent (it is proven by schema and zizmor), and checkout is the compiled folder itself.
Every `run:` step runs exactly as written, with bash as GitHub runs it, the step's own env and a
RUNNER_TEMP of its own. The agent probes the host and the proxy, prints a workflow command, ignores
signals and would run on; the test reads its container's record while it runs, then tells it to end
with exit status 3 (which the session record's outcome line must say), or cancels the step as the
runner does (SIGINT, SIGTERM, SIGKILL to the step's processes), and runs the `always()` steps, which
must leave nothing of the job behind.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from sandkit.record import parse
from tests.compiler import buildx_play
from tests.compiler.helpers import in_folder
from tests.compiler.test_kubernetes_docker import API_HOST as K8S_API_HOST
from tests.compiler.test_kubernetes_docker import WEB_HOST as K8S_WEB_HOST
from tests.compiler.test_kubernetes_docker import _address, _authority, _outside_network, _serve_headers
from tests.compiler.test_kubernetes_docker import _docker as _docker_cli
from tests.e2e.helpers import MEMORY_AND_FILES_PROBE, OUTSIDE_DIR, used_subnets
from tests.e2e.host import GATEWAY_SCRIPT, HostListener, host_addresses, reach_script, require_root, stray_addresses

TOKEN = "e2e-token-value"
#: A path and query the agent puts in a refused request: the job log may show its host and port only.
PRIVATE_PART = "private-path?key=hunter2"
AGENT = r"""
trap '' INT TERM HUP
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
exec 3<>/dev/tcp/egress/3128
printf 'GET http://refused.example/PRIVATE HTTP/1.1\r\nHost: refused.example\r\n\r\n' >&3
read -r status <&3
echo "plain=${status%$'\r'}"
echo "event=$(base64 -w0 <"$SANDKIT_EVENT")"
echo "environment=$(env | base64 -w0)"
echo '::error title=from the agent::a workflow command the runner must not act on'
""".replace("PRIVATE", PRIVATE_PART)


def _kit(name: str, probes: str) -> str:
    # Once the test has read its container's record, it tells the agent to end, with its own exit status.
    wait = "for _ in $(seq 120); do if [ -e /tmp/finish ]; then exit 3; fi; sleep 1; done\n"
    command = AGENT + GATEWAY_SCRIPT + probes + "echo agent-ready\n" + wait + "echo agent-finished\n"
    return f"""\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, {json.dumps(command)}]}}
# the job's proxy injects DEMO_TOKEN (no placeholder: the agent's variable stays unset)
secrets: [{{name: DEMO_TOKEN, inject: [{{host: allowed.example, header: x-demo-token}}]}}]
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
    "alert": {"title": TITLE, "labels": LABELS, "runbook": "never selected"},
}


def _env(step: dict[str, Any], github: dict[str, str], token: str = TOKEN) -> dict[str, str]:
    """The step's env as the runner would set it, secrets taken from the test's stand-ins."""
    values = {"${{ secrets.DEMO_TOKEN }}": token, **buildx_play.OUTPUTS}
    own = {k: values.get(str(v), str(v)) for k, v in step.get("env", {}).items()}
    return {**os.environ, **github, **own}


def _shell(step: dict[str, Any]) -> list[str]:
    """The step's script under the shell the runner would use for it."""
    if step.get("shell") == "python":
        return ["python3", "-c", step["run"]]
    return ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]]


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
        "GITHUB_STEP_SUMMARY": str(folder / "summary.md"),
        "RUNNER_TEMP": str(folder / "runner-temp"),
    }


def _leftovers(name: str) -> list[str]:
    """Containers, networks and volumes of this job still on the engine."""
    found = []
    for kind in ("container", "network", "volume"):
        listing = subprocess.run(
            ["docker", kind, "ls", *(["-a"] if kind == "container" else []), "--format", "{{.Names}}"]
            if kind == "container"
            else ["docker", kind, "ls", "--format", "{{.Name}}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        found += [f"{kind} {item}" for item in listing if name in item]
    return found


def _cleanup(name: str, images: list[str]) -> None:
    """Remove what the workflow's steps create, by the kit's name that every one of them carries."""
    for entry in _leftovers(name):
        kind, item = entry.split()
        subprocess.run(["docker", kind, "rm", "--force", item], capture_output=True, check=False)
    subprocess.run(["docker", "rmi", "--force", *images], capture_output=True, check=False)


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
                f"{env['SANDKIT_PROXY']}-probe",
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


def _cancel(process: subprocess.Popen[str]) -> None:
    """What the runner does to a cancelled or timed-out step: SIGINT, SIGTERM, then SIGKILL."""
    for sig, grace in ((signal.SIGINT, 2), (signal.SIGTERM, 2), (signal.SIGKILL, 5)):
        if process.poll() is not None:
            return
        os.killpg(process.pid, sig)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            continue


def _run_agent(
    step: dict[str, Any], env: dict[str, str], cwd: Path, finish: bool = False
) -> tuple[str, dict[str, Any], bool]:
    """Start the agent step, read its container's record (and whether its deadline runs) once the agent
    is up, then cancel the step, or with ``finish`` tell the agent to end (``/tmp/finish``) and let the
    step end as it does."""
    process = subprocess.Popen(
        _shell(step),
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.strip() == "agent-ready":
                break
        inspected = subprocess.run(["docker", "inspect", env["SANDKIT_AGENT"]], capture_output=True, text=True)
        record = json.loads(inspected.stdout)[0] if inspected.returncode == 0 else {}
        state = ["docker", "inspect", "--format", "{{.State.Running}}", env["SANDKIT_DEADLINE"]]
        deadline_running = subprocess.run(state, capture_output=True, text=True).stdout.strip() == "true"
        if finish:
            subprocess.run(["docker", "exec", env["SANDKIT_AGENT"], "touch", "/tmp/finish"], check=False)
            process.wait(60)
    finally:
        _cancel(process)
    lines.append(process.stdout.read())
    return "".join(lines), record, deadline_running


@pytest.mark.docker
def test_the_jobs_steps_hold_a_hostile_agent_and_leave_nothing_behind(tmp_path: Path) -> None:
    name = f"actions-e2e-{secrets.token_hex(3)}"
    listener = HostListener().start()
    probes = reach_script([*host_addresses([]), "$GATEWAY"], listener.port, name, icmp=False)
    (tmp_path / "kit.yaml").write_text(_kit(name, probes), encoding="utf-8")
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q"]) == 0
    workflow = YAML(typ="safe").load((tmp_path / f"out/{name}/workflows/{name}.yml").read_text())
    steps = workflow["jobs"]["agent"]["steps"]
    assert [s.get("uses", "").split("@")[0] for s in steps[:2]] == ["step-security/harden-runner", "actions/checkout"]
    images = sorted({str(v) for s in steps for k, v in s.get("env", {}).items() if k.endswith("IMAGE")})
    github = _dispatch(tmp_path)
    runner_temp = Path(github["RUNNER_TEMP"])
    outputs: dict[str, str] = {}
    probes_from_network: dict[str, int] = {}
    record: dict[str, Any] = {}
    image_id = ""
    deadline_running = False
    failed_cleanup: list[str] = []
    try:
        failed = False
        for step in steps[2:]:
            always = step.get("if") == "${{ always() }}"
            if failed and not always:
                continue
            env = _env(step, github)
            if step.get("if") == "${{ steps.event.outputs.skip != 1 }}":
                assert "skip=1" not in Path(github["GITHUB_OUTPUT"]).read_text()
            if step["name"] == "Run the agent in its sandbox":
                outputs[step["name"]], record, deadline_running = _run_agent(step, env, tmp_path, finish=True)
                image_id = _docker_cli("image", "inspect", "--format", "{{.Id}}", env["SANDKIT_IMAGE"]).stdout.strip()
                continue
            done = _step(step, github, tmp_path)
            outputs[step["name"]] = done.stdout + done.stderr
            if always and done.returncode != 0:
                failed_cleanup.append(f"{step['name']}: {outputs[step['name']]}")
            failed = failed or (done.returncode != 0 and not always)
            if step["name"].startswith("Start the egress proxy") and not failed:
                probes_from_network = _probe(env)
        assert not failed, outputs
        left = _leftovers(name)
        secret_files = sorted(str(p) for p in runner_temp.rglob("*"))
    finally:
        _cleanup(name, images)
        listener.close()
    agent = outputs["Run the agent in its sandbox"]
    decisions = outputs["Egress proxy decisions"]
    assert "uid=1000" in agent, agent
    assert "CapEff=0000000000000000" in agent and "NoNewPrivs=1" in agent and "Seccomp=2" in agent, agent
    assert "root=read-only" in agent, agent
    assert f"memory={512 * 2**20} cpu=100000 pids=512" in agent, agent  # the kit's 512Mi, 1 CPU, default pids
    assert "workspace=0 tmpfs" in agent, agent
    assert f"token={hashlib.sha256(b'').hexdigest()[:16]}" in agent, agent  # the proxy's alone
    assert "proxy=HTTP/1.1 403 Forbidden" in agent and "plain=HTTP/1.1 403 Forbidden" in agent, agent
    assert probes_from_network == {"egress": 0, "outside": 1}, (
        "the sandbox network reaches the proxy and nothing beyond"
    )
    breaches = []
    if TOKEN in json.dumps(record) or not record:
        breaches.append(f"the secret's value is in `docker inspect` of the agent container: {record.get('Config')}")
    host = record.get("HostConfig", {})
    if not str(host.get("PidMode", "")).startswith("container:") or not deadline_running:
        breaches.append(f"the agent is not in a running deadline's PID namespace: {host.get('PidMode')}")
    # One disk budget per session (resources.disk, here memory, the smaller): half to the workspace.
    if f"size={256 * 2**20}" not in str((host.get("Tmpfs") or {}).get("/workspace")):
        breaches.append(
            f"the workspace is not half of the session's disk budget (here memory, the smaller): {host.get('Tmpfs')}"
        )
    log_config = host.get("LogConfig")
    if log_config != {"Type": "json-file", "Config": {"max-file": "3", "max-size": "10m"}}:
        breaches.append(f"the agent container's log is not bounded: {log_config}")
    reached = [line for line in agent.splitlines() if line.startswith("reached ")]
    if reached or listener.events:
        breaches.append(f"the agent reached the runner host: {reached} {listener.events}")
    command_at = agent.find("::error title=from the agent")
    stop_at = agent.find("::stop-commands::")
    if not 0 <= stop_at < command_at:
        breaches.append("the agent's output reaches the job log with workflow commands still active")
    if "refused.example:443" not in decisions or "refused.example:80" not in decisions:
        breaches.append(f"the job log does not show the refused host:port pairs:\n{decisions}")
    if "private-path" in decisions or "hunter2" in decisions:
        breaches.append(f"the job log shows more than the host and port of a refused request:\n{decisions}")
    if failed_cleanup:
        breaches.append(f"an always() step failed: {failed_cleanup}")
    if left:
        breaches.append(f"the always() steps left these of the job on the runner: {left}")
    if secret_files:
        breaches.append(f"files of the session left in RUNNER_TEMP: {secret_files}")
    assert breaches == [], "\n".join(breaches) + f"\n--- agent step\n{agent}"
    lines = dict(line.split("=", 1) for line in agent.splitlines() if "=" in line)
    event = base64.b64decode(lines["event"])
    assert json.loads(event) == {"title": TITLE, "first_label": LABELS[0]}
    assert b"never selected" not in event and b"unselected" not in event
    assert "pwned" not in base64.b64decode(lines["environment"]).decode()
    # The session record (docs/record.md): uploaded whole after the proxy stopped, its refusals in the summary.
    [uploaded] = (tmp_path / "artifacts" / f"sandkit-record-{name}").iterdir()
    session = parse(str(uploaded), uploaded.read_bytes())
    assert session.problems == [] and session.end is not None and session.start is not None, session
    assert session.start["kit"] == name, session.start
    # The runner's outcome line: the agent's own exit status, and the ID of the image it ran.
    assert session.outcome is not None, session
    assert (session.outcome["exit_status"], session.outcome["image_digest"]) == (3, image_id), session.outcome
    assert image_id.startswith("sha256:"), image_id
    refused = {(d["host"], d["port"], d["reason"]) for d in session.decisions if d["decision"] == "refused"}
    assert {("refused.example", "443", "not-allowlisted"), ("refused.example", "80", "not-allowlisted")} <= refused
    summary = Path(github["GITHUB_STEP_SUMMARY"]).read_text()
    assert "| `refused.example` | 443 | not-allowlisted |" in summary, summary


#: Docker's default address pools: where an engine without its own takes a new network's subnet.
DEFAULT_POOLS = [*(f"172.{n}.0.0/16" for n in range(17, 32)), *(f"192.168.{n}.0/20" for n in range(0, 256, 16))]


@pytest.mark.docker
def test_the_job_refuses_a_sandbox_network_on_which_the_runner_holds_an_address(tmp_path: Path) -> None:
    """Every free default pool's gateway address is held by a stray bridge, so wherever the engine puts
    the sandbox network the runner would answer the agent there: the start step tries three subnets,
    refuses each, never starts the proxy, and the always() steps leave nothing behind."""
    require_root("holding addresses on a stray bridge")
    name = f"actions-guard-{secrets.token_hex(3)}"
    (tmp_path / "kit.yaml").write_text(_kit(name, ""), encoding="utf-8")
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "actions"]) == 0
    workflow = YAML(typ="safe").load((tmp_path / f"out/{name}/workflows/{name}.yml").read_text())
    steps = {step["name"]: step for step in workflow["jobs"]["agent"]["steps"][2:]}
    images = sorted({str(v) for s in steps.values() for k, v in s.get("env", {}).items() if k.endswith("IMAGE")})
    github = _dispatch(tmp_path)
    used = used_subnets()
    free = [ipaddress.ip_network(pool) for pool in DEFAULT_POOLS]
    gateways = [str(next(pool.hosts())) for pool in free if not any(pool.overlaps(u) for u in used)]
    try:
        built = _step(steps["Build the egress proxy image"], github, tmp_path)
        assert built.returncode == 0, built.stdout + built.stderr
        start = steps["Start the egress proxy on the sandbox network"]
        with stray_addresses(f"sk-stray-{name[-6:]}", gateways):
            started = _step(start, github, tmp_path)
        proxy = subprocess.run(["docker", "container", "inspect", start["env"]["SANDKIT_PROXY"]], capture_output=True)
        cleaned = _step(steps["Remove the sandbox"], github, tmp_path)
        left = _leftovers(name)
    finally:
        _cleanup(name, images)
    held = re.findall(r"sandkit-host-guard: this machine holds (\S+), the sandbox network's gateway", started.stderr)
    assert started.returncode != 0 and len(set(held)) == 3, started.stdout + started.stderr
    assert proxy.returncode != 0, "the proxy started on a refused network"
    assert cleaned.returncode == 0 and left == [], (cleaned.stderr, left)


def _step(
    step: dict[str, Any], github: dict[str, str], cwd: Path, token: str = TOKEN, cache: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run one `run:` step as the runner would, with its env; its output is kept, never raised on. An
    upload-artifact step copies its folder to ``cwd/artifacts/NAME``, as the upload would take it; the
    image builds are played with the engine's builder, ``cache`` standing in for the Actions cache
    (tests/compiler/buildx_play.py)."""
    if buildx_play.is_build_action(step):
        if not buildx_play.runs_for(step, github["GITHUB_EVENT_NAME"]):
            return subprocess.CompletedProcess(["skipped"], 0, "", "")
        return buildx_play.play(step, cwd, cache)
    if step.get("uses", "").startswith("actions/upload-artifact@"):
        folder = Path(step["with"]["path"].replace("${{ runner.temp }}", github["RUNNER_TEMP"]))
        if folder.is_dir():
            shutil.copytree(folder, cwd / "artifacts" / step["with"]["name"])
        return subprocess.CompletedProcess(["upload-artifact"], 0, "", "")
    env = _env(step, github, token)
    return subprocess.run(_shell(step), cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.docker
def test_an_agent_that_stops_its_parent_still_ends_at_the_jobs_timeout(tmp_path: Path) -> None:
    """SIGSTOP to its parent and to every process it may signal: the deadline container, of another
    uid, still ends the session soon after the kit's 3 s, and the always() steps leave nothing."""
    name = f"actions-stop-{secrets.token_hex(3)}"
    script = "echo started; kill -STOP $PPID; kill -STOP -1; echo stopped; sleep 60; echo finished"
    kit = f"""\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, {json.dumps(script)}]}}
network: {{egress: none}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 256Mi, timeout: 3s}}
"""
    (tmp_path / "kit.yaml").write_text(kit, encoding="utf-8")
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "actions"]) == 0
    workflow = YAML(typ="safe").load((tmp_path / f"out/{name}/workflows/{name}.yml").read_text())
    steps = workflow["jobs"]["agent"]["steps"][2:]
    images = sorted({str(v) for s in steps for k, v in s.get("env", {}).items() if k.endswith("IMAGE")})
    github = _dispatch(tmp_path)
    ran: dict[str, subprocess.CompletedProcess[str]] = {}
    elapsed = 0.0
    try:
        for step in steps:
            started = time.monotonic()
            ran[step["name"]] = _step(step, github, tmp_path)
            if step["name"] == "Run the agent in its sandbox":
                elapsed = time.monotonic() - started
        left = _leftovers(name)
    finally:
        _cleanup(name, images)
    agent = ran["Run the agent in its sandbox"]
    assert "stopped" in agent.stdout and "finished" not in agent.stdout, agent.stdout + agent.stderr
    assert agent.returncode != 0, "the step reports success for a session its deadline ended"
    assert elapsed < 25, f"the session ended {elapsed:.0f} s after it started, not near the kit's 3 s"
    assert ran["Remove the sandbox"].returncode == 0 and left == [], (ran["Remove the sandbox"].stderr, left)


INJECT_VALUE = "sk-inject-" + "Q7" * 20
INJECT_PLACEHOLDER = "actions-placeholder-not-the-key"
#: The agent: its variable, the injection host's answer (read through a file and a digest, so the value the
#: server echoes never passes the shell), another allowed host's, the issuer it saw, then a scan of every
#: process's environ, cmdline and readable memory and every file of its container for the needles (the value
#: and, as a control the scan must find, the placeholder), given reversed in a file of the image.
INJECT_AGENT = f"""
echo "variable=$DEMO_TOKEN"
curl -sS -m 20 -H 'x-demo-token: chosen-by-the-agent' https://{K8S_API_HOST}:8443/headers >/tmp/api 2>&1 || echo api-failed
echo "api-headers=$(grep -ci '^header x-demo-token:' /tmp/api)"
echo "api-digest=$(grep -i '^header x-demo-token:' /tmp/api | sha256sum | cut -c1-64)"
echo "api-own=$(grep -c chosen-by-the-agent /tmp/api)"
rm -f /tmp/api
echo "api-issuer=$(curl -sS -m 20 -v -o /dev/null https://{K8S_API_HOST}:8443/issuer 2>&1 | sed -n 's/^\\*  issuer: //p')"
echo "web-headers=$(curl -sS -m 20 https://{K8S_WEB_HOST}:8443/headers | grep -ci '^header x-demo-token:')"
if [ -e /run/sandkit-egress ]; then echo authority-folder=present; else echo authority-folder=absent; fi
echo "authority-files=$(ls -A /run/sandkit-proxy-ca | tr '\\n' ' ')"
if touch /run/sandkit-proxy-ca/ca.pem 2>/dev/null; then echo authority=writable; else echo authority=read-only; fi
echo "trusted=$(sha256sum </run/sandkit-proxy-ca/ca.pem | cut -c1-64)"
perl /etc/probe/scan.pl </etc/probe/needles
echo agent-ready
sleep 120
"""


def _inject_kit(name: str) -> str:
    needles = "".join(n[::-1] + "\n" for n in (INJECT_VALUE, INJECT_PLACEHOLDER))
    return f"""\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim", packages: {{apt: [curl]}}, ca_certificates: [outside-ca.pem]}}
agent: {{command: [bash, -c, {json.dumps(INJECT_AGENT)}]}}
secrets:
  - name: DEMO_TOKEN
    placeholder: {INJECT_PLACEHOLDER}
    inject: [{{host: "{K8S_API_HOST}:8443", header: x-demo-token, format: "Key {{value}}"}}]
network: {{allow: ["{K8S_API_HOST}:8443", "{K8S_WEB_HOST}:8443"]}}
files:
  - {{path: /etc/probe/scan.pl, content: {json.dumps(MEMORY_AND_FILES_PROBE)}}}
  - {{path: /etc/probe/needles, content: {json.dumps(needles)}}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 512Mi, timeout: 3m}}
"""


def _runner_network(folder: Path, outside: str, server: str, proxy: str) -> Path:
    """A `docker` first on PATH that stands in for the runner's network and nothing else: when the start step
    runs the proxy, the runner's resolver (the proxy's hosts file) names the stand-in server, and the proxy
    reaches it (the server's network, of AS112 addresses: public to squid, as a real API host would be).
    Every other command, and every flag of the step's own, goes to the real client unchanged."""
    real = shutil.which("docker")
    assert real, "no docker client"
    hosts = " ".join(f"--add-host {host}:{server}" for host in (K8S_API_HOST, K8S_WEB_HOST))
    shim = folder / "runner-bin"
    shim.mkdir()
    (shim / "docker").write_text(
        f"""#!/bin/bash
if [ "$1" = run ] && [ "$2" = --detach ] && [ "$3" = --name ] && [ "$4" = {proxy} ]; then
  shift
  {real} run {hosts} "$@" || exit
  exec {real} network connect {outside} {proxy}
fi
exec {real} "$@"
"""
    )
    (shim / "docker").chmod(0o755)
    return shim


@pytest.mark.docker
def test_the_jobs_proxy_injects_and_the_agent_holds_only_the_placeholder(tmp_path: Path) -> None:
    """The workflow's steps as written, with a TLS stand-in server where the runner's network would reach the
    API: the real value arrives in the header at the injection host alone (over the agent's own), the agent
    holds the placeholder and trusts the proxy's authority for this job, and neither the value nor the
    authority's key is in any process, memory region or file of its container or in `docker inspect` of it."""
    token = secrets.token_hex(3)
    name = f"actions-inject-{token}"
    certs = _authority(
        tmp_path / "outside-certs", "sandkit-actions-test-ca", [f"DNS:{K8S_API_HOST}", f"DNS:{K8S_WEB_HOST}"]
    )
    (tmp_path / "outside-ca.pem").write_bytes((certs / "ca.pem").read_bytes())
    (tmp_path / "kit.yaml").write_text(_inject_kit(name), encoding="utf-8")
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "actions"]) == 0
    workflow = YAML(typ="safe").load((tmp_path / f"out/{name}/workflows/{name}.yml").read_text())
    steps = {step["name"]: step for step in workflow["jobs"]["agent"]["steps"][2:]}
    start, agent_step = steps["Start the egress proxy on the sandbox network"], steps["Run the agent in its sandbox"]
    assert start["env"]["DEMO_TOKEN"] == "${{ secrets.DEMO_TOKEN }}", "the proxy's step gets the injected secret"
    assert "DEMO_TOKEN" not in agent_step["env"] and "DEMO_TOKEN" not in agent_step["env"]["SANDKIT_SECRET_NAMES"]
    images = sorted({str(v) for s in steps.values() for k, v in s.get("env", {}).items() if k.endswith("IMAGE")})
    proxy = start["env"]["SANDKIT_PROXY"]
    server_tag, server, outside = f"sandkit-test/{name}-outside:{token}", f"{name}-tlssrv", f"{name}-outside"
    github = _dispatch(tmp_path)
    ran: dict[str, str] = {}
    record: dict[str, Any] = {}
    key = proxy_ca = proxy_log = ""
    outsiders: dict[str, str] = {}
    try:
        _docker_cli("buildx", "build", "--load", "-q", "-t", server_tag, str(OUTSIDE_DIR))
        _outside_network(outside, token)
        _serve_headers(certs, server_tag, outside, server)
        address = _address(server, outside)
        github["PATH"] = f"{_runner_network(tmp_path, outside, address, proxy)}:{os.environ['PATH']}"
        failed = False
        for step in steps.values():
            if failed and step.get("if") != "${{ always() }}":
                continue
            if step is agent_step:
                ran[step["name"]], record, _ = _run_agent(step, _env(step, github, INJECT_VALUE), tmp_path)
                key = _docker_cli("exec", proxy, "cat", "/run/sandkit-egress/ca.key").stdout
                proxy_ca = _docker_cli("exec", proxy, "cat", "/run/sandkit-egress/ca.pem").stdout
                proxy_log = _docker_cli("logs", proxy).stdout
                continue
            done = _step(step, github, tmp_path, INJECT_VALUE)
            ran[step["name"]] = done.stdout + done.stderr
            failed = failed or (done.returncode != 0 and step.get("if") != "${{ always() }}")
            if step is start and not failed:
                outsiders = _outsiders(proxy, start["env"]["SANDKIT_PROXY_IMAGE"])
        server_log = _docker_cli("logs", server).stdout + _docker_cli("logs", server).stderr
        left = [item for item in _leftovers(name) if item.split()[1] not in (server, outside)]  # the test's own
        session_files = sorted(str(p) for p in Path(github["RUNNER_TEMP"]).rglob("*"))
    finally:
        _docker_cli("rm", "-f", server, check=False)
        _cleanup(name, [*images, server_tag])
        _docker_cli("network", "rm", outside, check=False)
    assert not failed, ran
    output = ran["Run the agent in its sandbox"]
    lines = dict(line.split("=", 1) for line in output.splitlines() if "=" in line and " " not in line.split("=")[0])
    digest = hashlib.sha256(f"header x-demo-token: Key {INJECT_VALUE}\n".encode()).hexdigest()
    assert lines["variable"] == INJECT_PLACEHOLDER, output
    assert (lines["api-headers"], lines["api-digest"], lines["api-own"]) == ("1", digest, "0"), output
    assert lines["web-headers"] == "0", f"another allowed host received the injected header:\n{output}"
    assert lines["api-issuer"] == f"CN=sandkit egress {name}", output
    assert lines["trusted"] == hashlib.sha256(proxy_ca.encode()).hexdigest(), "the agent trusts another authority"
    assert (lines["authority-folder"], lines["authority-files"], lines["authority"]) == (
        "absent",
        "ca.pem ",
        "read-only",
    )
    scanned = re.search(r"scanned processes=(\d+) regions=(\d+) bytes=(\d+) files=(\d+)", output)
    assert scanned, f"the probe did not finish:\n{output}"
    processes, regions, size, files = map(int, scanned.groups())
    assert processes >= 3 and regions > 20 and size > 1_000_000 and files > 1000, scanned.group(0)
    assert "found needle#1 in environ of" in output and "found needle#1 in memory of" in output, (
        f"the probe does not find the placeholder the agent does hold, so its silence proves nothing:\n{output}"
    )
    assert "needle#0" not in output, f"the injected value is in the agent's container:\n{output}"
    key_line = key.splitlines()[1]
    assert "PRIVATE KEY" in key and key_line not in output
    inspected = json.dumps(record)
    assert record and INJECT_VALUE not in inspected and key_line not in inspected, "docker inspect of the agent"
    assert INJECT_PLACEHOLDER in inspected  # the record is the agent's, which holds the placeholder
    assert INJECT_VALUE not in proxy_log and INJECT_VALUE not in server_log, "the value is in a log"
    assert f"inject=x-demo-token@{K8S_API_HOST}:8443" in proxy_log, proxy_log
    assert left == [] and session_files == [], (left, session_files)
    # The agent's step was cancelled: docker run forwards the SIGINT, which ends the agent's bash (130); if the
    # step itself was ended before it could write that, the runner's outcome line says the status is unknown.
    [uploaded] = (tmp_path / "artifacts" / f"sandkit-record-{name}").iterdir()
    session = parse(str(uploaded), uploaded.read_bytes())
    assert session.problems == [] and session.outcome is not None, session
    assert session.outcome["exit_status"] in (130, None), session.outcome
    assert session.outcome["image_digest"].startswith("sha256:"), session.outcome
    # Issue 34's second finding, on the runner: the proxy's address on Docker's default bridge (its way out)
    # answers the runner and that bridge's containers with a refusal, never a tunnel with the header.
    assert outsiders == {"runner": "HTTP/1.1 403 Forbidden", "bridge": "HTTP/1.1 403 Forbidden"}, outsiders


def _outsiders(proxy: str, image: str) -> dict[str, str]:
    """What the proxy's address on the default bridge answers a CONNECT to the injection host with: from the
    runner itself (this process) and from a container on that bridge."""
    address = _docker_cli("inspect", "--format", "{{.NetworkSettings.Networks.bridge.IPAddress}}", proxy).stdout.strip()
    assert address, "the proxy has no address on Docker's default bridge"
    request = f"CONNECT {K8S_API_HOST}:8443 HTTP/1.1\r\nHost: {K8S_API_HOST}:8443\r\n\r\n"
    with socket.create_connection((address, 3128), timeout=10) as connection:
        connection.sendall(request.encode())
        runner = connection.recv(4096).decode(errors="replace").split("\r\n", 1)[0]
    script = (
        f'exec 3<>/dev/tcp/{address}/3128 && printf %b {shlex.quote(request)} >&3 && read -r line <&3 && echo "$line"'
    )
    bridge = _docker_cli("run", "--rm", "--name", f"{proxy}-outsider", "--network", "bridge", "--entrypoint", "bash",
                         image, "-c", script, check=False)  # fmt: skip
    return {"runner": runner, "bridge": bridge.stdout.strip().rstrip("\r")}


def _cache_kit(name: str, uid: int) -> str:
    """A kit that installs a package; its uid, new at each test, makes every layer after FROM its own."""
    return f"""\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim", uid: {uid}, packages: {{apt: [curl]}}}}
agent: {{command: [bash, -c, "echo agent-first-command"]}}
network: {{egress: none}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 256Mi, timeout: 2m}}
triggers: [{{manual: {{}}}}]
"""


@pytest.mark.docker
def test_a_repeat_run_installs_nothing_the_image_cache_holds(tmp_path: Path) -> None:
    """The job's build steps twice, the second as on a fresh runner (the image gone, and the engine
    builder's records of its steps too), with a folder standing in for the Actions cache
    (tests/compiler/buildx_play.py): the first run executes every RUN and writes the cache; a run without
    the cache's entry executes them all again (so the engine kept nothing of the first); then a run with
    it takes every RUN from it (CACHED) and installs nothing."""
    token = secrets.token_hex(3)
    name = f"actions-cache-{token}"
    (tmp_path / "kit.yaml").write_text(_cache_kit(name, 20000 + secrets.randbelow(30000)), encoding="utf-8")
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "actions"]) == 0
    workflow = YAML(typ="safe").load((tmp_path / f"out/{name}/workflows/{name}.yml").read_text())
    steps = workflow["jobs"]["agent"]["steps"]
    [builder] = [i for i, s in enumerate(steps) if s.get("uses", "").startswith(buildx_play.SETUP_BUILDX)]
    [removal] = [i for i, s in enumerate(steps) if s["name"] == "Remove the image builder"]
    [build] = [s for s in steps[builder:removal] if buildx_play.is_build_action(s) and "cache-to" in s["with"]]
    image, dockerfile = str(build["with"]["tags"]), tmp_path / str(build["with"]["file"])
    github = _dispatch(tmp_path)
    github["GITHUB_EVENT_NAME"] = "workflow_dispatch"
    cache, empty = tmp_path / "cache", tmp_path / "empty-cache"
    cache.mkdir()
    empty.mkdir()
    logs: dict[str, str] = {}
    start = set(buildx_play.build_records())
    try:
        for run, folder in (("cold", cache), ("without the entry", empty), ("warm", cache)):
            before = set(buildx_play.build_records())
            ran = [_step(step, github, tmp_path, cache=folder) for step in steps[builder : removal + 1]]
            assert all(done.returncode == 0 for done in ran), [done.stderr for done in ran]
            logs[run] = "".join(done.stdout + done.stderr for done in ran)
            buildx_play.forget([image], [dockerfile], before)
            if run == "cold":
                assert (cache / f"{buildx_play.scope(build)}.tar").is_file(), "the first run wrote no cache entry"
    finally:
        buildx_play.forget([image, buildx_play.cache_tag(buildx_play.scope(build))], [dockerfile], start)
    cold, warm, without = (buildx_play.vertices(logs[run]) for run in ("cold", "warm", "without the entry"))
    installs = [command for command in cold if "apt-get install" in command]
    assert installs and len(cold) >= 2, logs["cold"]
    assert not any(cold.values()), f"the first run took a step from a cache:\n{logs['cold']}"
    assert warm == dict.fromkeys(cold, True), f"the repeat run executed a step:\n{logs['warm']}"
    assert "importing cache manifest from sandkit-play-cache/" in logs["warm"], logs["warm"]
    assert without == dict.fromkeys(cold, False), f"without the entry a step was cached:\n{logs['without the entry']}"
