"""The kubernetes target's pods, played by the real images in the real Docker engine.

No API server runs here, so each container of the generated manifests is started the way a kubelet
would start it: its user and group, read-only root, no capabilities, its env (secretKeyRef from a
stand-in Secret), emptyDirs as world-writable folders shared by the pod's containers, and every
ConfigMap item written with its mode and bind-mounted read-only at its subPath. That proves what a
schema cannot: the mounts fit the image, the squid Deployment starts from its ConfigMap and passes
its probe, the clone init container clones through it (by the Service's name) and stops, and the
agent then runs with the ConfigMap's files in force. The NetworkPolicy is played by an internal
network that only the proxy leaves; the outside is a /28 of the AS112 prefixes (public to squid and
shared with the e2e suite's sessions; see OUTSIDE_POOLS in tests/e2e/helpers.py), where one git
server answers under an allowed and a not-allowed name.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import subprocess
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from sandkit.compiler.command import compile_kit
from tests.compiler.test_hostile_values import HOSTILE
from tests.e2e.helpers import OUTSIDE_DIR, free_outside_subnet, used_subnets

pytestmark = pytest.mark.docker

AGENT_PROBE = """
set -u
echo "uid=$(id -u):$(id -g)"
echo "greeting=$GREETING"
echo "secret=$POD_SECRET"
echo "file=$(cat /etc/pod-test/config.txt)"
echo "home=$(cat "$HOME/.pod-rc")"
echo "head=$(git -C /workspace log --format=%s -1)"
echo "instructions=$(tail -n 1 /workspace/AGENTS.md)"
if getent hosts git.outside.test >/dev/null 2>&1; then echo dns=answers; else echo dns=none; fi
if git ls-remote -q http://other.outside.test:8080/repo.git >/dev/null 2>&1; then echo other=reached; else echo other=refused; fi
if env -u http_proxy -u HTTP_PROXY git ls-remote -q http://git.outside.test:8080/repo.git >/dev/null 2>&1
then echo direct=reached; else echo direct=refused; fi
if touch /etc/pod-test/written 2>/dev/null; then echo root=writable; else echo root=read-only; fi
if [ -n "${SANDKIT_EVENT:-}" ]; then
  echo "event=$(base64 -w0 <"$SANDKIT_EVENT")"
  echo "environment=$(env | base64 -w0)"
  if touch "$SANDKIT_EVENT" 2>/dev/null; then echo event-file=writable; else echo event-file=read-only; fi
fi
"""


def _kit(name: str, known_host: str) -> str:
    """The session kit: it clones over ssh through the proxy with its deploy key (workspace.ssh_key)."""
    return f"""
apiVersion: sandkit/v1
name: {name}
env: {{GREETING: "it's $(not run)"}}
image: {{packages: {{apt: [python3]}}}}
secrets: [{{name: POD_SECRET}}, {{name: POD_KEY}}]
network: {{allow: ["git.outside.test:8080", "git.outside.test:22"]}}
agent:
  command: [sh, -c, {json.dumps(AGENT_PROBE)}]
  instructions: "From the image.\\n"
  instructions_file: AGENTS.md
files:
  - {{path: /etc/pod-test/config.txt, content: "from the image"}}
  - {{path: /home/agent/.pod-rc, content: "rc from the kit", mode: "0600"}}
workspace:
  mode: clone
  repo: "ssh://git@git.outside.test/srv/repo.git"
  ssh_key: POD_KEY
  known_hosts: [{json.dumps(known_host)}]
resources: {{timeout: 2m, memory: 512Mi, cpus: 1}}
triggers:
  - webhook:
      source: jira
      secret: JIRA_TOKEN
      transition: Ready for agent
      fields: {{key: $.issue.key, summary: $.issue.fields.summary, labels: $.issue.fields.labels}}
