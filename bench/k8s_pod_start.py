"""Kubernetes: the per-pod start, each container of the played pods timed, against `docker run --rm`.

No API server runs here, so the pods are played in the real Docker engine the way
tests/compiler/test_kubernetes_docker.py plays them (its ``Pod`` helper: each container with the user,
read-only root, capabilities, env, emptyDirs and ConfigMap, Secret and projected files the manifests
give it; init containers to completion first; the one API call the authority makes answered by the
test's stand-in, over TLS). The kit: the Debian base, one allowed host and a secret the egress proxy
injects (so an authority is made, published and trusted), no workspace (a clone is the session's own
work, not start-up).

Each run plays, from nothing (no container or volume of the run before):

- once per Deployment: a Job of the manifests that makes the proxy's authority, if there is one;
- the proxy pod: each init container from `docker run` to its exit, then squid from `docker run` to
  its readiness probe's first pass (polled every 100 ms; a kubelet probes on the manifests' timing,
  printed beside);
- the session pod: each init container, then the agent container from `docker run` to the agent's
  first command (the command prints the container's clock, which is the host's);
- `docker run --rm` of the same agent image, through the same entrypoint, timed the same way.

and prints medians per step and the ratio of the session pod's start to `docker run`.

    PYTHONPATH=$PWD python bench/k8s_pod_start.py [--runs 5]

It imports the compiler and the test's play helpers from PYTHONPATH, so the same script measures
another checkout (PYTHONPATH=/path/to/other/checkout). Everything it makes is named
``skbench-k8s-<token>...`` and removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sandkit.compiler.command import compile_kit
from tests.compiler import test_kubernetes_docker as play
from tests.e2e.helpers import OUTSIDE_DIR

MARKER = "SKBENCH-FIRST"
KIT = """\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, 'echo "{marker} $(date +%s.%N)"']}}
secrets:
  - name: BENCH_KEY
    placeholder: bench-placeholder
    inject:
      - {{host: "api.allowed.example", header: x-api-key}}
network: {{allow: [allowed.example, api.allowed.example]}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 256Mi, timeout: 30m}}
"""
ROLE = "sandkit.dev/role"


def docker(*args: str, check: bool = True, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return play._docker(*args, check=check, timeout=timeout)


def timed_run(pod: play.Pod, container: dict[str, Any], name: str) -> float:
    """Seconds from `docker run` to the container's exit (an init container or a Job's)."""
    started = time.perf_counter()
    done = docker("run", "--rm", *pod.run_args(container, name), *pod.argv(container), check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{container['name']} failed: {done.stdout}{done.stderr}")
    return took


def first_command(argv: list[str]) -> float:
    """Seconds from `docker run` to the agent's first command (the clock it printed)."""
    started = time.time()
    done = docker(*argv, check=False)
    for line in done.stdout.splitlines():
        if line.startswith(MARKER):
            return float(line.split()[1]) - started
    sys.exit(f"no first command: {done.stdout}{done.stderr}")


