"""A secret the egress proxy injects (secrets[].inject), seen from both sides in the real engine:
the injection host receives the header with the real value, and nothing else does; the agent holds
a placeholder, and no trace of the value or of the proxy's authority key is anywhere in its
container; without the secret the proxy refuses the host instead of sending the request bare."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.helpers import API, INJECT_HEADER, INJECT_PLACEHOLDER, MEMORY_AND_FILES_PROBE, WEB, Project, run

pytestmark = pytest.mark.docker

CURL = "curl -sS -m 10 -w '\\nconnect=%{http_connect} status=%{http_code}\\n'"


def _status(output: str) -> tuple[str, str]:
    match = re.search(r"connect=(\d+) status=(\d+)", output)
    assert match, output
    return match.group(1), match.group(2)


def _arrived(output: str, header: str) -> list[str]:
    """The values of ``header`` that the outside server says it received."""
    prefix = f"header {header}: "
    return [line[len(prefix) :] for line in output.splitlines() if line.startswith(prefix)]


def test_the_injection_host_gets_the_real_value_whatever_the_agent_sends(
    net_project: Project, secret_values: dict[str, str]
) -> None:
    value = secret_values["E2E_INJECT_TOKEN"]
    script = f"""
    printf 'variable=%s\\n' "$E2E_INJECT_TOKEN"
    {CURL} https://{API}:8443/headers
    {CURL} -H '{INJECT_HEADER}: chosen-by-the-agent' https://{API}:8443/headers-with-own
    {CURL} -v -o /dev/null https://{API}:8443/issuer 2>&1 | grep -i "issuer:"  # the status line is filtered out
    env -u CURL_CA_BUNDLE -u SSL_CERT_FILE {CURL} -o /dev/null https://{API}:8443/through-the-system-store
    echo "store=$(readlink /etc/ssl/certs/ca-certificates.crt) node=$NODE_EXTRA_CA_CERTS requests=$REQUESTS_CA_BUNDLE"
    """
    result = net_project.agent(script)
    assert f"variable={INJECT_PLACEHOLDER}\n" in result.stdout, (
        f"the agent's variable is not the placeholder:\n{result}"
    )
    assert _arrived(result.stdout, INJECT_HEADER) == [f"Key {value}", f"Key {value}"], (
        f"the injection host did not get exactly the proxy's header on both requests:\n{result}"
    )
    assert "chosen-by-the-agent" not in result.stdout, "the agent's own header reached the injection host"
    assert "CN=sandkit egress" in result.stdout, f"TLS to the injection host was not the proxy's:\n{result}"
    assert result.stdout.count("status=200") == 3, f"a client did not trust the proxy's authority:\n{result}"
    bundle = "/tmp/sandkit-ca-certificates.crt"
    assert f"store={bundle} node={bundle} requests={bundle}\n" in result.stdout, result
    log = net_project.log_with("egress", f"inject={INJECT_HEADER}@")
    logged = rf"method=GET host={re.escape(API)} port=8443 server=\S+ inject={INJECT_HEADER}@{re.escape(API)}:8443"
    assert re.search(logged, log), f"the decision log does not name the injection:\n{log}"
    assert "/headers" not in log, f"the decision log shows a request's path (host and port only):\n{log}"
    assert value not in log and value not in net_project.logs("web"), "the value is in a log"


def test_other_allowed_hosts_never_see_the_header_and_stay_spliced(
    net_project: Project, secret_values: dict[str, str]
) -> None:
    script = f"""
    {CURL} -v https://{WEB}:8443/headers 2>&1
    {CURL} http://{WEB}:8080/headers
    {CURL} http://{API}:8443/headers-in-plain-http
    """
    result = net_project.agent(script)
    assert result.stdout.count("status=200") == 2, result
    assert _arrived(result.stdout, "host") == [f"{WEB}:8443", f"{WEB}:8080"], result
    assert _arrived(result.stdout, INJECT_HEADER) == [], f"another host received the injected header:\n{result}"
    assert secret_values["E2E_INJECT_TOKEN"] not in result.stdout
    assert "CN=sandkit-e2e-ca" in result.stdout, f"{WEB}:8443 was not spliced (its own certificate):\n{result}"


def test_no_trace_of_the_value_or_the_authority_key_in_the_agents_container(
    net_project: Project, secret_values: dict[str, str]
) -> None:
    key = net_project.compose("exec", "-T", "egress", "cat", "/run/sandkit-egress/ca.key")
    assert "PRIVATE KEY" in key.stdout, f"the proxy holds no authority key:\n{key}"
    key_line = key.stdout.splitlines()[1]
    needles = [secret_values["E2E_INJECT_TOKEN"], key_line, INJECT_PLACEHOLDER]
    reversed_needles = "".join(n[::-1] + "\n" for n in needles)
    script = f"""
    ls -A /run/sandkit-proxy-ca; printf 'agent-ca=%s\\n' "$(sha256sum < /run/sandkit-proxy-ca/ca.pem)"
    touch /run/sandkit-proxy-ca/ca.pem 2>/dev/null || echo read-only-authority
    printf '%s' {_sh(reversed_needles)} | perl -e {_sh(MEMORY_AND_FILES_PROBE)}
    """
    result = net_project.agent(script, timeout=180)
    scanned = re.search(r"scanned processes=(\d+) regions=(\d+) bytes=(\d+) files=(\d+)", result.stdout)
    assert scanned, f"the probe did not finish:\n{result}"
    processes, regions, size, files = map(int, scanned.groups())
    assert processes >= 3 and regions > 20 and size > 1_000_000 and files > 1000, scanned.group(0)
    assert "found needle#2 in environ of" in result.stdout and "found needle#2 in memory of" in result.stdout, (
        f"the probe does not find the placeholder the agent does hold, so its silence proves nothing:\n{result}"
    )
    assert "needle#0" not in result.stdout, f"the injected secret's value is in the agent's container:\n{result}"
    assert "needle#1" not in result.stdout, f"the proxy's authority key is in the agent's container:\n{result}"
    assert result.stdout.splitlines()[0] == "ca.pem" and "read-only-authority" in result.stdout, result
    proxy_ca = net_project.compose("exec", "-T", "egress", "sha256sum", "/run/sandkit-egress/ca.pem").stdout.split()[0]
    assert f"agent-ca={proxy_ca}" in result.stdout, "the agent trusts another authority than the proxy's"


def test_the_authority_key_is_in_no_layer_of_the_proxy_image(net_project: Project) -> None:
    key = net_project.compose("exec", "-T", "egress", "cat", "/run/sandkit-egress/ca.key").stdout
    image = run(["docker", "inspect", "-f", "{{.Config.Image}}", _container(net_project, "egress")], check=True)
    saved = subprocess.run(
        ["docker", "save", image.stdout.strip()], capture_output=True, check=True, timeout=120
    ).stdout
    assert len(saved) > 10_000_000, "docker save of the proxy image looks empty"
    assert key.splitlines()[1].encode() not in saved, "the running proxy's authority key is in its image"
    listed = run(["docker", "run", "--rm", "--entrypoint", "ls", image.stdout.strip(), "-A", "/run/sandkit-egress"])
    assert listed.returncode == 0 and listed.stdout == "", f"the image holds files of the proxy's tmpfs:\n{listed}"


def test_without_its_secret_the_proxy_refuses_the_injection_host(
    net_project: Project, secret_values: dict[str, str], tmp_path: Path
) -> None:
    without = tmp_path / "without-inject.env"
    kept = [line for line in net_project.env_file.read_text().splitlines() if not line.startswith("E2E_INJECT_TOKEN")]
    without.write_text("\n".join(kept) + "\n")
    before = net_project.logs("web").count("/headers-without")
    try:
        up = net_project.compose("up", "-d", "--wait", "--force-recreate", "egress", env_file=without)
        assert up.returncode == 0, up
        result = net_project.agent(f"{CURL} https://{API}:8443/headers-without", env_file=without)
        assert _status(result.stdout)[0] == "403", f"the proxy opened the injection host without its secret:\n{result}"
        assert net_project.logs("web").count("/headers-without") == before, "the request reached the server bare"
        assert "secret E2E_INJECT_TOKEN is missing" in net_project.logs("egress"), "the refusal is not explained"
    finally:
        restored = net_project.compose("up", "-d", "--wait", "--force-recreate", "egress")
        assert restored.returncode == 0, restored


def test_the_image_started_with_another_entrypoint_trusts_no_authority(net_project: Project) -> None:
    """What the openhands target's secrets.inject row says: a runtime that replaces sandkit's entrypoint
    (OpenHands starts the image with its own) finds the image's CA store pointing at the bundle that
    entrypoint writes, so its HTTPS fails toward every host, the injection host's proxy included."""
    script = f"""
    if [ -e /etc/ssl/certs/ca-certificates.crt ]; then echo store=present; else echo store=dangling; fi
    {CURL} -o /dev/null https://{WEB}:8443/without-the-entrypoint 2>&1 || echo curl-failed
    {CURL} -o /dev/null https://{API}:8443/without-the-entrypoint 2>&1 || echo curl-failed
    """
    result = net_project.compose("run", "--rm", "-T", "--entrypoint", "sh", "agent", "-c", script)
    assert "store=dangling" in result.stdout and result.stdout.count("curl-failed") == 2, result
    assert "/without-the-entrypoint" not in net_project.logs("web"), "a request got through without trust"


def _container(project: Project, service: str) -> str:
    return project.compose("ps", "-q", service).stdout.strip()


def _sh(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
