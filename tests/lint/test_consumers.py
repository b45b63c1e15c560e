"""Consumer profiles: values read as Compose (compose-go) and Kubernetes (sigs.k8s.io/yaml) read them.

Each case here was checked against the real consumer (``docker compose config``, the Go oracle of
tests/lint/oracles); the disagreements tests/lint/test_consumer_oracles.py found are among them.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sandkit.lint.consumers.compose import interpolate, to_boolean
from sandkit.lint.consumers.kubernetes import resolve_plain
from tests.lint.helpers import lint_files, lint_tree, write_tree

ISSUE_SPELLINGS = """\
services:
  a: {image: alpine, privileged: yes}
  b: {image: alpine, privileged: "true"}
  c:
    image: alpine
    privileged: ${PRIV:-true}
"""


def _hits(findings: list, rule: str) -> list[str]:
    return sorted(f"{f.path}:{f.line} {f.message}" for f in findings if f.rule == rule)


def test_the_issue_spellings_are_privileged() -> None:
    hits = _hits(lint_files({"compose.yaml": ISSUE_SPELLINGS}), "PV001")
    assert len(hits) == 3, hits
    assert 'compose.yaml:6 service "c" runs privileged (set by the default of ${PRIV}, unset in .env' in hits[2]


def test_an_unquoted_variable_in_a_flow_mapping_is_not_yaml() -> None:
    """``{privileged: ${PRIV:-true}}``: ``{`` ends the plain scalar; compose refuses the file too."""
    findings = lint_files({"compose.yaml": "services:\n  c: {image: alpine, privileged: ${PRIV:-true}}\n"})
    assert [f.rule for f in findings] == ["SK001"]


@pytest.mark.parametrize("word", ["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE", "yEs", "oN"])
@pytest.mark.parametrize("quote", ["", '"', "'"])
def test_every_boolean_compose_go_casts_to_true(word: str, quote: str) -> None:
    text = f"services:\n  s:\n    image: alpine\n    privileged: {quote}{word}{quote}\n"
    assert len(_hits(lint_files({"compose.yaml": text}), "PV001")) == 1


@pytest.mark.parametrize("word", ["n", "no", "Off", "FALSE", "false", "'nope'", "1", "${UNSET}", '"$${X}"'])
def test_what_compose_go_does_not_read_as_true(word: str) -> None:
    text = f"services:\n  s:\n    image: alpine\n    privileged: {word}\n"
    assert not _hits(lint_files({"compose.yaml": text}), "PV001")


def test_the_env_file_decides_a_value_the_file_does_not_spell() -> None:
    """The compose file says neither "host" nor a capability nor a socket (the rules' trigger
    words come from the .env too)."""
    compose = """\
services:
  s:
    image: alpine
    network_mode: ${NM}
    cap_add: ["${CAP}"]
    volumes: ["${SOCK}:/x", "${A:-${B}}:/y"]
"""
    env = "NM=host\nCAP=SYS_ADMIN\nSOCK=/var/run/docker.sock\nB=/run/containerd/containerd.sock\n"
    findings = lint_files({"deploy/compose.yaml": compose, "deploy/.env": env})
    assert len(_hits(findings, "PV002")) == 1
    assert "${NM} from the .env file" in _hits(findings, "PV002")[0]
    assert len(_hits(findings, "PV003")) == 1
    # the nested default whose inner variable the .env sets was missed until the oracle found it
    assert sorted(h.split(" mounts ")[1].split(" (")[0] for h in _hits(findings, "RS001")) == [
        "the container runtime socket ${A:-/run/containerd/containerd.sock}",
        "the container runtime socket /var/run/docker.sock",
    ]
    assert not lint_files({"deploy/compose.yaml": compose})  # without the .env nothing is decided


@pytest.mark.parametrize(
    ("value", "env", "host"),
    [
        ("${NM-host}", "NM=\n", False),  # set, empty: "-" keeps the empty value
        ("${NM:-host}", "NM=\n", True),  # set, empty: ":-" takes the default
        ("${NM:+host}", "NM=x\n", True),
        ("${NM+host}", "", False),
        ("${NM:?set it}", "NM=host\n", True),
        ("$${NM}", "NM=host\n", False),  # an escaped dollar is text
        ("${NM}", "NM=${OTHER}\nOTHER=host\n", False),  # .env lines see earlier ones only
        ("${NM}", "OTHER=host\nNM=${OTHER}\n", True),
        ("${NM}", "NM='${OTHER}'\nOTHER=host\n", False),
    ],
)
def test_interpolation_forms(value: str, env: str, host: bool) -> None:
    compose = f'services:\n  s:\n    image: alpine\n    network_mode: "{value}"\n'
    findings = lint_files({"compose.yaml": compose, ".env": env})
    assert bool(_hits(findings, "PV002")) is host


def test_interpolate_keeps_what_only_the_shell_decides() -> None:
    assert interpolate("${HOME}/.ssh", {}, defaults=False) == ("${HOME}/.ssh", ())
    assert interpolate("${X:?needed}", {}) == ("${X:?needed}", ())
    assert interpolate("${X:?needed}", {"X": ""}) is None  # compose refuses the file
    assert interpolate("${X:0:2}", {"X": "ab"}) is None
    assert interpolate("a $ b $1", {}) == ("a $ b $1", ())
    assert to_boolean("oFf") is False and to_boolean("2") is None


def test_merge_keys_and_extends(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "app/compose.yaml": """\
x-priv: &priv {privileged: "on"}
services:
  base:
    <<: *priv
    image: alpine
  child:
    extends: base
    image: alpine
  unprivileged:
    extends: {service: base}
    privileged: false
  remote:
    extends: {file: ../common/base-services.yml, service: hosty}
  outside:
    extends: {file: ../../outside.yml, service: hosty}
""",
            "common/base-services.yml": "services:\n  hosty:\n    image: alpine\n    pid: host\n",
        },
    )
    (tmp_path.parent / "outside.yml").write_text("services:\n  hosty:\n    image: alpine\n    pid: host\n")
    findings = lint_tree(tmp_path)
    assert [h.split(":", 1)[1] for h in _hits(findings, "PV001")] == [
        '1 service "base" runs privileged',
        '7 service "child" runs privileged (inherited through extends from service "base" (line 3))',
    ]
    pv002 = [hit for hit in _hits(findings, "PV002") if hit.startswith("app/")]
    assert len(pv002) == 1, pv002  # the file outside the scanned root is not read
    assert 'inherited through extends from service "hosty" (common/base-services.yml:2)' in pv002[0]


def test_include_reads_files_not_scanned_as_compose() -> None:
    """An included file that is a Compose file by name or content is reported where it is; one
    that is not (here: flow style, so no line starts with ``services:``) at the include."""
    files = {
        "compose.yaml": "include:\n  - parts/agent.yml\n  - path: [parts/hidden.yml]\nservices:\n  web: {image: nginx}\n",
        "parts/agent.yml": "services:\n  agent:\n    image: alpine\n    privileged: yes\n",
        "parts/hidden.yml": "{services: {agent2: {image: alpine, privileged: yes}}}\n",
    }
    hits = _hits(lint_files(files), "PV001")
    assert hits == [
        'compose.yaml:3 service "agent2" runs privileged (in parts/hidden.yml:1, which this file includes)',
        'parts/agent.yml:4 service "agent" runs privileged',
    ]


def test_duplicate_keys_name_both_lines_and_the_last_is_judged() -> None:
    compose = "services:\n  a:\n    image: alpine\n    privileged: false\n    privileged: true\n"
    findings = lint_files({"compose.yaml": compose})
    assert _hits(findings, "SK001") == [
        'compose.yaml:5 key "privileged" is written twice in one mapping (lines 4 and 5): docker compose refuses '
        "the file; the rules judged the value of line 5"
    ]
    assert len(_hits(findings, "PV001")) == 1
    pod = "apiVersion: v1\nkind: Pod\nspec:\n  hostPID: true\n  hostPID: false\n  containers: [{name: c, image: a}]\n"
    findings = lint_files({"pod.yaml": pod})
    assert "lines 4 and 5" in _hits(findings, "SK001")[0]
    assert not _hits(findings, "PV002")
    merged = "x: &x {privileged: true}\nservices:\n  a: {<<: *x, image: alpine, privileged: false}\n"
    assert not _hits(lint_files({"compose.yaml": merged}), "SK001")  # a merge key is overridden, not repeated


WORKLOADS = {
    "Pod": ("v1", ["spec"]),
    "Deployment": ("apps/v1", ["spec", "template", "spec"]),
    "StatefulSet": ("apps/v1", ["spec", "template", "spec"]),
    "DaemonSet": ("apps/v1", ["spec", "template", "spec"]),
    "ReplicaSet": ("apps/v1", ["spec", "template", "spec"]),
    "Job": ("batch/v1", ["spec", "template", "spec"]),
    "CronJob": ("batch/v1", ["spec", "jobTemplate", "spec", "template", "spec"]),
}


@pytest.mark.parametrize("kind", list(WORKLOADS))
def test_yaml_1_1_booleans_in_every_workload_kind(kind: str) -> None:
    api, path = WORKLOADS[kind]
    lines = [f"apiVersion: {api}", f"kind: {kind}", "metadata: {name: w}"]
    for depth, part in enumerate(path):
        lines.append("  " * depth + f"{part}:")
    pad = "  " * len(path)
    lines += [
        f"{pad}hostNetwork: on",
        f"{pad}hostPID: yes",
        f"{pad}containers:",
        f"{pad}  - name: c",
        f"{pad}    image: alpine",
        f"{pad}    securityContext: {{privileged: Y, allowPrivilegeEscalation: On}}",
    ]
    findings = lint_files({"manifest.yaml": "\n".join(lines) + "\n"})
    assert len(_hits(findings, "PV001")) == 1
    assert len(_hits(findings, "PV002")) == 2
    assert len(_hits(findings, "PV005")) == 1


def test_a_quoted_boolean_is_a_string_to_kubernetes() -> None:
    """The API server refuses ``privileged: "true"`` (a string for a boolean field): nothing runs."""
    pod = (
        'apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: c, image: a, securityContext: {privileged: "yes"}}]\n'
    )
    assert not _hits(lint_files({"pod.yaml": pod}), "PV001")


def test_kustomize_patches_are_typed_as_kubernetes_types_them() -> None:
    kustomization = """\
resources: [deployment.yaml]
patches:
  - target: {kind: Deployment, name: app}
    patch: |
      - op: add
        path: /spec/template/spec/hostNetwork
        value: yes
"""
    findings = lint_files({"kustomization.yaml": kustomization})
    assert len(_hits(findings, "PV002")) == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("y", True),
        ("NO", False),
        ("off", False),
        ("~", None),
        ("0x1F", 31),
        ("017", 15),
        ("0o17", 15),
        ("0b101", 5),
        ("1_000", 1000),
        ("-12", -12),
        ("1.5", 1.5),
        ("1e3", 1000.0),
        (".inf", math.inf),
        ("yes please", "yes please"),
        ("0x", "0x"),
        ("08", 8.0),  # not octal, so Go's ParseInt refuses it; go-yaml v2's float pattern takes it
    ],
)
def test_go_yaml_v2_plain_scalars(text: str, value: object) -> None:
    assert resolve_plain(text) == value


@pytest.mark.parametrize(
    ("files", "privileged"),
    [
        # the Dev Containers CLI tests privileged as JavaScript does: any non-empty string is true
        ({".devcontainer/devcontainer.json": '{"image": "alpine", "privileged": "false"}'}, True),
        ({".devcontainer/devcontainer.json": '{"image": "alpine", "privileged": 1}'}, True),
        ({".devcontainer/devcontainer.json": '{"image": "alpine", "privileged": ""}'}, False),
        # docker's flags are read by strconv.ParseBool; a value it refuses stops the command
        ({"run.sh": "docker run --privileged=t alpine\n"}, True),
        ({"run.sh": "docker run --privileged=F alpine\n"}, False),
        ({"run.sh": "docker run --privileged=yes alpine\n"}, False),
        ({"run.sh": "docker run --privileged alpine\n"}, True),
        # Ansible: PyYAML's YAML 1.1 and its boolean() for options of type bool
        ({"play.yml": "- hosts: all\n  tasks:\n    - docker_container: {name: a, image: b, privileged: yes}\n"}, True),
        ({"play.yml": "- hosts: all\n  tasks:\n    - docker_container: {name: a, image: b, privileged: 'On'}\n"}, True),
        (
            {"play.yml": "- hosts: all\n  tasks:\n    - docker_container: {name: a, image: b, privileged: 'no'}\n"},
            False,
        ),
        # Nomad and Terraform: cty converts the string "true"
        (
            {
                "job.nomad": 'job "j" {\n  group "g" {\n    task "t" {\n      driver = "docker"\n'
                '      config {\n        image = "a"\n        privileged = "true"\n      }\n    }\n  }\n}\n'
            },
            True,
        ),
        ({"main.tf": 'resource "docker_container" "c" {\n  image = "a"\n  privileged = "true"\n}\n'}, True),
        # a GitLab runner's TOML decoder refuses a string for a boolean: the runner does not start
        ({"config.toml": '[[runners]]\n  executor = "docker"\n  [runners.docker]\n    privileged = "true"\n'}, False),
        ({"config.toml": '[[runners]]\n  executor = "docker"\n  [runners.docker]\n    privileged = true\n'}, True),
    ],
)
def test_other_consumers_booleans(files: dict[str, str], privileged: bool) -> None:
    assert bool(_hits(lint_files(files), "PV001")) is privileged


@pytest.mark.parametrize(
    ("value", "env"),
    [
        ("${DH:-tcp://10.0.0.5:2375}", ""),
        ("${DH}", "DH=tcp://10.0.0.5:2375\n"),
        ("$DH", "DH=unix:///var/run/docker.sock\n"),
    ],
)
def test_docker_host_decided_by_a_variable(value: str, env: str) -> None:
    compose = f'services:\n  s:\n    image: alpine\n    environment:\n      DOCKER_HOST: "{value}"\n'
    assert len(_hits(lint_files({"compose.yaml": compose, ".env": env}), "RS002")) == 1
