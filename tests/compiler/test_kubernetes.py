"""The kubernetes target: strict Kubernetes schemas, Checkov, sandkit's own linter, and the
semantics no schema checks (selectors, mounts, secrets by reference, egress per mode)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sandkit.compiler.command import KitOutput, compile_kit
from sandkit.compiler.plan import HIGH_UID
from sandkit.compiler.proxy import PROXY_CLUSTER_UID
from sandkit.compiler.targets import NAMES
from sandkit.compiler.targets.kubernetes import CLAIM_FILE, SESSION_FILE
from tests.compiler.helpers import EXAMPLES, OWN_KITS, compile_from_repo
from tests.conftest import REPO, missing

#: Supported minor versions whose OpenAPI schemas kubernetes-validate ships (strict mode).
KUBERNETES_VERSIONS = ("1.35.0", "1.36.0", "1.37.0")
#: Kinds whose schemas are CRDs, not in Kubernetes' OpenAPI: checked structurally below.
CRD_KINDS = {"CiliumNetworkPolicy", "SandboxTemplate", "SandboxWarmPool", "SandboxClaim", "EventSource", "Sensor"}
#: Checkov's Kubernetes checks skipped, each for a reason that holds for every kit:
CHECKOV_SKIPS = {
    # The images are built from the kit (Dockerfile, egress/Dockerfile) and tagged with the kit's
    # sha256; a registry digest exists only once the operator pushes them, so pinning by digest is
    # the operator's overlay (docs/kubernetes.md), not something sandkit can write.
    "CKV_K8S_43",
}

SECRET_VALUE = "sk-ant-api03-" + "Z" * 40
VARIANTS: dict[str, str] = {
    "clone-schedules": """
apiVersion: sandkit/v1
name: nightly
env: {MODE: "fast"}
secrets:
  - {name: API_KEY}
  - {name: OPTIONAL_TOKEN, required: false}
network:
  allow: [github.com, "*.githubusercontent.com", "api.example.com:8443"]
  deny: [evil.githubusercontent.com]
agent: {command: [agent, --go], instructions: "Do it.", instructions_file: AGENTS.md}
files:
  - {path: /etc/tool/config.json, content: '{"a": 1}'}
  - {path: /home/agent/.tool/rc, content: "x=1", mode: "0600"}
  - {path: /tmp/ignored, content: "hidden by the emptyDir"}
workspace: {mode: clone, repo: "https://github.com/acme/app.git", ref: main}
resources: {cpus: 1.5, memory: 1536Mi, disk: 3Gi, timeout: 15m}
isolation: {runtime: gvisor}
triggers:
  - schedule: "0 9 * * 1"
  - schedule: "30 2 * * *"
  - manual: {}
""",
    "cilium-crd": """
apiVersion: sandkit/v1
name: 9-cilium
secrets: [{name: API_KEY}]
network:
  allow: [api.example.com, "*.example.org", "git.example.net:8443"]
  deny: [bad.example.org]
agent: {command: [agent]}
workspace: {mode: none}
targets:
  kubernetes: {namespace: agents, create_namespace: false, egress: cilium, sandbox_crd: true,
               secret_name: shared-agent-keys}
""",
    "inject-api": """
apiVersion: sandkit/v1
name: inject-api
secrets:
  - {name: API_KEY, inject: [{host: api.example.com, header: x-api-key}]}
  - {name: DEPLOY_KEY}
network: {allow: [api.example.com, "git.example.com:22"]}
agent: {command: [agent]}
workspace: {mode: clone, repo: "git@git.example.com:acme/app.git", ssh_key: DEPLOY_KEY,
            known_hosts: ["git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"]}
targets:
  kubernetes: {api_server: [10.96.0.1/32, 172.18.0.2/32, "fd00:10:96::1/128"]}
""",
    "offline": """
apiVersion: sandkit/v1
name: offline
network: {egress: none}
agent: {command: [agent]}
workspace: {mode: none}
""",
    "webhooks": """
apiVersion: sandkit/v1
name: chatops
secrets: [{name: API_KEY}]
network: {allow: [api.example.com]}
agent: {command: [agent]}
workspace: {mode: clone, repo: "https://api.example.com/acme/app.git"}
triggers:
  - webhook:
      source: slack
      secret: SLACK_SIGNING_SECRET
      verification_token: SLACK_VERIFICATION_TOKEN
      command: /agent
      fields: {request: $.text, user: $.user_name}
      max_sessions: 2
  - webhook:
      source: jira
      secret: JIRA_TOKEN
      events: ["jira:issue_updated"]
      transition: Ready for agent
      fields: {key: $.issue.key, summary: $.issue.fields.summary}
      per_minute: 3
  - webhook: {source: twilio, secret: TWILIO_TOKEN, fields: {text: $.Body}, match: {$.From: ["+15550100"]}}
  - webhook: {source: generic, name: alerts, secret: ALERT_TOKEN, fields: {first: "$.alerts[0].title"}}
