"""Helm chart templates: directives masked so the YAML around them is checked with exact lines,
values.yaml defaults resolved for .Values paths, branches that are off by default dropped, and a
template that still does not parse reported at info severity, not as a broken file."""

from __future__ import annotations

import pytest

from sandkit.lint.model import Finding
from sandkit.lint.syntax.helm import _condition, flow, mask_template
from tests.lint.helpers import at, lint_files

CHART = {"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"}
POD = """\
apiVersion: {{ include "common.capabilities.deployment.apiVersion" . }}
kind: Deployment
metadata:
  name: {{ include "c.fullname" . }}
  labels: {{- include "common.labels.standard" . | nindent 4 }}
    app.kubernetes.io/component: c
spec:
  template:
    spec:
      {{- if .Values.debug.enabled }}
      hostPID: true
      {{- end }}
      containers:
        - name: c
          securityContext: {{- toYaml .Values.securityContext | nindent 12 }}
"""


def lint_chart(values: str, template: str = POD) -> list[Finding]:
    return lint_files({**CHART, "chart/values.yaml": values, "chart/templates/deployment.yaml": template})


def test_values_defaults_reach_the_template_with_its_lines() -> None:
    findings = lint_chart("securityContext:\n  privileged: true\n  runAsUser: 0\ndebug: {enabled: true}\n")
    assert at(findings, "PV001") == [(15, 41)]  # inside the directive that brings it
    assert at(findings, "PV002") == [(11, 16)]
    assert not [f for f in findings if f.rule == "SK001"]


def test_branches_off_by_default_and_safe_values_stay_quiet() -> None:
    findings = lint_chart("securityContext:\n  privileged: false\ndebug:\n  enabled: false\n")
    assert not [f for f in findings if f.category in ("privileged", "parse-error")]


def test_a_template_that_does_not_parse_is_info_not_a_broken_file() -> None:
    broken = (
        "apiVersion: v1\nkind: ConfigMap\ndata:\n{{ range $k, $v := .Values.x }}\n"
        + "  {{ $k }}: [{{ $v }}\n" * 20  # past what the masking may blank (one such line is read around)
        + "{{ end }}\n"
    )
    (finding,) = lint_chart("x: {a: b}\n", broken)
    assert (finding.rule, finding.severity) == ("SK001", "info")
    assert "Helm template is not YAML once its directives are masked" in finding.message


def test_templates_outside_a_chart_are_plain_yaml() -> None:
    findings = lint_files({"templates/x.yaml": "apiVersion: v1\nkind: Pod\nspec: {{ .Values.x }\n"})
    assert [(f.rule, f.severity) for f in findings] == [("SK001", "medium")]


@pytest.mark.parametrize(
    "template",
    [
        POD,
        "{{- /*\nlicence\n*/}}\na: {{ .Values.a | quote }}\n{{- if .Values.b }}\nb: 1\n{{- else }}\nb: 2\n{{- end }}\n",
    ],
)
def test_masking_keeps_every_line(template: str) -> None:
    assert mask_template(template, {"a": "x"}).count("\n") == template.count("\n")


def test_flow_style_is_one_line_of_yaml() -> None:
    assert flow({"a": [1, True, None], "b c": "x: y"}) == '{a: [1, true, null], "b c": "x: y"}'
    # bitnami/rabbitmq's `logs: "-"` (log to standard output) wrote `value: -`, a list item
    assert [flow(v) for v in ("-", "a:", "@x", "?", "-v", "a:b")] == ['"-"', '"a:"', '"@x"', '"?"', "-v", "a:b"]


VALUES = {"psp": {"create": False}, "on": True, "arch": "replication", "metrics": {"enabled": True, "sm": {}}}


