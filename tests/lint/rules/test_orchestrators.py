"""Container rules over orchestrator and infrastructure files: Tekton, Argo, kustomize patches.

Each case is shaped like the project's own examples (tektoncd/catalog, argo-workflows/examples,
kustomize/examples), with a look-alike that must stay quiet next to it.
"""

from __future__ import annotations

import pytest

from sandkit.lint.kinds import kind_by_content, kind_by_name
from tests.lint.helpers import at, lint_text, rules_of

TEKTON_PIPELINE = """apiVersion: tekton.dev/v1
kind: Pipeline
metadata: {name: build}
spec:
  tasks:
    - name: build
      taskSpec:
        stepTemplate:
          securityContext: {privileged: true}
        steps:
          - name: build
            image: docker:24
            script: docker run -v /var/run/docker.sock:/s img
"""


def test_tekton_pipeline_task_spec_step_template_and_script() -> None:
    findings = lint_text("tekton/pipeline.yaml", TEKTON_PIPELINE)
    assert at(findings, "PV001") == [(9, 41)]
    assert at(findings, "RS001") == [(13, 35)]


def test_tekton_step_without_risk_is_quiet() -> None:
    quiet = TEKTON_PIPELINE.replace("{privileged: true}", "{runAsNonRoot: true}").replace(
        "docker run -v /var/run/docker.sock:/s img", "docker build -t x ."
    )
    assert rules_of(lint_text("tekton/pipeline.yaml", quiet)) == set()


ARGO = """apiVersion: argoproj.io/v1alpha1
kind: WorkflowTemplate
metadata: {name: t}
spec:
  templates:
    - name: main
      steps:
        - - name: a
            template: run
    - name: run
      containerSet:
        containers:
          - name: c
            image: alpine
            securityContext: {capabilities: {add: [SYS_ADMIN]}}
      initContainers:
        - name: i
          image: alpine
          securityContext: {privileged: true}
"""


def test_argo_container_sets_init_containers_and_nested_steps() -> None:
    findings = lint_text("argo/t.yaml", ARGO)
    assert at(findings, "PV003") == [(15, 52)]
    assert at(findings, "PV001") == [(19, 41)]


def test_argo_pod_spec_patch_with_a_template_expression_is_not_a_parse_error() -> None:
    text = ARGO.replace("    - name: run\n", "    - name: run\n      podSpecPatch: '{{inputs.parameters.patch}}'\n")
    assert "SK001" not in rules_of(lint_text("argo/t.yaml", text))


KUSTOMIZATION = """resources: [../base]
patches:
  - path: patch.yaml
  - target: {kind: Deployment, name: a}
    patch: |-
      - op: {op}
        path: /spec/template/spec/hostNetwork
        value: true
"""


@pytest.mark.parametrize(("op", "hits"), [("add", [(8, 16)]), ("replace", [(8, 16)]), ("test", []), ("remove", [])])
def test_kustomize_json_6902_operations(op: str, hits: list[tuple[int, int]]) -> None:
    text = KUSTOMIZATION.replace("{op}", op)
    assert at(lint_text("overlay/kustomization.yaml", text), "PV002") == hits


def test_kustomize_patch_files_and_names_only() -> None:
    assert (
        rules_of(lint_text("overlay/kustomization.yaml", "resources: [../base]\npatches: [{path: p.yaml}]\n")) == set()
    )
    patch = "- op: add\n  path: /spec/template/spec/volumes/-\n  value: {name: s, hostPath: {path: /run/docker.sock}}\n"
    assert at(lint_text("overlay/sock-patch.yaml", patch), "RS001") == [(3, 37)]
    removal = "- op: remove\n  path: /spec/template/spec/volumes/0\n"
    assert rules_of(lint_text("overlay/patch.yaml", removal)) == set()