""",
    "open-ports": """
apiVersion: sandkit/v1
name: open-with-a-rather-long-name-that-reaches-the-limit-of-63-chars
network: {egress: open}
agent: {command: [agent]}
workspace: {mode: mount, source: .}
ports: [{container: 3000}]
isolation: {docker: rootless}
""",
}


def _compile_variant(text: str) -> KitOutput:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kit.yaml"
        path.write_text(text, encoding="utf-8")
        return compile_kit(path, Path(folder) / "out", ["docker", "kubernetes"])


@pytest.fixture(scope="module")
def outputs(monkeypatch_module: pytest.MonkeyPatch) -> dict[str, KitOutput]:
    """Every example kit, this repository's kits and the variants above, compiled once."""
    for name in ("API_KEY", "OPTIONAL_TOKEN", "ANTHROPIC_API_KEY", "GH_TOKEN"):
        monkeypatch_module.setenv(name, SECRET_VALUE)
    built = {str(k.relative_to(REPO)): compile_from_repo(k, None, list(NAMES)) for k in EXAMPLES + OWN_KITS}
    built.update({name: _compile_variant(text) for name, text in VARIANTS.items()})
    built.update({f"preset {name}": _compile_init(name) for name in PRESETS})
    return built


#: The presets whose `sandkit init --preset` kits are checked too: generated kits, as a user starts from.
PRESETS = sorted(p.stem for p in (REPO / "sandkit/kits/presets").glob("*.yaml"))


def _compile_init(preset: str) -> KitOutput:
    from sandkit.cli import main

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kit.yaml"
        assert main(["init", "--preset", preset, str(path)]) == 0
        return compile_kit(path, Path(folder) / "out", ["docker", "kubernetes"])


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def manifests(out: KitOutput) -> list[tuple[str, dict[str, Any]]]:
    """(file name, manifest) for every document under kubernetes/, kustomization.yaml aside."""
    yaml = YAML(typ="safe")
    found = []
    for name, data in sorted(out.files.items()):
        if name.startswith("kubernetes/") and name != "kubernetes/kustomization.yaml":
            found += [(name.split("/", 1)[1], doc) for doc in yaml.load_all(data) if doc is not None]
    return found


def of_kind(out: KitOutput, kind: str) -> list[dict[str, Any]]:
    return [doc for _, doc in manifests(out) if doc["kind"] == kind]


def session_jobs(out: KitOutput) -> list[dict[str, Any]]:
    """The Jobs of agent sessions (not the one that makes the proxy's authority)."""
    return [job for job in of_kind(out, "Job") if job["metadata"]["labels"].get("sandkit.dev/role") == "agent"]


def pod_templates(out: KitOutput) -> Iterator[tuple[str, dict[str, Any]]]:
    """(kind, pod template) of every workload: Job, CronJob, Deployment, SandboxTemplate, and AuthorityJob
    (the Job that makes the injecting proxy's authority once per Deployment)."""
    for _, doc in manifests(out):
        spec = doc.get("spec", {})
        if doc["kind"] == "Job" and doc["metadata"]["labels"].get("sandkit.dev/role") == "egress-authority":
            yield "AuthorityJob", spec["template"]
        elif doc["kind"] in ("Job", "Deployment"):
            yield doc["kind"], spec["template"]
        elif doc["kind"] == "CronJob":
            yield doc["kind"], spec["jobTemplate"]["spec"]["template"]
        elif doc["kind"] == "SandboxTemplate":
            yield doc["kind"], spec["podTemplate"]
        elif doc["kind"] == "Sensor":
            for job in sensor_jobs(doc):
                yield "Job", job["spec"]["template"]


def sensor_jobs(sensor: dict[str, Any]) -> list[dict[str, Any]]:
    """The Jobs a Sensor's triggers create, as written in it (before the event's parameters)."""
    return [t["template"]["k8s"]["source"]["resource"] for t in sensor["spec"]["triggers"]]


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


def test_every_kit_has_the_kubernetes_files(outputs: dict[str, KitOutput]) -> None:
    for name, out in outputs.items():
        folder = {n.split("/", 1)[1] for n in out.files if n.startswith("kubernetes/")}
        assert {"kustomization.yaml", "serviceaccount.yaml", "networkpolicy.yaml"} <= folder, name
        assert (SESSION_FILE in folder) != (CLAIM_FILE in folder), name


