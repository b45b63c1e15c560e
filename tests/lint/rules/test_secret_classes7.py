"""Issue 33, the sixth set's PS002 classes: descriptions of a value in place of one, resources that
name where a secret is kept, a tool's documented default password, help text a script prints, and
a block kept as an example; each with several shapes and the look-alikes that stay findings."""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_text

REAL = "Kx82mQpz4tLs"  # a password that looks typed by a generator


def _ps002(path: str, text: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(path, text) if f.rule == "PS002"]


# 1. A description of a value written in its place -------------------------------------------


@pytest.mark.parametrize(
    "value", ["somevalue", "some-value", "SomePassword", "some_secret", "anytoken", "any-api-key", "myvalue"]
)
def test_a_description_of_a_value_is_a_placeholder(value: str) -> None:
    text = f"exporter:\n  elasticSearch:\n    endpoint: somevalue\n    password: {value}\n"
    assert _ps002("charts/jaeger/values.yaml", text) == []


@pytest.mark.parametrize("value", [REAL, "supersecret", "adminpassword", "handsomepassword", "awesomevalue1"])
def test_real_and_weak_passwords_beside_such_words_stay(value: str) -> None:
    text = f"exporter:\n  endpoint: somevalue\n  password: {value}\n"
    assert _ps002("charts/jaeger/values.yaml", text) == [(3, "medium")]


# 2. Resources that name where a secret is kept ----------------------------------------------

EXTERNAL_SECRET = """apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: pull
spec:
  secretStoreRef:
    kind: ClusterSecretStore
    name: store
  target:
    name: pull
    template:
      type: kubernetes.io/dockerconfigjson
      data:
        token: {template}
  data:
    - secretKey: .dockerconfigjson
      remoteRef:
        key: dd/remote-dev/pull
        property: dockerconfigjson
    - secretKey: apiToken
      remoteRef:
        key: secret/data/app#api_token
"""


def test_an_external_secret_names_keys_and_entries() -> None:
    assert _ps002("deploy/pull.externalsecret.yaml", EXTERNAL_SECRET.format(template='"{{ .token }}"')) == []


def test_what_an_external_secret_renders_itself_is_still_read() -> None:
    assert _ps002("deploy/pull.externalsecret.yaml", EXTERNAL_SECRET.format(template=REAL)) == [(14, "medium")]


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: external-secrets.io/v1beta1\nkind: PushSecret\nmetadata:\n  name: p\nspec:\n"
        "  data:\n    - match:\n        secretKey: .dockerconfigjson\n        remoteRef:\n          remoteKey: app/pull\n",
        "apiVersion: generators.external-secrets.io/v1alpha1\nkind: ECRAuthorizationToken\nmetadata:\n  name: e\n"
        "spec:\n  auth:\n    secretRef:\n      secretAccessKeySecretRef:\n        name: aws\n        key: secretKey\n",
        "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: s\nspec:\n  encryptedData:\n"
        "    password: AgBy3i4OJSWK+PiTySYZZA9rO43cGDEq8Kx82mQpz4tLsQ==\n",
        "apiVersion: secrets.hashicorp.com/v1beta1\nkind: VaultStaticSecret\nmetadata:\n  name: v\nspec:\n"
        "  secretKey: app-credentials\n  path: app/config\n",
    ],
)
def test_other_secret_referencing_resources(text: str) -> None:
    assert _ps002("deploy/secret.yaml", text) == []


def test_the_same_keys_in_a_plain_secret_or_config_stay() -> None:
    config = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  secretKey: {REAL}\n"
    assert _ps002("deploy/config.yaml", config) == [(6, "medium")]
    assert _ps002("app/settings.yaml", f"aws:\n  secretKey: {REAL}\n") == [(2, "medium")]


# 3. A tool's documented default password ----------------------------------------------------


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        ("charts/edge/values.yaml", "tls:\n  create:\n    keystorePassword: changeit\n", 3),
        ("charts/edge/values.yaml", "tls:\n  create:\n    truststorePassword: changeit\n", 3),
        ("charts/edge/values.yaml", "keystore:\n  privateKeyPassword: changeit\n", 2),
        (
            "charts/x/templates/sts.yaml",
            "apiVersion: apps/v1\nkind: StatefulSet\nspec:\n  template:\n    spec:\n      containers:\n"
            "        - name: a\n          image: a\n          env:\n            - name: REST_TLS_KEY_PASSWORD\n"
            "              value: changeit\n",
            11,
        ),
        ("deploy/.env", "KAFKA_SSL_KEYSTORE_PASSWORD=changeit\n", 1),
    ],
)
def test_the_jdk_keystore_default_is_info(path: str, text: str, line: int) -> None:
    assert _ps002(path, text) == [(line, "info")]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("db:\n  password: changeit\n", 2),  # not a keystore's: a weak password someone kept
        ("tls:\n  keystorePassword: Chang3itNow\n", 2),  # a password chosen for the keystore
        (f"tls:\n  keystorePassword: {REAL}\n", 2),
    ],
)
def test_other_uses_stay_medium(text: str, line: int) -> None:
    assert _ps002("charts/edge/values.yaml", text) == [(line, "medium")]


