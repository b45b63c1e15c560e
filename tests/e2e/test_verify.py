"""`sandkit verify` against the real engine: a compiled allowlist sandbox passes every probe, and
the same sandbox weakened after the build (its compose file edited, its proxy swapped for an open
one) fails exactly the probes of what was weakened, saying what and where.

One kit, built once; each weakening is a copy of the compiled folder edited as a user would, run
as the same compose project (the images are shared by their tags; the open proxy gets a tag of
its own and is removed afterwards).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.helpers import REPO, compile_kit, run

pytestmark = pytest.mark.docker

KIT = """apiVersion: sandkit/v1
kind: Kit
name: {name}
description: the sandbox sandkit verify probes
secrets:
  - name: VERIFY_TOKEN
    placeholder: sandkit-placeholder-verify
    inject:
      - host: api.example.com:443
        header: x-api-key
network:
  egress: allowlist
  allow: [api.example.com:443, registry.example.com:443]
  deny: [blocked.example.com:443]
agent:
  command: [sleep, "1"]
workspace:
  mode: none
resources:
  cpus: 0.5
  memory: 128Mi
  pids: 64
  timeout: 10m
"""

NETWORK_PROBES = {"direct-tcp", "direct-udp", "direct-metadata", "direct-icmp", "dns-direct"}
#: The probes of what holds inside the agent's container, whatever its network.
LOCAL_PROBES = {"user", "capabilities", "root-filesystem", "timeout", "disk", "secret-VERIFY_TOKEN"}
PROXY_PROBES = {
    "proxy-outside-connect",
    "proxy-outside-get",
    "proxy-ip-literal",
    "proxy-metadata",
    "proxy-allowed-host-other-port",
}


class Sandbox:
    def __init__(self, folder: Path, project: str) -> None:
        self.folder, self.project = folder, project

    def compose(self, *args: str, folder: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        argv = ["docker", "compose", "-f", str((folder or self.folder) / "compose.yaml"), "-p", self.project, *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)

    def verify(self, folder: Path | None = None, *extra: str) -> tuple[int, dict[str, Any], str]:
        """`sandkit verify` as JSON: exit code, report, stderr."""
        argv = [sys.executable, "-m", "sandkit", "verify", str(folder or self.folder), "-p", self.project]
        done = subprocess.run(
            [*argv, "--format", "json", *extra], cwd=REPO, capture_output=True, text=True, timeout=400, check=False
        )
        report = json.loads(done.stdout) if done.stdout.strip() else {}
        return done.returncode, report, done.stderr

    def weakened(self, name: str, edit: Any) -> Path:
        """A copy of the compiled folder whose compose.yaml ``edit`` changed (a dict, in place)."""
        copy = self.folder.parent / name
        shutil.copytree(self.folder, copy)
        document = yaml.safe_load((copy / "compose.yaml").read_text())
        edit(document)
        (copy / "compose.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
        return copy


@pytest.fixture(scope="module")
def sandbox(engine: None, token: str, e2e_dir: Path) -> Iterator[Sandbox]:
    folder = e2e_dir / "verify"
    folder.mkdir()
    (folder / "kit.yaml").write_text(KIT.format(name=f"e2e-{token}-verify"))
    output = compile_kit(
        folder / "kit.yaml", folder / "sandbox", targets="docker,compose,kubernetes,actions,devcontainer"
    )
    box = Sandbox(output, f"e2e-{token}-verify")
    tags = box.compose("config", "--images").stdout.split()
    try:
        built = box.compose("build", timeout=900)
        assert built.returncode == 0, built.stderr
        up = box.compose("up", "-d", "--wait", "--wait-timeout", "120", "egress")
        assert up.returncode == 0, up.stderr
        yield box
    finally:
        box.compose("down", "-v", "--remove-orphans", "--timeout", "1")
        run(["docker", "image", "rm", *tags])


def _failed(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["probe"]: r for r in report["results"] if r["status"] != "pass"}


def test_a_sandbox_as_built_passes_every_probe(sandbox: Sandbox) -> None:
    code, report, stderr = sandbox.verify()
    assert code == 0, (stderr, report)
    probes = {r["probe"]: r for r in report["results"]}
    assert not _failed(report), report
    # the battery is the whole one: every kind of probe ran, each against its enforced row
    assert PROXY_PROBES | NETWORK_PROBES | LOCAL_PROBES | {"proxy-denied-host", "dns-resolver"} <= set(probes)
    assert any(p.startswith("direct-gateway-") for p in probes) and any(p.startswith("dns-gateway-") for p in probes)
    assert {r["level"] for r in report["results"]} == {"enforced"}
    assert probes["proxy-denied-host"]["setting"] == "network.deny"
    assert "403" in probes["proxy-outside-connect"]["detail"]
    assert ".invalid" in report["reach"] and "192.0.2.0/24" in report["reach"]
    # the deadline is the kit's (timeout 10m + 2 x 30 s grace) and out of the agent's reach; the disk
    # budget (memory 128Mi) is shared by the three tmpfs, and a fill of /tmp stops at its quarter
    assert "`sleep 660`" in probes["timeout"]["detail"] and "EPERM" in probes["timeout"]["detail"]
    assert "together 134217728, within the budget of 134217728" in probes["disk"]["detail"]
    assert "filling /tmp stopped at 33554432 bytes (No space left on device)" in probes["disk"]["detail"]
    # the text scorecard and the SARIF records say the same
    text = subprocess.run(
        [sys.executable, "-m", "sandkit", "verify", str(sandbox.folder), "-p", sandbox.project],
        cwd=REPO, capture_output=True, text=True, timeout=400, check=False,
    )  # fmt: skip
    assert text.returncode == 0 and f"{len(probes)} probes: {len(probes)} passed" in text.stdout, text.stdout


def test_a_second_network_fails_the_network_probes_only(sandbox: Sandbox) -> None:
    def join_outside(document: dict[str, Any]) -> None:
        document["services"]["agent"]["networks"] = ["sandbox", "outside"]

    code, report, stderr = sandbox.verify(sandbox.weakened("two-networks", join_outside))
    failed = _failed(report)
    assert code == 1, (stderr, report)
    assert set(failed) >= NETWORK_PROBES, failed
    # On two networks the proxy's name may resolve to its address on the other one, where it serves
    # no one (it listens on the sandbox network alone): such a proxy probe cannot decide, and says why.
    undecided = {p: r for p, r in failed.items() if p.startswith("proxy-")}
    assert all(r["status"] == "error" and "did not answer" in r["detail"] for r in undecided.values()), undecided
    assert {r["setting"] for p, r in failed.items() if p not in undecided} == {"network.egress"}
    where = failed["direct-tcp"]["where"]
    assert "compose.yaml" in where and f"joins {sandbox.project}_outside, which is not internal" in where, where
    assert not set(failed) & LOCAL_PROBES, failed
    # The engine's resolver forwards an outside name for a container with a way out: it fails when the
    # host has a resolver that answers (NXDOMAIN for .invalid), and otherwise cannot tell.
    resolver = failed.get("dns-resolver") or {"detail": "no answer"}
    assert "forwards outside names past the sandbox" in resolver["detail"] or "answered" not in resolver["detail"]
    # connected, or its next hop answered: either way, with the route that let it out
    assert "routes: default via" in failed["direct-tcp"]["detail"], failed["direct-tcp"]


def test_host_network_and_a_capability_fail_their_probes(sandbox: Sandbox) -> None:
    def host_and_cap(document: dict[str, Any]) -> None:
        agent = document["services"]["agent"]
        del agent["networks"]
        agent["network_mode"] = "host"
        agent["cap_add"] = ["NET_ADMIN"]

    code, report, stderr = sandbox.verify(sandbox.weakened("host-network", host_and_cap))
    failed = _failed(report)
    assert code == 1, (stderr, report)
    # the proxy's name does not resolve on the host's network: each proxy probe cannot decide
    assert PROXY_PROBES | {"proxy-denied-host"} <= set(failed), failed
    assert any(p.startswith("direct-gateway-") for p in failed), failed
    assert "capabilities" in failed and "CapBnd CAP_NET_ADMIN" in failed["capabilities"]["detail"], failed
    assert "cap_add: ['NET_ADMIN']" in failed["capabilities"]["where"]
    assert (
        "network_mode: host"
        in failed["direct-metadata" if "direct-metadata" in failed else "proxy-ip-literal"]["where"]
    )
    assert set(failed) & LOCAL_PROBES == {"capabilities"}, failed


def test_a_weakened_container_fails_exactly_its_probes(sandbox: Sandbox) -> None:
    """A writable root, a tmpfs without size, added capabilities and the agent's own PID namespace
    (no deadline): one copy, each weakening failing its own row, and the network probes all passing."""

    def weaken(document: dict[str, Any]) -> None:
        agent = document["services"]["agent"]
        agent["read_only"] = False
        agent["tmpfs"] = [e if not e.startswith("/tmp:") else "/tmp:rw,nosuid,nodev,mode=1777" for e in agent["tmpfs"]]
        agent["cap_add"] = ["SYS_ADMIN", "NET_RAW"]
        del agent["pid"]

    code, report, stderr = sandbox.verify(sandbox.weakened("weak-container", weaken))
    failed = _failed(report)
    assert code == 1, (stderr, report)
    assert set(failed) == {"root-filesystem", "disk", "capabilities", "timeout"}, failed
    assert "CapBnd CAP_NET_RAW,CAP_SYS_ADMIN" in failed["capabilities"]["detail"]
    assert "cap_add: ['SYS_ADMIN', 'NET_RAW']" in failed["capabilities"]["where"]
    disk = failed["disk"]
    assert "not bounded: / (the root" in disk["detail"] and "/tmp (a tmpfs without size" in disk["detail"], disk
    assert "tmpfs /tmp has no size=" in disk["where"] and "read_only is not true" in disk["where"], disk
    assert "no deadline in the agent's PID namespace" in failed["timeout"]["detail"]
    assert "services.agent.pid is" in failed["timeout"]["where"]
    assert "read_only is not true" in failed["root-filesystem"]["where"]


def test_the_dev_containers_compose_pair_is_what_is_probed(sandbox: Sandbox) -> None:
    """The dev container opens compose.yaml's agent with its overlay over it; verify given both files
    probes that pair. An overlay given SYS_PTRACE (as debugging set-ups add) fails exactly the capability
    probe, its `where` naming the overlay; everything else holds as compose's own."""
    overlay = sandbox.folder / ".devcontainer" / "compose.devcontainer.yaml"
    document = yaml.safe_load(overlay.read_text())
    assert document["services"]["agent"]["command"] == ["sleep", "infinity"]
    document["services"]["agent"]["cap_add"] = ["SYS_PTRACE"]
    edited = sandbox.folder.parent / "devcontainer-ptrace.yaml"
    edited.write_text(yaml.safe_dump(document))
    files = ["-f", str(sandbox.folder / "compose.yaml"), "-f", str(edited)]
    code, report, stderr = sandbox.verify(sandbox.folder, *files)
    failed = _failed(report)
    assert code == 1 and set(failed) == {"capabilities"}, (stderr, report)
    assert "CAP_SYS_PTRACE" in failed["capabilities"]["detail"]
    assert failed["capabilities"]["where"].startswith(f"{edited}: services.agent.cap_add: ['SYS_PTRACE']")


