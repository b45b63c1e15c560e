"""Issue 33, the seventh set's PS002 classes: a value that describes itself in words, references
to a secret store written as a URI, base64 of password hashes, a chart value its templates use as
a Secret's key name, and env files nothing reads; each with several shapes and the look-alikes
that stay findings."""

from __future__ import annotations

import base64

import pytest

from tests.lint.helpers import lint_files, lint_text

REAL = "Kx82mQpz4tLs"  # a password that looks typed by a generator


def _ps002(path: str, text: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(path, text) if f.rule == "PS002"]


# 1. A value that describes itself: words ending in the key's own word --------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SERVICE_MYSQL_PASS", "cf-usb-sidecar-mysql-admin-password"),
        ("SERVICE_POSTGRESQL_PASS", "cf-usb-sidecar-postgres-admin-password"),
        ("redisPassword", "secure-redis-password"),
        ("ME_CONFIG_BASICAUTH_PASSWORD", "secure-mongo-express-passwd"),
        ("dbPwd", "DB-ADMIN-USER-PWD"),
        ("keyPassphrase", "my-key-passphrase"),
        ("clientSecret", "oidc-client-secret"),  # other words than a password's: already names
        ("signingKey", "jwt-signing-key"),
    ],
)
def test_words_ending_in_the_keys_word_describe_the_value(name: str, value: str) -> None:
    assert _ps002("charts/app/values.yaml", f"env:\n  {name}: {value}\n") == []


def test_in_an_env_file_too() -> None:
    assert _ps002(".env.dev", "REDIS_PASSWORD=secure-redis-password\nPGADMIN_PASSWORD=secure-pgadmin-password\n") == []


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("password", "Xk9-password-7qZ"),  # random parts around the word
        ("password", "Blue-Sky-password"),  # mixed case inside the words
        ("password", "admin-password"),  # one word before it: may be a weak password in use
        ("password", "secure-redis-password9"),  # a digit: not words alone
        ("password", "correct-horse-battery-staple"),  # words, but not ending in the key's word
        ("password", "secure-redis-token"),  # ends in another secret's word than the key's
        ("password", "harbor_registry_password"),  # an identifier's words, which a chart deploys with
    ],
)
def test_look_alikes_stay(name: str, value: str) -> None:
    assert _ps002("charts/app/values.yaml", f"db:\n  {name}: {value}\n") == [(2, "medium")]


# 3. A reference to a secret store written as a URI ----------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "urn:k8s:secret:keycloak-sso-data:SESSION_KEY",
        '"urn:k8s:secret:keycloak-sso-data:REDIS_KEY"',
        "k8s:secret:auth/sso:client_secret",
        "aws-secretsmanager:/prod/db",
        "awssecretsmanager:prod/db#password",
        "aws-parameterstore:/app/token",
        "gcp:secretmanager:projects/p/secrets/s",
        "azure:keyvault:kv-prod/db-password",
        "berglas://bucket/db-password",
        "doppler://project/config/SECRET",
        "secret://default/db#password",
    ],
)
def test_store_references_are_not_literals(value: str) -> None:
    text = f"spec:\n  plugin:\n    oidc:\n      sessionEncryptionKey: {value}\n"
    assert _ps002("deploy/middleware.yaml", text) == []


@pytest.mark.parametrize(
    "value",
    [
        "urn:secret:Kx82mQpz4tLs",  # no store named after urn:
        "secrets:Kx82mQpz4tLs",  # no // after a bare "secrets" scheme
        "mystore://Kx82mQpz4tLs",  # a scheme that is no store
        "Kx82mQ:k8s:secret:pz4tLs",  # the store's words not at the start
    ],
)
def test_other_colons_stay(value: str) -> None:
    text = f"spec:\n  plugin:\n    oidc:\n      sessionEncryptionKey: {value}\n"
    assert _ps002("deploy/middleware.yaml", text) == [(4, "medium")]


# 4. Base64 of password hashes in a Secret's data ------------------------------------------------

SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ntype: Opaque\ndata:\n  {key}: {value}\n"
_APR1 = "hahafuni:$apr1$ld.82MYz$ADAhghcH5lzJWwET/7nRM/"
_BCRYPT = "$2y$10$abcdefghijklmnopqrstuuQ1w2e3r4t5y6u7i8o9p0AbCdEfGhIjK"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    ("key", "decoded"),
    [
        ("tls.key", _APR1 + "\n\n"),  # an htpasswd line, as the seventh set's Secret holds it
        ("password", _APR1 + "\nbob:" + _BCRYPT + "\n"),  # an htpasswd file of two users
        ("tls.key", "admin:" + _BCRYPT),
        ("password", _BCRYPT),
        ("secret", "{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="),
    ],
)
def test_encoded_password_hashes_are_not_plaintext(key: str, decoded: str) -> None:
    assert _ps002("deploy/secret.yaml", SECRET.format(key=key, value=_b64(decoded))) == []