class Bench:
    """One compiled kit, its images, the outside image for the API stand-in, a network per run."""

    def __init__(self, folder: Path, token: str) -> None:
        self.folder, self.token = folder, token
        self.name = f"skbench-k8s-{token}"
        (folder / "kit.yaml").write_text(KIT.format(name=self.name, marker=MARKER), encoding="utf-8")
        self.out = compile_kit(folder / "kit.yaml", folder / "out", ["docker", "kubernetes"])
        for relative, data in self.out.files.items():
            (self.out.folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (self.out.folder / relative).write_bytes(data)
        self.docs = play._manifests(self.out)
        self.deployment = self._doc("Deployment")
        self.proxy_tag = self.deployment["spec"]["template"]["spec"]["containers"][0]["image"]
        self.standin_tag = f"{self.name}-standin:{token}"
        self.containers: list[str] = []
        self.networks: list[str] = []
        self.clusters: list[play.Cluster] = []

    def _doc(self, kind: str, role: str | None = None) -> dict[str, Any]:
        return next(
            d for d in self.docs if d["kind"] == kind and (role is None or d["metadata"]["labels"][ROLE] == role)
        )

    def authority_jobs(self) -> list[dict[str, Any]]:
        """The Jobs that make the proxy's authority (once per Deployment), if the manifests have one."""
        return [d for d in self.docs if d["kind"] == "Job" and d["metadata"]["labels"].get(ROLE) != "agent"]

    def build(self) -> None:
        started = time.perf_counter()
        docker("buildx", "build", "--load", "-q", "-t", self.out.plan.image_tag, str(self.out.folder))
        docker("buildx", "build", "--load", "-q", "-t", self.proxy_tag, str(self.out.folder / "egress"))
        docker("buildx", "build", "--load", "-q", "-t", self.standin_tag, str(OUTSIDE_DIR))
        print(f"images built in {time.perf_counter() - started:.1f} s")

    def play_once(self, index: int) -> dict[str, float]:
        """One Deployment's authority, proxy pod and session pod, from nothing; seconds per step."""
        run = f"{self.name}-{index}"
        root = self.folder / f"run-{index}"
        root.mkdir()
        docker("network", "create", "--internal", run)
        self.networks.append(run)
        cluster = play.Cluster(self.deployment["metadata"]["namespace"], token=secrets.token_hex(16))
        self.clusters.append(cluster)
        api = f"{run}-api"
        self.containers.append(api)
        play._serve_api(root / "api", self.docs, self.standin_tag, run, api, cluster)
        configmaps = {d["metadata"]["name"]: d for d in self.docs if d["kind"] in ("ConfigMap", "Secret")}
        configmaps["kube-root-ca.crt"] = {"data": {"ca.crt": (root / "api" / "ca.pem").read_text()}}
        secret = {"BENCH_KEY": "bench-secret-value"}
        steps: dict[str, float] = {}
        for job in self.authority_jobs():
            spec = job["spec"]["template"]["spec"]
            pod = play.Pod(spec, configmaps, root / "authority-job", run, secret, cluster=cluster)
            for container in spec["containers"]:
                steps[f"authority Job: {container['name']}"] = timed_run(pod, container, f"{run}-job")
        published = self._published(root)
        proxy_spec = self.deployment["spec"]["template"]["spec"]
        proxy_pod = self._pod(proxy_spec, {**configmaps, **published}, root / "proxy-pod", run, secret, cluster)
        for init in proxy_spec.get("initContainers", []):
            steps[f"proxy pod: init {init['name']}"] = timed_run(proxy_pod, init, f"{run}-{init['name']}")
        steps["proxy pod: squid to ready"] = self._start_proxy(proxy_pod, proxy_spec, run)
        steps["proxy pod in all"] = sum(v for k, v in steps.items() if k.startswith("proxy pod"))
        published = self._published(root)
        agent_spec = self._doc("Job", "agent")["spec"]["template"]["spec"]
        services = {self._doc("Service")["metadata"]["name"]: play._address(f"{run}-proxy", run)}
        agent_pod = self._pod(
            agent_spec, {**configmaps, **published}, root / "agent-pod", run, secret, cluster, services
        )
        for init in agent_spec.get("initContainers", []):
            steps[f"session pod: init {init['name']}"] = timed_run(agent_pod, init, f"{run}-{init['name']}")
        (agent,) = agent_spec["containers"]
        self.containers.append(f"{run}-agent")
        took = first_command(["run", "--rm", *agent_pod.run_args(agent, f"{run}-agent"), *agent_pod.argv(agent)])
        steps["session pod: agent to first command"] = took
        steps["session pod in all"] = sum(v for k, v in steps.items() if k.startswith("session pod"))
        self.containers.append(f"{run}-plain")
        # the variable the pods set, which tells the entrypoint the proxy holds BENCH_KEY
        injects = f"SANDKIT_PROXY_INJECTS={' '.join(self.out.plan.injected_secrets)}"
        steps["docker run"] = first_command(
            ["run", "--rm", "--name", f"{run}-plain", "--env", injects, self.out.plan.image_tag]
        )
        self._remove(run, cluster)
        return steps

    @staticmethod
    def _pod(spec: dict[str, Any], maps: dict[str, Any], root: Path, network: str, secret: dict[str, str],
             cluster: play.Cluster, services: dict[str, str] | None = None) -> play.Pod:  # fmt: skip
        return play.Pod(spec, maps, root, network, secret, services, cluster=cluster)

    def _start_proxy(self, pod: play.Pod, spec: dict[str, Any], run: str) -> float:
        """Seconds from `docker run -d` of squid to its readiness probe's first pass."""
        (container,) = spec["containers"]
        probe = container["readinessProbe"]["exec"]["command"]
        service = self._doc("Service")["metadata"]["name"]
        name = f"{run}-proxy"
        self.containers.append(name)
        started = time.perf_counter()
        docker("run", "-d", "--network-alias", service, *pod.run_args(container, name), *pod.argv(container))
        while docker("exec", name, *probe, check=False).returncode != 0:
            if time.perf_counter() - started > 120:
                sys.exit("the proxy never passed its probe: " + docker("logs", name, check=False).stderr)
            time.sleep(0.1)
        return time.perf_counter() - started

    @staticmethod
    def _published(root: Path) -> dict[str, Any]:
        """The stand-in API server's objects now (what the kubelet mounts from)."""
        stored: dict[str, Any] = json.loads((root / "api" / "store.json").read_text())
        return {d["metadata"]["name"]: d for d in stored.values()}

    def _remove(self, run: str, cluster: play.Cluster) -> None:
        holders = [f"{volume}-holder" for volume in cluster.volumes]
        docker("rm", "-f", *self.containers, *holders, check=False)
        if cluster.volumes:
            docker("volume", "rm", "-f", *cluster.volumes, check=False)
        docker("network", "rm", run, check=False)

    def clean(self, keep_images: bool) -> None:
        for index, cluster in enumerate(self.clusters, start=1):
            self._remove(f"{self.name}-{index}", cluster)
        if not keep_images:
            docker("rmi", "-f", self.out.plan.image_tag, self.proxy_tag, self.standin_tag, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="plays of the whole start (default 5)")
    parser.add_argument("--keep-images", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="skbench-k8s-") as folder:
        bench = Bench(Path(folder), secrets.token_hex(3))
        try:
            bench.build()
            runs = [bench.play_once(index) for index in range(1, args.runs + 1)]
        finally:
            bench.clean(args.keep_images)
        report(runs, bench.deployment)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def report(runs: list[dict[str, float]], deployment: dict[str, Any]) -> None:
    plain = statistics.median(r["docker run"] for r in runs)
    print(f"medians of {len(runs)} (every value in brackets):")
    for step in runs[0]:
        values = [r[step] for r in runs]
        median = statistics.median(values)
        ratio = f"  {median / plain:.1f}x docker run" if step == "session pod in all" else ""
        print(f"  {step}: {median:.2f} s ({' '.join(f'{v:.2f}' for v in values)}){ratio}")
    probe = deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    timing = {k: v for k, v in probe.items() if k != "exec"}
    print(f"  (a kubelet probes the proxy on {timing}; agent pods do not wait for its readiness)")


if __name__ == "__main__":
    main()
