"""Injected secrets in the compiled output: each target's fidelity row says whether its proxy holds
the secret back from the agent, and where it cannot, that the agent receives it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from sandkit.compiler.command import compile_kit
from sandkit.compiler.targets import NAMES
from tests.compiler.helpers import in_folder

INJECTING = """\
apiVersion: sandkit/v1
name: injecting
extends: [claude-code]
agent: {command: [agent]}
workspace: {mode: none}
network: {egress: EGRESS}
"""


def _rows(tmp_path: Path, egress: str = "allowlist") -> dict[str, tuple[str, str, bool]]:
    (tmp_path / "kit.yaml").write_text(INJECTING.replace("EGRESS", egress), encoding="utf-8")
    with in_folder(tmp_path):
        out = compile_kit(Path("kit.yaml"), Path("out"), list(NAMES))
    return {target: (row.level, row.reason, row.requested) for target, row in out.fidelity["secrets.inject"].items()}


def test_targets_without_an_injecting_proxy_say_the_agent_receives_the_key(tmp_path: Path) -> None:
    rows = _rows(tmp_path)
    assert rows["docker"][0] == "not applicable"
    assert rows["actions"][0] == "enforced", "the job's proxy injects as compose's does"
    assert rows["sbx"][0] == "enforced", "sbx's own host proxy holds the key"
    assert rows["openhands"][0] == "unsupported", "OpenHands' runtime cannot trust the injecting proxy"
    for target in ("compose", "kubernetes", "devcontainer", "srt", "claude-code", "codex"):
        level, reason, _ = rows[target]
        assert level == "enforced" or reason.endswith("the agent receives ANTHROPIC_API_KEY"), (target, rows[target])


@pytest.mark.parametrize("egress", ["open", "none"])
def test_without_a_proxy_no_target_claims_to_inject(tmp_path: Path, egress: str) -> None:
    rows = _rows(tmp_path, egress)
    for target in ("compose", "kubernetes", "actions", "devcontainer", "openhands", "srt", "claude-code", "codex"):
        assert rows[target] == (
            "unsupported",
            f"with egress {egress} there is no proxy to inject: the agent receives ANTHROPIC_API_KEY",
            False,
        ), target


def test_a_kit_without_injection_has_no_row(tmp_path: Path) -> None:
    (tmp_path / "kit.yaml").write_text(
        "apiVersion: sandkit/v1\nname: plain\nagent: {command: [a]}\nworkspace: {mode: none}\n", encoding="utf-8"
    )
    with in_folder(tmp_path):
        out = compile_kit(Path("kit.yaml"), Path("out"), list(NAMES))
    assert "secrets.inject" not in out.fidelity


GH_INJECTION = """\
secrets:
  - name: GH_TOKEN
    inject: [{host: api.github.com, header: Authorization, format: "Bearer {value}"}]
  - name: PLAIN_TOKEN
image:
  ca_certificates: [corp.pem]
