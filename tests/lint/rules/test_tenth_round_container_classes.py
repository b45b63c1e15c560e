"""Issue 33, tenth round: the container classes of the tenth development sweep and the listed gaps.

A captcha widget's site key is public (IS001 and every name-based secret check); MicroK8s's and
k0s's runtime sockets, engine state and administrator credentials are where their projects put
them (RS001, RS003, HC001)."""

from __future__ import annotations

import pytest

from sandkit.credentials import is_secret_key
from tests.lint.helpers import at, lint_files, lint_text


def _compose(source: str) -> str:
    return f'services:\n  a:\n    image: registry.example.com/a:1\n    volumes: ["{source}:/mnt"]\n'


def _pod(source: str) -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "    - {name: c, image: registry.example.com/c:1, volumeMounts: [{name: v, mountPath: /v}]}\n"
        f"  volumes:\n    - {{name: v, hostPath: {{path: {source}}}}}\n"
    )


# cpcwood/home-server (.docker/dockerfiles/base.Dockerfile): ARG GRECAPTCHA_SITE_KEY, compiled into
# the page by its Stimulus controller; the secret is GRECAPTCHA_SITE_SECRET.
@pytest.mark.parametrize(
    "name", ["GRECAPTCHA_SITE_KEY", "RECAPTCHA_SITEKEY", "HCAPTCHA_SITE_KEY", "TURNSTILE_SITE_KEY", "recaptchaSiteKey"]
)
def test_a_captcha_site_key_is_public(name: str) -> None:
    assert not is_secret_key(name)
    text = f'FROM ruby:3\nARG {name}=""\nENV {name}=6Lc_example_site_key_value_0000000000\n'
    assert at(lint_text("Dockerfile", text), "IS001") == []


@pytest.mark.parametrize(
    "name", ["GRECAPTCHA_SITE_SECRET", "RECAPTCHA_SECRET_KEY", "HCAPTCHA_SECRET", "SITE_API_KEY", "SITE_TOKEN"]
)
def test_a_captcha_secret_and_other_site_credentials_stay(name: str) -> None:
    assert is_secret_key(name)
    text = f"FROM ruby:3\nARG {name}\n"
    assert at(lint_text("Dockerfile", text), "IS001") == [(2, 5)]


@pytest.mark.parametrize(
    "source",
    [
        "/var/snap/microk8s/common/run/containerd.sock",
        "/var/snap/microk8s/common/run",
        "/run/k0s/containerd.sock",
        "/run/k0s",
    ],
)
def test_microk8s_and_k0s_runtime_sockets(source: str) -> None:
    """Their bundled containerd listens at its own address: the socket, or the folder that holds it."""
    assert at(lint_text("compose.yaml", _compose(source)), "RS001") == [(4, 15)]
    assert len([f for f in lint_text("k8s/pod.yaml", _pod(source)) if f.rule == "RS001"]) == 1


@pytest.mark.parametrize(
    "source",
    ["/var/snap/microk8s/common/addons", "/var/snap/microk8s/current/args", "/run/k0s-other", "/var/lib/k0s/bin"],
)
def test_microk8s_and_k0s_other_folders_hold_no_socket(source: str) -> None:
    assert at(lint_text("compose.yaml", _compose(source)), "RS001") == []


@pytest.mark.parametrize("source", ["/var/lib/k0s/containerd", "/run/k0s/containerd", "/var/lib/k0s/containerd/io"])
def test_k0s_engine_state(source: str) -> None:
    assert at(lint_text("compose.yaml", _compose(source)), "RS003") == [(4, 15)]


@pytest.mark.parametrize(
    "source",
    [
        "/var/lib/k0s/pki",
        "/var/lib/k0s/pki/admin.conf",
        "/var/lib/k0s/pki/ca.key",
        "/var/snap/microk8s/current/credentials",
        "/var/snap/microk8s/current/credentials/client.config",
        "/var/snap/microk8s/current/certs",
        "/var/snap/microk8s/current/certs/ca.key",
    ],
)
def test_k0s_and_microk8s_admin_credentials(source: str) -> None:
    """A container given one is the cluster's administrator; a workload that names no agent is info."""
    assert at(lint_text("compose.yaml", _compose(source)), "HC001") == [(4, 15)]
    assert [f.severity for f in lint_text("k8s/pod.yaml", _pod(source)) if f.rule == "HC001"] == ["info"]