@pytest.mark.parametrize(
    ("path", "head", "kind"),
    [
        ("p.yaml", "# a patch\n- op: add\n  path: /x\n", "json-patch"),
        ("p.json", '[\n  {"op": "add", "path": "/x", "value": 1}\n]\n', "json-patch"),
        ("list.yaml", "- name: a\n  op: add\n", "yaml"),
        ("data.json", '[{"name": "op"}]\n', "json"),
        ("kustomization.yml", "resources: []\n", "kustomization"),
        ("Kustomization", "resources: []\n", "kustomization"),
    ],
)
def test_kinds_of_patch_files(path: str, head: str, kind: str) -> None:
    assert kind_by_content(kind_by_name(path), head).kind == kind


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("main.tf", 'provider "docker" {\n  host = "unix:///var/run/docker.sock"\n}\n'),
        ("main.tf", 'provider "docker" {\n  host = var.docker_host\n}\n'),
        (
            "main.tf",
            'resource "docker_container" "a" {\n  image = "x"\n  volumes {\n    host_path = var.path\n  }\n}\n',
        ),
        (
            "main.tf",
            'resource "local_file" "a" {\n  content  = "privileged = true"\n  filename = "/var/run/docker.sock"\n}\n',
        ),
        (
            "jobs/a.nomad",
            'job "a" {\n  group "g" {\n    task "t" {\n      driver = "exec"\n      config { command = "/bin/x" }\n    }\n  }\n}\n',
        ),
        (
            "jobs/a.nomad",
            'job "a" {\n  group "g" {\n    task "t" {\n      driver = "docker"\n      config {\n        image = "x"\n        volumes = ["local/a:/var/run/docker.sock"]\n      }\n    }\n  }\n}\n',
        ),
        ("packer.pkr.hcl", 'source "docker" "a" {\n  image = "x"\n  privileged = true\n}\n'),
    ],
)
def test_infrastructure_look_alikes_are_quiet(name: str, text: str) -> None:
    assert rules_of(lint_text(name, text)) == set()


def test_nomad_job_in_a_plain_hcl_file_and_terraform_json() -> None:
    job = 'job "a" {\n  group "g" {\n    task "t" {\n      driver = "raw_exec"\n    }\n  }\n}\n'
    assert at(lint_text("deploy/a.hcl", job), "PV001") == [(4, 16)]
    tf_json = '{"resource": {"docker_container": {"a": {"image": "x", "privileged": true}}}}'
    assert at(lint_text("main.tf.json", tf_json), "PV001") == [(1, 70)]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("lib/Module.pod", "=head1 NAME\n\nVolume=/var/run/docker.sock:/s\n\n=cut\n"),
        ("deploy/app.service", "[Service]\nExecStart=/usr/local/bin/app --privileged-port 80\n"),
        ("deploy/app.container", "[Container]\nImage=nginx\nNoNewPrivileges=true\nVolume=app-data:/data\n"),
        ("deploy/app.container", "[Container]\nImage=nginx\nSecurityLabelDisable=false\nAddCapability=CHOWN\n"),
        ("ansible/site.yml", "- hosts: all\n  tasks:\n    - ansible.builtin.command: docker ps\n"),
        ("ansible/vars.yml", "docker_container_privileged: true\nsocket: /var/run/docker.sock\n"),
        (".testcontainers.properties", "docker.host=unix:///var/run/docker.sock\nryuk.container.privileged=false\n"),
    ],
)
def test_unit_ansible_and_testcontainers_look_alikes_are_quiet(name: str, text: str) -> None:
    assert rules_of(lint_text(name, text)) == set()


def test_quadlet_continuation_and_specifiers_are_located() -> None:
    unit = "[Container]\nImage=x\nPodmanArgs=--rm \\\n  --volume=%h/.kube:/k\n"
    assert at(lint_text("agent.container", unit), "HC001") == [(4, 12)]
    perl = "=head1 Pod\n"
    assert kind_by_content(kind_by_name("x.pod"), perl).kind == "text"
    assert kind_by_content(kind_by_name("x.pod"), "[Pod]\nNetwork=host\n").kind == "systemd-unit"


def test_ansible_is_told_by_its_modules_even_far_into_the_file() -> None:
    filler = "".join(f"- name: step {n}\n  ansible.builtin.debug: {{msg: hi}}\n" for n in range(200))
    late = filler + "- community.docker.docker_container: {name: a, image: x, privileged: true}\n"
    assert len(late) > 4096
    assert rules_of(lint_text("roles/a/tasks/main.yml", late)) == {"PV001"}
