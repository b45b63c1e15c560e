"""kubernetes: one Job per agent session, a CronJob per schedule, the policy enforced by the cluster.

Everything under kubernetes/ except the session manifest is listed in kustomization.yaml, so
``kubectl apply -k`` installs it; the session Job (or SandboxClaim) has a generateName and is
created once per session with ``kubectl create -f`` (apply cannot create generated names).
The images are the ones built from the docker target's Dockerfile and egress/Dockerfile, named by
the kit's sha256; operators retag and push them (docs/kubernetes.md).
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from sandkit.compiler import inject, record
from sandkit.compiler.addresses import (
    EVERY_V4,
    GLOBAL_UNICAST_V6,
    NON_PUBLIC_V4,
    NON_PUBLIC_V6,
    non_public_within_global_v6,
)
from sandkit.compiler.fidelity import (
    PROVEN_STATICALLY,
    SQUID_DENY_PROOF,
    Fidelity,
    Setting,
    clone_access,
    inject_rows,
    read_only_row,
    record_row,
)
from sandkit.compiler.output import commented_header
from sandkit.compiler.plan import (
    EVENT_VARIABLE,
    HIGH_UID,
    HOME_SKELETON,
    K8S_RUNTIME_CLASSES,
    PROXY_PORT,
    SANDKIT_ETC,
    Plan,
    high_uid,
    is_under,
)
from sandkit.compiler.proxy import (
    HOST_ADDRESSES_FILE,
    PROXY_CLUSTER_UID,
    SQUID_CONF,
    probe_command,
    proxy_build_context,
    proxy_env,
    proxy_files,
    proxy_identity_env,
    proxy_image,
)
from sandkit.compiler.target import Files, RenderContext
from sandkit.compiler.targets import argo_events
from sandkit.compiler.yamlout import Commented, LiteralBlock, dump_yaml

NAME = "kubernetes"
REQUIRES = ("docker",)  # its env.sh and instruction file go into the agent's ConfigMap
FOLDER = "kubernetes"
SESSION_FILE = "job.yaml"
CLAIM_FILE = "sandbox-claim.yaml"
PROXY_FILE = f"{FOLDER}/egress-proxy.yaml"
WEBHOOKS_FILE = "webhooks.yaml"
SOURCE_ROLE = "webhook-source"
SENSOR_ROLE = "webhook-sensor"
#: The uid Argo Events' pods run as: its image is a static binary FROM scratch, with no user of its own;
#: above HIGH_UID, as every pod of the kit's (no node's user holds it).
ARGO_UID = high_uid(9731)
KIT_LABEL = "sandkit.dev/kit"
ROLE_LABEL = "sandkit.dev/role"
AGENT_ROLE = "agent"
PROXY_ROLE = "egress-proxy"
#: The one-shot Job that makes the injecting proxy's authority, once per Deployment.
AUTHORITY_ROLE = "egress-authority"
SQUID_CONF_PATH = "/etc/squid/squid.conf"
#: The agent pods' volume of the proxy's authority certificate (the ConfigMap the proxy writes).
CA_VOLUME = "egress-ca"
#: The memory-backed emptyDir of the proxy pod (squid's copy of the authority, its certificates, the header
#: lines) and of the authority Job (the key while it is made).
AUTHORITY_VOLUME = "authority"
#: The proxy pod's volume of the authority's Secret (key and certificate), which squid's start copies in.
STORED_AUTHORITY_VOLUME = "egress-authority"
#: The authority's lifetime: made once per Deployment, it outlives pods; rotation is docs/kubernetes.md's.
AUTHORITY_DAYS = 365
#: The Job's pod may retry the API calls a few times, within five minutes, and is removed an hour after;
#: a later `kubectl apply -k` creates it again, and it finds the authority already made.
AUTHORITY_JOB_SECONDS = 300
#: Where a container finds its projected ServiceAccount token and the API server's authority.
ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
#: The token's lifetime: the authority Job uses it within seconds of its pod's start.
TOKEN_SECONDS = 600
#: The API server's ports as NetworkPolicy sees them (the kubernetes Service's, and the usual endpoint's).
API_PORTS = (443, 6443)
#: Where the proxy's API call may go when the kit names no address (targets.kubernetes.api_server): the
#: private and shared ranges a cluster's API server is given (never loopback, link-local or multicast).
PRIVATE_API_RANGES = ("10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
#: Where a container finds the kit's secrets that it gets as files (the entrypoint reads them there).
SECRETS_DIR = "/run/secrets"
#: (ConfigMap key, mount path, content, file mode) of one file the agent pod mounts from its ConfigMap.
ConfigEntry = tuple[str, str, bytes, int]
#: What squid.conf includes for the host's own addresses (compose and the actions job write them when
#: the sandbox starts). A node's are not known when manifests are written, and a restricted pod cannot
#: read them: private ones are refused as non-public, a public one is not (the fidelity report says so).
NODE_ADDRESSES_NOTE = "# The node's own addresses are not known here; private ones are refused as non-public.\n"
SANDBOX_API = "extensions.agents.x-k8s.io/v1beta1"
#: sandkit's linter rightly flags 0.0.0.0/0 in a NetworkPolicy; the proxy's rule is the one place it
#: is meant (with every non-public range excepted), so that value carries a reasoned suppression.
EVERY_PUBLIC_V4 = Commented(
    EVERY_V4,
    "sandkit: ignore[EG002] the egress proxy reaches any public address; "
    "squid allows only the kit's names, and non-public ranges are excepted below",
    gap=2,
)
#: The proxy is healthy when it answers a request from loopback with its own refusal (as compose checks).
PROXY_PROBE = ["bash", "-c", probe_command()]


def render(plan: Plan, context: RenderContext) -> Files:
    header = commented_header("#", *plan.header_fields)
    documents = _documents(plan, context)
    files = {f"{FOLDER}/{name}": header + dump_yaml(docs, documents=True) for name, docs in documents.items()}
    applied = [name for name in documents if name not in (SESSION_FILE, CLAIM_FILE)]
    kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": applied}
    files[f"{FOLDER}/kustomization.yaml"] = header + dump_yaml(kustomization)
    encoded = {name: text.encode() for name, text in files.items()}
    return {**encoded, **proxy_build_context(plan, header)} if _uses_proxy(plan) else encoded


def _documents(plan: Plan, context: RenderContext) -> dict[str, list[dict[str, Any]]]:
    """File name (under kubernetes/) to its manifests, in the order kustomize should apply them."""
    settings = plan.kubernetes
    out: dict[str, list[dict[str, Any]]] = {}
    if settings.create_namespace:
        out["namespace.yaml"] = [_namespace(plan)]
    out["serviceaccount.yaml"] = [_service_account(plan)]
    entries = _config_entries(plan, context)
    out["agent-config.yaml"] = [_agent_config(plan, entries)]
    out["networkpolicy.yaml"] = _agent_policies(plan)
    if _uses_proxy(plan):
        out[PROXY_FILE.split("/")[1]] = _proxy_manifests(plan)
    schedules = plan.triggers.schedules
    if schedules:
        out["cronjobs.yaml"] = [_cronjob(plan, entries, index, line) for index, line in enumerate(schedules, start=1)]
    if plan.triggers.webhooks:
        out[WEBHOOKS_FILE] = _webhook_manifests(plan, entries)
    if settings.sandbox_crd:
        out["sandbox.yaml"] = _sandbox_template(plan, entries)
        out[CLAIM_FILE] = [_sandbox_claim(plan)]
    else:
        out[SESSION_FILE] = [_session_job(plan, entries)]
    return out


# Names and labels ---------------------------------------------------------------------------------


def namespace(plan: Plan) -> str:
    return plan.kubernetes.namespace


def secret_name(plan: Plan) -> str:
    return plan.kubernetes.secret_name or resource_name(plan, "secrets")


def resource_name(plan: Plan, suffix: str, limit: int = 63) -> str:
    """``NAME-suffix``, shortened with a hash of the kit name when over ``limit``; never starts with a digit."""
    base = plan.name if plan.name[0].isalpha() else f"k{plan.name}"
    full = f"{base}-{suffix}"
    if len(full) <= limit:
        return full
    digest = hashlib.sha256(plan.name.encode()).hexdigest()[:8]
    keep = limit - len(suffix) - len(digest) - 2
    return f"{base[:keep].rstrip('-')}-{digest}-{suffix}"


def _session_meta(plan: Plan, role: str | None = None) -> dict[str, Any]:
    """Metadata of one session: a generateName, the API server appending five random characters."""
    meta = _meta(plan, "", role)
    del meta["name"]
    return {"generateName": f"{plan.name[:57].rstrip('-')}-", **meta}


def proxy_name(plan: Plan) -> str:
    return resource_name(plan, "egress")


def selector(plan: Plan, role: str) -> dict[str, str]:
    """The labels that pick out one kit's agent pods (or its proxy pods) and nothing else."""
    return {KIT_LABEL: plan.name, ROLE_LABEL: role}