# 4. Text a script prints ------------------------------------------------------------------


@pytest.mark.parametrize(
    "script",
    [
        # a usage() function's here-document, as TIBCO's api-based-automation.sh writes it
        "#!/bin/bash\nusage() {\n    cat <<USAGE\n${BOLD}NAME${RESET}\n    run.sh - provision\n\n"
        "    export CP_ADMIN_INITIAL_PASSWORD='s3cret!'\nUSAGE\n}\n",
        # any function, after a Usage: heading, to standard error
        "#!/bin/sh\ndie() {\n  cat >&2 <<'EOF'\nUsage: run.sh [options]\n  ADMIN_PASSWORD=Own3rP@ss9 run.sh\nEOF\n}\n",
        "#!/bin/bash\nfunction show_help {\n  cat <<-EOF\n\tADMIN_TOKEN=Zq81nPx4Lm2w ./deploy.sh\n\tEOF\n}\n",
    ],
)
def test_help_text_a_script_prints_is_documentation(script: str) -> None:
    assert _ps002("scripts/run.sh", script) == []


def test_other_printed_text_is_info() -> None:
    script = f"#!/bin/bash\nsetup() {{\n  cat <<EOF\nDone. Now run:\n  export ADMIN_PASSWORD={REAL}\nEOF\n}}\n"
    assert _ps002("scripts/setup.sh", script) == [(5, "info")]


@pytest.mark.parametrize(
    ("script", "line"),
    [
        (f"#!/bin/bash\nusage() {{\n  cat > .env <<EOF\nDB_PASSWORD={REAL}\nEOF\n}}\n", 4),  # writes a file
        (f"#!/bin/bash\nusage() {{\n  cat <<EOF | sh\nexport DB_PASSWORD={REAL}\nEOF\n}}\n", 4),  # runs it
        (f"#!/bin/bash\nhelp() {{\n  env=$(cat <<EOF\nDB_PASSWORD={REAL}\nEOF\n)\n}}\n", 4),  # keeps it
        (f"#!/bin/bash\nusage() {{\n  echo usage\n}}\nexport DB_PASSWORD={REAL}\n", 5),  # a real assignment
    ],
)
def test_here_documents_that_are_run_or_written_stay(script: str, line: int) -> None:
    assert _ps002("scripts/run.sh", script) == [(line, "medium")]


# 5. A block kept as an example ----------------------------------------------------------------

LDAP = """adminLdap:
  enabled: {enabled}
  servers:
      - host: "{host}"
        port: 389
  simplebind:
    userDn: "cn=admin,dc={dc},dc=com"
    password: "{password}"
"""


@pytest.mark.parametrize(
    ("enabled", "host", "dc"),
    [
        ("false", "ldap.example.com", "example"),
        ("false", "ldap.corp.internal", "example"),
        ("no", "ldap.example.org", "acme"),
    ],
)
def test_a_disabled_block_with_example_names_is_an_example(enabled: str, host: str, dc: str) -> None:
    text = LDAP.format(enabled=enabled, host=host, dc=dc, password="adminpassword")
    assert _ps002("charts/edge/values.yaml", text) == []


def test_a_disabled_example_smtp_block_in_json() -> None:
    text = '{"smtp": {"enabled": false, "host": "smtp.example.net", "password": "Mailpass2024"}}'
    assert _ps002("config/settings.json", text) == []


@pytest.mark.parametrize(
    ("enabled", "host", "dc"),
    [
        ("true", "ldap.example.com", "example"),  # switched on: this is what runs
        ("false", "ldap.acme.io", "acme"),  # off, but real names: switched on as it is
    ],
)
def test_one_signal_alone_stays(enabled: str, host: str, dc: str) -> None:
    text = LDAP.format(enabled=enabled, host=host, dc=dc, password=REAL)
    assert _ps002("charts/edge/values.yaml", text) == [(8, "medium")]


def test_a_password_outside_the_disabled_block_stays() -> None:
    text = LDAP.format(enabled="false", host="ldap.example.com", dc="example", password="adminpassword")
    text += f"admin:\n  password: {REAL}\n"
    assert _ps002("charts/edge/values.yaml", text) == [(10, "medium")]
