"""The kubernetes target's pods, played by the real images in the real Docker engine.

No API server runs here, so each container of the generated manifests is started the way a kubelet
would start it: its user and group, read-only root, no capabilities, its env (the namespace from the downward API, KUBERNETES_SERVICE_HOST and _PORT), emptyDirs
as world-writable folders shared by the pod's containers (a memory-backed one as a tmpfs volume),
every ConfigMap, Secret (from a stand-in) and projected item written with its mode and bind-mounted read-only, init
containers run to completion before the others, and a pod whose non-optional ConfigMap key is
missing not started at all (the kubelet waits). That proves what a schema cannot: the mounts fit the
image, the squid Deployment starts from its ConfigMap and passes its probe, the clone init container
clones through it (by the Service's address) and stops, and the agent then runs with the
ConfigMap's files in force.

The injecting proxy's authority, made once per Deployment by a Job, is played with a stand-in for the
API calls that Job makes (tests/compiler/data/kube_api_standin.py): real curl from the proxy image,
over TLS, with the projected token and the API server's authority; the stand-in checks the token and
the generated Role's rules and answers the reads and merge patches of the Secret and the ConfigMap;
the proxy pod then mounts the Secret, and the agent pod the ConfigMap. Not played: a signed token, admission, the API server's own RBAC code, watch and the kubelet's
refresh of a mounted ConfigMap, and NetworkPolicy beyond the internal network below.

The NetworkPolicy is played by an internal network that only the proxy leaves; the outside is a /28
of the AS112 prefixes (public to squid and shared with the e2e suite's sessions; see OUTSIDE_POOLS in
tests/e2e/helpers.py), where the e2e suite's outside image serves one git repository over ssh (its
sshd, key authentication only) and over HTTP under an allowed and a not-allowed name, and its test
server (tests/e2e/outside/server.py) answers over HTTPS, with a test authority the kit trusts, as the
injection host and another allowed host, with the headers each request brought.

`sandkit verify --target kubernetes`'s probe Job is played the same way, beside the same proxy pod,
and its log scored with `--results` (docs/verify.md).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from sandkit.compiler.command import compile_kit
from sandkit.compiler.proxy import proxy_image
from tests.compiler.test_hostile_values import HOSTILE
from tests.e2e.helpers import MEMORY_AND_FILES_PROBE, OUTSIDE_DIR, free_outside_subnet, used_subnets

pytestmark = pytest.mark.docker
ROLE = "sandkit.dev/role"

#: The injection host and the secret's header; the injected value never passes the agent's shell:
#: the server's answer goes through a pipe into grep and sha256sum, whose digest alone comes back.
API_HOST, WEB_HOST, INJECT_HEADER = "api.outside.test", "web.outside.test", "x-pod-key"
PLACEHOLDER = "pod-placeholder-not-the-key"
SCAN = "/etc/pod-test/scan.pl"
AGENT_PROBE = f"""
set -u
echo "uid=$(id -u):$(id -g)"
echo "user=$(id -un)"
echo "greeting=$GREETING"
if [ -r /run/secrets/POD_SECRET ] && ! touch /run/secrets/POD_SECRET 2>/dev/null; then
  echo secret-file=read-only; else echo secret-file=missing-or-writable; fi
echo "secret=$POD_SECRET"
echo "injected-variable=$POD_INJECTED"
echo "file=$(cat /etc/pod-test/config.txt)"
echo "home=$(cat "$HOME/.pod-rc")"
echo "head=$(git -C /workspace log --format=%s -1)"
echo "instructions=$(tail -n 1 /workspace/AGENTS.md)"
if getent hosts git.outside.test >/dev/null 2>&1; then echo dns=answers; else echo dns=none; fi
if git ls-remote -q http://other.outside.test:8080/repo.git >/dev/null 2>&1; then echo other=reached; else echo other=refused; fi
if env -u http_proxy -u HTTP_PROXY git ls-remote -q http://git.outside.test:8080/repo.git >/dev/null 2>&1
then echo direct=reached; else echo direct=refused; fi
if touch /etc/pod-test/written 2>/dev/null; then echo root=writable; else echo root=read-only; fi
curl -sS -m 20 -H '{INJECT_HEADER}: chosen-by-the-agent' https://{API_HOST}:8443/headers >/tmp/api 2>&1 || echo api-failed
echo "api-headers=$(grep -ci '^header {INJECT_HEADER}:' /tmp/api)"
echo "api-digest=$(grep -i '^header {INJECT_HEADER}:' /tmp/api | sha256sum | cut -c1-64)"
rm -f /tmp/api
echo "api-own=$(curl -sS -m 20 https://{API_HOST}:8443/headers | grep -c chosen-by-the-agent)"
echo "api-issuer=$(curl -sS -m 20 -v -o /dev/null https://{API_HOST}:8443/issuer 2>&1 | sed -n 's/^\\*  issuer: //p')"
echo "web-headers=$(curl -sS -m 20 https://{WEB_HOST}:8443/headers | grep -ci '^header {INJECT_HEADER}:')"
if [ -e /run/sandkit-egress ]; then echo authority-folder=present; else echo authority-folder=absent; fi
echo "trusted=$(sha256sum </run/sandkit-proxy-ca/ca.pem | cut -c1-64)"
if [ -n "${{SANDKIT_EVENT:-}}" ]; then
  echo "event=$(base64 -w0 <"$SANDKIT_EVENT")"
  echo "environment=$(env | base64 -w0)"
  if touch "$SANDKIT_EVENT" 2>/dev/null; then echo event-file=writable; else echo event-file=read-only; fi
