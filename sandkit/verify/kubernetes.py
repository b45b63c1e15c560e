"""The Kubernetes probe: a Job made from the compiled agent Job, so the cluster's own CNI, admission
and NetworkPolicy are what is tested. It keeps the pod template's labels (what the NetworkPolicy and
the proxy's policy select on), namespace, service account, security contexts, environment and
volumes, and runs the probe program in the agent's container instead of the agent.

sandkit does not run it (no cluster here): ``sandkit verify DIR --target kubernetes`` prints the Job;
``kubectl logs job/NAME | sandkit verify DIR --target kubernetes --results -`` scores what it said.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from sandkit.errors import UsageError
from sandkit.verify import plan
from sandkit.verify.probe import PROGRAM, Probe

#: The probe Job's bounds: it is short, and it must not linger.
DEADLINE_SECONDS = 600
TTL_SECONDS = 3600


def _documents(path: Path) -> list[dict[str, Any]]:
    from sandkit.syntax.tree import SyntaxProblem
    from sandkit.syntax.yaml import load_documents

    try:
        loaded = load_documents(plan.read_text(path))
    except SyntaxProblem as exc:
        raise UsageError(f"{path}:{exc.pos.line}:{exc.pos.column}: error: not YAML: {exc.message}") from None
    return [d for d in loaded if isinstance(d, dict)]


def agent_job(folder: Path) -> tuple[Path, dict[str, Any]]:
    """The compiled agent Job (kubernetes/job.yaml, the one labelled sandkit.dev/role: agent)."""
    path = folder / "kubernetes" / "job.yaml"
    if not path.is_file():
        raise UsageError(
            f"{folder}: error: no kubernetes/job.yaml: build with the kubernetes target (a sandbox_crd kit has no Job)"
        )
    for document in _documents(path):
        labels = (document.get("metadata") or {}).get("labels") or {}
        if document.get("kind") == "Job" and labels.get("sandkit.dev/role") == "agent":
            return path, document
    raise UsageError(f"{path}: error: no Job labelled sandkit.dev/role: agent")


def _agent_container(job: dict[str, Any]) -> dict[str, Any]:
    containers = job["spec"]["template"]["spec"].get("containers") or []
    for container in containers:
        if container.get("name") == "agent":
            return dict(container)
    raise UsageError("the agent Job has no container named agent")


def load(folder: Path) -> plan.Sandbox:
    """The compiled folder's facts for the probes, read from its Kubernetes manifests."""
    job_path, job = agent_job(folder)
    pod = job["spec"]["template"]["spec"]
    container = _agent_container(job)
    env = {e["name"]: e["value"] for e in container.get("env") or [] if isinstance(e.get("value"), str)}
    context = {**(pod.get("securityContext") or {}), **(container.get("securityContext") or {})}
    empty_dirs = {v["name"] for v in pod.get("volumes") or [] if "emptyDir" in v}
    writable = [
        m["mountPath"] for m in container.get("volumeMounts") or [] if m["name"] in empty_dirs and not m.get("readOnly")
    ]
    agent = {"environment": env, "user": str(context.get("runAsUser", "")), "tmpfs": writable}
    squid = ""
    proxy_file = folder / "kubernetes" / "egress-proxy.yaml"
    if proxy_file.is_file():
        for document in _documents(proxy_file):
            if document.get("kind") == "ConfigMap" and "squid.conf" in (document.get("data") or {}):
                squid = str(document["data"]["squid.conf"])
    allow, deny = plan.squid_lists(squid)
    fidelity = plan.read_fidelity(folder)
    kit = str((job.get("metadata") or {}).get("labels", {}).get("sandkit.dev/kit") or folder.name)
    namespace = str((job.get("metadata") or {}).get("namespace") or "default")
    return plan.Sandbox(folder, job_path, kit, namespace, agent, fidelity, allow, deny, bool(squid))


def probe_job(folder: Path, probes: list[Probe]) -> dict[str, Any]:
    """The agent Job with the probe program in the agent's place."""
    _, job = agent_job(folder)
    job = copy.deepcopy(job)
    metadata = job["metadata"]
    name = str(metadata.pop("generateName", "") or metadata.get("name", "agent-")).rstrip("-")
    metadata["name"] = f"{name}-verify"[:63].rstrip("-")
    metadata["annotations"] = {"sandkit.dev/verify": "probes of sandkit verify; prints SANDKIT-PROBE lines"}
    spec = job["spec"]
    spec.update(backoffLimit=0, activeDeadlineSeconds=DEADLINE_SECONDS, ttlSecondsAfterFinished=TTL_SECONDS)
    pod = spec["template"]["spec"]
    container = _agent_container(job)
    container.pop("command", None)
    container.update(command=["perl", "-e", PROGRAM], args=[p.argument for p in probes])
    # The probe alone: the clone, the deadline sidecar and the process namespace they shared are
    # the agent's, not its sandbox's (the security contexts, volumes and labels stay).
    pod["containers"] = [container]
    pod.pop("initContainers", None)
    pod.pop("shareProcessNamespace", None)
    pod["restartPolicy"] = "Never"
    return job


def _policy(folder: Path, role: str) -> tuple[Path, str]:
    """The compiled NetworkPolicy that selects the pods of ``role`` (its file and name), if any."""
    for path in sorted((folder / "kubernetes").glob("*.yaml")):
        for document in _documents(path):
            selector = ((document.get("spec") or {}).get("podSelector") or {}).get("matchLabels") or {}
            if document.get("kind") == "NetworkPolicy" and selector.get("sandkit.dev/role") == role:
                return path, str((document.get("metadata") or {}).get("name") or "")
    return folder / "kubernetes", ""


def where(sandbox: plan.Sandbox, probe: Probe) -> str:
    """What a failed probe says is wrong on the cluster, and which compiled manifest states what should hold.

    A probe past the proxy that got an answer means the agent pods' NetworkPolicy is not in force: removed,
    or a CNI that ignores NetworkPolicy (the API server accepts one all the same). A refusal the proxy did not
    give means the proxy's ConfigMap is not what runs. A pod setting that differs from the Job's means
    something between the manifest and the kubelet (an admission webhook, a policy engine, an edit) changed it.
    """
    kind = probe.argument.split("|", 1)[0]
    if probe.setting.startswith("network.") and kind != "proxy":
        path, name = _policy(sandbox.folder, "agent")
        if not name:
            return f"{path}: no NetworkPolicy selects the agent pods"
        return (
            f"{path}: NetworkPolicy {name} allows the agent pods egress to the proxy alone, yet this got past it: "
            "the policy is not in the namespace, or the cluster's CNI does not enforce NetworkPolicy"
        )
    if kind == "proxy":
        return (
            f"{sandbox.folder / 'kubernetes' / 'egress-proxy.yaml'}: the proxy that answered is not applying its "
            "ConfigMap's squid.conf (the allowlist), or the agent's HTTP_PROXY leads elsewhere"
        )
    return (
        f"{sandbox.compose_file}: the pod did not run with the agent container's securityContext and env as "
        "compiled: an admission webhook, a policy engine or an edit of the Job changed them"
    )