def _validate(version: str, doc: dict[str, Any]) -> None:
    import kubernetes_validate

    kubernetes_validate.validate(doc, version, strict=True)


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_manifests_pass_the_strict_kubernetes_schemas(outputs: dict[str, KitOutput], version: str) -> None:
    import kubernetes_validate

    checked = 0
    for kit, out in outputs.items():
        for name, doc in manifests(out):
            if doc["kind"] in CRD_KINDS:
                continue
            try:
                _validate(version, doc)
            except kubernetes_validate.ValidationError as error:
                pytest.fail(f"{kit}: {name} {doc['kind']}: {error.message} at {list(error.path)}")
            checked += 1
        for sensor in of_kind(out, "Sensor"):
            for job in sensor_jobs(sensor):  # what the Sensor creates must pass as a Job of its own
                _validate(version, job)
                checked += 1
        for kind, template in pod_templates(out):
            if kind == "SandboxTemplate":  # its pod template is a core PodSpec: validate it as a Pod
                _validate(
                    version, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": template["spec"]}
                )
    assert checked >= 40


def test_a_schema_violation_is_caught() -> None:
    """The validator really is strict: an unknown field fails (so a pass above means something)."""
    import kubernetes_validate

    with pytest.raises(kubernetes_validate.ValidationError):
        _validate(
            KUBERNETES_VERSIONS[0],
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": "j"},
                "spec": {"template": {"spec": {"containers": []}}, "bogus": 1},
            },
        )


def test_checkov_kubernetes_checks_pass(outputs: dict[str, KitOutput], tmp_path: Path) -> None:
    for index, out in enumerate(outputs.values()):
        for name, data in out.files.items():
            if name.startswith("kubernetes/"):
                target = tmp_path / f"kit{index:02d}" / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    done = subprocess.run(
        [
            *_checkov(),
            "-d",
            str(tmp_path),
            "--framework",
            "kubernetes",
            "--skip-download",
            "--quiet",
            "--compact",
            "-o",
            "json",
            "--skip-check",
            ",".join(sorted(CHECKOV_SKIPS)),
        ],
        capture_output=True,
        text=True,
        check=False,
        env=_offline_env(),
    )
    report = json.loads(done.stdout)
    failed = [(f["check_id"], f["file_path"], f["resource"]) for f in report["results"]["failed_checks"]]
    assert not failed, failed
    assert report["summary"]["passed"] > 300 and report["summary"]["parsing_errors"] == 0


def _checkov() -> list[str]:
    """Checkov, a peer of the benchmark, is in the `bench` extra only: its strict pins pull in about 75
    packages (boto3, numpy, ...) the other tests never use. .ci/run installs that extra in a virtualenv of
    its own and names its checkov in SANDKIT_CHECKOV; without that, checkov on PATH or in this Python."""
    import importlib.util
    import os
    import shutil

    named = os.environ.get("SANDKIT_CHECKOV")
    if named:
        if not os.access(named, os.X_OK):
            pytest.fail(f"SANDKIT_CHECKOV={named} is not an executable file")
        return [named]
    found = shutil.which("checkov")
    if found:
        return [found]
    if importlib.util.find_spec("checkov") is not None:
        return [sys.executable, "-m", "checkov.main"]
    missing(
        "Checkov is not installed: pip install '.[bench]' in a virtualenv of its own and set"
        " SANDKIT_CHECKOV=VENV/bin/checkov, as .ci/run does"
    )


def _offline_env() -> dict[str, str]:
    import os

    return {**os.environ, "BC_SKIP_MAPPING": "TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false"}


def test_sandkit_lint_finds_nothing(outputs: dict[str, KitOutput], tmp_path: Path) -> None:
    for index, out in enumerate(outputs.values()):
        for name, data in out.files.items():
            if name.startswith(("kubernetes/", "egress/")):
                target = tmp_path / f"kit{index:02d}" / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "lint", str(tmp_path)], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_kustomization_lists_everything_but_the_session(outputs: dict[str, KitOutput]) -> None:
    for kit, out in outputs.items():
        kustomization = YAML(typ="safe").load(out.files["kubernetes/kustomization.yaml"])
        folder = sorted(n.split("/", 1)[1] for n in out.files if n.startswith("kubernetes/"))
        expected = [n for n in folder if n not in ("kustomization.yaml", SESSION_FILE, CLAIM_FILE)]
        assert sorted(kustomization["resources"]) == expected, kit
        for _, doc in manifests(out):
            if doc["kind"] != "Namespace":
                assert doc["metadata"]["namespace"] == out.plan.kubernetes.namespace