fi
perl {SCAN}
"""


def _kit(name: str, known_host: str) -> str:
    """The session kit: it clones over ssh through the proxy with its deploy key (workspace.ssh_key), and
    the proxy injects POD_INJECTED on the injection host."""
    return f"""
apiVersion: sandkit/v1
name: {name}
env: {{GREETING: "it's $(not run)"}}
image: {{packages: {{apt: [python3, curl]}}, ca_certificates: [outside-ca.pem]}}
secrets:
  - {{name: POD_SECRET}}
  - {{name: POD_KEY}}
  - name: POD_INJECTED
    placeholder: {PLACEHOLDER}
    inject: [{{host: "{API_HOST}:8443", header: {INJECT_HEADER}, format: "Key {{value}}"}}]
network: {{allow: ["git.outside.test:8080", "git.outside.test:22", "{API_HOST}:8443", "{WEB_HOST}:8443"]}}
agent:
  command: [sh, -c, {json.dumps(AGENT_PROBE)}]
  instructions: "From the image.\\n"
  instructions_file: AGENTS.md
files:
  - {{path: /etc/pod-test/config.txt, content: "from the image"}}
  - {{path: /home/agent/.pod-rc, content: "rc from the kit", mode: "0600"}}
  - {{path: {SCAN}, content: {json.dumps(MEMORY_AND_FILES_PROBE)}}}
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


def _docker(
    *args: str, check: bool = True, timeout: int = 600, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=False, input=stdin)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args[:3])}: {done.stdout}{done.stderr}")
    return done


class KubeletWaits(Exception):
    """The kubelet would not start this pod yet: a volume it needs is not there."""