@pytest.mark.parametrize(
    ("key", "decoded"),
    [
        ("tls.key", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ\n"),
        ("password", REAL),
        ("password", "admin:" + REAL),  # an htpasswd-looking line with a plain password
        ("password", _APR1 + "\nbob:" + REAL + "\n"),  # one line of the file is not a hash
    ],
)
def test_other_encoded_values_stay(key: str, decoded: str) -> None:
    found = [
        (f.line, f.severity)
        for f in lint_text("deploy/secret.yaml", SECRET.format(key=key, value=_b64(decoded)))
        if f.rule in ("PS001", "PS002")
    ]
    assert found and found[0][0] == 7


# 2. A chart value its templates use as a Secret's or a Secret key's name -----------------------

CHART = "apiVersion: v2\nname: app\nversion: 0.1.0\n"
VALUES = "db:\n  secrets:\n    name: chado-postgres\n    password: chado-password\n    token: Zq81nPx4Lm2w\n"
ENV_FROM_KEY = """apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  template:
    spec:
      containers:
      - name: app
        image: app
        env:
        - name: CHADO_PASS
          valueFrom:
            secretKeyRef:
              name: "{{ .Values.db.secrets.name }}"
              key: "{{ .Values.db.secrets.password }}"
        - name: TOKEN
          valueFrom:
            secretKeyRef: {name: app, key: {{ .Values.db.secrets.token | quote }}}
"""
ENV_FROM_SECRET = """apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: app
    image: app
    envFrom:
    - secretRef:
        name: {{ $.Values.db.secrets.password }}
  volumes:
  - name: t
    secret:
      secretName: {{ .Values.db.secrets.token }}
"""
USES_AS_VALUE = """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Values.db.secrets.name }}
stringData:
  password: {{ .Values.db.secrets.password | quote }}
  token: {{ .Values.db.secrets.token }}
"""


def _chart(templates: dict[str, str], chart: bool = True) -> list[tuple[int, str]]:
    files = {"charts/app/values.yaml": VALUES, **{f"charts/app/templates/{n}": t for n, t in templates.items()}}
    if chart:
        files["charts/app/Chart.yaml"] = CHART
    return sorted((f.line, f.severity) for f in lint_files(files) if f.rule == "PS002")


@pytest.mark.parametrize(
    "templates",
    [
        {"job.yaml": ENV_FROM_KEY},  # key: of secretKeyRef, block and flow forms
        {"pod.yaml": ENV_FROM_SECRET},  # envFrom's secretRef name:, a volume's secretName:
        {"deep/_env.tpl": ENV_FROM_KEY},  # a helper in a sub-folder of templates/
    ],
)
def test_a_value_the_templates_use_as_a_secret_key_name_is_a_name(templates: dict[str, str]) -> None:
    assert _chart(templates) == []


def test_the_values_alone_stay() -> None:
    assert _chart({}) == [(4, "medium"), (5, "medium")]


def test_a_value_the_templates_write_into_a_secret_stays() -> None:
    assert _chart({"secret.yaml": USES_AS_VALUE}) == [(4, "medium"), (5, "medium")]


def test_without_a_chart_the_templates_are_not_read() -> None:
    assert _chart({"job.yaml": ENV_FROM_KEY}, chart=False) == [(4, "medium"), (5, "medium")]


def test_only_the_paths_named_are_left_out() -> None:
    only_key = ENV_FROM_KEY.replace("{{ .Values.db.secrets.token | quote }}", "api-token")
    assert _chart({"job.yaml": only_key}) == [(5, "medium")]


# 5. An env file nothing in the repository names ---------------------------------------------------

ENV = f"APP_NAME=shop\nDB_PASSWORD={REAL}\n"
COMPOSE = "services:\n  app:\n    image: app\n    env_file:\n      - {name}\n"


def _env_files(files: dict[str, str]) -> list[tuple[str, int, str]]:
    return sorted((f.path, f.line, f.severity) for f in lint_files(files) if f.rule == "PS002")


@pytest.mark.parametrize("name", [".env.prod", ".env.staging", "deploy/.env.dev"])
def test_an_env_file_nothing_names_is_info(name: str) -> None:
    found = [f for f in lint_files({name: ENV, "app/main.py": "print('hi')\n"}) if f.rule == "PS002"]
    assert [(f.line, f.severity) for f in found] == [(2, "info")]
    assert "nothing in the repository names" in found[0].message


@pytest.mark.parametrize(
    "files",
    [
        {"docker-compose.yml": COMPOSE.format(name=".env.prod")},  # a service's env_file
        {"Makefile": "up:\n\tdocker compose --env-file .env.prod up -d\n"},  # a script's --env-file
        {"app/settings.py": "load_dotenv('.env.prod')\n"},  # the program loads it
        {"README.md": "Run `docker compose --env-file .env.prod up`.\n"},  # the instructions name it
        {"package.json": '{"name": "web"}\n'},  # Vite or Next.js reads .env.<mode> by itself
        {"composer.json": "{}\n"},  # Symfony and Laravel too
    ],
)
def test_an_env_file_something_names_or_a_framework_reads_stays(files: dict[str, str]) -> None:
    assert _env_files({".env.prod": ENV, **files}) == [(".env.prod", 2, "medium")]


def test_the_default_env_file_and_ignore_lists() -> None:
    # Compose reads .env by itself; a .gitignore naming .env.prod leaves it out, it does not read it
    files = {".env": ENV, ".env.prod": ENV, ".gitignore": ".env.prod\n", ".env.example": "# see .env.prod\n"}
    assert _env_files(files) == [(".env", 2, "medium"), (".env.prod", 2, "info")]


# A shell value made by a command in backticks, as by $( ) ----------------------------------------


@pytest.mark.parametrize(
    "line",
    ["export DB_USER_PWD=`get-random-password`", "DB_PWD=`openssl rand -hex 16`", 'TOKEN="pre`mktoken`"'],
)
def test_a_backtick_command_substitution_is_not_a_literal(line: str) -> None:
    assert _ps002("scripts/db.sh", f"#!/bin/bash\n{line}\n") == []


@pytest.mark.parametrize("line", [f"DB_PWD='{REAL}`x`'", f"DB_PWD={REAL}", f"DB_PWD=\\`{REAL}"])
def test_backticks_quoted_or_escaped_stay(line: str) -> None:
    assert _ps002("scripts/db.sh", f"#!/bin/bash\n{line}\n") == [(2, "medium")]