def test_an_open_proxy_fails_the_proxy_probes_only(sandbox: Sandbox) -> None:
    def open_egress(document: dict[str, Any]) -> None:
        document["services"]["egress"]["image"] += "-open"

    folder = sandbox.weakened("open-proxy", open_egress)
    squid = folder / "egress" / "squid.conf"
    healthcheck = "http_access allow agent_port healthcheck healthcheck_host\n"  # kept: the start waits on it
    text = squid.read_text()
    assert healthcheck in text
    squid.write_text(text.replace(healthcheck, healthcheck + "http_access allow all\n"))
    image = yaml.safe_load((folder / "compose.yaml").read_text())["services"]["egress"]["image"]
    try:
        for step in (("build", "egress"), ("up", "-d", "--wait", "--wait-timeout", "120", "egress")):
            done = sandbox.compose(*step, folder=folder)
            assert done.returncode == 0, done.stderr
        code, report, stderr = sandbox.verify(folder)
        failed = _failed(report)
        assert code == 1, (stderr, report)
        assert set(failed) == PROXY_PROBES | {"proxy-denied-host"}, failed
        assert "it is not applying the allowlist" in failed["proxy-outside-connect"]["detail"]
    finally:  # the sandbox as built again, for any test after this one
        sandbox.compose("up", "-d", "--wait", "--wait-timeout", "120", "egress")
        run(["docker", "image", "rm", image])