"""


def _compose(tmp_path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    kit = INJECTING.replace("{egress: EGRESS}", "{allow: [api.github.com, github.com]}") + GH_INJECTION
    (tmp_path / "kit.yaml").write_text(kit, encoding="utf-8")
    (tmp_path / "corp.pem").write_bytes(b"-----BEGIN CERTIFICATE-----\nY29ycA==\n-----END CERTIFICATE-----\n")
    with in_folder(tmp_path):
        out = compile_kit(Path("kit.yaml"), Path("out"), ["compose"])
    return yaml.safe_load(out.files["compose.yaml"]), out.files


def test_the_agent_gets_placeholders_and_trust_and_the_proxy_gets_the_secrets(tmp_path: Path) -> None:
    compose, _ = _compose(tmp_path)
    agent, proxy = compose["services"]["agent"], compose["services"]["egress"]
    assert agent["secrets"] == ["PLAIN_TOKEN"], "an injected secret's file reached the agent"
    assert proxy["secrets"] == ["ANTHROPIC_API_KEY", "GH_TOKEN"]
    env = agent["environment"]
    assert env["ANTHROPIC_API_KEY"] == "sandkit-injected-by-egress-proxy" and "GH_TOKEN" not in env
    assert env["SANDKIT_PROXY_INJECTS"] == "ANTHROPIC_API_KEY GH_TOKEN"
    for variable in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"):
        assert env[variable] == "/tmp/sandkit-ca-certificates.crt"
    ca_mount = {"type": "volume", "source": "egress-ca", "target": "/run/sandkit-proxy-ca", "read_only": True}
    assert ca_mount in agent["volumes"]
    assert proxy["volumes"] == [
        {"type": "volume", "source": "host-addresses", "target": "/etc/squid/host", "read_only": True},
        {"type": "volume", "source": "session-record", "target": "/var/lib/sandkit-record"},
        {"type": "volume", "source": "ready", "target": "/run/sandkit-ready", "read_only": False},
        {"type": "volume", "source": "egress-ca", "target": "/run/sandkit-egress-ca"},
    ]
    assert "/run/sandkit-egress:rw,nosuid,nodev,noexec,size=16777216,uid=1000,gid=1000,mode=0700" in proxy["tmpfs"]
    assert proxy["read_only"] is True and proxy["cap_drop"] == ["ALL"]


def test_squid_opens_tls_only_toward_the_injection_hosts(tmp_path: Path) -> None:
    _, files = _compose(tmp_path)
    squid = files["egress/squid.conf"].decode()
    assert "include /etc/squid/listen/listen.conf\nhttp_port 127.0.0.1:3129 name=bump ssl-bump " in squid
    assert files["egress/listen.conf"].decode().endswith("http_port 3128 name=agent\nacl sandbox_network src all\n")
    assert "acl inject_tls any-of inject_0_tls inject_1_tls\n" in squid
    peer_access = [line for line in squid.splitlines() if line.startswith(("cache_peer_access", "never_direct"))]
    assert peer_access == [
        "cache_peer_access tls_terminator allow agent_port inject_tls",
        # the healthcheck connects squid to its second port before any agent's request does
        "cache_peer_access tls_terminator allow agent_port healthcheck healthcheck_host",
        "cache_peer_access tls_terminator deny all",
        "never_direct allow agent_port inject_tls",
        "never_direct allow agent_port healthcheck healthcheck_host",
    ]
    assert "acl inject_1_host dstdomain -n api.github.com\nacl inject_1_port port 443\n" in squid
    assert "request_header_access Authorization deny inject_1\n" in squid
    access = [line for line in squid.splitlines() if line.startswith(("http_access", "include /run/sandkit-egress"))]
    assert access[:8] == [  # each line ends in the session record's reason for it (docs/record.md)
        "http_access deny manager reason_scheme_not_allowed",
        "include /run/sandkit-egress/inject.conf",
        "http_access allow bump_port inject_tls !non_public !host_address reason_allowlisted",
        "http_access deny bump_port non_public reason_non_public_address",  # the healthcheck's ends here, a 403
        "http_access deny bump_port host_address reason_host_address",
        "http_access deny bump_port reason_not_allowlisted",
        "http_access allow agent_port healthcheck healthcheck_host",
        "http_access deny !sandbox_clients reason_not_sandbox_client",
    ]
    dockerfile = files["egress/Dockerfile"].decode()
    assert "squid-openssl" in dockerfile and "USER 1000:1000" in dockerfile
    assert 'COPY --chmod=0644 ["ca/sandkit-01-corp.crt", "/usr/local/share/ca-certificates/sandkit-01-corp.crt"]' in (
        dockerfile
    )
    assert files["egress/ca/sandkit-01-corp.crt"].startswith(b"-----BEGIN CERTIFICATE-----")
    start = files["egress/inject.sh"].decode()
    assert "inject GH_TOKEN 1 'api.github.com:443' 'Authorization' 'Bearer ' ''\n" in start


def test_the_start_script_writes_header_lines_and_refusals(tmp_path: Path) -> None:
    """The script's header-writing function, run by a real shell on hostile and missing values."""
    _, files = _compose(tmp_path)
    start = files["egress/inject.sh"].decode()
    begin = start.index("inject() {")
    function = start[begin : start.index("\n}\n", begin) + 3]
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "GOOD").write_text("tok-123_ABC.~\n")
    (secrets / "SPACE").write_text("a b")
    (secrets / "QUOTE").write_text('a"b')
    (secrets / "PERCENT").write_text("a%b")
    (secrets / "CRLF").write_bytes(b"crlf-tok\r\n")  # as a Windows editor saves it
    (secrets / "TWO_LINES").write_bytes(b"tok\n\n")  # one line ending is dropped, not every one
    (secrets / "BARE_CR").write_bytes(b"tok\r")
    script = function.replace("/run/secrets/", f"{secrets}/") + (
        'conf="$1"; export LC_ALL=C; : > "$conf"\n'
        "inject GOOD 0 'h:443' 'Authorization' 'Bearer ' '!'\n"
        "inject MISSING 1 'm:443' 'x-key' '' ''\n"
        "inject CRLF 3 'c:443' 'x-key' '' ''\n"
        "inject \"$2\" 2 'b:443' 'x-key' '' ''\n"
    )
    conf = tmp_path / "inject.conf"
    ok = subprocess.run(["sh", "-c", script, "sh", str(conf), "GOOD"], capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stderr
    assert conf.read_text() == (
        'request_header_add Authorization "Bearer tok-123_ABC.~!" inject_0\n'
        "http_access deny inject_1_tls reason_secret_missing\n"
        'request_header_add x-key "crlf-tok" inject_3\n'
        'request_header_add x-key "tok-123_ABC.~" inject_2\n'
    )
    assert "secret MISSING is missing: requests to m:443 are refused" in ok.stderr
    for bad in ("SPACE", "QUOTE", "PERCENT", "TWO_LINES", "BARE_CR"):
        done = subprocess.run(["sh", "-c", script, "sh", str(conf), bad], capture_output=True, text=True, check=False)
        assert done.returncode == 78 and "a header cannot carry" in done.stderr, (bad, done)
        assert bad.lower() not in conf.read_text().lower()


def test_the_start_script_says_why_it_cannot_make_the_authority(tmp_path: Path) -> None:
    """Run where its tmpfs is missing (a read-only root), it stops with a message, not silently."""
    _, files = _compose(tmp_path)
    start = files["egress/inject.sh"].decode()
    begin = start.index("make_authority() {")
    function = start[begin : start.index("\n}\n", begin) + 3]
    script = f"set -eu\nkit=e2e\ndir={tmp_path}/not-mounted/sandkit-egress\n{function}make_authority\n"
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 1, done
    assert f"cannot make the authority in {tmp_path}/not-mounted/sandkit-egress: it must be a tmpfs" in done.stderr


@pytest.mark.parametrize("kit", ["", "Upper", "-leading", "a b", "a;touch x", "$(id)"])
def test_the_start_script_refuses_a_kit_name_of_another_shape(tmp_path: Path, kit: str) -> None:
    """The shared image takes the kit's name (the authority's) from SANDKIT_KIT_NAME; anything but a kit
    name stops the proxy before it makes anything."""
    _, files = _compose(tmp_path)
    start = files["egress/inject.sh"].decode()
    checked = start[: start.index("# A fresh authority at every start")]
    environment = {"PATH": os.environ["PATH"], "SANDKIT_KIT_NAME": kit}
    done = subprocess.run(["sh", "-c", checked], capture_output=True, text=True, check=False, env=environment)
    assert done.returncode == 1 and "SANDKIT_KIT_NAME must be the kit's name" in done.stderr, done
    environment["SANDKIT_KIT_NAME"] = "a-kit-0"
    done = subprocess.run(["sh", "-c", checked], capture_output=True, text=True, check=False, env=environment)
    assert done.returncode == 0, done


def test_the_start_script_passes_shellcheck(tmp_path: Path) -> None:
    _, files = _compose(tmp_path)
    checker = shutil.which("shellcheck")
    assert checker, "shellcheck is not installed (apt-get install shellcheck)"
    done = subprocess.run(
        [checker, "--shell=sh", "--severity=warning", "-"], input=files["egress/inject.sh"], capture_output=True
    )
    assert done.returncode == 0, done.stdout.decode()


def test_kubernetes_gives_the_proxy_pod_the_secret_and_the_agent_pod_the_authority(tmp_path: Path) -> None:
    """The same egress/ image and squid.conf as compose; the injected keys reach the proxy pod alone, the
    authority, made once per Deployment by a Job whose identity alone may write it, reaches squid's
    container as a Secret and the agent pods, its certificate alone, as a ConfigMap
    (tests/compiler/test_kubernetes_docker.py plays all of it in the real engine)."""
    kit = INJECTING.replace("{egress: EGRESS}", "{allow: [api.github.com, github.com]}") + GH_INJECTION
    (tmp_path / "kit.yaml").write_text(kit, encoding="utf-8")
    (tmp_path / "corp.pem").write_bytes(b"-----BEGIN CERTIFICATE-----\nY29ycA==\n-----END CERTIFICATE-----\n")
    with in_folder(tmp_path):
        alone = compile_kit(Path("kit.yaml"), Path("alone"), ["kubernetes"])
        every = compile_kit(Path("kit.yaml"), Path("every"), list(NAMES))
    assert all(every.files[name] == data for name, data in alone.files.items() if name.startswith("egress/"))
    docs = {
        (d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(alone.files["kubernetes/egress-proxy.yaml"])
    }
    squid = docs["ConfigMap", "injecting-egress"]["data"]["squid.conf"]
    assert squid.encode() == alone.files["egress/squid.conf"] and "ssl-bump" in squid
    assert docs["Role", "injecting-egress-authority"]["rules"] == [
        {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["injecting-egress-authority"],
         "verbs": ["get", "patch"]},
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["injecting-egress-ca"], "verbs": ["patch"]},
    ]  # fmt: skip
    # Both created empty: the Job writes them, and `kubectl apply` leaves what it never set alone.
    assert "data" not in docs["ConfigMap", "injecting-egress-ca"]
    assert "data" not in docs["Secret", "injecting-egress-authority"]
    assert docs["ServiceAccount", "injecting-egress-authority"]["automountServiceAccountToken"] is False
    (job_name,) = [name for kind, name in docs if kind == "Job"]
    maker = docs["Job", job_name]["spec"]["template"]["spec"]
    assert (
        maker["serviceAccountName"] == "injecting-egress-authority" and maker["automountServiceAccountToken"] is False
    )
    (init,) = maker["containers"]
    assert init["command"] == ["/usr/local/bin/sandkit-egress-start", "authority"]
    deployment = docs["Deployment", "injecting-egress"]
    assert "strategy" not in deployment["spec"]  # a rolling update: every pod serves the one authority
    proxy = deployment["spec"]["template"]["spec"]
    assert proxy["serviceAccountName"] == "injecting" and proxy["automountServiceAccountToken"] is False
    assert "initContainers" not in proxy  # the proxy pod makes nothing at its start
    (squid_container,) = proxy["containers"]
    assert squid_container["command"] == [
        "/usr/local/bin/sandkit-record",
        "--stdout",
        "/usr/local/bin/sandkit-egress-start",
        "serve",
    ]
    assert "api-token" in {m["name"] for m in init["volumeMounts"]}
    assert not any("projected" in v for v in proxy["volumes"])  # no token in the proxy pod
    secrets = {v["secret"]["secretName"]: v["secret"] for v in proxy["volumes"] if "secret" in v}
    keys = [item["key"] for item in secrets["injecting-secrets"]["items"]]
    assert keys == ["ANTHROPIC_API_KEY", "GH_TOKEN"]  # never PLAIN_TOKEN
    stored = secrets["injecting-egress-authority"]
    assert [item["key"] for item in stored["items"]] == ["ca.key", "ca.pem"] and stored["optional"] is False
    job = yaml.safe_load(alone.files["kubernetes/job.yaml"])["spec"]["template"]["spec"]
    assert "injecting-egress-authority" not in json.dumps(job)  # the agent pod never names the key's Secret
    (agent,) = job["containers"]
    env = {e["name"]: e for e in agent["env"]}
    assert env["ANTHROPIC_API_KEY"] == {"name": "ANTHROPIC_API_KEY", "value": "sandkit-injected-by-egress-proxy"}
    assert "GH_TOKEN" not in env and "PLAIN_TOKEN" not in env  # the one not injected: a file of the agent's alone
    (files,) = [v["secret"] for v in job["volumes"] if v["name"] == "agent-secrets"]
    assert [item["key"] for item in files["items"]] == ["PLAIN_TOKEN"]
    assert env["NODE_EXTRA_CA_CERTS"]["value"] == "/tmp/sandkit-ca-certificates.crt"
    (ca_volume,) = [v for v in job["volumes"] if v["name"] == "egress-ca"]
    assert ca_volume["configMap"]["name"] == "injecting-egress-ca" and ca_volume["configMap"]["optional"] is False
    assert {"name": "egress-ca", "mountPath": "/run/sandkit-proxy-ca", "readOnly": True} in agent["volumeMounts"]
    assert not any(v.get("emptyDir", {}).get("medium") == "Memory" for v in job["volumes"])
    assert every.fidelity["secrets.inject"]["kubernetes"].level == "enforced"


def test_kubernetes_with_cilium_has_no_proxy_to_inject(tmp_path: Path) -> None:
    kit = INJECTING.replace("{egress: EGRESS}", "{allow: [api.anthropic.com]}")
    kit += "targets: {kubernetes: {egress: cilium}}\n"
    (tmp_path / "kit.yaml").write_text(kit, encoding="utf-8")
    with in_folder(tmp_path):
        out = compile_kit(Path("kit.yaml"), Path("out"), ["kubernetes"])
    row = out.fidelity["secrets.inject"]["kubernetes"]
    assert (row.level, row.reason) == (
        "unsupported",
        "with egress cilium there is no proxy to inject: the agent receives ANTHROPIC_API_KEY",
    )
    job = yaml.safe_load(out.files["kubernetes/job.yaml"])["spec"]["template"]["spec"]
    (files,) = [v["secret"] for v in job["volumes"] if v["name"] == "agent-secrets"]
    assert "ANTHROPIC_API_KEY" in [item["key"] for item in files["items"]]  # the agent's own file


def test_the_actions_agent_step_passes_each_proxy_variable_whole(tmp_path: Path) -> None:
    """With two injected secrets the list of their names holds a space; the agent step's own script must
    still hand `docker run` one `--env NAME=value` per variable, never a bare word (a bare `--env B` would
    copy the runner's B into the agent). Runs the step's own reading loop in bash on the generated value."""
    kit = INJECTING.replace("{egress: EGRESS}", "{allow: [api.github.com, github.com]}") + GH_INJECTION
    (tmp_path / "kit.yaml").write_text(kit, encoding="utf-8")
    (tmp_path / "corp.pem").write_bytes(b"-----BEGIN CERTIFICATE-----\nY29ycA==\n-----END CERTIFICATE-----\n")
    with in_folder(tmp_path):
        out = compile_kit(Path("kit.yaml"), Path("out"), ["actions"])
    (workflow,) = (data for name, data in out.files.items() if name.startswith("workflows/") and name.endswith(".yml"))
    steps = [s for job in yaml.safe_load(workflow)["jobs"].values() for s in job.get("steps", [])]
    agent = next(s for s in steps if "SANDKIT_PROXY_ENV" in s.get("env", {}) and s["env"]["SANDKIT_PROXY_ENV"])
    script = agent["run"]
    start = script.index("# One NAME=value a line")
    loop = script[start : script.index('<<< "$SANDKIT_PROXY_ENV"', start) + len('<<< "$SANDKIT_PROXY_ENV"')]
    shown = subprocess.run(
        ["bash", "-c", f"args=()\n{loop}\nprintf '%s\\n' \"${{args[@]}}\""],
        env={"SANDKIT_PROXY_ENV": agent["env"]["SANDKIT_PROXY_ENV"], "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    flags, values = shown[0::2], shown[1::2]
    assert set(flags) == {"--env"} and all("=" in v for v in values), shown
    assert dict(v.split("=", 1) for v in values)["SANDKIT_PROXY_INJECTS"] == "ANTHROPIC_API_KEY GH_TOKEN"