def _labels(plan: Plan, role: str | None = None) -> dict[str, str]:
    labels = {"app.kubernetes.io/name": plan.name, "app.kubernetes.io/managed-by": "sandkit"}
    if role:
        labels.update({"app.kubernetes.io/component": role, **selector(plan, role)})
    return labels


def _meta(plan: Plan, name: str, role: str | None = None) -> dict[str, Any]:
    return {"name": name, "namespace": namespace(plan), "labels": _labels(plan, role)}


def _uses_proxy(plan: Plan) -> bool:
    return plan.egress == "allowlist" and plan.kubernetes.egress == "networkpolicy"


def _injects(plan: Plan) -> bool:
    """The proxy injects secrets (secrets[].inject), so it makes an authority the agent pods trust."""
    return _uses_proxy(plan) and plan.proxy_injects


def _injected(plan: Plan) -> tuple[str, ...]:
    return plan.injected_secrets if _injects(plan) else ()


def ca_config_name(plan: Plan) -> str:
    """The ConfigMap the authority Job writes the certificate to, and the agent pods mount."""
    return resource_name(plan, "egress-ca")


def authority_name(plan: Plan) -> str:
    """The Secret of the proxy's authority (key and certificate), its Job, ServiceAccount, Role and policy."""
    return resource_name(plan, AUTHORITY_ROLE)


# Namespace, ServiceAccount, agent configuration -------------------------------------------------


def _namespace(plan: Plan) -> dict[str, Any]:
    labels = {"app.kubernetes.io/managed-by": "sandkit"}
    for mode in ("enforce", "audit", "warn"):
        labels[f"pod-security.kubernetes.io/{mode}"] = "restricted"
        labels[f"pod-security.kubernetes.io/{mode}-version"] = "latest"
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace(plan), "labels": labels}}


def _service_account(plan: Plan) -> dict[str, Any]:
    """The kit's own identity: no Role binds it, and no pod mounts its token."""
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": _meta(plan, plan.name),
        "automountServiceAccountToken": False,
    }


def _config_entries(plan: Plan, context: RenderContext) -> list[ConfigEntry]:
    """(ConfigMap key, mount path, content, mode) for env.sh, the instructions and the kit's files.

    The image already carries the same bytes (the docker target's files, handed over in the render
    context); mounting them from the ConfigMap makes the cluster's copy the one in force, so an
    overlay can change them without a rebuild. Files under a path that is an emptyDir here (/tmp,
    the workspace) stay in the image.
    """
    built = context.files_of("docker")
    entries = [("env.sh", f"{SANDKIT_ETC}/env.sh", built["env.sh"], 0o444)]
    if plan.instructions_file:
        entries.append(
            (
                "instructions",
                f"{SANDKIT_ETC}/instructions/{plan.instructions_file}",
                built[f"instructions/{plan.instructions_file}"],
                0o444,
            )
        )
    for index, placed in enumerate((*plan.files, *plan.home_files), start=1):
        target = placed.path
        if placed in plan.home_files:
            target = f"{HOME_SKELETON}{placed.path[len(plan.home) :]}"
        elif any(is_under(placed.path, folder) for folder in _empty_dirs(plan).values()):
            continue
        entries.append((f"file-{index:02d}", target, placed.content, int(placed.mode, 8)))
    return entries


def _agent_config(plan: Plan, entries: list[ConfigEntry]) -> dict[str, Any]:
    data: dict[str, str] = {}
    binary: dict[str, str] = {}
    for key, _, content, _ in entries:
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is None or "\x00" in text:
            binary[key] = base64.b64encode(content).decode()
        else:
            data[key] = text
    config: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _meta(plan, resource_name(plan, "agent"), AGENT_ROLE),
        "data": data,
    }
    if binary:
        config["binaryData"] = binary
    return config


# The agent pod ------------------------------------------------------------------------------------


def _empty_dirs(plan: Plan) -> dict[str, str]:
    return {"tmp": "/tmp", "home": plan.home, "workspace": plan.workspace_path}


def _quantity(value: int) -> str:
    for unit, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if value % size == 0:
            return f"{value // size}{unit}"
    return str(value)


def _cpu(cpus: float) -> str:
    millis = max(1, round(cpus * 1000))
    return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"


def _resources(cpu: str, memory: str, disk: str) -> dict[str, Any]:
    """Requests equal to limits: the Guaranteed class, never evicted ahead of others."""
    amounts = {"cpu": cpu, "memory": memory, "ephemeral-storage": disk}
    return {"requests": dict(amounts), "limits": dict(amounts)}