"""


def _docker(*args: str, check: bool = True, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args[:3])}: {done.stdout}{done.stderr}")
    return done


class Pod:
    """Starts one pod spec's containers with the settings a kubelet would apply."""

    def __init__(
        self,
        spec: dict[str, Any],
        configmaps: dict[str, dict[str, Any]],
        root: Path,
        network: str,
        secret: dict[str, str],
        services: dict[str, str] | None = None,
        annotations: dict[str, str] | None = None,
    ) -> None:
        """``services``: each Service's name and cluster IP, for the variables of ``enableServiceLinks``."""
        self.spec, self.configmaps, self.root, self.network, self.secret = spec, configmaps, root, network, secret
        self.services = services or {}
        self.annotations = annotations or {}
        self.folders = {v["name"]: self._volume(v) for v in spec["volumes"]}

    def _volume(self, volume: dict[str, Any]) -> Path:
        folder = self.root / volume["name"]
        folder.mkdir(parents=True)
        if "emptyDir" in volume:
            folder.chmod(0o777)  # as the kubelet makes an emptyDir
            return folder
        if "downwardAPI" in volume:  # each item the value of one annotation, as the kubelet writes it
            for item in volume["downwardAPI"]["items"]:
                key = re.fullmatch(r"metadata\.annotations\['(.+)'\]", item["fieldRef"]["fieldPath"])
                assert key is not None, item
                path = folder / item["path"]
                path.write_bytes(self.annotations.get(key.group(1), "").encode())
                path.chmod(volume["downwardAPI"]["defaultMode"])
            return folder
        data = self.configmaps[volume["configMap"]["name"]]
        group = self.spec["securityContext"].get("fsGroup", 0)
        for item in volume["configMap"]["items"]:
            path = folder / item["path"]
            if item["key"] in data.get("data", {}):
                path.write_text(data["data"][item["key"]], encoding="utf-8")
            else:
                path.write_bytes(base64.b64decode(data["binaryData"][item["key"]]))
            os.chown(path, 0, group)
            path.chmod(item["mode"] | (0o040 if group else 0))  # fsGroup makes read-only items group-readable
        return folder

    def _service_links(self) -> dict[str, str]:
        """The variables a kubelet sets for each Service of the namespace when the pod asks for them."""
        if not self.spec.get("enableServiceLinks", True):
            return {}
        links = {}
        for service, address in self.services.items():
            links[service.upper().replace("-", "_") + "_SERVICE_HOST"] = address
        return links

    def run_args(self, container: dict[str, Any], name: str) -> list[str]:
        context = container["securityContext"]
        args = [
            "--name",
            name,
            "--network",
            self.network,
            "--user",
            f"{context['runAsUser']}:{context['runAsGroup']}",
            "--cap-drop",
            "ALL",
            "--security-opt",
            "no-new-privileges",
        ]
        if "fsGroup" in self.spec["securityContext"]:
            args += ["--group-add", str(self.spec["securityContext"]["fsGroup"])]
        if context["readOnlyRootFilesystem"]:
            args.append("--read-only")
        known = self._service_links()
        for entry in container.get("env", []):
            if "value" in entry:
                value = re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: known.get(m[1], m[0]), entry["value"])
                known[entry["name"]] = value
                args += ["--env", f"{entry['name']}={value}"]
            elif entry["valueFrom"]["secretKeyRef"]["key"] in self.secret:
                args += ["--env", f"{entry['name']}={self.secret[entry['valueFrom']['secretKeyRef']['key']]}"]
        if self.services:  # an agent pod: its NetworkPolicy allows no DNS, so it has no resolver either
            no_dns = self.root / "resolv.conf"
            no_dns.write_text("nameserver 127.0.0.1\n")
            args += ["--mount", f"type=bind,source={no_dns},target=/etc/resolv.conf,readonly"]
        for mount in container["volumeMounts"]:
            source = self.folders[mount["name"]] / mount.get("subPath", "")
            flag = f"type=bind,source={source},target={mount['mountPath']}"
            args += ["--mount", flag + (",readonly" if mount.get("readOnly") else "")]
        return args


@pytest.fixture(scope="module")
def token() -> str:
    return secrets.token_hex(3)


