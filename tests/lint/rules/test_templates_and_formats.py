"""Compose and Kubernetes files written as templates (Jinja, mustache, Go templates) and
Kubernetes manifests written as JSON are read like their plain YAML forms; cluster-client
credential folders are credentials."""

from __future__ import annotations

import json

import pytest

from sandkit.lint.kinds import kind_by_name
from tests.lint.helpers import at, lint_text

JINJA = """\
services:
  agent:
    image: {{ image }}
{% if mount_socket %}
    volumes:
      - /var/run/docker.sock:/var/run/docker.sock
{% endif %}
{# the daemon is needed for builds #}
    privileged: {{ privileged | default(true) }}
"""


@pytest.mark.parametrize(
    ("name", "kind"),
    [("docker-compose.yml.j2", "compose"), ("compose.yaml.mustache", "compose"), ("k8s/pod.yaml.gotmpl", "yaml")],
)
def test_template_extensions_keep_the_kind_of_the_file_they_render(name: str, kind: str) -> None:
    assert kind_by_name(name) == (kind, "template")


def test_a_jinja_compose_template_is_checked_with_its_lines() -> None:
    findings = lint_text("docker-compose.yml.j2", JINJA)
    assert at(findings, "RS001") == [(6, 9)]
    assert at(findings, "PV001") == [(9, 17)]
    assert not [f for f in findings if f.rule == "SK001"]


def test_mustache_sections_and_go_templates() -> None:
    mustache = (
        "services:\n  app:\n    image: {{image}}\n{{#socket}}\n    volumes: ['/var/run/docker.sock:/s']\n{{/socket}}\n"
    )
    assert at(lint_text("compose.yaml.mustache", mustache), "RS001") == [(5, 15)]
    pod = "apiVersion: v1\nkind: Pod\nspec:\n  hostNetwork: {{ .HostNet }}\n  containers:\n  - name: a\n    securityContext: {privileged: true}\n"
    assert at(lint_text("k8s/pod.yaml.gotmpl", pod), "PV001") == [(7, 35)]


def test_kubernetes_manifests_in_json() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "hostPID": True,
            "containers": [{"name": "c", "image": "x"}],
            "volumes": [{"name": "m", "hostPath": {"path": "/home/me/.minikube"}}],
        },
    }
    findings = lint_text("deploy/pod.json", json.dumps(pod, indent=2))
    assert at(findings, "PV002") == [(8, 16)]
    assert [(f.severity, f.message.split(" (")[0]) for f in findings if f.rule == "HC001"] == [
        ("info", "pod of Pod/p mounts /home/me/.minikube: ~/.minikube")  # a pod that names no agent: info
    ]
    assert not lint_text("package.json", '{"name": "x", "kind": "Pod", "hostPID": true}')


@pytest.mark.parametrize(
    "folder", ["~/.minikube", "$HOME/.talos", "${HOME}/.docker/machine", "~/.oci", "~/.config/helm"]
)
def test_cluster_client_credential_folders(folder: str) -> None:
    assert at(lint_text("run.sh", f"docker run -v {folder}:/creds img\n"), "HC001") == [(1, 15)]
