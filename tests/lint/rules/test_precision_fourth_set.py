"""Issue 33, fourth held-out set: the wrong classes read there, fixed as classes (instructions in
capitals written as a password, data-structure keys named ``*Key``, values that name where the
secret is, documented credential URLs in comments, a URL match running across JSON fields, and a
systemd service's own DOCKER_HOST), each with several shapes and the look-alikes that stay.

Credential-shaped values are assembled at run time so that this file holds no token itself.
"""

from __future__ import annotations

import json

import pytest

from sandkit.credentials import instruction_placeholder, is_secret_key
from tests.lint.helpers import at, lint_text

REAL = "Kx82mQpz4tLs"  # a password that looks typed by a generator


def _url(user: str, password: str, host: str = "db.example.com") -> str:
    return "postgres" + "://" + user + ":" + password + "@" + host + ":5432/app"


# ---- PS002: an instruction in capitals where the password goes ---------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "DEFINED-IN-REGION-SECRETS",
        "DEFINED-IN-SECRETS",
        "DEFINED-IN-REGION-SECRECTS",  # misspelt, as written
        "SET-ME",
        "PROVIDED-BY-VAULT",
        "FROM_SECRET_STORE",
        "TO_BE_REPLACED",
        "MUST-OVERRIDE",
        "IN-VAULT",
        "INJECTED_BY_CI",
    ],
)
def test_capital_instructions_are_placeholders(value: str) -> None:
    assert instruction_placeholder(value)
    text = f"exporter:\n  password: {value}\n  token: {value}\n"
    assert at(lint_text("charts/exporter/values.yaml", text), "PS002") == []


@pytest.mark.parametrize(
    "value", ["CORRECT-HORSE-BATTERY-STAPLE", "BLUE-MOON-RISING", "S3CR3T-PASS-42", "Defined-In-Secrets2x"]
)
def test_capital_words_without_an_instruction_stay_findings(value: str) -> None:
    """A password of capital words is still a password: only an instruction's words make it one."""
    assert not instruction_placeholder(value)
    assert at(lint_text("charts/exporter/values.yaml", f"exporter:\n  password: {value}\n"), "PS002") == [(2, 13)]


# ---- PS002: "key" as a data structure's key --------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["$$hashKey", "hashKey", "sortKey", "primaryKey", "partitionKey", "cacheKey", "foreignKey", "itemKey"],
)
def test_data_structure_keys_are_not_secret_names(name: str) -> None:
    assert not is_secret_key(name)
    panel = {"targets": [{"expr": "up", name: "object:821"}, {name: "a8Kz0pQ1x7Lm"}]}
    assert at(lint_text("dashboards/registry.json", json.dumps(panel, indent=2)), "PS002") == []


@pytest.mark.parametrize(
    "name", ["apiKey", "$$apiKey", "_authToken", "secretKey", "accessKey", "privateKey", "signingKey", "encryptionKey"]
)
def test_credential_keys_stay_secret_names(name: str) -> None:
    assert is_secret_key(name)
    assert at(lint_text("config/app.yaml", f"app:\n  {name}: {REAL}\n"), "PS002") == [(2, 5 + len(name))]


@pytest.mark.parametrize(
    "value", ["soccer_england_league_two", "soccer_germany_bundesliga2", "eu-west1.primary", "premier-league-2024"]
)
def test_word_identifiers_under_key_names_are_not_secrets(value: str) -> None:
    text = json.dumps({"leagues": [{"odds_key": value, "code": "de"}]}, indent=2)
    assert at(lint_text("flags_config.json", text), "PS002") == []


@pytest.mark.parametrize("value", ["a1b2c3d4e5f6", "sk_live_abc", "key_a9f3k2m8q1"])
def test_mixed_keys_under_key_names_stay_findings(value: str) -> None:
    text = json.dumps({"odds_key": value + "Zq7"}, indent=2)
    assert at(lint_text("flags_config.json", text), "PS002") != []


# ---- PS002: a value that names where the secret is ---------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("passwordKey", "adminPassword"),
        ("userPasswordKey", "user-password"),
        ("tokenKey", "githubToken"),
        ("existingSecretPasswordKey", "postgres-password"),
        ("credentialsKey", "credentials.json"),
    ],
)
def test_keys_of_an_existing_secret_are_references(name: str, value: str) -> None:
    text = f"admin:\n  existingSecret: grafana-admin\n  {name}: {value}\n"
    assert at(lint_text("system/monitoring/values.yaml", text), "PS002") == []


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("API_KEY", ".API_KEY"),
        ("smtpPassword", "smtp-password"),
        ("db_password", "secret/data/app/DB_PASSWORD"),
        ("clientSecret", "client_secret"),
    ],
)
def test_values_echoing_their_own_name_are_references(name: str, value: str) -> None:
    assert at(lint_text("deploy/values.yaml", f"keys:\n  {name}: {value!r}\n"), "PS002") == []


@pytest.mark.parametrize(
    ("name", "value"),
    [("passwordKey", "Xk9mPq2zzT"), ("secretKey", "adminPassword7Q"), ("smtpPassword", "smtp-password-2024")],
)
def test_literals_beside_those_shapes_stay_findings(name: str, value: str) -> None:
    """``secretKey`` names the secret itself (AWS, Django); a value that only starts like the name is one."""
    assert at(lint_text("deploy/values.yaml", f"keys:\n  {name}: {value}\n"), "PS002") != []


