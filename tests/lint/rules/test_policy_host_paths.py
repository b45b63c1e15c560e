"""A PodSecurityPolicy that lets pods mount the runtime socket (issue 33, eighth set's misses):
its `allowedHostPaths` prefixes, or any host path when it allows hostPath volumes and lists none."""

from __future__ import annotations

import pytest

from sandkit.lint.model import Finding
from tests.lint.helpers import lint_text

_POLICY = """apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata:
  name: agents
spec:
  privileged: false
  volumes:
{volumes}
{paths}
"""


def _lint(volumes: list[str], paths: str = "") -> list[Finding]:
    listed = "\n".join(f"    - '{v}'" for v in volumes)
    return [
        f for f in lint_text("psp.yaml", _POLICY.format(volumes=listed, paths=paths)) if f.rule.startswith(("RS", "HC"))
    ]


@pytest.mark.parametrize(
    ("volumes", "paths", "says"),
    [
        (["*"], "", "any host path"),
        (["configMap", "hostPath"], "", "any host path"),
        (["hostPath"], "  allowedHostPaths: []", "any host path"),
        (["hostPath"], "  allowedHostPaths:\n    - pathPrefix: /var/run\n      readOnly: true", "/var/run, a folder"),
        (["*"], "  allowedHostPaths:\n    - pathPrefix: /var/log\n    - pathPrefix: /run", "/run, a folder"),
        (["hostPath"], "  allowedHostPaths:\n    - pathPrefix: /var/run/docker.sock", "the container runtime socket"),
    ],
)
def test_a_policy_that_admits_the_socket_is_high(volumes: list[str], paths: str, says: str) -> None:
    found = _lint(volumes, paths)
    assert [(f.rule, f.severity) for f in found] == [("RS001", "high")], found
    assert says in found[0].message and "lets pods mount" in found[0].message


@pytest.mark.parametrize(
    ("volumes", "paths"),
    [
        (["configMap", "secret", "emptyDir"], ""),  # no host paths at all
        (["configMap", "secret"], "  allowedHostPaths:\n    - pathPrefix: /"),  # prefixes without hostPath volumes
        (["hostPath"], "  allowedHostPaths:\n    - pathPrefix: /var/log\n    - pathPrefix: /proc"),
        (["hostPath"], "  allowedHostPaths:\n    - pathPrefix: /home"),  # HC001 is for pods, not policies
    ],
)
def test_a_policy_that_keeps_pods_off_the_socket_is_not_reported(volumes: list[str], paths: str) -> None:
    assert _lint(volumes, paths) == []


def test_a_pod_mounting_the_socket_is_graded_as_before() -> None:
    """A workload that names no agent is info (grading.py); a policy is not lowered: it admits
    the pods of every workload, agents' among them."""
    pod = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: busybox}]
  volumes:
    - name: s
      hostPath: {path: /var/run/docker.sock}
"""
    assert [(f.rule, f.severity) for f in lint_text("pod.yaml", pod) if f.rule == "RS001"] == [("RS001", "info")]