@pytest.mark.parametrize(
    "source",
    [
        "/var/lib/k0s",
        "/var/lib/k0s/pki/ca.crt",
        "/var/lib/k0s/manifests",
        "/var/snap/microk8s/current/certs/ca.crt",
        "/var/snap/microk8s/current/args",
        "/var/snap/microk8s",
    ],
)
def test_their_other_files_are_not_cluster_credentials(source: str) -> None:
    """A parent holds them only on a cluster's node; certificates are public; args and manifests hold none."""
    assert at(lint_text("compose.yaml", _compose(source)), "HC001") == []


# FabienD/docker-stack (collection/tools/docker-compose.yml.dist): its documentation says to copy
# each `.dist` file to `docker-compose.yml` to use the service.
@pytest.mark.parametrize(
    "name",
    ["docker-compose.yml.dist", "compose.yaml.dist", "stack/docker-compose.override.yml.dist", "compose.dev.yml.dist"],
)
def test_a_compose_file_kept_under_a_dist_name_is_read_as_compose(name: str) -> None:
    text = 'services:\n  ui:\n    image: registry.example.com/ui:1\n    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]\n'
    assert at(lint_text(name, text), "RS001") == [(4, 15)]
    assert at(lint_text(name, "services:\n  ui:\n    image: registry.example.com/ui:1\n"), "RS001") == []


@pytest.mark.parametrize("name", ["parameters.yml.dist", "config/packages/app.yaml.dist", "phpunit.xml.dist"])
def test_other_dist_files_are_not_read_as_compose(name: str) -> None:
    """A framework's distributed parameters hold stand-ins by design; only Compose names are read."""
    text = 'services:\n  ui:\n    image: registry.example.com/ui:1\n    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]\n'
    assert at(lint_text(name, text), "RS001") == []


# takara9/k8s-manifests (rook-ceph/ceph/csi/template/rbd/csi-rbdplugin.yaml): Rook's operator renders
# `{{ .KubeletDirPath }}/pods`, the kubelet's pods folder wherever the kubelet's root is.
_OPERATOR_TEMPLATE = """apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: csi}}
spec:
  template:
    spec:
      containers:
        - name: plugin
          image: registry.example.com/csi:1
          volumeMounts:
            - {{name: pods, mountPath: /pods}}
{{{{ if .EnableMetrics }}}}
            - {{name: extra, mountPath: /extra}}
{{{{ end }}}}
      volumes:
        - name: pods
          hostPath:
            path: "{path}"
"""


@pytest.mark.parametrize(
    "path",
    [
        "{{ .KubeletDirPath }}/pods",
        "{{- .KubeletDirPath -}}/pods",
        "{{ .Values.csi.kubeletDirPath }}/pods",
        "{{ .KubeletRootDir }}/pods/abc",
        "{{ .kubelet_dir }}/pki",
    ],
)
def test_a_template_field_that_names_the_kubelet_root(path: str) -> None:
    text = _OPERATOR_TEMPLATE.format(path=path)
    found = [f for f in lint_text("deploy/csi/template/plugin.yaml", text) if f.rule == "RS003"]
    assert [(f.line, f.severity) for f in found] == [(18, "info")]
    assert "/var/lib/kubelet/p" in found[0].message


@pytest.mark.parametrize(
    "path",
    [
        "{{ .DataDirHostPath }}/pods",
        "{{ .KubeletDirPath }}/plugins",
        "{{ .KubeletDirPathSuffix }}/pods",
        "/opt/{{ .KubeletDirPath }}/pods",
        "{{ .Values.kubeletDir | default '/var/lib/k0s/kubelet' }}/pods",
    ],
)
def test_other_template_fields_are_not_the_kubelet_root(path: str) -> None:
    """Another field, the kubelet's plugin folders, a field under another folder and a default
    that says where the kubelet is are read as written."""
    text = _OPERATOR_TEMPLATE.format(path=path)
    assert at(lint_text("deploy/csi/template/plugin.yaml", text), "RS003") == []


def test_a_chart_value_that_sets_the_kubelet_root_is_read_as_set() -> None:
    chart = {
        "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
        "chart/values.yaml": "csi:\n  kubeletDirPath: /var/lib/kubelet\n",
        "chart/templates/ds.yaml": _OPERATOR_TEMPLATE.format(path="{{ .Values.csi.kubeletDirPath }}/pods"),
    }
    found = [f for f in lint_files(chart) if f.rule == "RS003"]
    assert [(f.line, f.severity) for f in found] == [(18, "info")]