@pytest.mark.parametrize("line", ["DB_PASSWORD=db_password", "SMTP_PASSWORD=smtp-password", "apiToken=api_token"])
def test_a_name_echoed_in_a_committed_env_file_is_its_default(line: str) -> None:
    """In a .env file nothing looks the value up: the echoed name is the password every deployment gets."""
    assert at(lint_text(".env", line + "\n"), "PS002") != []


# ---- PS001: credential URLs documented in comments ----------------------------------------------


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("conf/_nats-server.conf.tpl", "  # e.g. --routes=nats-route://" + "ruser:" + "T0pS3cr3t" + "@otherhost:6222"),
        ("scripts/create-index.sh", "# export ES_URL=" + _url("elastic", "supersecretpassword")),
        ("deploy/app.yaml", "# for example: " + _url("app", "Zq81kLmx0Pw")),
        ("deploy/app.yaml", "  # DATABASE_URL=" + _url("app", "MyStr0ngPassw0rd")),
        ("config/settings.toml", "; such as " + _url("svc", "q7Lx2mZk9")),
    ],
)
def test_documented_urls_in_comments_are_not_findings(path: str, line: str) -> None:
    assert at(lint_text(path, f"{line}\nport: 4222\n"), "PS001") == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("deploy/app.yaml", "# DATABASE_URL=" + _url("app", "Zq81kLmx0Pw")),  # commented out, real-looking
        ("scripts/dump.sh", "pg_dump " + _url("app", "supersecretpassword")),  # not a comment: a weak default
        ("deploy/app.yaml", "url: " + _url("app", "nexusshield_secure")),
        ("scripts/run.sh", "docker run \\\n  --env URL=" + _url("app", "supersecretpassword") + " \\\n  app"),
    ],
)
def test_real_looking_or_uncommented_urls_stay_findings(path: str, line: str) -> None:
    assert at(lint_text(path, f"{line}\n"), "PS001") != []


@pytest.mark.parametrize(
    "text",
    [
        '{"description":"ad_url https://.","status":"closed","owner":"1499+dev' + '@users.example.com"}\n',
        "see https://. and 'x:y' then mail" + " me@example.com\n",
        'link: "https://docs.example.com" note: "a:b" `c' + "@d`\n",
    ],
)
def test_a_url_match_does_not_run_across_quotes_or_spaces(text: str) -> None:
    assert at(lint_text("notes/issues.jsonl", text), "PS001") == []


def test_a_url_inside_quotes_is_still_read() -> None:
    text = json.dumps({"db": _url("app", "Zq81kLmx0Pw")}) + "\n"
    assert at(lint_text("notes/issues.jsonl", text), "PS001") == [(1, 9)]


# ---- RS002: a host service's own docker client -----------------------------------------------------


_UNIT = "[Unit]\nDescription=runner\n\n[Service]\n{env}\nExecStart={start}\n\n[Install]\nWantedBy=multi-user.target\n"
_SOCKET = "unix:///var/run/docker.sock"


@pytest.mark.parametrize(
    "env",
    [
        f"Environment=DOCKER_HOST={_SOCKET}",
        f'Environment="DOCKER_HOST={_SOCKET}" "COMPOSE_FILE=x.yml"',
        "Environment=DOCKER_HOST=unix:///run/docker.sock",
    ],
)
def test_a_service_units_own_socket_is_not_handed_over(env: str) -> None:
    text = _UNIT.format(env=env, start="/usr/bin/docker-compose up")
    assert at(lint_text("ops/runner/runner.service", text), "RS002") == []


@pytest.mark.parametrize(
    ("env", "start"),
    [
        ("Environment=DOCKER_HOST=tcp://10.0.0.5:2375", "/usr/bin/docker-compose up"),  # a remote daemon, no TLS
        ("Environment=A=b", f"/usr/bin/docker run -e DOCKER_HOST={_SOCKET} agent:latest"),  # given to a container
    ],
)
def test_remote_daemons_and_containers_in_units_stay_findings(env: str, start: str) -> None:
    text = _UNIT.format(env=env, start=start)
    assert at(lint_text("ops/runner/runner.service", text), "RS002") != []


def test_a_quadlet_containers_environment_stays_a_finding() -> None:
    text = f"[Container]\nImage=agent:latest\nEnvironment=DOCKER_HOST={_SOCKET}\n"
    assert at(lint_text("quadlet/agent.container", text), "RS002") == [(3, 13)]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("scripts/setup.sh", f"export DOCKER_HOST={_SOCKET}\n"),
        (".gitlab-ci.yml", f"job:\n  variables:\n    DOCKER_HOST: {_SOCKET}\n  script: [docker ps]\n"),
    ],
)
def test_shell_and_ci_docker_host_stay_findings(path: str, text: str) -> None:
    """A script may run inside a container (dotfiles, CI job scripts): the linter cannot tell."""
    assert at(lint_text(path, text), "RS002") != []
