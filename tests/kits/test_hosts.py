"""One meaning for a wildcard host: ``*.example.com`` is exactly one label, for the model's check of
workspace.repo, the plan, squid, Cilium's check and harden-runner's endpoint list alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sandkit.compiler.command import compile_kit
from sandkit.compiler.plan import Destination
from sandkit.compiler.proxy import squid_match
from sandkit.compiler.targets import actions
from sandkit.kits.hosts import host_matches, wildcard_regex
from tests.kits.helpers import MINIMAL, errors, write

labels = st.from_regex(r"[a-z0-9_-]{1,8}", fullmatch=True)
hosts = st.lists(labels, min_size=1, max_size=4).map(".".join)

CLONE = """\
apiVersion: sandkit/v1
name: demo
agent: {{command: [agent]}}
network: {{allow: ["*.example.com"]}}
workspace: {{mode: clone, repo: "https://{host}/app.git"}}
"""


@given(label=labels, depth=st.lists(labels, max_size=2), domain=hosts)
@example(label="a", depth=["b"], domain="example.com")
def test_a_wildcard_covers_exactly_one_label(label: str, depth: list[str], domain: str) -> None:
    host = ".".join([label, *depth, domain])
    assert host_matches(f"*.{domain}", host) == (not depth)
    assert not host_matches(f"*.{domain}", domain), "a wildcard never covers its own domain"


@given(pattern=st.one_of(hosts, hosts.map(lambda h: f"*.{h}")), host=hosts)
@example(pattern="*.example.com", host="a.b.example.com")
@example(pattern="*.example.com", host="A.Example.com")
def test_the_squid_regex_gives_the_same_answers(pattern: str, host: str) -> None:
    regex = re.compile(wildcard_regex(pattern), re.IGNORECASE)
    assert (regex.fullmatch(host) is not None) == host_matches(pattern, host)


def test_squid_acl_uses_the_shared_regex() -> None:
    assert squid_match(Destination("*.example.com", 443)) == r"dstdom_regex -n -i ^[a-z0-9_-]+\.example\.com$"
    assert squid_match(Destination("api.example.com", 443)) == "dstdomain -n api.example.com"


def test_a_clone_from_two_labels_deep_is_refused_by_validation(tmp_path: Path) -> None:
    assert errors(tmp_path, CLONE.format(host="git.example.com")) == []
    assert errors(tmp_path, CLONE.format(host="a.b.example.com")) == [
        "5:32: workspace.repo: the clone of workspace.repo needs a.b.example.com:443, which is not in `network.allow`"
    ]


def test_plan_deny_covers_one_label_only() -> None:
    deny = Destination("*.example.com", 443)
    assert deny.covers(Destination("a.example.com", 443))
    assert not deny.covers(Destination("a.b.example.com", 443))
    assert not deny.covers(Destination("*.b.example.com", 443)), "a deeper wildcard is a different set of names"
    assert not deny.covers(Destination("a.example.com", 80))


def test_a_deeper_allow_survives_a_shallower_deny(tmp_path: Path) -> None:
    kit = write(
        tmp_path,
        """\
        apiVersion: sandkit/v1
        name: demo
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {allow: ["*.b.example.com", "x.example.com"], deny: ["*.example.com"]}
        """,
    )
    result = compile_kit(kit, tmp_path / "out", ["docker", "compose", "kubernetes", "actions"])
    assert [str(d) for d in result.plan.allow] == ["*.b.example.com:443"]
    squid = result.files["egress/squid.conf"].decode()
    assert r"^[a-z0-9_-]+\.b\.example\.com$" in squid and "x.example.com" not in squid.split("network.allow")[1]


def test_harden_runner_lists_a_job_endpoint_two_labels_below_an_allowed_wildcard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job's own endpoints are left out only where an allow entry covers them (one label)."""
    monkeypatch.setattr(actions, "JOB_ENDPOINTS", ((Destination("a.b.example.com", 443), "a test endpoint"),))
    for allow, listed in (("*.example.com", True), ("*.b.example.com", False)):
        kit = write(tmp_path, MINIMAL + f'workspace: {{mode: none}}\nnetwork: {{allow: ["{allow}"]}}\n')
        plan = compile_kit(kit, tmp_path / "out", ["docker", "compose", "actions"]).plan
        assert ("a.b.example.com:443" in actions.allowed_endpoints(plan)) == listed, allow