def _container_security(uid: int, read_only_root: bool) -> dict[str, Any]:
    return {
        "runAsNonRoot": True,
        "runAsUser": uid,
        "runAsGroup": uid,
        "privileged": False,
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": read_only_root,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def _safe_workspace(plan: Plan) -> list[dict[str, Any]]:
    """Git refuses a work tree whose folder another user owns, and an emptyDir's root is root's
    (fsGroup sets only its group); marking the workspace safe in git's command-line scope, which
    counts as protected configuration, lets the clone and the agent use it."""
    return [
        {"name": "GIT_CONFIG_COUNT", "value": "1"},
        {"name": "GIT_CONFIG_KEY_0", "value": "safe.directory"},
        {"name": "GIT_CONFIG_VALUE_0", "value": plan.workspace_path},
    ]


def proxy_address_variable(plan: Plan) -> str:
    """The variable the kubelet sets to the proxy Service's cluster IP (a service link)."""
    return proxy_name(plan).upper().replace("-", "_") + "_SERVICE_HOST"


def _agent_env(plan: Plan) -> list[dict[str, Any]]:
    """A container's environment: no secret's value (those are files, see :func:`_secret_volume`).

    The proxy is named by its Service's cluster IP, from the service-link variable the kubelet sets
    (Kubernetes expands ``$(VAR)`` in a value), so the agent pod needs no cluster DNS, which would
    be a way out through any resolver that forwards: squid resolves names, on the proxy's side.
    """
    env: list[dict[str, Any]] = _safe_workspace(plan)
    if _uses_proxy(plan):
        url = f"http://$({proxy_address_variable(plan)}):{PROXY_PORT}"
        env += [{"name": k, "value": v} for k, v in (proxy_env(url) | inject.agent_env(plan)).items()]
    return env


def _file_secrets(plan: Plan, secrets: tuple[tuple[str, bool], ...]) -> tuple[str, ...]:
    """Of ``secrets``, the names a container gets as files: all but those the proxy injects (its alone)."""
    return tuple(name for name, _ in secrets if name not in _injected(plan))


def _secret_volume(plan: Plan, volume: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The Secret's keys ``names`` as read-only files of the fsGroup (mode 0440), never environment values.

    Optional, so a missing key leaves its file out: the entrypoint then stops on a required secret
    (exit 78) and runs without an optional one, as compose does.
    """
    items = [{"key": name, "path": name} for name in names]
    secret = {"secretName": secret_name(plan), "items": items, "defaultMode": 0o440, "optional": True}
    return {"name": volume, "secret": secret}


def _agent_mounts(plan: Plan, entries: list[ConfigEntry], secrets_volume: str | None) -> list[dict[str, Any]]:
    mounts: list[dict[str, Any]] = [{"name": name, "mountPath": path} for name, path in _empty_dirs(plan).items()]
    if secrets_volume:
        mounts.append({"name": secrets_volume, "mountPath": SECRETS_DIR, "readOnly": True})
    if _injects(plan):
        mounts.append({"name": CA_VOLUME, "mountPath": inject.PATHS.agent_ca, "readOnly": True})
    return mounts + [
        {"name": "config", "mountPath": path, "subPath": key, "readOnly": True} for key, path, _, _ in entries
    ]


def _agent_container(
    plan: Plan,
    entries: list[ConfigEntry],
    name: str,
    extra_env: list[dict[str, Any]],
    args: list[str],
    *,
    secrets: tuple[tuple[str, bool], ...],
) -> dict[str, Any]:
    disk = _quantity(plan.disk_bytes)
    volume = f"{name}-secrets" if _file_secrets(plan, secrets) else None
    return {
        "name": name,
        "image": plan.image_tag,
        "imagePullPolicy": "Always",
        "args": args,
        "env": extra_env + _agent_env(plan),
        "resources": _resources(_cpu(plan.cpus), _quantity(plan.memory_bytes), disk),
        "securityContext": _container_security(plan.cluster_uid, plan.read_only_root),
        "volumeMounts": _agent_mounts(plan, entries, volume),
    }


def agent_pod_spec(plan: Plan, entries: list[ConfigEntry]) -> dict[str, Any]:
    """The hardened pod of one session (restricted Pod Security Standard)."""
    disk = _quantity(plan.disk_bytes)
    spec: dict[str, Any] = {
        "serviceAccountName": plan.name,
        "automountServiceAccountToken": False,
        # Service links give the agent the proxy's address without DNS (see _agent_env); the
        # namespace is the kit's own, so they name no other workload's services.
        "enableServiceLinks": _uses_proxy(plan),
        # The pause container becomes PID 1 and reaps orphans: the init process compose gets from init: true.
        "shareProcessNamespace": True,
        "restartPolicy": "Never",
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": plan.cluster_uid,
            "runAsGroup": plan.cluster_uid,
            "fsGroup": plan.cluster_uid,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    }
    runtime_class = K8S_RUNTIME_CLASSES[plan.runtime]
    if runtime_class:
        spec["runtimeClassName"] = runtime_class
    cloning = plan.workspace_mode == "clone" and plan.workspace_repo
    if cloning:
        # The image's own entrypoint clones and stops (SANDKIT_ONLY=clone); `true` is never the agent.
        spec["initContainers"] = [
            _agent_container(
                plan,
                entries,
                "clone",
                [{"name": "SANDKIT_ONLY", "value": "clone"}],
                ["true"],
                secrets=plan.clone_secrets,
            )
        ]
    spec["containers"] = [_agent_container(plan, entries, "agent", [], list(plan.command), secrets=plan.secrets)]
    config_items = [{"key": key, "path": key, "mode": mode} for key, _, _, mode in entries]
    spec["volumes"] = [{"name": name, "emptyDir": {"sizeLimit": disk}} for name in _empty_dirs(plan)] + [
        {"name": "config", "configMap": {"name": resource_name(plan, "agent"), "items": config_items}}
    ]
    # Each container's own secrets, a volume apiece: the clone's holds its token alone.
    for container, secrets in (("clone", plan.clone_secrets if cloning else ()), ("agent", plan.secrets)):
        if _file_secrets(plan, secrets):
            spec["volumes"].append(_secret_volume(plan, f"{container}-secrets", _file_secrets(plan, secrets)))
    if _injects(plan):
        # Not optional: the kubelet starts no container of the pod before the authority Job has written it.
        ca_item = {"key": inject.CA_KEY, "path": inject.CA_KEY, "mode": 0o444}
        spec["volumes"].append(
            {"name": CA_VOLUME, "configMap": {"name": ca_config_name(plan), "items": [ca_item], "optional": False}}
        )
    return spec


def _pod_template(plan: Plan, entries: list[ConfigEntry]) -> dict[str, Any]:
    return {
        "metadata": {
            "labels": _labels(plan, AGENT_ROLE),
            "annotations": {"sandkit.dev/config-sha256": plan.config_sha256},
        },
        "spec": agent_pod_spec(plan, entries),
    }


def active_deadline(plan: Plan) -> int:
    """The whole pod's bound: the agent's timeout plus a minute for clone, start-up and timeout's own kill."""
    return plan.timeout_seconds + 60


def _job_spec(plan: Plan, entries: list[ConfigEntry]) -> dict[str, Any]:
    return {
        "backoffLimit": 0,
        "activeDeadlineSeconds": active_deadline(plan),
        "ttlSecondsAfterFinished": max(plan.timeout_seconds, 3600),
        "template": _pod_template(plan, entries),
    }


def _secret_annotations(plan: Plan) -> dict[str, str]:
    """Which Secret and keys the pods read (the manifests name it; they never contain it)."""
    if not plan.secrets:
        return {}
    keys = ",".join(name for name, _ in plan.secrets)
    return {"sandkit.dev/secret": secret_name(plan), "sandkit.dev/secret-keys": keys}


def _session_job(plan: Plan, entries: list[ConfigEntry]) -> dict[str, Any]:
    meta = _session_meta(plan, AGENT_ROLE)
    if plan.secrets:
        meta["annotations"] = _secret_annotations(plan)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": _job_spec(plan, entries)}


def _cronjob(plan: Plan, entries: list[ConfigEntry], index: int, schedule: str) -> dict[str, Any]:
    meta = _meta(plan, resource_name(plan, f"schedule-{index}", limit=52), AGENT_ROLE)
    if plan.secrets:
        meta["annotations"] = _secret_annotations(plan)
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": meta,
        "spec": {
            "schedule": schedule,
            "timeZone": "Etc/UTC",
            "concurrencyPolicy": "Forbid",
            "startingDeadlineSeconds": 300,
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 3,
            "jobTemplate": {"metadata": {"labels": _labels(plan, AGENT_ROLE)}, "spec": _job_spec(plan, entries)},
        },
    }


# Webhooks (Argo Events) ----------------------------------------------------------------------------


def webhook_secret_name(plan: Plan) -> str:
    """The Secret the user creates with the webhooks' signing secrets and tokens (never the agent's)."""
    return resource_name(plan, "webhooks")


def _webhook_manifests(plan: Plan, entries: list[ConfigEntry]) -> list[dict[str, Any]]:
    """Identities and limits shared by the kit's webhooks, then an EventSource and a Sensor per webhook."""
    source_account, sensor_account = resource_name(plan, SOURCE_ROLE), resource_name(plan, SENSOR_ROLE)
    docs = [
        _argo_account(plan, source_account, SOURCE_ROLE, token=False),
        _argo_account(plan, sensor_account, SENSOR_ROLE, token=True),
        *_sensor_rbac(plan, sensor_account),
        _session_quota(plan),
    ]
    job = _session_job(plan, entries)
    for hook in plan.triggers.webhooks:
        name = resource_name(plan, f"webhook-{hook.name}")
        source_pod, sensor_pod = _argo_pod(source_account), _argo_pod(sensor_account)
        secret = webhook_secret_name(plan)
        docs.append(argo_events.event_source(plan, hook, _meta(plan, name, SOURCE_ROLE), source_pod, secret))
        session = argo_events.event_job(job, hook, active_deadline(plan))
        docs.append(argo_events.sensor(hook, _meta(plan, name, SENSOR_ROLE), name, sensor_pod, session))
    return docs


def _argo_account(plan: Plan, name: str, role: str, token: bool) -> dict[str, Any]:
    """The EventSource's identity holds no rights and no token; the Sensor's token may only create Jobs."""
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": _meta(plan, name, role),
        "automountServiceAccountToken": token,
    }