@pytest.mark.parametrize(
    ("body", "truth"),
    [
        (' if and (include "common.capabilities.psp.supported" .) .Values.psp.create .Values.rbac.create ', False),
        (" if and .Values.metrics.enabled .Values.metrics.sm.enabled ", False),
        (" if and .Values.metrics.enabled (not .Values.metrics.sm.enabled) ", True),
        (' if or .Values.on (include "x" .) ', True),
        (' if and (eq .Values.arch "replication") .Values.sentinel.enabled ', False),
        (' if ne .Values.arch "standalone" ', True),
        (" else if not .Values.on ", False),
        (" with .Values.podSecurityContext ", False),  # missing is false, as in Helm
        (' if and .Values.on (include "x" .) ', None),  # what is left decides
        (" if .Values.on | default true ", None),  # pipelines are not evaluated
        (" if $.Values.on ", None),
        (" if " + "(" * 100, None),
    ],
)
def test_conditions_values_yaml_settles(body: str, truth: bool | None) -> None:
    assert _condition(body, VALUES) is truth


def test_a_resource_behind_a_default_off_and_is_not_reported() -> None:
    """bitnami/metallb: a PodSecurityPolicy with hostNetwork and privileged, created only with
    psp.create (false by default): it was reported as a pod on the host network."""
    psp = (
        '{{- if and (include "common.capabilities.psp.supported" .) .Values.psp.create -}}\n'
        "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: x\n"
        "spec:\n  hostNetwork: true\n  privileged: true\n{{- end }}\n"
    )
    assert not lint_chart("psp:\n  create: false\n", psp)
    assert {f.rule for f in lint_chart("psp:\n  create: true\n", psp)} >= {"PV002"}


def test_an_unsettled_template_value_under_a_secret_name_is_no_literal() -> None:
    """bitnami's ``ALLOW_EMPTY_PASSWORD: {{ ternary "yes" "no" .Values.allowEmptyPassword | quote }}``
    masked to a placeholder was PS002 in eleven charts."""
    template = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n    - name: c\n"
        "      env:\n        - name: ALLOW_EMPTY_PASSWORD\n"
        '          value: {{ ternary "yes" "no" .Values.allowEmptyPassword | quote }}\n'
    )
    assert not [f for f in lint_chart("allowEmptyPassword: true\n", template) if f.rule == "PS002"]


def test_a_variable_assignment_renders_nothing() -> None:
    """bitnami/etcd and airflow: ``{{- $replicaCount := int .Values.replicaCount }}`` under
    ``containers:`` was read as the value of the key above it (SK001, the pod not checked)."""
    template = (
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n"
        "      containers:\n        {{- $replicaCount := int .Values.replicaCount }}\n"
        '        {{- $name = include "x" . }}\n'
        "        - name: c\n          securityContext: {privileged: true}\n"
    )
    findings = lint_chart("replicaCount: 1\n", template)
    assert [(f.rule, f.line) for f in findings] == [("PV001", 12)]


NETPOL = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "c.fullname" . }}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
    - to:
        - ipBlock:
            cidr: {{ .Values.egress.cidr | default "0.0.0.0/0" | quote }}
"""


@pytest.mark.parametrize(
    "values",
    [
        'egress:\n  cidr: ""\n',  # empty: Helm's default takes over
        "egress:\n  cidr:\n",  # null
        "egress: {}\n",  # missing
        "other: 1\n",  # no such mapping at all
    ],
)
def test_a_default_renders_where_values_yaml_leaves_the_value_empty(values: str) -> None:
    findings = lint_chart(values, NETPOL)
    assert at(findings, "EG002") == [(11, 19)]


@pytest.mark.parametrize("values", ["egress:\n  cidr: 10.0.0.0/8\n", "egress:\n  cidr: 192.168.0.0/16\n"])
def test_a_value_values_yaml_gives_overrides_the_default(values: str) -> None:
    assert at(lint_chart(values, NETPOL), "EG002") == []


def test_go_template_default_treats_false_and_zero_as_empty() -> None:
    # sprig's default replaces false: `{{ .Values.privileged | default true }}` renders true.
    template = POD.replace(
        "securityContext: {{- toYaml .Values.securityContext | nindent 12 }}",
        "securityContext:\n            privileged: {{ .Values.privileged | default true }}",
    )
    assert at(lint_chart("privileged: false\ndebug: {enabled: false}\n", template), "PV001") == [(16, 25)]
    # without a default, false stays false
    plain = template.replace(" | default true", "")
    assert at(lint_chart("privileged: false\ndebug: {enabled: false}\n", plain), "PV001") == []
    assert at(lint_chart("privileged: true\ndebug: {enabled: false}\n", plain), "PV001") == [(16, 25)]