def test_network_policies_select_the_agent_pods_and_only_them(outputs: dict[str, KitOutput]) -> None:
    for kit, out in outputs.items():
        pods = list(pod_templates(out))
        agents = [t["metadata"]["labels"] for kind, t in pods if kind not in ("Deployment", "AuthorityJob")]
        proxies = [t["metadata"]["labels"] for kind, t in pods if kind == "Deployment"]
        authorities = [t["metadata"]["labels"] for kind, t in pods if kind == "AuthorityJob"]
        assert agents, kit
        policies = of_kind(out, "NetworkPolicy")
        agent_policy = next(p for p in policies if p["metadata"]["name"].endswith("-agent"))
        chosen = agent_policy["spec"]["podSelector"]["matchLabels"]
        assert chosen and all(matches(chosen, labels) for labels in agents), kit
        assert not any(matches(chosen, labels) for labels in proxies), kit
        assert agent_policy["spec"]["ingress"] == [] and "Ingress" in agent_policy["spec"]["policyTypes"]
        for policy in policies:
            chosen = policy["spec"]["podSelector"]["matchLabels"]
            if policy["metadata"]["name"].endswith("-egress-authority"):  # the Job's pod: nothing comes in
                assert authorities and all(matches(chosen, labels) for labels in authorities), kit
                assert not any(matches(chosen, labels) for labels in agents + proxies), kit
                assert policy["spec"]["ingress"] == [] and "Ingress" in policy["spec"]["policyTypes"], kit
            elif policy is not agent_policy:
                assert not any(matches(chosen, labels) for labels in authorities), kit
                assert all(matches(chosen, labels) for labels in proxies) and proxies, kit
                assert not any(matches(chosen, labels) for labels in agents), kit
                allowed_in = policy["spec"]["ingress"][0]["from"][0]["podSelector"]["matchLabels"]
                assert all(matches(allowed_in, labels) for labels in agents), kit


def test_other_kits_pods_are_not_selected(outputs: dict[str, KitOutput]) -> None:
    first, second = outputs["clone-schedules"], outputs["offline"]
    chosen = of_kind(first, "NetworkPolicy")[0]["spec"]["podSelector"]["matchLabels"]
    assert not any(matches(chosen, t["metadata"]["labels"]) for _, t in pod_templates(second))