def _sensor_rbac(plan: Plan, account: str) -> list[dict[str, Any]]:
    """Create Jobs in the kit's namespace, and nothing else (no get, list, watch, update or delete)."""
    return _role_for(plan, account, SENSOR_ROLE, {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["create"]})


def _role_for(plan: Plan, account: str, role: str, *rules: dict[str, Any]) -> list[dict[str, Any]]:
    """A Role of ``rules``, named as the ServiceAccount it is bound to in the kit's namespace, and its binding."""
    rbac = "rbac.authorization.k8s.io"
    return [
        {"apiVersion": f"{rbac}/v1", "kind": "Role", "metadata": _meta(plan, account, role), "rules": list(rules)},
        {
            "apiVersion": f"{rbac}/v1",
            "kind": "RoleBinding",
            "metadata": _meta(plan, account, role),
            "roleRef": {"apiGroup": rbac, "kind": "Role", "name": account},
            "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": namespace(plan)}],
        },
    ]


def _session_quota(plan: Plan) -> dict[str, Any]:
    """At most max_sessions webhook sessions at once: running pods with activeDeadlineSeconds in the namespace."""
    limit = sum(hook.max_sessions for hook in plan.triggers.webhooks)
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": _meta(plan, resource_name(plan, "webhook-sessions"), AGENT_ROLE),
        "spec": {"hard": {"pods": str(limit)}, "scopes": ["Terminating"]},
    }


def _argo_pod(account: str) -> dict[str, Any]:
    """The pod template Argo Events' controller gives an EventSource or Sensor: restricted, bounded."""
    return {
        "serviceAccountName": account,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": ARGO_UID,
            "runAsGroup": ARGO_UID,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "container": {
            "securityContext": _container_security(ARGO_UID, True),
            "resources": _resources("250m", "128Mi", "64Mi"),
        },
    }


# agent-sandbox (kubernetes-sigs) ------------------------------------------------------------------


def _sandbox_template(plan: Plan, entries: list[ConfigEntry]) -> list[dict[str, Any]]:
    """A SandboxTemplate of the same pod, and a warm pool of zero that claims start from cold."""
    pod = _pod_template(plan, entries)
    pod["spec"]["activeDeadlineSeconds"] = active_deadline(plan)
    template = {
        "apiVersion": SANDBOX_API,
        "kind": "SandboxTemplate",
        "metadata": _meta(plan, plan.name),
        "spec": {"podTemplate": pod, "networkPolicyManagement": "Unmanaged", "envVarsInjectionPolicy": "Disallowed"},
    }
    pool = {
        "apiVersion": SANDBOX_API,
        "kind": "SandboxWarmPool",
        "metadata": _meta(plan, plan.name),
        "spec": {"replicas": 0, "sandboxTemplateRef": {"name": plan.name}},
    }
    return [template, pool]


def _sandbox_claim(plan: Plan) -> dict[str, Any]:
    return {
        "apiVersion": SANDBOX_API,
        "kind": "SandboxClaim",
        "metadata": _session_meta(plan),
        "spec": {
            "warmPoolRef": {"name": plan.name},
            "lifecycle": {"ttlSecondsAfterFinished": max(plan.timeout_seconds, 3600), "shutdownPolicy": "Delete"},
        },
    }


# Egress --------------------------------------------------------------------------------------------


