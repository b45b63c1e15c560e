"""EG001-EG004: open egress, wildcard allowlists, agents on the host network, IP entries."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_text

KIT = "apiVersion: sandkit/v1\nkind: Kit\nname: a\nnetwork:\n  egress: {egress}\n  allow: {allow}\n"


def kit(egress: str = "allowlist", allow: str = "[]") -> str:
    return KIT.format(egress=egress, allow=allow)


def test_open_egress() -> None:
    assert at(lint_text("kits/a.yaml", kit("open")), "EG001") == [(5, 11)]
    assert at(lint_text("kits/a.yaml", kit("none")), "EG001") == []
    policy = (
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: agent}\n"
        "spec:\n  podSelector: {matchLabels: {app: claude-code}}\n  policyTypes: [Egress]\n  egress:\n    - {}\n"
    )
    assert at(lint_text("np.yaml", policy), "EG001") == [(8, 7)]


@pytest.mark.parametrize(
    ("entry", "bad"),
    [
        ('"*"', True),
        ('"*.*"', True),
        ('"*.com"', True),
        ('"api.*.com"', True),
        ("0.0.0.0/0", True),
        ('"*:443"', True),
        ('"*.github.com"', False),
        ("github.com:443", False),
        ('"*.githubusercontent.com"', False),
    ],
)
def test_wildcards(entry: str, bad: bool) -> None:
    found = at(lint_text("kits/a.yaml", kit(allow=f"[{entry}]")), "EG002")
    assert bool(found) == bad


@pytest.mark.parametrize(
    ("entry", "hits"),
    [
        ("10.0.0.0/8", 1),
        ("192.168.1.10", 1),
        ("127.0.0.1:5432", 1),
        ("203.0.113.7", 1),
        ('"[::1]:8080"', 1),
        ("api.example.com", 0),
        ("169.254.169.254", 0),
        ("0.0.0.0/0", 0),
        ("v1.2.3.example.com", 0),
    ],
)
def test_ip_entries(entry: str, hits: int) -> None:
    assert len(at(lint_text("kits/a.yaml", kit(allow=f"[{entry}]")), "EG004")) == hits


@pytest.mark.parametrize(
    ("name", "text", "hits"),
    [
        ("compose.yaml", "services:\n  aider:\n    image: paulgauthier/aider\n    network_mode: host\n", 1),
        ("run.sh", "docker run --net=host ghcr.io/openhands/openhands:0.9\n", 1),
        (
            "k8s.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: codex}\nspec:\n  hostNetwork: true\n"
            "  containers: [{name: codex, image: acme/codex-runner:1}]\n",
            1,
        ),
        ("compose.yaml", "services:\n  web:\n    image: nginx\n    network_mode: host\n", 0),
        ("compose.yaml", "services:\n  claude:\n    image: acme/claude-code\n    network_mode: bridge\n", 0),
    ],
)
def test_agent_on_host_network(name: str, text: str, hits: int) -> None:
    assert len(at(lint_text(name, text), "EG003")) == hits


def test_open_egress_of_other_workloads_is_not_reported() -> None:
    policy = (
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {{name: {name}}}\n"
        "spec:\n  podSelector: {{}}\n  egress:\n    - {{}}\n"
    )
    assert at(lint_text("k8s/np.yaml", policy.format(name="postgres")), "EG001") == []
    (agent,) = [f for f in lint_text("k8s/np.yaml", policy.format(name="claude-code")) if f.rule == "EG001"]
    assert agent.severity == "high"


POLICY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: {name}}}
spec:
  podSelector: {{matchLabels: {{app: {name}}}}}
  policyTypes: [Egress]
  egress:
    - to:
        - ipBlock:
            cidr: {cidr}
            except: [10.0.0.0/8, 169.254.0.0/16]
{ports}"""
PORTS = "      ports:\n        - {protocol: TCP, port: 443}\n        - {protocol: TCP, port: 80}\n"


@pytest.mark.parametrize("cidr", ["0.0.0.0/0", "::/0"])
@pytest.mark.parametrize(
    ("name", "severity"),
    [("claude-code-runner", "high"), ("codex-worker", "high"), ("payments-api", "info"), ("crate-builder", "info")],
)
def test_an_internet_rule_is_high_for_an_agent_and_info_for_other_workloads(
    cidr: str, name: str, severity: str
) -> None:
    (finding,) = [
        f for f in lint_text("k8s/np.yaml", POLICY.format(name=name, cidr=cidr, ports="")) if f.rule == "EG002"
    ]
    assert (finding.line, finding.severity) == (10, severity)
    assert "on 443" not in finding.message


def test_the_message_names_the_ports_a_rule_is_limited_to() -> None:
    text = POLICY.format(name="claude-code", cidr="0.0.0.0/0", ports=PORTS)
    (finding,) = [f for f in lint_text("k8s/np.yaml", text) if f.rule == "EG002"]
    assert finding.message.endswith("excepted ranges, on 443/TCP, 80/TCP")
    assert finding.severity == "high"  # a port limit does not keep an agent from sending anything anywhere


def test_a_narrow_block_is_no_finding_for_anyone() -> None:
    text = POLICY.format(name="claude-code", cidr="203.0.113.0/24", ports=PORTS)
    assert [f for f in lint_text("k8s/np.yaml", text) if f.rule == "EG002"] == []