def test_egress_per_mode(outputs: dict[str, KitOutput]) -> None:
    proxied = outputs["clone-schedules"]
    policies = {p["metadata"]["name"]: p for p in of_kind(proxied, "NetworkPolicy")}
    agent_policy, proxy_policy = policies["nightly-agent"], policies["nightly-egress"]
    (only_rule,) = agent_policy["spec"]["egress"]  # the proxy, and nothing else: no cluster DNS either
    service = of_kind(proxied, "Service")[0]
    assert only_rule["to"] == [{"podSelector": {"matchLabels": service["spec"]["selector"]}}]
    assert only_rule["ports"] == [{"protocol": "TCP", "port": 3128}]
    assert proxy_policy["spec"]["egress"][0]["ports"][0]["port"] == 53, "the proxy resolves names"
    out_rule = proxy_policy["spec"]["egress"][1]
    assert sorted(p["port"] for p in out_rule["ports"]) == [443, 8443]
    v4 = out_rule["to"][0]["ipBlock"]
    assert v4["cidr"] == "0.0.0.0/0"
    assert {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "169.254.0.0/16"} <= set(v4["except"])
    v6 = out_rule["to"][1]["ipBlock"]
    assert v6["cidr"] == "2000::/3" and {"2001:db8::/32", "2002::/16", "2001::/23"} <= set(v6["except"])
    offline = of_kind(outputs["offline"], "NetworkPolicy")
    assert len(offline) == 1 and offline[0]["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert offline[0]["spec"]["egress"] == []
    opened = of_kind(outputs["open-ports"], "NetworkPolicy")
    assert len(opened) == 1 and opened[0]["spec"]["policyTypes"] == ["Ingress"]
    for kit in ("offline", "open-ports", "cilium-crd"):
        assert not of_kind(outputs[kit], "Deployment") and "egress/squid.conf" not in outputs[kit].files


def test_the_authority_job_alone_reaches_the_api_server_and_the_proxy_admits_the_kits_agent_pods_alone(
    outputs: dict[str, KitOutput],
) -> None:
    """The authority Job's API calls go to the kit's api_server CIDRs (else the private ranges, never every
    address) and nowhere else; the injecting proxy reaches no API server (it holds no token), and its one
    ingress rule is the proxy port from this kit's agent pods."""
    for kit, expected in (
        ("inject-api", ["10.96.0.1/32", "172.18.0.2/32", "fd00:10:96::1/128"]),
        ("examples/chatops/kit.yaml", ["10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]),
    ):
        out = outputs[kit]
        policies = {p["metadata"]["name"].rsplit("-", 1)[-1]: p for p in of_kind(out, "NetworkPolicy")}
        (api_rule,) = policies["authority"]["spec"]["egress"]
        assert [peer["ipBlock"]["cidr"] for peer in api_rule["to"]] == expected, kit
        assert {p["port"] for p in api_rule["ports"]} == {443, 6443}, kit
        policy = policies["egress"]
        assert not [r for r in policy["spec"]["egress"] if {443, 6443} <= {p["port"] for p in r["ports"]}], kit
        assert all("to" in rule for rule in policy["spec"]["egress"]), f"{kit}: a rule to every address"
        (ingress,) = policy["spec"]["ingress"]
        assert ingress == {
            "from": [{"podSelector": {"matchLabels": {"sandkit.dev/kit": out.plan.name, "sandkit.dev/role": "agent"}}}],
            "ports": [{"protocol": "TCP", "port": 3128}],
        }, kit
    row = outputs["inject-api"].fidelity["secrets.inject"]["kubernetes"]
    assert row.level == "enforced" and "10.96.0.1/32, 172.18.0.2/32" in row.reason
    spec = session_jobs(outputs["inject-api"])[0]["spec"]["template"]["spec"]
    assert secret_files(spec, spec["initContainers"][0]) == {"DEPLOY_KEY": "inject-api-secrets"}
    assert secret_files(spec, spec["containers"][0]) == {"DEPLOY_KEY": "inject-api-secrets"}  # API_KEY: the proxy's


def test_api_server_takes_cidrs_alone() -> None:
    from pydantic import ValidationError

    from sandkit.kits.model import KubernetesTarget

    assert KubernetesTarget(api_server=["10.96.0.1", "fd00::/8"]).api_server == ["10.96.0.1/32", "fd00::/8"]
    for bad in ("10.0.0.1/8", "kubernetes.default", "0.0.0.0/33", ""):
        with pytest.raises(ValidationError):
            KubernetesTarget(api_server=[bad])


def test_the_proxy_service_selects_the_proxy_and_the_agent_uses_it(outputs: dict[str, KitOutput]) -> None:
    for kit, out in outputs.items():
        services = of_kind(out, "Service")
        if out.plan.egress != "allowlist" or out.plan.kubernetes.egress == "cilium":
            assert not services, kit
            continue
        (service,), (deployment,) = services, of_kind(out, "Deployment")
        pod = deployment["spec"]["template"]
        assert matches(service["spec"]["selector"], pod["metadata"]["labels"])
        assert deployment["spec"]["selector"]["matchLabels"] == service["spec"]["selector"]
        container = pod["spec"]["containers"][0]
        assert service["spec"]["ports"][0]["targetPort"] == container["ports"][0]["containerPort"]
        config = next(c for c in of_kind(out, "ConfigMap") if c["metadata"]["name"] == service["metadata"]["name"])
        # The image's squid.conf, compose's, is the one in force (the injecting one when the kit injects).
        assert config["data"]["squid.conf"].encode() == out.files["egress/squid.conf"]
        record = ["/usr/local/bin/sandkit-record", "--stdout"]  # decision lines with the pod (docs/record.md)
        if out.plan.proxy_injects:  # the start script serves on the authority its init container made
            assert container["command"] == [*record, "/usr/local/bin/sandkit-egress-start", "serve"], kit
            assert "ssl_bump" in config["data"]["squid.conf"]
        else:
            assert container["command"] == [*record, "squid", "-N", "-f", "/etc/squid/squid.conf"], kit
        for kind, template in pod_templates(out):
            if kind in ("Deployment", "AuthorityJob"):
                continue
            assert template["spec"]["enableServiceLinks"] is True  # the kubelet sets the proxy's address
            link = service["metadata"]["name"].upper().replace("-", "_") + "_SERVICE_HOST"
            for box in template["spec"]["containers"]:
                env = {e["name"]: e.get("value") for e in box["env"]}
                assert env["HTTPS_PROXY"] == f"http://$({link}):{service['spec']['ports'][0]['port']}"


def test_every_volume_mount_has_its_volume_and_every_item_its_key(outputs: dict[str, KitOutput]) -> None:
    for kit, out in outputs.items():
        maps = {
            c["metadata"]["name"]: {**c.get("data", {}), **c.get("binaryData", {})} for c in of_kind(out, "ConfigMap")
        }
        for kind, template in pod_templates(out):
            spec = template["spec"]
            volumes = {v["name"]: v for v in spec["volumes"]}
            for box in spec.get("initContainers", []) + spec["containers"]:
                for mount in box["volumeMounts"]:
                    volume = volumes[mount["name"]]
                    if "configMap" in volume and volume["configMap"]["name"].endswith("-egress-ca"):
                        # The proxy's authority: the one key the proxy writes at start, the whole folder read-only.
                        assert volume["configMap"]["items"] == [{"key": "ca.pem", "path": "ca.pem", "mode": 0o444}]
                        assert "subPath" not in mount and mount["readOnly"], (kit, kind, mount)
                        assert maps[volume["configMap"]["name"]] == {}, kit  # created empty, never with a key
                    elif "configMap" in volume:
                        items = {i["path"]: i["key"] for i in volume["configMap"]["items"]}
                        assert mount["subPath"] in items and mount["readOnly"], (kit, kind, mount)
                        assert set(items.values()) <= set(maps[volume["configMap"]["name"]]), (kit, kind)
            assert len(volumes) == len(spec["volumes"]), kit


def test_the_agent_config_carries_the_images_files(outputs: dict[str, KitOutput]) -> None:
    out = outputs["clone-schedules"]
    config = next(c for c in of_kind(out, "ConfigMap") if c["metadata"]["name"] == "nightly-agent")
    assert config["data"]["env.sh"].encode() == out.files["env.sh"]
    assert config["data"]["instructions"].encode() == out.files["instructions/AGENTS.md"]
    assert config["data"]["file-01"] == '{"a": 1}' and config["data"]["file-03"] == "x=1"
    assert "file-02" not in config["data"]  # under /tmp: an emptyDir here, as a tmpfs elsewhere
    pod = session_jobs(out)[0]["spec"]["template"]["spec"]
    mounts = {m["mountPath"]: m.get("subPath") for m in pod["containers"][0]["volumeMounts"]}
    assert mounts["/etc/sandkit/env.sh"] == "env.sh" and mounts["/etc/tool/config.json"] == "file-01"
    assert mounts["/etc/sandkit/home/.tool/rc"] == "file-03"
    (config_volume,) = [v for v in pod["volumes"] if v["name"] == "config"]
    modes = {i["key"]: i["mode"] for i in config_volume["configMap"]["items"]}
    assert modes["file-03"] == 0o600 and modes["env.sh"] == 0o444


def test_pods_meet_the_restricted_standard(outputs: dict[str, KitOutput]) -> None:
    for out in outputs.values():
        for kind, template in pod_templates(out):
            spec = template["spec"]
            # The authority Job's own identity may write the authority (test_inject.py); no other pod's.
            account = f"{out.plan.name}-egress-authority" if kind == "AuthorityJob" else out.plan.name
            assert spec["automountServiceAccountToken"] is False and spec["serviceAccountName"] == account
            assert spec["securityContext"]["runAsNonRoot"] is True
            assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
            assert not any(spec.get(k) for k in ("hostNetwork", "hostPID", "hostIPC"))
            for box in spec.get("initContainers", []) + spec["containers"]:
                context = box["securityContext"]
                assert context["allowPrivilegeEscalation"] is False and context["privileged"] is False
                assert context["capabilities"] == {"drop": ["ALL"]} and context["readOnlyRootFilesystem"] is True
                assert box["resources"]["limits"] == box["resources"]["requests"]
                assert set(box["resources"]["limits"]) == {"cpu", "memory", "ephemeral-storage"}
                # High, fixed uids (Checkov's CKV_K8S_40), each an account of its image (test_docker.py).
                uid = PROXY_CLUSTER_UID if kind in ("Deployment", "AuthorityJob") else out.plan.cluster_uid
                assert context["runAsUser"] == context["runAsGroup"] == uid >= HIGH_UID
            assert spec["securityContext"]["runAsUser"] == uid
        accounts = of_kind(out, "ServiceAccount")
        assert accounts[0]["automountServiceAccountToken"] is False
        kinds = {d["kind"] for _, d in manifests(out)}
        assert not {"ClusterRole", "ClusterRoleBinding"} & kinds
        roles = {d["metadata"]["name"] for d in of_kind(out, "Role")}
        if not out.plan.triggers.webhooks:  # the webhooks' Sensor holds a Role (test_kubernetes_webhooks.py)
            assert roles == ({f"{out.plan.name}-egress-authority"} if out.plan.proxy_injects else set())
        namespaces = of_kind(out, "Namespace")
        if out.plan.kubernetes.create_namespace:
            assert namespaces[0]["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
        else:
            assert not namespaces


def test_jobs_cronjobs_and_limits_come_from_the_kit(outputs: dict[str, KitOutput]) -> None:
    out = outputs["clone-schedules"]
    (job,) = session_jobs(out)
    assert job["metadata"]["generateName"] == "nightly-" and "name" not in job["metadata"]
    assert job["spec"]["backoffLimit"] == 0 and job["spec"]["activeDeadlineSeconds"] == 15 * 60 + 60
    spec = job["spec"]["template"]["spec"]
    assert spec["runtimeClassName"] == "gvisor" and spec["restartPolicy"] == "Never"
    agent = spec["containers"][0]
    assert agent["args"] == ["agent", "--go"] and agent["image"] == out.plan.image_tag
    assert agent["resources"]["limits"] == {"cpu": "1500m", "memory": "1536Mi", "ephemeral-storage": "3Gi"}
    (clone,) = spec["initContainers"]
    assert {"name": "SANDKIT_ONLY", "value": "clone"} in clone["env"] and clone["image"] == agent["image"]
    cronjobs = of_kind(out, "CronJob")
    assert [c["spec"]["schedule"] for c in cronjobs] == ["0 9 * * 1", "30 2 * * *"]
    assert {c["spec"]["concurrencyPolicy"] for c in cronjobs} == {"Forbid"}
    assert all(c["spec"]["jobTemplate"]["spec"] == job["spec"] for c in cronjobs)
    assert "SANDKIT_ONLY" in out.files["entrypoint.sh"].decode()


def secret_files(spec: dict[str, Any], container: dict[str, Any]) -> dict[str, str]:
    """Key to Secret name of the secret volume ``container`` mounts read-only at /run/secrets (none: {})."""
    mounts = [m for m in container["volumeMounts"] if m["mountPath"] == "/run/secrets"]
    if not mounts:
        return {}
    (mount,) = mounts
    assert mount["readOnly"] is True
    (volume,) = [v for v in spec["volumes"] if v["name"] == mount["name"]]
    secret = volume["secret"]
    assert secret["defaultMode"] == 0o440 and secret["optional"] is True  # the entrypoint stops on a required one
    assert all(item["path"] == item["key"] for item in secret["items"])
    return {item["key"]: secret["secretName"] for item in secret["items"]}


def test_secrets_are_files_of_their_own_container_never_contained(outputs: dict[str, KitOutput]) -> None:
    """No Secret with a value in the output (the one Secret is the proxy's authority's, created empty for
    its Job to fill), no secretKeyRef or envFrom anywhere; each container mounts its own keys as read-only
    files (the agent all but the injected ones, the clone its own credential alone)."""
    for kit, out in outputs.items():
        for name, data in out.files.items():
            assert SECRET_VALUE.encode() not in data, (kit, name)
            if name.startswith("kubernetes/"):
                assert b"secretKeyRef" not in data and b"envFrom" not in data, (kit, name)
        authority = [f"{out.plan.name}-egress-authority"] if out.plan.proxy_injects else []
        stored = of_kind(out, "Secret")
        assert [secret["metadata"]["name"] for secret in stored] == authority, kit
        assert all(set(secret) == {"apiVersion", "kind", "metadata", "type"} for secret in stored), kit
    out = outputs["clone-schedules"]
    spec = session_jobs(out)[0]["spec"]["template"]["spec"]
    assert secret_files(spec, spec["containers"][0]) == {
        "API_KEY": "nightly-secrets",
        "OPTIONAL_TOKEN": "nightly-secrets",
    }
    assert secret_files(spec, spec["initContainers"][0]) == {}  # it clones a public repository
    assert session_jobs(out)[0]["metadata"]["annotations"]["sandkit.dev/secret-keys"] == "API_KEY,OPTIONAL_TOKEN"


def test_cilium_and_the_agent_sandbox_resources(outputs: dict[str, KitOutput]) -> None:
    out = outputs["cilium-crd"]
    assert not session_jobs(out) and not of_kind(out, "Namespace")
    (policy,) = of_kind(out, "CiliumNetworkPolicy")
    assert policy["apiVersion"] == "cilium.io/v2"
    template_labels = of_kind(out, "SandboxTemplate")[0]["spec"]["podTemplate"]["metadata"]["labels"]
    assert matches(policy["spec"]["endpointSelector"]["matchLabels"], template_labels)
    dns, *by_port = policy["spec"]["egress"]
    assert dns["toPorts"][0]["rules"]["dns"] == [
        {"matchName": "api.example.com"},
        {"matchPattern": "*.example.org"},
        {"matchName": "git.example.net"},
    ]
    assert [(r["toPorts"][0]["ports"][0]["port"], r["toFQDNs"]) for r in by_port] == [
        ("443", [{"matchName": "api.example.com"}, {"matchPattern": "*.example.org"}]),
        ("8443", [{"matchName": "git.example.net"}]),
    ]
    assert {"cidr": "169.254.0.0/16"} in policy["spec"]["egressDeny"][0]["toCIDRSet"]
    agent = of_kind(out, "SandboxTemplate")[0]["spec"]["podTemplate"]["spec"]["containers"][0]
    assert not any(e["name"] == "HTTPS_PROXY" for e in agent["env"])
    template_spec = of_kind(out, "SandboxTemplate")[0]["spec"]["podTemplate"]["spec"]
    assert secret_files(template_spec, agent) == {"API_KEY": "shared-agent-keys"}
    (pool,), (claim,) = of_kind(out, "SandboxWarmPool"), of_kind(out, "SandboxClaim")
    assert pool["spec"]["sandboxTemplateRef"]["name"] == of_kind(out, "SandboxTemplate")[0]["metadata"]["name"]
    assert claim["spec"]["warmPoolRef"]["name"] == pool["metadata"]["name"] and "generateName" in claim["metadata"]
    assert {d["apiVersion"] for d in (pool, claim)} == {"extensions.agents.x-k8s.io/v1beta1"}
    rows = out.fidelity["network.deny"]["kubernetes"]
    assert rows.level == "unsupported" and "bad.example.org" in rows.reason


def test_names_stay_within_kubernetes_limits(outputs: dict[str, KitOutput]) -> None:
    for kit, out in outputs.items():
        for _, doc in manifests(out):
            name = doc["metadata"].get("name", doc["metadata"].get("generateName", ""))
            assert len(name) <= (52 if doc["kind"] == "CronJob" else 63), (kit, name)
        for service in of_kind(out, "Service"):
            assert service["metadata"]["name"][0].isalpha()


def test_fidelity_says_what_a_cluster_cannot_do(outputs: dict[str, KitOutput]) -> None:
    rows = {s: r["kubernetes"] for s, r in outputs["open-ports"].fidelity.items() if "kubernetes" in r}
    assert rows["workspace.mode"].level == "unsupported" and rows["workspace.mode"].requested
    assert rows["ports"].level == "unsupported" and rows["isolation.docker"].level == "unsupported"
    pr = outputs["examples/pr-reviewer/kit.yaml"].fidelity
    assert pr["triggers"]["kubernetes"].level == "unsupported"  # GitHub events reach no cluster
    assert outputs["clone-schedules"].fidelity["triggers"]["kubernetes"].level == "enforced"


def test_no_yaml_aliases_or_anchors(outputs: dict[str, KitOutput]) -> None:
    """Shared objects would come out as &id001/*id001, which some Kubernetes tooling rejects."""
    for kit, out in outputs.items():
        for name, data in out.files.items():
            if name.startswith("kubernetes/"):
                assert not re.search(r"(^|\s)[&*]id\d{3}\b", data.decode(), re.MULTILINE), (kit, name)


def test_the_clone_init_container_gets_no_secret(outputs: dict[str, KitOutput]) -> None:
    """The clone gets no secret of the kit's but its own credential (workspace.token or ssh_key), if any."""
    cloning = 0
    for kit, out in outputs.items():
        for kind, template in pod_templates(out):
            if kind in ("Deployment", "AuthorityJob"):  # neither is the agent's
                continue
            for init in template["spec"].get("initContainers", []):
                cloning += 1
                given = set(secret_files(template["spec"], init))
                own = {out.plan.workspace_token, out.plan.workspace_ssh_key} - {None}
                assert given <= own and len(given) <= 1, f"{kit}: the clone container gets secrets {given}"
                agent = template["spec"]["containers"][0]
                injected = out.plan.injected_secrets if out.plan.proxy_injects else ()
                assert set(secret_files(template["spec"], agent)) == {
                    n for n, _ in out.plan.secrets if n not in injected
                }
    assert cloning, "no kit above clones"
    entrypoint = outputs["clone-schedules"].files["entrypoint.sh"].decode()
    assert entrypoint.index('if [ "${SANDKIT_ONLY:-}" != clone ]; then') < entrypoint.index("load_secret API_KEY")
