"""Properties of the policy comparison, over generated kits.

- Reordering a kit's set-like lists, or spelling ``host`` as ``host:443``, is no policy change.
- Two kits get changes exactly when their policies differ: nothing that differs goes unreported
  (a difference no rule describes is ``other-change``), and nothing equal is reported.
- Every change names a kind from the risk table, and narrowing kinds are ``info``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandkit.kits.loader import LoadedKit
from sandkit.kits.model import Kit
from sandkit.review.changes import added_kit_baseline, compare
from sandkit.review.policy import Policy, policy_of
from sandkit.review.risks import RISKS

HOSTS = st.sampled_from(["a.example.com", "b.example.com", "*.c.example.com", "b.example.com:22"])
SECRETS = st.sampled_from(["API_TOKEN", "DEPLOY_KEY", "NPM_TOKEN"])
EVENTS = st.sampled_from(["push", "pull_request", "issues", "issue_comment"])
COMMANDS = st.sampled_from(["echo hi", "curl -fsSL https://x.example.com/i.sh | sh", "pip install rich", "make"])

KIT_DICTS = st.fixed_dictionaries(
    {
        "egress": st.sampled_from(["allowlist", "none", "open"]),
        "allow": st.lists(HOSTS, unique=True, max_size=3),
        "deny": st.lists(HOSTS, unique=True, max_size=1),
        "secrets": st.lists(st.tuples(SECRETS, st.booleans(), st.booleans()), unique_by=lambda s: s[0], max_size=2),
        "events": st.lists(st.tuples(EVENTS, st.lists(st.sampled_from(["opened", "edited"]), unique=True)), max_size=2),
        "install": st.lists(COMMANDS, unique=True, max_size=2),
        "startup": st.lists(COMMANDS, unique=True, max_size=2),
        "read_only_root": st.booleans(),
        "runtime": st.sampled_from(["default", "gvisor", "kata"]),
        "timeout": st.sampled_from(["30m", "1h", "2h"]),
        "memory": st.sampled_from(["1Gi", "1024Mi", "4Gi"]),
        "permissions": st.dictionaries(st.sampled_from(["contents", "issues"]), st.just("read")),
        "workdir": st.sampled_from(["/workspace", "/src"]),
        "command": st.sampled_from([["agent"], ["agent", "--yolo"], ["claude", "--dangerously-skip-permissions"]]),
        "npm": st.lists(st.sampled_from(["left-pad@1.3.0", "left-pad", "chalk@5.3.0"]), max_size=2),
        "home_file": st.sampled_from([None, "/home/agent/.bashrc", "/home/agent/notes.txt"]),
    }
)


def _kit(spec: dict[str, Any], *, reorder: bool = False) -> dict[str, Any]:
    order = (lambda xs: list(reversed(xs))) if reorder else list
    port = (lambda h: h if ":" in h else f"{h}:443") if reorder else (lambda h: h)
    comment = {"command": "/go", "author_associations": ["NONE"], "acknowledge_risk": True}
    triggers = [
        {"github": {"event": e, "types": order(t), **(comment if e == "issue_comment" else {})}}
        for e, t in spec["events"]
    ]
    return {
        "apiVersion": "sandkit/v1",
        "name": "prop",
        "image": {"workdir": spec["workdir"], "packages": {"npm": spec["npm"]}},
        "install": order(spec["install"]),
        "startup": order(spec["startup"]),
        "secrets": order([{"name": n, "build": b, "required": r} for n, b, r in spec["secrets"]]),
        "network": {"egress": spec["egress"], "allow": order([port(h) for h in spec["allow"]]), "deny": spec["deny"]},
        "agent": {"command": spec["command"]},
        "files": [{"path": spec["home_file"], "content": "x"}] if spec["home_file"] else [],
        "workspace": {"mode": "none"},
        "resources": {"timeout": spec["timeout"], "memory": spec["memory"]},
        "isolation": {"read_only_root": spec["read_only_root"], "runtime": spec["runtime"]},
        "triggers": order(triggers),
        "targets": {"actions": {"permissions": spec["permissions"]}},
    }


def _policy(data: dict[str, Any]) -> Policy:
    kit = Kit.model_validate(data)
    return policy_of(LoadedKit(kit=kit, path=Path("prop.yaml"), display="prop.yaml", sha256=""))


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(KIT_DICTS)
def test_reordering_and_default_ports_are_no_policy_change(spec: dict[str, Any]) -> None:
    assert compare(_policy(_kit(spec)), _policy(_kit(spec, reorder=True))) == []


@SETTINGS
@given(KIT_DICTS, KIT_DICTS)
def test_changes_are_reported_exactly_when_policies_differ(first: dict[str, Any], second: dict[str, Any]) -> None:
    a, b = _policy(_kit(first)), _policy(_kit(second))
    changes = compare(a, b)
    assert bool(changes) == (a != b)
    for change in changes:
        risk = RISKS[change.kind]
        assert risk.direction != "narrows" or risk.level == "info"
        assert change.message().count("{}") == 0


@SETTINGS
@given(KIT_DICTS)
def test_a_new_kit_lists_every_grant(spec: dict[str, Any]) -> None:
    policy = _policy(_kit(spec))
    changes = compare(added_kit_baseline(policy), policy)
    kinds = {c.kind for c in changes}
    if policy.egress == "open":
        assert "egress-opened" in kinds
    for secret in policy.runtime_secrets():  # alone, or in one line with the host of its service
        said = [c for c in changes if secret in c.values]
        assert {c.kind for c in said} & {"secret-added", "secret-with-its-service-added", "injected-secret-added"}
    if policy.triggered_by_untrusted() and (policy.runtime_secrets() or policy.write_scopes()):
        together = (
            "untrusted-trigger-with-open-egress" if policy.egress == "open" else "untrusted-trigger-with-credentials"
        )
        assert together in kinds and RISKS[together].level == "critical"
    assert not any(k.endswith("-removed") for k in kinds)  # an empty kit had nothing to remove
