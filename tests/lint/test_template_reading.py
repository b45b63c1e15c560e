"""Templates a renderer fills in before they parse: read with their directives masked (SK001 only
when even that fails, at info), and ``${VAR}`` placeholders a consumer expands in TOML and JSON."""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_text


def _rules(path: str, text: str) -> list[tuple[str, str]]:
    return [(f.rule, f.severity) for f in lint_text(path, text)]


JINJA_ROLE_BINDING = """---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ role_binding_name }}
roleRef:
  kind: {{ item.role_type }}
  name: {{ role_name }}
subjects:
{% for sa in service_accounts %}
  - kind: ServiceAccount
    name: {{ sa }}
{% endfor %}
"""

JINJA_TASKRUN = """---
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  generateName: {{ task_name }}-taskrun-
spec:
  params:
{% if use_vm %}
    - name: vmName
      value: {{ vm_name }}
{% endif %}
"""

GOMPLATE = """model_list:
{{ range .paid }}
  - model_name: "{{ . }}"
    litellm_params:
      model: "openrouter/{{ . }}"
{{ end }}
"""

PRIVILEGED_JINJA_POD = """apiVersion: v1
kind: Pod
metadata:
  name: {{ name }}
spec:
  containers:
{% for c in containers %}
    - name: {{ c.name }}
      image: {{ c.image }}
      securityContext:
        privileged: true
{% endfor %}
"""


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("templates/cleanup-vm/manifests/cleanup-vm-role-binding.yaml", JINJA_ROLE_BINDING),
        ("templates/cleanup-vm/examples/cleanup-vm-taskrun.yaml", JINJA_TASKRUN),
        ("litellm/templates/litellm-config.yaml", GOMPLATE),
        (
            "deploy/config.yml",
            GOMPLATE.replace("{{ range .paid }}", "{%- for m in paid %}").replace("{{ end }}", "{% endfor %}"),
        ),
    ],
)
def test_templates_named_like_yaml_are_read_once_masked(path: str, text: str) -> None:
    assert not [r for r in _rules(path, text) if r[0] == "SK001"]


def test_the_rules_still_read_what_a_masked_template_says() -> None:
    rules = _rules("roles/vm/templates/pod.yaml", PRIVILEGED_JINJA_POD)
    assert any(rule == "PV001" for rule, _ in rules) and not any(rule == "SK001" for rule, _ in rules)


def test_a_template_still_broken_once_masked_is_info() -> None:
    broken = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ name }}\n{% if x %}\n" + "spec: [a, b\n  - c: ]]\n" * 8
    findings = [f for f in lint_text("deploy/pod.yaml", broken) if f.rule == "SK001"]
    assert [f.severity for f in findings] == ["info"]
    assert "template" in findings[0].message


def test_broken_yaml_without_directives_stays_a_parse_error() -> None:
    assert ("SK001", "medium") in _rules("compose.yaml", "services:\n  web: [\n    image: x\n")


def test_valid_yaml_with_quoted_directives_is_read_as_it_is() -> None:
    playbook = '- hosts: all\n  tasks:\n    - name: run\n      command: "echo {{ item }}"\n'
    compose = 'services:\n  web:\n    image: "{{ image }}"\n    privileged: true\n'
    assert not [r for r in _rules("site.yml", playbook) if r[0] == "SK001"]
    assert any(rule == "PV001" for rule, _ in _rules("compose.yaml", compose))


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("monitoring/grafana/ldap.toml", '[[servers]]\nport = ${GF_LDAP_PORT}\nbind_password = "${GF_LDAP_PW}"\n'),
        ("config.toml", '[server]\nport=${PORT:-8080}\nworkers = [${W1}, ${W2}]\npassword = "${PW}"\n'),
        ("app/settings.json", '{\n  "port": ${PORT},\n  "password": "${PASSWORD}"\n}\n'),
    ],
)
def test_bare_placeholders_a_consumer_expands_are_no_parse_error(path: str, text: str) -> None:
    assert not [r for r in _rules(path, text) if r[0] == "SK001"]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("config.toml", '[server]\nport = ${PORT}\nname = = x\npassword = "${PW}"\n'),  # broken elsewhere
        ("config.toml", '[server]\nport = $PORT\npassword = "${PW}"\n'),  # not a ${} placeholder
        (".devcontainer/devcontainer.json", '{\n  "image": ${IMAGE},\n  "x": [1,,]\n}\n'),
    ],
)
def test_files_broken_beyond_their_placeholders_stay_parse_errors(path: str, text: str) -> None:
    assert [r for r in _rules(path, text) if r[0] == "SK001"] != []