@dataclass
class Cluster:
    """What the pods of one namespace see of the cluster: its name, the API server's address, a token."""

    namespace: str
    api: tuple[str, int] = ("", 0)
    token: str = ""
    volumes: list[str] = field(default_factory=list)  # the tmpfs volumes made for memory-backed emptyDirs


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
        cluster: Cluster | None = None,
    ) -> None:
        """``services``: each Service's name and cluster IP, for the variables of ``enableServiceLinks``."""
        self.spec, self.configmaps, self.root, self.network, self.secret = spec, configmaps, root, network, secret
        self.services = services or {}
        self.annotations = annotations or {}
        self.cluster = cluster or Cluster("default")
        self.group = spec["securityContext"].get("fsGroup", 0)
        self.folders: dict[str, Path] = {}
        self.memory: dict[str, str] = {}  # memory-backed emptyDirs: their tmpfs volumes
        for volume in spec["volumes"]:
            if volume.get("emptyDir", {}).get("medium") == "Memory":
                self.memory[volume["name"]] = self._tmpfs(volume["name"])
            else:
                self.folders[volume["name"]] = self._volume(volume)

    def _tmpfs(self, name: str) -> str:
        """A tmpfs the pod's containers share, as the kubelet mounts an emptyDir of medium Memory. Docker
        mounts a tmpfs volume while a container uses it and drops it after the last: a holder container
        (the part of the pod's sandbox) keeps it for the pod's life, init containers' writes included."""
        volume = f"{self.network}-{self.root.name}-{name}"
        _docker("volume", "create", "--driver", "local", "--opt", "type=tmpfs", "--opt", "device=tmpfs",
                "--opt", "o=size=16m,mode=0777", volume)  # fmt: skip
        self.cluster.volumes.append(volume)
        image = self.spec["containers"][0]["image"]
        _docker("run", "-d", "--name", f"{volume}-holder", "--network", "none", "--read-only", "--cap-drop", "ALL",
                "--user", "65534:65534", "--mount", f"type=volume,source={volume},target=/held,volume-nocopy", "--entrypoint",
                "sleep", image, "infinity")  # fmt: skip
        return volume

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
        if "secret" in volume:
            source = volume["secret"]
            values = self._secret_values(source["secretName"])
            for item in source["items"]:
                if item["key"] not in values:
                    if source.get("optional"):
                        continue  # an optional volume leaves a missing key out
                    raise KubeletWaits(f"secret {source['secretName']} has no key {item['key']}")
                self._write(folder / item["path"], values[item["key"]].encode(), source["defaultMode"])
            return folder
        if "projected" in volume:
            mode = volume["projected"]["defaultMode"]
            for source in volume["projected"]["sources"]:
                if "serviceAccountToken" in source:
                    self._write(folder / source["serviceAccountToken"]["path"], self.cluster.token.encode(), mode)
                else:
                    self._config_items(source["configMap"], folder, mode)
            return folder
        self._config_items(volume["configMap"], folder, None)
        return folder

    def _secret_values(self, name: str) -> dict[str, str]:
        """A Secret of the API server's (among ``configmaps``, as the stand-in keeps it), else the stand-in
        for the one the user creates."""
        stored = self.configmaps.get(name, {})
        if stored.get("kind") != "Secret":
            return self.secret
        return {key: base64.b64decode(value).decode() for key, value in stored.get("data", {}).items()}

    def _config_items(self, source: dict[str, Any], folder: Path, default_mode: int | None) -> None:
        data = self.configmaps.get(source["name"], {})
        for item in source["items"]:
            if item["key"] in data.get("data", {}):
                content = data["data"][item["key"]].encode()
            elif item["key"] in data.get("binaryData", {}):
                content = base64.b64decode(data["binaryData"][item["key"]])
            elif source.get("optional"):
                continue
            else:  # the kubelet retries the mount, and starts no container, until the key exists
                raise KubeletWaits(f"configmap {source['name']} has no key {item['key']}")
            self._write(folder / item["path"], content, item.get("mode", default_mode or 0o644))

    def _write(self, path: Path, content: bytes, mode: int) -> None:
        path.write_bytes(content)
        os.chown(path, 0, self.group)
        path.chmod(mode | (0o040 if self.group else 0))  # fsGroup makes read-only items group-readable

    def _service_links(self) -> dict[str, str]:
        """The variables a kubelet sets for each Service of the namespace when the pod asks for them."""
        if not self.spec.get("enableServiceLinks", True):
            return {}
        links = {}
        for service, address in self.services.items():
            links[service.upper().replace("-", "_") + "_SERVICE_HOST"] = address
        return links

    def _environment(self, container: dict[str, Any]) -> list[str]:
        host, port = self.cluster.api
        known = {"KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": str(port)} if host else {}
        known |= self._service_links()
        args = [item for name, value in known.items() for item in ("--env", f"{name}={value}")]
        for entry in container.get("env", []):
            if "value" in entry:
                value = re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: known.get(m[1], m[0]), entry["value"])
            elif "fieldRef" in entry["valueFrom"]:
                field = entry["valueFrom"]["fieldRef"]["fieldPath"]
                assert field in ("metadata.namespace", "metadata.name"), entry
                value = self.cluster.namespace if field == "metadata.namespace" else f"{container['name']}-pod"
            elif entry["valueFrom"]["secretKeyRef"]["key"] in self.secret:
                value = self.secret[entry["valueFrom"]["secretKeyRef"]["key"]]
            else:
                continue
            known[entry["name"]] = value
            args += ["--env", f"{entry['name']}={value}"]
        return args

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
        if self.group:
            args += ["--group-add", str(self.group)]
        for capability in context.get("capabilities", {}).get("add", []):  # after the drop, as the runtime does
            args += ["--cap-add", capability]
        if context["readOnlyRootFilesystem"]:
            args.append("--read-only")
        if "command" in container:
            args += ["--entrypoint", container["command"][0]]
        args += self._environment(container)
        if self.services:  # an agent pod: its NetworkPolicy allows no DNS, so it has no resolver either
            no_dns = self.root / "resolv.conf"
            no_dns.write_text("nameserver 127.0.0.1\n")
            args += ["--mount", f"type=bind,source={no_dns},target=/etc/resolv.conf,readonly"]
        for mount in container["volumeMounts"]:
            if mount["name"] in self.memory:
                # volume-nocopy: an emptyDir starts empty, never with the image's folder under it (Docker's copy-up)
                volume = self.memory[mount["name"]]
                args += ["--mount", f"type=volume,source={volume},target={mount['mountPath']},volume-nocopy"]
                continue
            source = self.folders[mount["name"]] / mount.get("subPath", "")
            flag = f"type=bind,source={source},target={mount['mountPath']}"
            args += ["--mount", flag + (",readonly" if mount.get("readOnly") else "")]
        return args

    @staticmethod
    def argv(container: dict[str, Any]) -> list[str]:
        """The image and what follows it: the rest of ``command`` (the entrypoint is a flag), then ``args``."""
        return [container["image"], *container.get("command", [])[1:], *container.get("args", [])]


@pytest.fixture(scope="module")
def token() -> str:
    return secrets.token_hex(3)


@pytest.fixture(scope="module")
def inject_value() -> str:
    return f"pod-inject-{secrets.token_hex(16)}"