def _agent_policies(plan: Plan) -> list[dict[str, Any]]:
    """Ingress denied always; egress per kit: DNS and the proxy, nothing, everything, or Cilium's FQDNs."""
    cilium = plan.egress == "allowlist" and plan.kubernetes.egress == "cilium"
    spec: dict[str, Any] = {
        "podSelector": {"matchLabels": selector(plan, AGENT_ROLE)},
        "policyTypes": ["Ingress"],
        "ingress": [],
    }
    if plan.egress == "none" or _uses_proxy(plan):
        spec["policyTypes"] = ["Ingress", "Egress"]
        spec["egress"] = []
    if _uses_proxy(plan):
        spec["egress"] = [
            {
                "to": [{"podSelector": {"matchLabels": selector(plan, PROXY_ROLE)}}],
                "ports": [{"protocol": "TCP", "port": PROXY_PORT}],
            },
        ]
    policies = [
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": _meta(plan, resource_name(plan, "agent"), AGENT_ROLE),
            "spec": spec,
        }
    ]
    if cilium:
        policies.append(_cilium_policy(plan))
    return policies


def _cilium_policy(plan: Plan) -> dict[str, Any]:
    """toFQDNs per allowed port, DNS only for the allowed names (Cilium's DNS proxy learns the IPs)."""
    names = [({"matchPattern": d.host} if d.wildcard else {"matchName": d.host}) for d in plan.allow]
    unique_names = list({str(n): n for n in names}.values())
    dns = {
        "toEndpoints": [{"matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s:k8s-app": "kube-dns"}}],
        "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}], "rules": {"dns": unique_names}}],
    }
    egress = [dns]
    for port in sorted({d.port for d in plan.allow}):
        fqdns = [
            ({"matchPattern": d.host} if d.wildcard else {"matchName": d.host}) for d in plan.allow if d.port == port
        ]
        egress.append({"toFQDNs": fqdns, "toPorts": [{"ports": [{"port": str(port), "protocol": "TCP"}]}]})
    deny = [{"toCIDRSet": [{"cidr": c} for c in (*NON_PUBLIC_V4, *NON_PUBLIC_V6)]}]
    return {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumNetworkPolicy",
        "metadata": _meta(plan, resource_name(plan, "agent-fqdn"), AGENT_ROLE),
        "spec": {"endpointSelector": {"matchLabels": selector(plan, AGENT_ROLE)}, "egress": egress, "egressDeny": deny},
    }


def _proxy_manifests(plan: Plan) -> list[dict[str, Any]]:
    name = proxy_name(plan)
    squid = proxy_files(plan, commented_header("#", *plan.header_fields), inject_secrets=True)[SQUID_CONF]
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _meta(plan, name, PROXY_ROLE),
        "data": {"squid.conf": LiteralBlock(squid), "host-addresses.conf": NODE_ADDRESSES_NOTE},
    }  # sandkit's own text: constants and validated hosts
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(plan, name, PROXY_ROLE),
        "spec": {
            "type": "ClusterIP",
            "selector": selector(plan, PROXY_ROLE),
            "ports": [{"name": "proxy", "protocol": "TCP", "port": PROXY_PORT, "targetPort": PROXY_PORT}],
        },
    }
    if not _injects(plan):
        return [config, _proxy_deployment(plan), service, _proxy_policy(plan)]
    authority = _authority_manifests(plan)
    return [config, *authority, _proxy_deployment(plan), service, _proxy_policy(plan), _authority_policy(plan)]


def _authority_manifests(plan: Plan) -> list[dict[str, Any]]:
    """The authority of the injecting proxy, made once per Deployment by a Job, never in a proxy pod.

    The Secret (key and certificate, mounted by squid's container alone) and the ConfigMap (the
    certificate, mounted by the agent pods) are created empty: ``kubectl apply`` leaves the keys the Job
    writes alone, as it never set them. The Job's identity may read and patch that Secret and patch that
    ConfigMap, and nothing else; its pod takes no connection and reaches the API server alone.
    """
    name, ca_name = authority_name(plan), ca_config_name(plan)
    written_by = {"sandkit.dev/written-by": f"the Job {name}"}
    stored = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {**_meta(plan, name, AUTHORITY_ROLE), "annotations": written_by},
        "type": "Opaque",
    }
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {**_meta(plan, ca_name, AUTHORITY_ROLE), "annotations": written_by},
    }
    account = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": _meta(plan, name, AUTHORITY_ROLE),
        "automountServiceAccountToken": False,  # projected into the Job's pod alone
    }
    rules = (
        {"apiGroups": [""], "resources": ["secrets"], "resourceNames": [name], "verbs": ["get", "patch"]},
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [ca_name], "verbs": ["patch"]},
    )
    return [stored, config, account, *_role_for(plan, name, AUTHORITY_ROLE, *rules), _authority_job(plan)]