SED_INGRESS = """apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  ingressClassName: %%REPLACE_WITH_YOUR_INGRESS_CLASS_NAME%%
  rules:
  - host: %%REPLACE_ME_WITH_MACHINE_HOST_NAME%%
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port:
              number: 80
"""


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("deploy/ingress.yaml", SED_INGRESS),
        (
            "deploy/route.yaml",
            "kind: HTTPRoute\napiVersion: gateway.networking.k8s.io/v1\nspec:\n  parentRefs:\n  - name: %%GW%%\n",
        ),
        (
            "k8s/pod.yaml",
            "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: app\n    image: @REGISTRY@/app:1\n",
        ),
        ("conf/app.yml", "version: @project.version@\nitems: [ %%A%%, %%B%% ]\n"),
        ("conf/win.yml", "home: %USERPROFILE%\n"),
        ("config.toml", '[server]\nport = __PORT__\nhost = #{HostName}#\nname = <<NAME>>\npassword = "${PW}"\n'),
        ("conf/app.json", '{\n  "image": %%IMAGE%%,\n  "name": {{ NAME }},\n  "v": @VERSION@\n}\n'),
    ],
)
def test_placeholders_a_substitution_fills_are_no_parse_error(path: str, text: str) -> None:
    assert not [r for r in _rules(path, text) if r[0] == "SK001"]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("compose.yaml", "services:\n  c: {image: alpine, privileged: ${PRIV:-true}}\n"),
        ("compose.yaml", "services:\n  c:\n    image: %%IMAGE%%\n"),
        (".github/workflows/ci.yml", "on: push\njobs:\n  a: {runs-on: ${RUNNER}, steps: []}\n"),
        (".devcontainer/devcontainer.json", '{\n  "image": %%IMAGE%%,\n  "name": {{ NAME }}\n}\n'),
        (".claude/settings.json", '{\n  "model": ${MODEL}\n}\n'),
    ],
)
def test_files_their_consumer_parses_as_written_keep_their_parse_error(path: str, text: str) -> None:
    """Compose, workflows, dev containers and agents' settings are parsed before their variables
    are filled in: a bare placeholder breaks the file for its consumer too."""
    assert [r for r in _rules(path, text) if r[0] == "SK001"]


def test_the_rules_read_a_file_once_its_placeholders_are_filled() -> None:
    text = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    image: @IMAGE@\n    securityContext:\n      privileged: true\n"
    rules = [r for r, _ in _rules("k8s/pod.yaml", text)]
    assert "PV001" in rules and "SK001" not in rules


def test_a_file_broken_beyond_its_sed_placeholders_reports_the_real_error() -> None:
    text = "kind: HTTPRoute\napiVersion: gateway.networking.k8s.io/v1\nspec:\n  parentRefs:\n  - name: %%GW%%\n  rules:\n  - matches:\n    - path:\n        type: PathPrefix\n          value: /x\n"
    findings = [f for f in lint_text("deploy/route.yaml", text) if f.rule == "SK001"]
    assert [(f.line, f.severity) for f in findings] == [(10, "medium")]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("deploy/a.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: %%X@\n"),  # marks that do not pair
        ("deploy/b.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  %%KEY%%: 1\n"),  # a placeholder as a key
        (".devcontainer/devcontainer.json", '{\n  "image": %%IMAGE%% x\n}\n'),
        ("config.toml", '[server]\nport = %%PORT%%\nname = = x\npassword = "${PW}"\n'),
    ],
)
def test_placeholder_look_alikes_stay_parse_errors(path: str, text: str) -> None:
    assert [r for r in _rules(path, text) if r[0] == "SK001"] != []