@pytest.fixture(scope="module")
def built(token: str, inject_value: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Compile the kit, build both images, start the outside server, the API stand-in and the proxy pod;
    remove all by name after."""
    folder = tmp_path_factory.mktemp("k8s-pod")
    name = f"sk8s-{token}"
    certs = _authority(folder / "outside-certs", "sandkit-k8s-test-ca", [f"DNS:{API_HOST}", f"DNS:{WEB_HOST}"])
    (folder / "outside-ca.pem").write_bytes((certs / "ca.pem").read_bytes())
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
    api, headers = f"{name}-api", f"{name}-tlssrv"
    # the deploy key as a Secret holds it: without its last newline, as `kubectl create secret` often gets it
    secret = {
        "POD_SECRET": "s3cret value",
        "POD_KEY": (keys / "client_key").read_text().rstrip("\n"),
        "POD_INJECTED": inject_value,
    }
    proxy_tag = proxy_image(out.plan)  # the digest of egress/, shared by kits whose proxies are the same
    namespace = next(d for d in docs if d["kind"] == "Deployment")["metadata"]["namespace"]
    cluster = Cluster(namespace, token=secrets.token_hex(16))
    try:
        _docker("buildx", "build", "--load", "-q", "-t", out.plan.image_tag, str(out.folder))
        _docker("buildx", "build", "--load", "-q", "-t", proxy_tag, str(out.folder / "egress"))
        _docker("network", "create", "--internal", inside)
        _outside_network(outside, token)
        _serve_git(folder / "srv", server_tag, keys, outside, server)
        _serve_headers(certs, server_tag, outside, headers)
        _serve_api(folder / "api", docs, out.plan.image_tag, inside, api, cluster)
        configmaps = _start_proxy(docs, folder / "proxy-pod", inside, outside, proxy, cluster, secret)
        yield {
            "out": out,
            "docs": docs,
            "configmaps": configmaps,
            "folder": folder,
            "network": inside,
            "name": name,
            "proxy": proxy,
            "server": server,
            "secret": secret,
            "api": api,
            "cluster": cluster,
        }
    finally:
        _docker("rm", "-f", server, headers, proxy, api, check=False)
        if cluster.volumes:
            _docker("rm", "-f", *(f"{volume}-holder" for volume in cluster.volumes), check=False)
            _docker("volume", "rm", "-f", *cluster.volumes, check=False)
        _docker("network", "rm", inside, outside, check=False)
        _docker("rmi", "-f", out.plan.image_tag, proxy_tag, server_tag, check=False)


def _authority(folder: Path, name: str, names: list[str]) -> Path:
    """A throwaway authority (ca.pem) and a server certificate for ``names`` (server.pem, server.key)."""
    folder.mkdir(mode=0o755)

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            "-keyout", str(folder / "ca.key"), "-out", str(folder / "ca.pem"))  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=server", "-keyout", str(folder / "server.key.new"),
            "-out", str(folder / "server.csr"))  # fmt: skip
    (folder / "san.ext").write_text(f"subjectAltName={','.join(names)}\n")
    openssl("x509", "-req", "-in", str(folder / "server.csr"), "-CA", str(folder / "ca.pem"), "-CAkey",
            str(folder / "ca.key"), "-CAcreateserial", "-days", "2", "-extfile", str(folder / "san.ext"),
            "-out", str(folder / "server.pem"))  # fmt: skip
    for file in ("server.key.new", "server.pem", "ca.pem"):
        (folder / file).chmod(0o644)  # read by the servers' unprivileged users; test keys only
    (folder / "server.key.new").replace(folder / "server.key")  # last: the API stand-in waits for it
    return folder


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


def _serve_headers(certs: Path, image: str, network: str, name: str) -> None:
    """The e2e suite's test server (its default command) as the injection host and another allowed host:
    over HTTPS, with a certificate of the test authority the kit trusts, it answers with the headers it got."""
    aliases = [flag for host in (API_HOST, WEB_HOST) for flag in ("--network-alias", host)]
    _docker("run", "-d", "--name", name, "--network", network, *aliases, "--read-only", "--cap-drop", "ALL",
            "-v", f"{certs}:/certs:ro", image)  # fmt: skip


STANDIN = Path(__file__).parent / "data" / "kube_api_standin.py"


def _serve_api(folder: Path, docs: list[dict[str, Any]], image: str, network: str, name: str, cluster: Cluster) -> None:
    """The API stand-in on the proxy's network, with the generated Role's rules and the ConfigMaps and
    Secrets that `kubectl apply` created (the authority's empty), then its certificate for the address it got."""
    folder.mkdir()
    folder.chmod(0o777)  # the stand-in (the image's uid) writes store.json there
    role = next(d for d in docs if d["kind"] == "Role" and d["metadata"]["name"].endswith("-egress-authority"))
    store = {d["metadata"]["name"]: d for d in docs if d["kind"] in ("ConfigMap", "Secret")}
    for file, text in (
        ("token", cluster.token),
        ("rules.json", json.dumps(role["rules"])),
        ("store.json", json.dumps(store)),
    ):
        (folder / file).write_text(text)
        (folder / file).chmod(0o666)
    _docker(
        "run", "-d", "--name", name, "--network", network, "--entrypoint", "python3", "--read-only",
        "--cap-drop", "ALL", "--env", "STANDIN_DIR=/standin", "--env", f"STANDIN_NAMESPACE={cluster.namespace}",
        "-v", f"{folder}:/standin", "-v", f"{STANDIN}:/standin.py:ro", image, "/standin.py",
    )  # fmt: skip
    address = _address(name, network)
    certs = _authority(folder / "tls", "kube-apiserver-standin-ca", [f"IP:{address}"])
    for file in ("server.pem", "ca.pem", "server.key"):  # the key last, whole: the stand-in waits for it
        (folder / f"{file}.new").write_bytes((certs / file).read_bytes())
        (folder / f"{file}.new").chmod(0o644)
        (folder / f"{file}.new").replace(folder / file)
    cluster.api = (address, 6443)


def _address(container: str, network: str) -> str:
    return _docker(
        "inspect", "--format", f'{{{{(index .NetworkSettings.Networks "{network}").IPAddress}}}}', container
    ).stdout.strip()


def api_store(built: dict[str, Any]) -> dict[str, Any]:
    """The stand-in API server's ConfigMaps and Secrets as they are now."""
    store: dict[str, Any] = json.loads((built["folder"] / "api" / "store.json").read_text())
    return store


def authority_job(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The Job that makes the injecting proxy's authority, once per Deployment."""
    return next(d for d in docs if d["kind"] == "Job" and d["metadata"]["labels"][ROLE] == "egress-authority")


def session_job(docs: list[dict[str, Any]]) -> dict[str, Any]:
    return next(d for d in docs if d["kind"] == "Job" and d["metadata"]["labels"][ROLE] == "agent")


def run_authority_job(docs: list[dict[str, Any]], root: Path, network: str, name: str, cluster: Cluster) -> str:
    """The authority Job's pod, played to completion with the cluster's token; returns its log."""
    spec = authority_job(docs)["spec"]["template"]["spec"]
    configmaps = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    configmaps["kube-root-ca.crt"] = {"data": {"ca.crt": (root.parent / "api" / "ca.pem").read_text()}}
    pod = Pod(spec, configmaps, root, network, {}, cluster=cluster)
    (container,) = spec["containers"]
    done = _docker("run", "--rm", *pod.run_args(container, name), *pod.argv(container), check=False)
    assert done.returncode == 0, f"the authority Job: {done.stdout}{done.stderr}"
    return done.stderr


def published(root: Path) -> dict[str, dict[str, Any]]:
    """The objects of the stand-in API server now, by name (what the kubelet mounts from)."""
    stored = json.loads((root.parent / "api" / "store.json").read_text())
    return {d["metadata"]["name"]: d for d in stored.values()}


def start_proxy_pod(
    docs: list[dict[str, Any]], root: Path, inside: str, name: str, cluster: Cluster, secret: dict[str, str]
) -> None:
    """One pod of the proxy Deployment (a replica, or a restart) on the objects the API server holds now,
    reachable inside by the Service's name."""
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    service = next(d for d in docs if d["kind"] == "Service")
    spec = deployment["spec"]["template"]["spec"]
    assert "initContainers" not in spec  # a proxy pod makes nothing at its start
    pod = Pod(spec, published(root), root, inside, secret, cluster=cluster)  # the injected key alone
    (container,) = spec["containers"]
    _docker("run", "-d", "--network-alias", service["metadata"]["name"], *pod.run_args(container, name),
            *pod.argv(container))  # fmt: skip


def _start_proxy(
    docs: list[dict[str, Any]],
    root: Path,
    inside: str,
    outside: str,
    name: str,
    cluster: Cluster,
    secret: dict[str, str],
) -> dict[str, dict[str, Any]]:
    """Once per Deployment the authority Job (published through the API stand-in), then the Deployment's
    pod: squid, reachable inside by the Service's name, and let out. Returns the ConfigMaps and Secrets
    the agent pods see then."""
    run_authority_job(docs, root.parent / "authority-job", inside, f"{name}-authority", cluster)
    start_proxy_pod(docs, root, inside, name, cluster, secret)
    _docker("network", "connect", outside, name)
    return published(root)


def _manifests(out: Any) -> list[dict[str, Any]]:
    yaml = YAML(typ="safe")
    return [
        d
        for n, data in sorted(out.files.items())
        if n.startswith("kubernetes/") and n != "kubernetes/kustomization.yaml"
        for d in yaml.load_all(data)
    ]


@pytest.fixture(scope="module")
def session(built: dict[str, Any], inject_value: str) -> dict[str, Any]:
    """One session pod, played: the clone init container, then the agent with the probe, which scans its
    whole container for the injected value and the authority's key (given reversed on its stdin)."""
    name, docs = built["name"], built["docs"]
    _wait_ready(built)
    configmaps = json.loads(json.dumps(built["configmaps"]))
    # An overlay's change to the ConfigMap takes effect without a rebuild: the mounted copy wins.
    data = configmaps[f"{name}-agent"]["data"]
    data["instructions"] = data["instructions"].replace("From the image.", "From the ConfigMap.")
    (key,) = [k for k, v in data.items() if v == "from the image"]
    data[key] = "from the ConfigMap"
    spec = session_job(docs)["spec"]["template"]["spec"]
    pod = Pod(spec, configmaps, built["folder"] / "pod", built["network"], built["secret"], _services(built))
    authority_key = _docker("exec", built["proxy"], "cat", "/run/sandkit-egress/ca.key").stdout
    assert "PRIVATE KEY" in authority_key, "the proxy pod holds no authority key"
    needles = [inject_value, authority_key.splitlines()[1], PLACEHOLDER]
    (init,), (agent,) = spec["initContainers"], spec["containers"]
    try:
        cloned = _docker("run", *pod.run_args(init, f"{name}-clone"), *pod.argv(init), check=False)
        assert cloned.returncode == 0, cloned.stderr
        workspace = pod.folders["workspace"]
        assert (workspace / ".git").is_dir() and not (workspace / "AGENTS.md").exists()  # stopped after the clone
        # over ssh with the deploy key, through the proxy's CONNECT to the one allowed host:22
        proxy = _address(built["proxy"], f"{name}-outside")
        logs = _docker("logs", built["server"], check=False)
        assert f"Accepted publickey for git from {proxy} " in logs.stderr, (proxy, logs.stderr)
        squid = _docker("logs", built["proxy"], check=False).stdout
        assert "method=CONNECT host=git.outside.test port=22 " in squid, squid
        # the session record's line (docs/record.md): the pod from the downward API, the reason, no file
        records = [json.loads(line) for line in squid.splitlines() if '"event":"decision"' in line]
        tunnel = [r for r in records if r["host"] == "git.outside.test" and r["method"] == "CONNECT"]
        assert tunnel and tunnel[0]["pod"] == "squid-pod" and tunnel[0]["reason"] == "allowlisted", squid
        reversed_needles = "".join(n[::-1] + "\n" for n in needles)
        ran = _docker("run", "-i", *pod.run_args(agent, f"{name}-agent"), *pod.argv(agent), stdin=reversed_needles,
                      check=False, timeout=300)  # fmt: skip
        assert ran.returncode == 0, ran.stdout + ran.stderr
    finally:
        _docker("rm", "-f", f"{name}-clone", f"{name}-agent", check=False)
    lines = dict(
        line.split("=", 1) for line in ran.stdout.splitlines() if "=" in line and " " not in line.split("=")[0]
    )
    return {"lines": lines, "stdout": ran.stdout, "pod": pod, "spec": spec}


def test_the_session_pod_clones_then_runs_the_agent_with_the_configmap_in_force(session: dict[str, Any]) -> None:
    lines = session["lines"]
    spec = session["spec"]
    for container in spec["initContainers"] + spec["containers"]:  # no value as an env entry (docker inspect)
        assert "s3cret value" not in json.dumps(session["pod"].run_args(container, "any"))
    assert {k: lines[k] for k in SESSION_LINES} == {
        "uid": "11000:11000",  # the kit's 1000 raised above every node user's, an account of the image
        "user": "agent-k8s",
        "greeting": "it's $(not run)",
        "secret": "s3cret value",  # from its read-only file, exported by the entrypoint
        "secret-file": "read-only",
        "file": "from the ConfigMap",
        "home": "rc from the kit",
        "head": "cloned by the init container",
        "instructions": "From the ConfigMap.",
        "dns": "none",
        "other": "refused",
        "direct": "refused",
        "root": "read-only",
    }


SESSION_LINES = (
    "uid",
    "user",
    "greeting",
    "secret",
    "secret-file",
    "file",
    "home",
    "head",
    "instructions",
    "dns",
    "other",
    "direct",
    "root",
)


def test_the_proxy_pod_injects_and_the_agent_pod_holds_no_trace_of_the_value(
    built: dict[str, Any], session: dict[str, Any], inject_value: str
) -> None:
    """The injection host gets the header with the real value (not the agent's own), another allowed host
    does not, and nothing the agent pod can read holds the value or the authority's key."""
    lines, stdout = session["lines"], session["stdout"]
    digest = hashlib.sha256(f"header {INJECT_HEADER}: Key {inject_value}\n".encode()).hexdigest()
    assert lines["injected-variable"] == PLACEHOLDER
    assert (lines["api-headers"], lines["api-digest"], lines["api-own"]) == ("1", digest, "0"), stdout
    assert lines["web-headers"] == "0", f"another allowed host received the injected header:\n{stdout}"
    assert lines["api-issuer"] == f"CN=sandkit egress {built['name']}", stdout
    published = api_store(built)[f"{built['name']}-egress-ca"]["data"]["ca.pem"]
    proxy_ca = _docker("exec", built["proxy"], "cat", "/run/sandkit-egress/ca.pem").stdout
    assert published == proxy_ca and lines["trusted"] == hashlib.sha256(proxy_ca.encode()).hexdigest()
    scanned = re.search(r"scanned processes=(\d+) regions=(\d+) bytes=(\d+) files=(\d+)", stdout)
    assert scanned, f"the probe did not finish:\n{stdout}"
    processes, regions, size, files = map(int, scanned.groups())
    assert processes >= 2 and regions > 20 and size > 1_000_000 and files > 1000, scanned.group(0)
    assert "found needle#2 in environ of" in stdout and "found needle#2 in memory of" in stdout, (
        f"the probe does not find the placeholder the agent does hold, so its silence proves nothing:\n{stdout}"
    )
    assert "needle#0" not in stdout, f"the injected value is in the agent's container:\n{stdout}"
    assert "needle#1" not in stdout, f"the proxy's authority key is in the agent's container:\n{stdout}"
    assert lines["authority-folder"] == "absent"
    # What the manifests give each pod: the value's key and the authority's Secret to the proxy's squid alone,
    # the token to the authority Job alone; the agent pod never names the authority's Secret.
    agent_spec = json.dumps(session["spec"])
    assert "POD_INJECTED" in agent_spec and '"key": "POD_INJECTED"' not in agent_spec
    assert f"{built['name']}-egress-authority" not in agent_spec
    proxy_spec = next(d for d in built["docs"] if d["kind"] == "Deployment")["spec"]["template"]["spec"]
    secret_volumes = {v["secret"]["secretName"]: v["secret"]["items"] for v in proxy_spec["volumes"] if "secret" in v}
    assert secret_volumes == {
        f"{built['name']}-secrets": [{"key": "POD_INJECTED", "path": "POD_INJECTED"}],
        f"{built['name']}-egress-authority": [{"key": "ca.key", "path": "ca.key"}, {"key": "ca.pem", "path": "ca.pem"}],
    }
    (squid,) = proxy_spec["containers"]
    assert {m["name"] for m in squid["volumeMounts"]} == {
        "tmp", "record", "config", "authority", "egress-authority", "secrets"
    }  # fmt: skip
    assert "initContainers" not in proxy_spec and proxy_spec["serviceAccountName"] == built["name"]
    assert {"name": "authority", "emptyDir": {"medium": "Memory", "sizeLimit": "16Mi"}} in proxy_spec["volumes"]
    job_spec = authority_job(built["docs"])["spec"]["template"]["spec"]
    (maker,) = job_spec["containers"]
    assert {m["name"] for m in maker["volumeMounts"]} == {"tmp", "authority", "api-token"}


def api_calls(built: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The stand-in API server's requests so far: method, path under the namespace, status."""
    log = _docker("logs", built["api"]).stdout
    prefix = f"/api/v1/namespaces/{built['cluster'].namespace}/"
    return [(m, p.removeprefix(prefix), c) for m, p, c in re.findall(r'"(\w+) (\S+) HTTP/1.1" (\d+)', log)]


def test_the_agent_pod_waits_for_the_authority_and_only_the_jobs_token_may_publish_it(
    built: dict[str, Any],
) -> None:
    """Before the authority Job has patched the certificate in, the kubelet starts no container of the agent
    pod, nor the proxy's pod before the key is in its Secret; the Job read the Secret (empty), patched it,
    read it back and patched the ConfigMap, each allowed by its Role on that one name alone."""
    spec = session_job(built["docs"])["spec"]["template"]["spec"]
    unpublished = {d["metadata"]["name"]: d for d in built["docs"] if d["kind"] in ("ConfigMap", "Secret")}
    with pytest.raises(KubeletWaits, match=r"has no key ca\.pem"):
        Pod(spec, unpublished, built["folder"] / "early-pod", built["network"], {})
    proxy_spec = next(d for d in built["docs"] if d["kind"] == "Deployment")["spec"]["template"]["spec"]
    with pytest.raises(KubeletWaits, match=r"egress-authority has no key ca\.key"):
        # (its memory-backed emptyDirs, made before the kubelet's wait, are the cluster's to remove)
        Pod(proxy_spec, unpublished, built["folder"] / "early-proxy", built["network"], built["secret"],
            cluster=built["cluster"])  # fmt: skip
    name = built["name"]
    assert api_calls(built)[:4] == [
        ("GET", f"secrets/{name}-egress-authority", "200"),
        ("PATCH", f"secrets/{name}-egress-authority", "200"),
        ("GET", f"secrets/{name}-egress-authority", "200"),
        ("PATCH", f"configmaps/{name}-egress-ca", "200"),
    ]
    (role,) = [d for d in built["docs"] if d["kind"] == "Role" and d["metadata"]["name"] == f"{name}-egress-authority"]
    assert role["rules"] == [
        {"apiGroups": [""], "resources": ["secrets"], "resourceNames": [f"{name}-egress-authority"], "verbs": ["get", "patch"]},
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [f"{name}-egress-ca"], "verbs": ["patch"]},
    ]  # fmt: skip


def test_the_authority_is_made_once_per_deployment_and_every_proxy_pod_serves_it(built: dict[str, Any]) -> None:
    """The Job run again (a later `kubectl apply -k`) keeps the Secret's authority and publishes the same
    certificate; another pod of the Deployment (a restart, a second replica) serves that same authority,
    so the sessions already running still trust it. Neither writes a new key."""
    name, root = built["name"], built["folder"]
    before = api_store(built)
    _wait_ready(built)
    log = run_authority_job(
        built["docs"], root / "authority-again", built["network"], f"{name}-again", built["cluster"]
    )
    assert "holds the authority; kept" in log, log
    assert api_calls(built)[4:] == [
        ("GET", f"secrets/{name}-egress-authority", "200"),
        ("PATCH", f"configmaps/{name}-egress-ca", "200"),
    ]
    assert api_store(built) == before
    replica = f"{name}-proxy-2"
    try:
        start_proxy_pod(
            built["docs"], root / "proxy-pod-2", built["network"], replica, built["cluster"], built["secret"]
        )
        _wait_ready(built, replica)
        served = {
            pod: _docker("exec", pod, "cat", "/run/sandkit-egress/ca.pem").stdout for pod in (built["proxy"], replica)
        }
    finally:
        _docker("rm", "-f", replica, check=False)
    stored = base64.b64decode(before[f"{name}-egress-authority"]["data"]["ca.pem"]).decode()
    assert served[built["proxy"]] == served[replica] == stored == before[f"{name}-egress-ca"]["data"]["ca.pem"]


def _services(built: dict[str, Any]) -> dict[str, str]:
    """The proxy Service's name and the address its pod has on the sandbox network (its cluster IP here)."""
    service = next(d for d in built["docs"] if d["kind"] == "Service")["metadata"]["name"]
    return {service: _address(built["proxy"], built["network"])}


def _wait_ready(built: dict[str, Any], pod: str = "") -> None:
    """Poll the Deployment's readiness probe in its pod (or ``pod``) as the kubelet would, for up to 30 s."""
    deployment = next(d for d in built["docs"] if d["kind"] == "Deployment")
    probe = deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["exec"]["command"]
    deadline = time.monotonic() + 30
    while _docker("exec", pod or built["proxy"], *probe, check=False).returncode != 0:
        if time.monotonic() > deadline:
            logs = _docker("logs", pod or built["proxy"], check=False)
            raise AssertionError("the proxy never passed its probe: " + logs.stdout + logs.stderr)
        time.sleep(0.1)


def test_the_proxy_deployment_starts_from_its_configmap_and_passes_its_probe(built: dict[str, Any]) -> None:
    _wait_ready(built)
    deployment = next(d for d in built["docs"] if d["kind"] == "Deployment")
    context = deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"]
    assert _docker("exec", built["proxy"], "id", "-u").stdout.strip() == str(context["runAsUser"]) == "10013"
    served = _docker("exec", built["proxy"], "cat", "/etc/squid/squid.conf").stdout
    assert served.encode() == built["out"].files["egress/squid.conf"]


# sandkit verify: the probe Job, played ------------------------------------------------------------


def _verify(folder: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "sandkit", "verify", str(folder), "--target", "kubernetes", *args]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120, check=False)


def _play_probe_job(built: dict[str, Any], label: str, named: str, *, route_out: bool = False, cap: str = "") -> Any:
    """The probe Job `sandkit verify --target kubernetes` prints, its pod played like the agent's (its
    own user, security context, env, volumes, the proxy Service's address) on the played NetworkPolicy
    network, or, ``route_out``, also on the outside network (a CNI that ignores the policy: a route out);
    ``cap`` is added to its container's capabilities (an admission that let one in). Its log is scored
    with ``--results``; returns the exit code and the JSON report."""
    name, out = built["name"], built["out"]
    printed = _verify(out.folder, "--probe", named)
    assert printed.returncode == 0, printed.stderr
    job = YAML(typ="safe").load(printed.stdout)
    spec = job["spec"]["template"]["spec"]
    assert (
        job["spec"]["template"]["metadata"]["labels"]
        == session_job(built["docs"])["spec"]["template"]["metadata"]["labels"]
    )  # what the NetworkPolicy selects on
    (container,) = spec["containers"]
    if cap:
        container["securityContext"].setdefault("capabilities", {})["add"] = [cap]
    # The API server is off the pod network (the control plane's address): played by the outside
    # test server's HTTPS port, which only a pod with a route out reaches.
    api = (_address(f"{name}-tlssrv", f"{name}-outside"), 8443)
    cluster = Cluster(built["cluster"].namespace, api=api, volumes=built["cluster"].volumes)
    root = built["folder"] / f"probe-{label}"
    pod = Pod(spec, built["configmaps"], root, built["network"], built["secret"], _services(built), cluster=cluster)
    probe = f"{name}-probe-{label}"
    try:
        _docker("create", *pod.run_args(container, probe), *pod.argv(container))
        if route_out:
            _docker("network", "connect", f"{name}-outside", probe)
        log = _docker("start", "-a", probe, check=False, timeout=300)
    finally:
        _docker("rm", "-f", probe, check=False)
    scored = _verify(out.folder, "--probe", named, "--results", "-", "--format", "json", stdin=log.stdout)
    assert scored.stdout.strip(), scored.stderr + log.stdout + log.stderr
    return scored.returncode, json.loads(scored.stdout)


def _failures(report: dict[str, Any]) -> dict[str, str]:
    """The probes that did not pass, with what they said."""
    return {r["probe"]: r["detail"] for r in report["results"] if r["status"] != "pass"}


def test_the_verify_probe_job_passes_as_built_and_fails_exactly_its_egress_probes_with_a_route_out(
    built: dict[str, Any],
) -> None:
    """The probe Job's pod, played on the NetworkPolicy's network, passes every probe; with a route out
    (the policy removed, or a CNI that ignores it) exactly the probes past the proxy that reach something
    fail (the API server, the address named with --probe), and the proxy's own still pass; with an extra
    capability exactly `capabilities` fails."""
    _wait_ready(built)
    named = _address(built["server"], f"{built['name']}-outside") + ":8080"  # the outside git server's HTTP
    code, report = _play_probe_job(built, "built", named)
    assert code == 0 and not _failures(report), report
    probes = {r["probe"] for r in report["results"]}
    assert {"direct-api-server", "direct-named-0", "proxy-outside-connect", "capabilities", "user"} <= probes

    code, report = _play_probe_job(built, "open", named, route_out=True)
    failed = {r["probe"]: r for r in report["results"] if r["status"] != "pass"}
    shown = "\n".join(f"{k}: {r['detail']}" for k, r in failed.items())
    # Past the proxy only; which of the documentation and metadata addresses answer beside ours is the
    # machine's (this one answers them all), so those are not counted on.
    assert code == 1 and {"direct-api-server", "direct-named-0"} <= set(failed), shown
    assert all(k.startswith(("direct-", "dns-")) for k in failed), shown
    for row in failed.values():
        assert "connected" in row["detail"] or "answer" in row["detail"] or "replied" in row["detail"], shown
        assert "networkpolicy.yaml: NetworkPolicy" in row["where"] and "does not enforce" in row["where"], row

    code, report = _play_probe_job(built, "cap", named, cap="NET_RAW")
    assert code == 1 and set(_failures(report)) == {"capabilities"}, report
    assert "CAP_NET_RAW" in _failures(report)["capabilities"]
    (row,) = [r for r in report["results"] if r["probe"] == "capabilities"]
    assert "job.yaml: the pod did not run with the agent container's securityContext" in row["where"], row


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
    configmaps = built["configmaps"]
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
        cloned = _docker("run", *pod.run_args(init, f"{name}-eclone"), *pod.argv(init), check=False)
        assert cloned.returncode == 0, cloned.stderr
        ran = _docker("run", *pod.run_args(agent, f"{name}-eagent"), *pod.argv(agent), check=False)
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