def _play_probe_pod(sandbox: Sandbox, *extra: str) -> tuple[int, dict[str, Any], str]:
    """The Kubernetes probe Job's container played in the engine as its pod would run it (its user,
    security context, emptyDirs as tmpfs, environment), on the compose sandbox's network standing in
    for the cluster's policy (the proxy Service's host is the compose proxy); its log is then scored
    by `sandkit verify --target kubernetes --results -`."""
    verify = [sys.executable, "-m", "sandkit", "verify", str(sandbox.folder), "--target", "kubernetes"]
    printed = subprocess.run(verify, cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
    assert printed.returncode == 0, printed.stderr
    job = yaml.safe_load(printed.stdout)
    pod = job["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    context = {**pod["securityContext"], **container["securityContext"]}
    assert context["readOnlyRootFilesystem"] and context["capabilities"] == {"drop": ["ALL"]}
    assert not context["allowPrivilegeEscalation"]
    argv = ["docker", "run", "--rm", "--network", f"{sandbox.project}_sandbox", "--read-only", "--cap-drop", "ALL"]
    argv += ["--security-opt", "no-new-privileges", "--user", f"{context['runAsUser']}:{context['runAsGroup']}"]
    empty_dirs = {v["name"] for v in pod["volumes"] if "emptyDir" in v}
    for mount in container["volumeMounts"]:
        if mount["name"] in empty_dirs:
            argv += ["--tmpfs", f"{mount['mountPath']}:uid={context['runAsUser']},mode=0700"]
    for variable in container["env"]:
        if "value" in variable:  # the Service's host, as the kubelet expands $(NAME_SERVICE_HOST)
            value = re.sub(r"\$\([A-Z0-9_]+_EGRESS_SERVICE_HOST\)", "egress", variable["value"])
            argv += ["-e", f"{variable['name']}={value}"]
    argv += ["-e", "KUBERNETES_SERVICE_HOST=198.51.100.9", "-e", "KUBERNETES_SERVICE_PORT=443", *extra]
    argv += ["--entrypoint", container["command"][0], container["image"], *container["command"][1:]]
    log = run([*argv, *container["args"]], timeout=300)
    scored = subprocess.run(
        [*verify, "--results", "-", "--format", "json"],
        input=log.stdout, cwd=REPO, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    return scored.returncode, json.loads(scored.stdout) if scored.stdout.strip() else {}, scored.stderr + log.stderr


def test_the_kubernetes_probe_job_played_in_the_engine(sandbox: Sandbox) -> None:
    code, report, stderr = _play_probe_pod(sandbox)
    assert code == 0, (stderr, report)
    probes = {r["probe"] for r in report["results"]}
    assert "direct-api-server" in probes and "direct-udp" not in probes  # UDP tells nothing on a cluster
    assert {"direct-icmp", "dns-resolver", "dns-direct"} <= probes and not {"timeout", "disk"} & probes
    assert PROXY_PROBES | {"user", "capabilities", "root-filesystem", "secret-VERIFY_TOKEN"} <= probes
    assert report["target"] == "kubernetes"

    code, report, stderr = _play_probe_pod(sandbox, "--cap-add", "NET_RAW")  # an admission that let one in
    assert code == 1 and set(_failed(report)) == {"capabilities"}, (stderr, report)
    assert "CAP_NET_RAW" in _failed(report)["capabilities"]["detail"]


def _job_steps(sandbox: Sandbox) -> tuple[dict[str, dict[str, Any]], Path]:
    """The compiled workflow's steps by name, and the folder the job's checkout would be (the
    repository root its sandbox folder path is relative to)."""
    workflow = next((sandbox.folder / "workflows").glob("*.yml"))
    steps = {s["name"]: s for s in yaml.safe_load(workflow.read_text())["jobs"]["agent"]["steps"]}
    relative = steps["Build the sandbox image"]["with"]["context"]
    root = Path(str(sandbox.folder)[: -len(relative)])
    assert root / relative == sandbox.folder
    return steps, root


def _play(step: dict[str, Any], root: Path, temp: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """One `run:` step as the runner runs it: bash -eo pipefail, its env (the injected secret a stand-in)."""
    own = {k: str(v).replace("${{ secrets.VERIFY_TOKEN }}", "verify-secret-value") for k, v in step["env"].items()}
    own.update(env, RUNNER_TEMP=str(temp))
    argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]]
    return subprocess.run(argv, cwd=root, env={**os.environ, **own}, capture_output=True, text=True, timeout=300)


def test_the_actions_probe_step_played_in_the_engine(sandbox: Sandbox, tmp_path: Path) -> None:
    """The job's opt-in probe step (vars.SANDKIT_VERIFY) run as written, after the job's own proxy start
    step, on the images the job builds (the compose build made the same tags): every probe passes and the
    step succeeds; the same step with the agent's root writable fails on exactly the rows that weakens;
    the job's cleanup step leaves nothing."""
    steps, root = _job_steps(sandbox)
    probe = steps["Probe the sandbox (sandkit verify)"]
    assert probe["if"] == "${{ vars.SANDKIT_VERIFY == 1 }}" and "secrets." not in str(probe)
    names = list(steps)
    assert names.index(probe["name"]) + 1 == names.index("Run the agent in its sandbox")
    built = set(sandbox.compose("config", "--images").stdout.split())
    assert {probe["env"]["SANDKIT_IMAGE"], steps["Build the egress proxy image"]["with"]["tags"]} <= built
    try:
        started = _play(steps["Start the egress proxy on the sandbox network"], root, tmp_path)
        assert started.returncode == 0, started.stderr
        played = _play(probe, root, tmp_path)
        lines = [line.split("\t") for line in played.stdout.splitlines() if line.startswith("SANDKIT-PROBE\t")]
        assert played.returncode == 0 and lines, played.stdout + played.stderr
        assert {status for _, _, status, _ in lines} == {"pass"}, played.stdout
        ids = {probe_id for _, probe_id, _, _ in lines}
        assert set(probe["env"]["SANDKIT_PROBES_ENFORCED"].split()) == ids
        assert {"direct-gateway-1", "dns-gateway-1", "timeout", "disk", "secret-VERIFY_TOKEN"} <= ids
        assert "SANDKIT-PROBE-END" in played.stdout and "::stop-commands::" in played.stdout

        weakened = _play(probe, root, tmp_path, SANDKIT_READ_ONLY="false")
        assert weakened.returncode == 1, weakened.stdout + weakened.stderr
        failed = set(re.findall(r"the probe (\S+) of an enforced row did not pass", weakened.stderr))
        assert failed == {"root-filesystem", "disk"}, weakened.stdout + weakened.stderr
        # the step's log, scored by sandkit against the actions column, says the same
        for log, code, bad in ((played.stdout, 0, set()), (weakened.stdout, 1, {"root-filesystem", "disk"})):
            argv = [sys.executable, "-m", "sandkit", "verify", str(sandbox.folder), "--target", "actions"]
            scored = subprocess.run(
                [*argv, "--results", "-", "--format", "json"],
                input=log, cwd=REPO, capture_output=True, text=True, timeout=60, check=False,
            )  # fmt: skip
            assert scored.returncode == code, scored.stdout + scored.stderr
            assert set(_failed(json.loads(scored.stdout))) == bad
    finally:
        removed = _play(steps["Remove the sandbox"], root, tmp_path)
    assert removed.returncode == 0, removed.stderr
    name = probe["env"]["SANDKIT_AGENT"].removesuffix("-agent")
    left = run(["docker", "ps", "-a", "--format", "{{.Names}}", "--filter", f"name={name}"]).stdout.split()
    left += run(["docker", "network", "ls", "--format", "{{.Name}}", "--filter", f"name={name}"]).stdout.split()
    assert left == [], left