@pytest.fixture(scope="module")
def built(token: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Compile the kit, build both images, start the git server and the proxy; remove all by name after."""
    folder = tmp_path_factory.mktemp("k8s-pod")
    name = f"sk8s-{token}"
    server_tag = f"sandkit-test/{name}-outside:{token}"
    _docker("buildx", "build", "--load", "-q", "-t", server_tag, str(OUTSIDE_DIR))
    keys = _ssh_keys(folder / "keys", server_tag)
    host_key = " ".join((keys / "host_key.pub").read_text().split()[:2])
    (folder / "kit.yaml").write_text(_kit(name, f"git.outside.test {host_key}"), encoding="utf-8")
    out = compile_kit(folder / "kit.yaml", folder / "out", ["docker", "kubernetes"])
    for relative, data in out.files.items():
        (out.folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (out.folder / relative).write_bytes(data)
    docs = _manifests(out)
    inside, outside, server, proxy = f"{name}-inside", f"{name}-outside", f"{name}-gitsrv", f"{name}-proxy"
    proxy_tag = f"sandkit/{name}-egress:{out.plan.config_sha256[:12]}"
    # the deploy key as a Secret holds it: without its last newline, as `kubectl create secret` often gets it
    secret = {"POD_SECRET": "s3cret value", "POD_KEY": (keys / "client_key").read_text().rstrip("\n")}
    try:
        _docker("buildx", "build", "--load", "-q", "-t", out.plan.image_tag, str(out.folder))
        _docker("buildx", "build", "--load", "-q", "-t", proxy_tag, str(out.folder / "egress"))
        _docker("network", "create", "--internal", inside)
        _outside_network(outside, token)
        _serve_git(folder / "srv", server_tag, keys, outside, server)
        _start_proxy(docs, folder / "proxy-pod", inside, outside, proxy)
        yield {
            "out": out,
            "docs": docs,
            "folder": folder,
            "network": inside,
            "name": name,
            "proxy": proxy,
            "server": server,
            "secret": secret,
        }
    finally:
        _docker("rm", "-f", server, proxy, check=False)
        _docker("network", "rm", inside, outside, check=False)
        _docker("rmi", "-f", out.plan.image_tag, proxy_tag, server_tag, check=False)


def _ssh_keys(folder: Path, image: str) -> Path:
    """The ssh server's host key and the agent's deploy key (with the server's authorized_keys), made by the
    server image's ssh-keygen; test keys, readable by the server's unprivileged user."""
    folder.mkdir()
    keygen = ["run", "--rm", "--user", "0:0", "--network", "none", "-v", f"{folder}:/keys", image, "ssh-keygen"]
    for key in ("host_key", "client_key"):
        _docker(*keygen, "-q", "-t", "ed25519", "-N", "", "-C", "t", "-f", f"/keys/{key}")
    (folder / "authorized_keys").write_bytes((folder / "client_key.pub").read_bytes())
    for path in folder.iterdir():
        path.chmod(0o444)
    return folder


def _outside_network(name: str, token: str) -> None:
    """A /28 of the outside pools that no other network on this engine holds (another session may
    take the one picked between the look and the create: then the next free one)."""
    for _ in range(8):
        subnet = free_outside_subnet(used_subnets(), token)
        if subnet is None:
            break
        if _docker("network", "create", "--subnet", str(subnet), name, check=False).returncode == 0:
            return
    raise AssertionError("no free /28 in the outside pools")


def _serve_git(srv: Path, image: str, keys: Path, network: str, server: str) -> None:
    """A bare repository with one commit, over ssh (the outside image's sshd as `git`, key authentication
    only) and over git's dumb HTTP, under an allowed name and a name the kit does not allow."""
    work = srv.parent / "work"
    for command in (
        ["git", "init", "-q", "-b", "main", str(work)],
        [
            "git",
            "-C",
            str(work),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "cloned by the init container",
        ],
        ["git", "clone", "-q", "--bare", str(work), str(srv / "repo.git")],
        ["git", "-C", str(srv / "repo.git"), "update-server-info"],
    ):
        subprocess.run(command, check=True, capture_output=True)
    for path in [srv, *srv.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    serve = "python3 -m http.server 8080 --directory /srv & exec /usr/sbin/sshd -D -e -f /opt/outside/sshd_config"
    _docker(
        "run",
        "-d",
        "--name",
        server,
        "--network",
        network,
        "--network-alias",
        "git.outside.test",
        "--network-alias",
        "other.outside.test",
        "--user",
        "10022:10022",
        "--read-only",
        "--cap-drop",
        "ALL",
        "--sysctl",
        "net.ipv4.ip_unprivileged_port_start=0",
        "-v",
        f"{srv}:/srv:ro",
        "-v",
        f"{keys}:/run/outside/ssh:ro",
        image,
        "sh",
        "-c",
        serve,
    )


def _start_proxy(docs: list[dict[str, Any]], root: Path, inside: str, outside: str, name: str) -> None:
    """The Deployment's container, reachable inside by the Service's name, and let out."""
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    service = next(d for d in docs if d["kind"] == "Service")
    spec = deployment["spec"]["template"]["spec"]
    configmaps = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    (container,) = spec["containers"]
    args = Pod(spec, configmaps, root, inside, {}).run_args(container, name)
    _docker("run", "-d", "--network-alias", service["metadata"]["name"], *args, container["image"])
    _docker("network", "connect", outside, name)


def _manifests(out: Any) -> list[dict[str, Any]]:
    yaml = YAML(typ="safe")
    return [
        d
        for n, data in sorted(out.files.items())
        if n.startswith("kubernetes/") and n != "kubernetes/kustomization.yaml"
        for d in yaml.load_all(data)
    ]


def test_the_session_pod_clones_then_runs_the_agent_with_the_configmap_in_force(built: dict[str, Any]) -> None:
    name, docs = built["name"], built["docs"]
    _wait_ready(built)
    configmaps = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    # An overlay's change to the ConfigMap takes effect without a rebuild: the mounted copy wins.
    data = configmaps[f"{name}-agent"]["data"]
    data["instructions"] = data["instructions"].replace("From the image.", "From the ConfigMap.")
    (key,) = [k for k, v in data.items() if v == "from the image"]
    data[key] = "from the ConfigMap"
    spec = next(d for d in docs if d["kind"] == "Job")["spec"]["template"]["spec"]
    pod = Pod(spec, configmaps, built["folder"] / "pod", built["network"], built["secret"], _services(built))
    (init,), (agent,) = spec["initContainers"], spec["containers"]
    try:
        cloned = _docker("run", *pod.run_args(init, f"{name}-clone"), init["image"], *init["args"], check=False)
        assert cloned.returncode == 0, cloned.stderr
        workspace = pod.folders["workspace"]
        assert (workspace / ".git").is_dir() and not (workspace / "AGENTS.md").exists()  # stopped after the clone
        # over ssh with the deploy key, through the proxy's CONNECT to the one allowed host:22
        proxy = _docker(
            "inspect",
            "--format",
            f'{{{{(index .NetworkSettings.Networks "{name}-outside").IPAddress}}}}',
            built["proxy"],
        ).stdout.strip()
        logs = _docker("logs", built["server"], check=False)
        assert f"Accepted publickey for git from {proxy} " in logs.stderr, (proxy, logs.stderr)
        squid = _docker("logs", built["proxy"], check=False).stdout
        assert "method=CONNECT host=git.outside.test port=22 " in squid, squid
        ran = _docker("run", *pod.run_args(agent, f"{name}-agent"), agent["image"], *agent["args"], check=False)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        lines = dict(line.split("=", 1) for line in ran.stdout.splitlines() if "=" in line)
        assert lines == {
            "uid": "1000:1000",
            "greeting": "it's $(not run)",
            "secret": "s3cret value",
            "file": "from the ConfigMap",
            "home": "rc from the kit",
            "head": "cloned by the init container",
            "instructions": "From the ConfigMap.",
            "dns": "none",
            "other": "refused",
            "direct": "refused",
            "root": "read-only",
        }
    finally:
        _docker("rm", "-f", f"{name}-clone", f"{name}-agent", check=False)


def _services(built: dict[str, Any]) -> dict[str, str]:
    """The proxy Service's name and the address its pod has on the sandbox network (its cluster IP here)."""
    service = next(d for d in built["docs"] if d["kind"] == "Service")["metadata"]["name"]
    address = _docker(
        "inspect",
        "--format",
        f'{{{{(index .NetworkSettings.Networks "{built["network"]}").IPAddress}}}}',
        built["proxy"],
    ).stdout.strip()
    return {service: address}


def _wait_ready(built: dict[str, Any]) -> None:
    """Poll the Deployment's readiness probe as the kubelet would, for up to 30 s."""
    deployment = next(d for d in built["docs"] if d["kind"] == "Deployment")
    probe = deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["exec"]["command"]
    deadline = time.monotonic() + 30
    while _docker("exec", built["proxy"], *probe, check=False).returncode != 0:
        if time.monotonic() > deadline:
            logs = _docker("logs", built["proxy"], check=False)
            raise AssertionError("the proxy never passed its probe: " + logs.stdout + logs.stderr)
        time.sleep(0.5)


def test_the_proxy_deployment_starts_from_its_configmap_and_passes_its_probe(built: dict[str, Any]) -> None:
    _wait_ready(built)
    deployment = next(d for d in built["docs"] if d["kind"] == "Deployment")
    context = deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"]
    assert _docker("exec", built["proxy"], "id", "-u").stdout.strip() == str(context["runAsUser"]) == "13"
    served = _docker("exec", built["proxy"], "cat", "/etc/squid/squid.conf").stdout
    assert served.encode() == built["out"].files["egress/squid.conf"]


# Webhooks: the Job a Sensor creates from an event ----------------------------------------------------

SENSOR_FOLDER = Path(__file__).parent / "data" / "argo-sensor"
#: A summary no part of the pipeline may read as anything but text.
HOSTILE_SUMMARY = (
    "$(touch /tmp/pwned) `touch /tmp/pwned` ${{ secrets.POD_SECRET }} {{.Input}} '\"\\\n"
    '--- !!python/object/apply:os.system [id]\n{"a": [1,}\u2028<&> %s \u00e9\U0001f600'
)


@pytest.fixture(scope="module")
def argo_sensor() -> str:
    """The image of tests/compiler/data/argo-sensor (Argo Events' event data, filters and parameters)."""
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(SENSOR_FOLDER.iterdir()))).hexdigest()[:12]
    tag = f"sandkit-test/argo-sensor:{digest}"
    if _docker("image", "inspect", tag, check=False).returncode != 0:
        _docker("buildx", "build", "--load", "-q", "-t", tag, str(SENSOR_FOLDER), timeout=900)
    return tag


def sensor_results(image: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["docker", "run", "--rm", "-i", "--network", "none", image],
        input=json.dumps(requests),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)
    return results


def test_a_webhook_event_reaches_the_agent_as_data_in_the_job_its_sensor_creates(
    built: dict[str, Any], argo_sensor: str
) -> None:
    name, docs = built["name"], built["docs"]
    _wait_ready(built)
    sensor = next(d for d in docs if d["kind"] == "Sensor")
    fields = {"summary": HOSTILE_SUMMARY, "labels": ["${{ github.token }}", "a\nb"], "private": "never selected"}
    payload = {
        "webhookEvent": "jira:issue_updated",
        "transition": {"transitionName": "Ready for agent"},
        "issue": {"key": "OPS-7", "fields": fields},
    }
    near = {**payload, "transition": {"transitionName": "Ready for agent?"}}
    refused, result = sensor_results(
        argo_sensor,
        [
            {"body": json.dumps(near), "content_type": "application/json", "sensor": sensor},
            {"body": json.dumps(payload), "content_type": "application/json", "sensor": sensor},
        ],
    )
    assert refused == {"passed": False, "job": None}  # the filter is the exact name, not a pattern
    job = result["job"]
    assert HOSTILE_SUMMARY not in json.dumps(job["spec"]["template"]["spec"])  # only the annotation holds it
    configmaps = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    template = job["spec"]["template"]
    pod = Pod(
        template["spec"],
        configmaps,
        built["folder"] / "event-pod",
        built["network"],
        built["secret"],
        _services(built),
        template["metadata"]["annotations"],
    )
    (init,), (agent,) = template["spec"]["initContainers"], template["spec"]["containers"]
    try:
        cloned = _docker("run", *pod.run_args(init, f"{name}-eclone"), init["image"], *init["args"], check=False)
        assert cloned.returncode == 0, cloned.stderr
        ran = _docker("run", *pod.run_args(agent, f"{name}-eagent"), agent["image"], *agent["args"], check=False)
        assert ran.returncode == 0, ran.stdout + ran.stderr
    finally:
        _docker("rm", "-f", f"{name}-eclone", f"{name}-eagent", check=False)
    lines = dict(line.split("=", 1) for line in ran.stdout.splitlines() if "=" in line)
    event = json.loads(base64.b64decode(lines["event"]))
    assert event == {"key": "OPS-7", "summary": HOSTILE_SUMMARY, "labels": fields["labels"]}
    assert "never selected" not in base64.b64decode(lines["event"]).decode()
    assert "pwned" not in base64.b64decode(lines["environment"]).decode()
    assert lines["event-file"] == "read-only" and not (pod.folders["tmp"] / "pwned").exists()
    assert lines["head"] == "cloned by the init container"


STRUCTURED_VALUE = (
    st.text(
        st.characters(exclude_categories=["Cs", "Cc"], exclude_characters="\u2028\u2029\x85"), min_size=1, max_size=24
    )
    .map(str.strip)
    .filter(bool)
)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(STRUCTURED_VALUE, min_size=1, max_size=4, unique=True), texts=st.lists(HOSTILE, max_size=6))
@example(values=[".*", "a|b", "^x$", "[", "\\d+", "(?i)A"], texts=["", "\\u0000", "\x7f"])
def test_filters_match_exactly_and_every_payload_is_selected_intact(
    argo_sensor: str, tmp_path_factory: pytest.TempPathFactory, values: list[str], texts: list[str]
) -> None:
    """Argo's string filters are regexps: sandkit's anchored, quoted values pass their own text and no other."""
    folder = tmp_path_factory.mktemp("filters")
    kit = {
        "apiVersion": "sandkit/v1",
        "name": "filters",
        "agent": {"command": ["agent"]},
        "workspace": {"mode": "none"},
        "triggers": [
            {"webhook": {"source": "generic", "secret": "T", "match": {"$.kind": values}, "fields": {"text": "$.text"}}}
        ],
    }
    (folder / "kit.yaml").write_text(json.dumps(kit, ensure_ascii=False), encoding="utf-8")
    out = compile_kit(folder / "kit.yaml", folder / "out", ["docker", "kubernetes"])
    sensor = next(d for d in _manifests(out) if d["kind"] == "Sensor")
    near = [v + "x" for v in values] + ["x" + v for v in values] + [v.upper() for v in values if v.upper() != v]
    kinds = values + [n for n in near if n not in values]
    sent_bodies = [{"kind": kind, "text": text} for kind in kinds for text in (texts or ["plain"])]
    requests: list[dict[str, Any]] = [
        {"body": json.dumps(body), "content_type": "application/json", "sensor": sensor} for body in sent_bodies
    ]
    for sent, result in zip(sent_bodies, sensor_results(argo_sensor, requests), strict=True):
        assert result["passed"] == (sent["kind"] in values), sent["kind"]
        if result["passed"]:
            annotation = result["job"]["spec"]["template"]["metadata"]["annotations"]["sandkit.dev/event"]
            assert json.loads(annotation) == {"text": sent["text"]}


