"""Issue 33, after the ninth set (docs/lint.md, "Embedded configuration and passwords on command
lines"): PS002 reads the files a ConfigMap's ``data:`` embeds and the passwords a script or a CI
step writes on a command line. Each class from fixtures written here, several shapes, with the
look-alikes that stay quiet.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from sandkit.lint.source import RuleSettings
from tests.lint.helpers import lint_text, lint_tree, write_tree


def _random(length: int, seed: int) -> str:
    """A value as a generator makes one: letters of both cases and digits, built at run time."""
    chooser = random.Random(seed)
    return "".join(chooser.choice(string.ascii_letters + string.digits) for _ in range(length))


def _ps002(name: str, text: str) -> list[tuple[int, int, str]]:
    return [(f.line, f.column, f.severity) for f in lint_text(name, text) if f.rule == "PS002"]


def _config_map(key: str, body: str, kind: str = "ConfigMap", field: str = "data") -> str:
    lines = "".join(f"    {line}\n" if line else "\n" for line in body.splitlines())
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: app\n{field}:\n  {key}: |\n{lines}"


# ---- 1. configuration embedded in a ConfigMap ---------------------------------------------------

HEX = "6af3c" + "19a2b7d4e5f8a9b0c1d2e3f4a5b6c7d8e9f"
PW = _random(14, 1)


@pytest.mark.parametrize(
    ("key", "body", "line", "column"),
    [
        # dex's config.yaml: a static client's secret, two levels down in the embedded YAML
        ("config.yaml", f"issuer: https://dex.example.com\nstaticClients:\n- id: argo\n  secret: {HEX}\n", 10, 15),
        ("application.properties", f"server.port=8080\nspring.datasource.password={PW}\n", 8, 32),
        ("app.env", f"LOG_LEVEL=info\nDB_PASSWORD={PW}\n", 8, 17),
        ("app.ini", f"[database]\nhost = db\npassword = {PW}\n", 9, 16),
        ("settings.json", f'{{\n  "db": {{"password": "{PW}"}}\n}}\n', 8, 26),
        ("config.toml", f'[db]\npassword = "{PW}"\n', 8, 5),
        ("init.sh", f"#!/bin/sh\nmysql -uroot -p{PW} app\n", 8, 20),  # a script's command line
        # no extension: read by its content (an INI section, key: value lines)
        ("auth", f"[auth]\nclient_secret = {PW}\n", 8, 21),
        ("dex", f"connectors:\n- type: ldap\n  bindPassword: {PW}\n", 9, 21),
    ],
)
def test_a_secret_in_a_file_a_config_map_embeds_is_found_where_it_is_written(
    key: str, body: str, line: int, column: int
) -> None:
    assert _ps002("k8s/app.yaml", _config_map(key, body)) == [(line, column, "medium")]


@pytest.mark.parametrize(
    ("key", "body"),
    [
        ("config.yaml", "staticClients:\n- id: argo\n  secret: changeme\n"),  # a placeholder
        ("application.properties", "spring.datasource.password=${DB_PASSWORD}\n"),  # a reference
        ("app.env", "DB_PASSWORD=<password>\n"),
        ("nginx.conf", f"server {{\n  listen 80;\n  # password {PW}\n}}\n"),  # no syntax read here
        ("init.sql", f"CREATE USER app PASSWORD '{PW}';\nSELECT 1;\n"),  # a skipped extension
        ("config.yaml", "clients:\n- id: web\n  secret_name: web-client\n"),  # names a secret
    ],
)
def test_a_config_map_file_without_a_literal_stays_quiet(key: str, body: str) -> None:
    assert _ps002("k8s/app.yaml", _config_map(key, body)) == []


def test_a_secrets_data_is_read_as_it_was_and_not_as_embedded_files() -> None:
    text = _config_map("config.yaml", f"db:\n  password: {PW}\n", kind="Secret", field="stringData")
    assert _ps002("k8s/secret.yaml", text) == []


def test_an_embedded_file_is_graded_as_a_standalone_one_in_a_test_folder() -> None:
    text = _config_map("application.properties", f"spring.datasource.password={PW}\n")
    assert _ps002("tests/fixtures/app.yaml", text) == []


def test_an_embedded_value_that_says_it_is_a_tests_is_graded_as_in_a_file() -> None:
    text = _config_map("app.env", "DB_PASSWORD=test-only-secret-for-ci\n")
    assert _ps002("app.env", "DB_PASSWORD=test-only-secret-for-ci\n") == [(1, 13, "info")]
    assert _ps002("k8s/app.yaml", text) == [(7, 17, "info")]


def test_a_one_line_data_value_is_still_the_manifests_own_setting() -> None:
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  DB_PASSWORD: {PW}\n"
    assert _ps002("k8s/app.yaml", text) == [(6, 16, "medium")]


def test_a_helm_templates_config_map_is_read_after_its_values(tmp_path: Path) -> None:
    template = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\ndata:\n"
        "  application.properties: |\n"
        f"    spring.datasource.password={PW}\n"
        "    other.password={{ .Values.dbPassword }}\n"
        "{{- if .Values.extra }}\n    extra=true\n{{- end }}\n"
    )
    write_tree(
        tmp_path,
        {
            "chart/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
            "chart/values.yaml": 'name: app\ndbPassword: ""\n',
            "chart/templates/cm.yaml": template,
        },
    )
    found = [(f.path, f.line, f.column) for f in lint_tree(tmp_path, select=("PS002",))]
    assert found == [("chart/templates/cm.yaml", 7, 32)]


def test_many_data_values_are_read_up_to_the_bound() -> None:
    body = "".join(f"  f{i}.properties: |\n    password={_random(12, i)}\n    a=b\n" for i in range(80))
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n" + body
    assert len(_ps002("k8s/app.yaml", text)) == 64


# ---- 2. passwords on command lines --------------------------------------------------------------

CLI = _random(11, 2)


@pytest.mark.parametrize(
    ("line", "column"),
    [
        (f"oc login -u kubeadmin -p {CLI} https://api.example.com:6443", 26),
        (f"docker login -u bot -p {CLI} registry.example.com", 24),
        (f"podman login --password {CLI} registry.example.com", 25),
        (f'mysql -uroot -p{CLI} -e "select 1"', 16),
        (f"mysqldump --password={CLI} -u root app", 22),
        (f"curl -u admin:{CLI} https://registry.example.com/api", 15),
        (f"curl --user=admin:{CLI} https://registry.example.com/api", 19),
        (f"sshpass -p {CLI} ssh deploy@host", 12),
        (f"htpasswd -b -c /etc/nginx/htpasswd alice {CLI}", 42),
        (f"sudo redis-cli -a {CLI} ping", 19),
    ],
)
def test_a_literal_password_on_a_command_line_is_found(line: str, column: int) -> None:
    assert _ps002("scripts/deploy.sh", f"#!/bin/bash\nset -e\n{line}\n") == [(3, column, "medium")]


@pytest.mark.parametrize(
    "line",
    [
        'oc login -u kubeadmin -p "$KUBEADMIN_PASSWORD"',
        "docker login -u bot -p ${REGISTRY_PASSWORD} registry.example.com",
        "docker login -u bot -p changeme registry.example.com",
        "docker login -u bot -p <password> registry.example.com",
        'mysql -p"$(cat /run/secrets/db)" app',
        "mysql -u root -p app",  # a separate word after -p is the database; mysql asks for the password
        'curl -u "$USER:$PASS" https://registry.example.com',
        "curl -u admin https://registry.example.com",  # no colon: curl asks
        f"docker run -p 8080:80 -e X={CLI} nginx",  # -p of run is a port
        "grep -p foo file",
        "htpasswd -c /etc/nginx/htpasswd alice",  # no -b: htpasswd asks
        "mysql -pPASSWORD app",
    ],
)
def test_a_command_line_without_a_literal_password_stays_quiet(line: str) -> None:
    assert _ps002("scripts/deploy.sh", f"#!/bin/bash\n{line}\n") == []


def _workflow(job: str, line: str) -> str:
    return f"on: push\njobs:\n  {job}:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          {line}\n"


def test_a_ci_run_step_password_is_found_and_a_secret_expression_is_not() -> None:
    assert _ps002(".github/workflows/ci.yml", _workflow("deploy", f"docker login -u bot -p {CLI} r.example.com")) == [
        (7, 34, "medium")
    ]
    quiet = _workflow("deploy", "oc login -u admin -p ${{ secrets.OC_PASSWORD }} https://api.example.com")
    assert _ps002(".github/workflows/ci.yml", quiet) == []


def test_a_gitlab_script_line_password_is_found() -> None:
    text = f"deploy:\n  stage: deploy\n  script:\n    - oc login -u admin -p {CLI} https://api.example.com\n"
    assert _ps002(".gitlab-ci.yml", text) == [(4, 28, "medium")]


def test_a_test_scripts_command_line_password_is_info() -> None:
    assert _ps002("scripts/e2e-test.sh", f"#!/bin/bash\nmysql -uroot -p{CLI} app\n") == [(2, 16, "info")]


def test_a_test_folders_script_is_left_out_and_low_with_examples(tmp_path: Path) -> None:
    write_tree(tmp_path, {"tests/setup.sh": f"#!/bin/bash\nsshpass -p {CLI} ssh host\n"})
    assert [f for f in lint_tree(tmp_path, select=("PS002",))] == []
    found = lint_tree(tmp_path, select=("PS002",), settings=RuleSettings(include_examples=True))
    assert [(f.line, f.severity) for f in found] == [(2, "low")]


def test_a_password_in_a_variable_the_script_set_is_found_at_the_assignment() -> None:
    assert _ps002("scripts/login.sh", f"#!/bin/bash\nP={CLI}\noc login -u admin -p $P\n") == [(2, 3, "medium")]


def test_a_makefile_recipe_password_is_found_and_help_text_is_not() -> None:
    assert _ps002("Makefile", f"login:\n\tdocker login -u bot -p {CLI} r.example.com\n") == [(2, 25, "medium")]
    usage = f"#!/bin/bash\nusage() {{\ncat <<EOF\nUsage: deploy.sh\n  oc login -u admin -p {CLI}\nEOF\n}}\n"
    assert _ps002("scripts/deploy.sh", usage) == []
    assert _ps002("scripts/deploy.sh", f"#!/bin/bash\n# oc login -u admin -p {CLI}\n") == []


def test_a_folded_config_map_value_is_not_read_as_a_file() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  app.properties: >\n"
    text += f"    spring.datasource.password={PW}\n    server.port=8080\n"
    assert _ps002("k8s/app.yaml", text) == []


def test_a_continued_command_line_is_read_whole() -> None:
    text = f"#!/bin/bash\noc login \\\n  --server=https://api.example.com \\\n  -u admin -p {CLI}\n"
    assert _ps002("scripts/login.sh", text) == [(4, 15, "medium")]


def test_a_ci_test_jobs_command_line_password_is_info() -> None:
    text = (
        "on: push\njobs:\n  integration-test:\n    runs-on: ubuntu-latest\n    services:\n"
        "      mysql:\n        image: mysql:8\n    steps:\n"
        f'      - run: mysql -h 127.0.0.1 -uroot -p{CLI} -e "select 1"\n'
    )
    assert _ps002(".github/workflows/ci.yml", text) == [(9, 42, "info")]


@pytest.mark.parametrize(
    ("key", "body"),
    [
        ("config.yaml", "a: [\n  password: x: y\n\t- bad\n"),
        ("settings.json", f'{{"password": "{PW}",,\n'),
        ("config.toml", f'[db\npassword = "{PW}\n'),
        ("x", "key: %t\nother: {\n"),
    ],
)
def test_an_embedded_file_that_does_not_parse_gives_nothing_and_no_error(key: str, body: str) -> None:
    assert _ps002("k8s/app.yaml", _config_map(key, body)) == []  # lint_text fails on a crash