def _authority_job(plan: Plan) -> dict[str, Any]:
    """The Job that makes the authority unless its Secret holds one, and publishes the certificate.

    Its name carries the kit's digest: a Job's pod is immutable, so a later kit's ``apply -k`` creates
    a new Job (which keeps the authority) rather than failing on the old one.
    """
    name = authority_name(plan)
    container = {
        "name": "authority",
        "image": proxy_image(plan),
        "imagePullPolicy": "Always",
        "command": [inject.PATHS.start_script, "authority"],
        "env": [
            {"name": "SANDKIT_CA_SECRET", "value": name},
            {"name": "SANDKIT_CA_CONFIGMAP", "value": ca_config_name(plan)},
            {"name": "SANDKIT_CA_DAYS", "value": str(AUTHORITY_DAYS)},
            {"name": "SANDKIT_KIT_NAME", "value": plan.name},  # the authority's name (the image is shared)
            {"name": "SANDKIT_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
        ],
        "resources": _resources("250m", "64Mi", "16Mi"),
        "securityContext": _container_security(PROXY_CLUSTER_UID, True),
        "volumeMounts": [
            {"name": "tmp", "mountPath": "/tmp"},
            {"name": AUTHORITY_VOLUME, "mountPath": inject.PATHS.dir},
            {"name": "api-token", "mountPath": ACCOUNT_DIR, "readOnly": True},
        ],
    }
    token = {"serviceAccountToken": {"path": "token", "expirationSeconds": TOKEN_SECONDS}}
    api_ca = {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}
    pod = {
        "serviceAccountName": name,
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "restartPolicy": "Never",
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": PROXY_CLUSTER_UID,
            "runAsGroup": PROXY_CLUSTER_UID,
            "fsGroup": PROXY_CLUSTER_UID,  # the token's files are group-readable (mode 0440)
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [container],
        "volumes": [
            {"name": "tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "16Mi"}},
            {"name": AUTHORITY_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": "1Mi"}},
            {"name": "api-token", "projected": {"defaultMode": 0o440, "sources": [token, api_ca]}},
        ],
    }
    spec = {
        "backoffLimit": 4,
        "activeDeadlineSeconds": AUTHORITY_JOB_SECONDS,
        "ttlSecondsAfterFinished": 3600,
        "template": {"metadata": {"labels": _labels(plan, AUTHORITY_ROLE)}, "spec": pod},
    }
    meta = _meta(plan, resource_name(plan, f"{AUTHORITY_ROLE}-{plan.config_sha256[:12]}"), AUTHORITY_ROLE)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


def _authority_policy(plan: Plan) -> dict[str, Any]:
    """The authority Job's pod: no connection in; out, the API server's ports alone (no DNS: it has the
    API server's address from the kubelet), on the addresses the kit names (targets.kubernetes.api_server),
    else on the private ranges."""
    spec = {
        "podSelector": {"matchLabels": selector(plan, AUTHORITY_ROLE)},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [],
        "egress": [{"to": _api_server_peers(plan), "ports": [{"protocol": "TCP", "port": p} for p in API_PORTS]}],
    }
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": _meta(plan, authority_name(plan), AUTHORITY_ROLE),
        "spec": spec,
    }


def _proxy_config_volume(plan: Plan) -> dict[str, Any]:
    items = [
        {"key": "squid.conf", "path": "squid.conf", "mode": 0o444},
        {"key": "host-addresses.conf", "path": "host-addresses.conf", "mode": 0o444},
    ]
    return {"name": "config", "configMap": {"name": proxy_name(plan), "items": items}}


def _proxy_start(plan: Plan) -> list[str]:
    """squid's start in the proxy pod: the injecting start script's serve step, or squid itself."""
    return [inject.PATHS.start_script, "serve"] if _injects(plan) else ["squid", "-N", "-f", SQUID_CONF_PATH]


def _proxy_deployment(plan: Plan) -> dict[str, Any]:
    name = proxy_name(plan)
    container = {
        "name": "squid",
        "image": proxy_image(plan),
        "imagePullPolicy": "Always",
        "ports": [{"name": "proxy", "containerPort": PROXY_PORT, "protocol": "TCP"}],
        "resources": _resources("500m", "256Mi", "64Mi"),
        "securityContext": _container_security(PROXY_CLUSTER_UID, True),
        # The session record's lines on standard output, with the pod and the proxy's session (docs/record.md);
        # then the image's start script injects, on the init container's authority, or squid runs alone.
        "command": [record.SCRIPT, "--stdout", *_proxy_start(plan)],
        "env": [
            {"name": "SANDKIT_POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            *({"name": name, "value": value} for name, value in proxy_identity_env(plan).items()),
        ],
        "readinessProbe": _proxy_probe(initialDelaySeconds=2),
        "livenessProbe": _proxy_probe(initialDelaySeconds=10, failureThreshold=3),
        "volumeMounts": [
            {"name": "tmp", "mountPath": "/tmp"},
            {"name": "record", "mountPath": record.CONF_DIR},
            {"name": "config", "mountPath": SQUID_CONF_PATH, "subPath": "squid.conf", "readOnly": True},
            {
                "name": "config",
                "mountPath": HOST_ADDRESSES_FILE,
                "subPath": "host-addresses.conf",
                "readOnly": True,
            },
        ],
    }
    spec: dict[str, Any] = {
        "serviceAccountName": plan.name,
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": PROXY_CLUSTER_UID,
            "runAsGroup": PROXY_CLUSTER_UID,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [container],
        "volumes": [
            {"name": "tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "16Mi"}},
            {"name": "record", "emptyDir": {"medium": "Memory", "sizeLimit": "1Mi"}},
            _proxy_config_volume(plan),
        ],
    }
    deployment_spec: dict[str, Any] = {"replicas": 1, "selector": {"matchLabels": selector(plan, PROXY_ROLE)}}
    if _injects(plan):
        _add_authority(plan, spec, container)
    deployment_spec["template"] = {"metadata": {"labels": _labels(plan, PROXY_ROLE)}, "spec": spec}
    meta = _meta(plan, name, PROXY_ROLE)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": deployment_spec}


def _add_authority(plan: Plan, spec: dict[str, Any], squid: dict[str, Any]) -> None:
    """The injecting proxy pod: squid's container mounts the authority's Secret (made once, by the Job;
    the kubelet starts the pod once it holds the key) and the injected secrets' keys, and no other key.
    The pod holds no token and makes nothing: every replica, and every restart, serves the same authority."""
    spec["securityContext"]["fsGroup"] = PROXY_CLUSTER_UID  # the secret files are group-readable
    squid["volumeMounts"] += [
        {"name": AUTHORITY_VOLUME, "mountPath": inject.PATHS.dir},
        {"name": STORED_AUTHORITY_VOLUME, "mountPath": inject.PATHS.stored, "readOnly": True},
        {"name": "secrets", "mountPath": "/run/secrets", "readOnly": True},
    ]
    stored = [{"key": key, "path": key} for key in ("ca.key", "ca.pem")]
    keys = [{"key": name, "path": name} for name in _injected(plan)]
    spec["volumes"] += [
        {"name": AUTHORITY_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": "16Mi"}},
        # Not optional: the kubelet starts no container of the pod before the Job has written the key.
        {
            "name": STORED_AUTHORITY_VOLUME,
            "secret": {"secretName": authority_name(plan), "items": stored, "defaultMode": 0o440, "optional": False},
        },
        # Optional: a missing key makes squid refuse its host (the start script says which), never send it bare.
        {
            "name": "secrets",
            "secret": {"secretName": secret_name(plan), "items": keys, "defaultMode": 0o440, "optional": True},
        },
    ]


def _api_server_peers(plan: Plan) -> list[dict[str, Any]]:
    """The API server's addresses as NetworkPolicy peers: the kit's CIDRs, else the private ranges.

    A NetworkPolicy cannot name the API server, and the manifests do not know its address; clusters
    give it a private one, usually (the kubernetes Service's cluster IP and its endpoints). A CNI may
    judge the Service's address or the endpoint's, so a kit that narrows the rule lists both.
    """
    cidrs = plan.kubernetes.api_server or PRIVATE_API_RANGES
    return [{"ipBlock": {"cidr": cidr}} for cidr in dict.fromkeys(cidrs)]


def _dns_rule() -> dict[str, Any]:
    """Egress to the cluster's DNS (kube-dns in kube-system), UDP and TCP port 53."""
    kube_dns = {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
        "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
    }
    return {"to": [kube_dns], "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}


def _proxy_probe(**timing: int) -> dict[str, Any]:
    """The proxy container's probe (the check egress/Dockerfile's HEALTHCHECK makes) with its timing."""
    return {"exec": {"command": list(PROXY_PROBE)}, "periodSeconds": 10, "timeoutSeconds": 3, **timing}


def _proxy_policy(plan: Plan) -> dict[str, Any]:
    """Agents in, public addresses on the allowed ports out; the proxy's own ACLs do the naming."""
    ports = [{"protocol": "TCP", "port": port} for port in sorted({d.port for d in plan.allow})]
    public = [
        {"ipBlock": {"cidr": EVERY_PUBLIC_V4, "except": list(NON_PUBLIC_V4)}},
        {"ipBlock": {"cidr": GLOBAL_UNICAST_V6, "except": non_public_within_global_v6()}},
    ]
    egress: list[dict[str, Any]] = [_dns_rule()]
    if ports:
        egress.append({"to": public, "ports": ports})
    spec = {
        "podSelector": {"matchLabels": selector(plan, PROXY_ROLE)},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [
            {
                "from": [{"podSelector": {"matchLabels": selector(plan, AGENT_ROLE)}}],
                "ports": [{"protocol": "TCP", "port": PROXY_PORT}],
            }
        ],
        "egress": egress,
    }
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": _meta(plan, proxy_name(plan), PROXY_ROLE),
        "spec": spec,
    }


# Fidelity ------------------------------------------------------------------------------------------


#: The static proofs: the manifests are checked field by field (no cluster runs here).
K8S_TESTS = "tests/compiler/test_kubernetes.py"
RESTRICTED_PROOF = f"{K8S_TESTS}::test_pods_meet_the_restricted_standard"
LIMITS_PROOF = f"{K8S_TESTS}::test_jobs_cronjobs_and_limits_come_from_the_kit"


def _static(setting: Setting, reason: str, proven_by: str) -> Fidelity:
    """An enforced row whose mechanism is a cluster's: it says so, and names the test of the manifests."""
    return Fidelity(setting, "enforced", f"{reason}; {PROVEN_STATICALLY}", proven_by=proven_by)


def fidelity(plan: Plan) -> list[Fidelity]:
    settings = plan.kubernetes
    restricted = "restricted Pod Security Standard"
    rows = [
        _egress_row(plan),
        record_row(plan, "kubernetes"),
        _deny_row(plan),
        _static("image.user", _user_reason(plan, restricted), RESTRICTED_PROOF),
        read_only_row(
            plan,
            f"readOnlyRootFilesystem with emptyDir /tmp, home and workspace; {PROVEN_STATICALLY}",
            RESTRICTED_PROOF,
        ),
        _static("capabilities", "drop ALL, allowPrivilegeEscalation: false, seccomp RuntimeDefault", RESTRICTED_PROOF),
        _static("resources.memory", "memory requests and limits", LIMITS_PROOF),
        _static("resources.cpus", "cpu requests and limits", LIMITS_PROOF),
        Fidelity(
            "resources.pids",
            "best-effort",
            "a pod spec has no process limit; the kubelet's podPidsLimit (a node setting) bounds it",
            requested=False,
        ),
        _static("resources.disk", "ephemeral-storage limits and emptyDir sizeLimit (the kubelet evicts)", LIMITS_PROOF),
        _static(
            "resources.timeout",
            f"activeDeadlineSeconds {active_deadline(plan)} on the pod's Job, and timeout(1) in the entrypoint",
            LIMITS_PROOF,
        ),
        _static(
            "secrets",
            f"read-only files {SECRETS_DIR}/NAME from the Secret {secret_name(plan)} that the user creates (a secret "
            "volume of the agent container, mode 0440 to the pod's group, never an env value), which the entrypoint "
            "exports as NAME; the clone's init container mounts its own token alone"
            + (f"; {', '.join(_injected(plan))}: in the egress proxy pod only" if _injected(plan) else ""),
            f"{K8S_TESTS}::test_secrets_are_files_of_their_own_container_never_contained",
        ),
        _workspace_row(plan),
        _static(
            "isolation.runtime",
            f"runtimeClassName: {K8S_RUNTIME_CLASSES[plan.runtime]} (the cluster must define that RuntimeClass)"
            if K8S_RUNTIME_CLASSES[plan.runtime]
            else "the cluster's default runtime with seccomp RuntimeDefault",
            LIMITS_PROOF if K8S_RUNTIME_CLASSES[plan.runtime] else RESTRICTED_PROOF,
        ),
    ]
    if settings.sandbox_crd:
        rows.append(
            Fidelity(
                "targets.kubernetes.sandbox_crd",
                "best-effort",
                "SandboxTemplate, SandboxWarmPool (0 replicas) and SandboxClaim for the agent-sandbox "
                "controller; a warm pod would start its agent at once, so claims start cold",
            )
        )
    if plan.in_sandbox_docker != "none":
        rows.append(
            Fidelity(
                "isolation.docker",
                "unsupported",
                "a rootless daemon needs user namespaces and "
                "mounts the restricted Pod Security Standard forbids; never the node's socket",
            )
        )
    if plan.ports:
        rows.append(Fidelity("ports", "unsupported", "the agent pod gets no Service and its ingress is denied"))
    if plan.triggers.requested:
        rows.append(_trigger_row(plan))
    rows += inject_rows(
        plan,
        None if _uses_proxy(plan) else "with egress cilium there is no proxy to inject",
        "the Secret's injected keys are mounted into the egress proxy pod only (the agent pod gets the "
        "placeholder); the authority is made once per Deployment, not per pod: a Job (whose Role may read "
        f"and patch the Secret {authority_name(plan)} and patch the ConfigMap {ca_config_name(plan)}, nothing "
        "else) makes it unless that Secret holds one, valid "
        f"{AUTHORITY_DAYS} days (rotation is the operator's), and puts the certificate alone in the ConfigMap, "
        "which the agent pods mount (the kubelet starts them once it holds the certificate); the key is "
        "mounted into squid's container alone, so it is at rest in the cluster's Secret store, readable by "
        "whoever may read the namespace's Secrets (who may read the injected values themselves); squid opens "
        "TLS to the injection hosts alone, replaces the header there and refuses the host without the secret; "
        "the proxy pod holds no token and reaches no API server; the Job's pod may reach ports "
        f"{' and '.join(map(str, API_PORTS))} of "
        + (
            ", ".join(plan.kubernetes.api_server) + " (targets.kubernetes.api_server)"
            if plan.kubernetes.api_server
            else "the private ranges for the API server (targets.kubernetes.api_server narrows it; a public "
            "API endpoint must be listed there)"
        ),
        INJECT_PROOF,
    )
    return rows + _webhook_rows(plan)


INJECT_PROOF = (
    "tests/compiler/test_kubernetes_docker.py::test_the_proxy_pod_injects_and_the_agent_pod_holds_no_trace_of_the_value"
)
WEBHOOK_TESTS = "tests/compiler/test_kubernetes_webhooks.py"
WEBHOOK_RUN_PROOF = (
    "tests/compiler/test_kubernetes_docker.py"
    "::test_a_webhook_event_reaches_the_agent_as_data_in_the_job_its_sensor_creates"
)


def _webhook_rows(plan: Plan) -> list[Fidelity]:
    hooks = plan.triggers.webhooks
    if not hooks:
        return []
    twilio = [h.name for h in hooks if h.source == "twilio"]
    limit = sum(h.max_sessions for h in hooks)
    delivery = _static(
        "triggers.webhook",
        "Argo Events: per webhook an EventSource and a Sensor whose trigger creates the session Job; the "
        f"selected fields reach the agent only as the file ${EVENT_VARIABLE} (a downwardAPI view of a pod "
        "annotation), never a command, env value or script; needs Argo Events and an EventBus named "
        f"{argo_events.EVENT_BUS} in the namespace",
        WEBHOOK_RUN_PROOF,
    )
    if twilio:
        secret = Fidelity(
            "triggers.webhook.secret",
            "best-effort",
            "Argo Events' webhook source cannot check X-Twilio-Signature: it takes a bearer token Twilio does "
            f"not send, so a Twilio Function must add it ({', '.join(twilio)})",
        )
    else:
        secret = _static(
            "triggers.webhook.secret",
            "Slack's request signature is checked by Argo Events' Slack source, the other sources' bearer token "
            f"by its webhook source; both read from the Secret {webhook_secret_name(plan)}, which the agent "
            "never mounts",
            f"{WEBHOOK_TESTS}::test_each_source_gets_its_own_authentication",
        )
    limits = f"{WEBHOOK_TESTS}::test_sessions_are_bounded_at_once_and_per_minute"
    return [
        delivery,
        secret,
        _static(
            "triggers.webhook.max_sessions",
            f"a ResourceQuota of {limit} pods in the Terminating scope (pods with activeDeadlineSeconds: the "
            "webhook sessions); a Job beyond it waits for a free slot until its deadline; kits that share the "
            "namespace share the smallest such quota",
            limits,
        ),
        _static(
            "triggers.webhook.per_minute",
            "the Sensor trigger's rateLimit: "
            + ", ".join(f"{h.name} {h.per_minute} a minute" for h in hooks)
            + "; more events wait their turn",
            limits,
        ),
    ]


def _user_reason(plan: Plan, restricted: str) -> str:
    uid = plan.cluster_uid
    raised = (
        f" (the kit's uid {plan.uid} + {HIGH_UID}: the image's {plan.cluster_user} account)" if uid != plan.uid else ""
    )
    return (
        f"runAsNonRoot, runAsUser {uid}{raised}, the egress proxy {PROXY_CLUSTER_UID}: no node's user holds "
        f"a uid that high; {restricted}"
    )


def _egress_row(plan: Plan) -> Fidelity:
    if plan.egress == "allowlist" and plan.kubernetes.egress == "cilium":
        return _static(
            "network.egress",
            "CiliumNetworkPolicy: toFQDNs per allowed port, DNS only for allowed names, non-public addresses denied",
            f"{K8S_TESTS}::test_cilium_and_the_agent_sandbox_resources",
        )
    reason = {
        "none": "a NetworkPolicy that denies all egress (DNS too)",
        "open": "no egress policy, as the kit asks (the linter reports open egress); ingress is denied",
        "allowlist": "default-deny NetworkPolicy: agent pods reach only the squid proxy, by its Service's "
        "address (no cluster DNS: squid resolves names), and the proxy's own policy allows public addresses "
        "on the allowed ports (every range IANA's special-purpose registries do not mark globally reachable "
        "excepted, as squid refuses them); a node's own public address is not known to the manifests, so "
        "neither refuses it; needs a CNI that enforces NetworkPolicy",
    }[plan.egress]
    return _static("network.egress", reason, f"{K8S_TESTS}::test_egress_per_mode")


def _deny_row(plan: Plan) -> Fidelity:
    if plan.egress != "allowlist":
        return Fidelity(
            "network.deny",
            "unsupported",
            f"with egress {plan.egress} there is no allowlist to apply a deny list to",
            requested=bool(plan.deny) and plan.egress == "open",
        )
    if plan.kubernetes.egress != "cilium":
        return Fidelity(
            "network.deny",
            "enforced",
            "squid refuses denied names before any allow rule (the ConfigMap holds compose's squid.conf)",
            proven_by=SQUID_DENY_PROOF,
        )
    inside_wildcard = [str(d) for d in plan.deny if any(a.wildcard and a.covers(d) for a in plan.allow)]
    if inside_wildcard:
        return Fidelity(
            "network.deny",
            "unsupported",
            "toFQDNs cannot refuse a name inside an allowed wildcard: " + ", ".join(inside_wildcard),
        )
    return _static(
        "network.deny",
        "denied names are left out of toFQDNs and the DNS rule",
        f"{K8S_TESTS}::test_cilium_and_the_agent_sandbox_resources",
    )


def _workspace_row(plan: Plan) -> Fidelity:
    if plan.workspace_mode in ("mount", "mount-readonly"):
        return Fidelity(
            "workspace.mode",
            "unsupported",
            "a cluster has no host folder to mount; the workspace is an empty emptyDir",
        )
    if plan.workspace_mode == "clone":
        return Fidelity(
            "workspace.mode",
            "enforced",
            "an init container (the image's entrypoint, SANDKIT_ONLY=clone, without the kit's secrets"
            + "".join(f" but the clone's own {key}" for key in _clone_credential(plan))
            + ") clones into an emptyDir"
            + clone_access(plan),
            # the pod's containers played in Docker; its kit clones over ssh through the proxy
            proven_by="tests/compiler/test_kubernetes_docker.py::"
            "test_the_session_pod_clones_then_runs_the_agent_with_the_configmap_in_force",
        )
    return _static(
        "workspace.mode",
        "an empty emptyDir",
        f"{K8S_TESTS}::test_every_volume_mount_has_its_volume_and_every_item_its_key",
    )


def _clone_credential(plan: Plan) -> list[str]:
    """The workspace fields naming the clone's own secret, which its init container gets."""
    return [
        key
        for key, name in (("workspace.token", plan.workspace_token), ("workspace.ssh_key", plan.workspace_ssh_key))
        if name
    ]


def _trigger_row(plan: Plan) -> Fidelity:
    github = [g.event for g in plan.triggers.github]
    if github:
        return Fidelity(
            "triggers",
            "unsupported",
            "a cluster does not receive GitHub events ("
            + ", ".join(github)
            + "); schedules become CronJobs, manual runs `kubectl create -f`",
        )
    started = "a CronJob per schedule (concurrencyPolicy Forbid)"
    if plan.triggers.webhooks:
        started += ", an Argo Events Sensor per webhook"
    return _static("triggers", f"{started}; manual runs `kubectl create -f` of the session Job", LIMITS_PROOF)