def test_a_twilio_form_is_selected_from_its_value_lists(argo_sensor: str, tmp_path: Path) -> None:
    """Twilio posts a form; Argo's webhook source turns it into lists of values, and the selector takes the first."""
    kit = (
        "apiVersion: sandkit/v1\nname: sms\nagent: {command: [agent]}\nworkspace: {mode: none}\n"
        "triggers: [{webhook: {source: twilio, secret: T, match: {$.From: ['+15550100']}, fields: {text: $.Body}}}]\n"
    )
    (tmp_path / "kit.yaml").write_text(kit, encoding="utf-8")
    out = compile_kit(tmp_path / "kit.yaml", tmp_path / "out", ["docker", "kubernetes"])
    sensor = next(d for d in _manifests(out) if d["kind"] == "Sensor")
    form = "application/x-www-form-urlencoded"
    body = {"Body": HOSTILE_SUMMARY, "From": "+15550100"}
    stranger = {"Body": "hello", "From": "+15550199"}
    sent, refused = sensor_results(
        argo_sensor,
        [
            {"body": urllib.parse.urlencode(body), "content_type": form, "sensor": sensor},
            {"body": urllib.parse.urlencode(stranger), "content_type": form, "sensor": sensor},
        ],
    )
    annotation = sent["job"]["spec"]["template"]["metadata"]["annotations"]["sandkit.dev/event"]
    assert json.loads(annotation) == {"text": HOSTILE_SUMMARY} and refused["passed"] is False
