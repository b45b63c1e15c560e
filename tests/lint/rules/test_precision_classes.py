"""Issue 33: the false-positive classes found on repositories nobody here had read, each with
several shapes, and the look-alikes that must still be reported.

Credential-shaped values are assembled at run time so that this file holds no token itself.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest

from sandkit.lint.source import RuleSettings
from tests.conftest import cpu_seconds
from tests.lint.helpers import at, lint_files, lint_text, lint_tree

# ---- PS002: translations and natural-language values -------------------------------------------

CATALOGUE = {
    "password": "Passwort",
    "api_token": "API-Token",
    "login": "Anmelden",
    "logout": "Abmelden",
    "save": "Speichern",
    "welcome": "Willkommen zurück",
    "secret": "Geheimnis",
}


@pytest.mark.parametrize(
    "path",
    [
        "web/src/locales/de.json",
        "frontend/lang/messages/de-DE.json",
        "packages/i18n/src/locales/de/common.json",
        "config/locales/de.yml",
        "app/translations/messages.de.yaml",
        "src/de.json",
    ],
)
def test_translation_catalogues_are_not_secrets(path: str) -> None:
    text = json.dumps(CATALOGUE) if path.endswith(".json") else "".join(f"{k}: {v}\n" for k, v in CATALOGUE.items())
    assert at(lint_text(path, text), "PS002") == []


@pytest.mark.parametrize(
    "value", ["Contraseña", "パスワード", "Пароль", "گذرواژه", "密码", "Zugangs-Schlüssel", "รหัสผ่าน"]
)
def test_natural_language_words_are_not_passwords_anywhere(value: str) -> None:
    """Outside any catalogue too: a value with letters of a natural language is a label."""
    assert at(lint_text("config/app.json", json.dumps({"db_password": value})), "PS002") == []


def test_secrets_next_to_a_locales_folder_are_still_found() -> None:
    """A configuration file in a locales folder is not prose: its literal password stays a finding,
    as do ASCII passwords in ordinary configuration and a password in a catalogue-named file that
    holds settings rather than sentences."""
    settings = {"db_host": "db", "db_port": "5432", "db_password": "Kx82mQpz4t", "pool": "4"}
    assert at(lint_text("app/locales/settings.json", json.dumps(settings)), "PS002") == [(1, 53)]
    assert at(lint_text("deploy/de.yaml", "host: db\nport: '5432'\npassword: Kx82mQpz4t\n"), "PS002") == [(3, 11)]
    assert at(lint_text("config/app.json", json.dumps({"db_password": "Passwort1"})), "PS002") != []


def test_java_message_bundles() -> None:
    bundle = "login.title=Anmelden bei der Anwendung\npassword=Passwort\nsecret.label=Geheimes Wort hier\n"
    assert at(lint_text("src/main/resources/messages_de.properties", bundle), "PS002") == []
    creds = "registry=https://registry.example.com/\npassword=Kx82mQpz4t\n"
    assert at(lint_text("deploy/app.properties", creds), "PS002") == [(2, 10)]


# ---- placeholders and fixtures --------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "charts/argo-cd/ci/external-redis-values.yaml",
        "charts/app/ci/test-values.yml",
        "config/app.example.yml",
        "deploy/settings-sample.json",
        "conf/db.template.yaml",
    ],
)
def test_chart_testing_values_and_example_configs_are_fixtures(path: str) -> None:
    text = "redis:\n  password: Kx82mQpz4t\n" if not path.endswith(".json") else '{"password": "Kx82mQpz4t"}'
    assert at(lint_text(path, text), "PS002") == []


def test_chart_values_outside_ci_folders_are_still_read() -> None:
    assert at(lint_text("charts/app/values.yaml", "redis:\n  password: Kx82mQpz4t\n"), "PS002") == [(2, 13)]
    assert at(lint_text("ci/deploy.yaml", "redis:\n  password: Kx82mQpz4t\n"), "PS002") == [(2, 13)]


def _jwt(signature: str) -> str:
    def part(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return ".".join((part({"alg": "HS256", "typ": "JWT"}), part({"sub": "42", "role": "admin"}), signature))


@pytest.mark.parametrize("signature", ["signature", "SIGNATURE_HERE", "sig", "your-signature-goes-here"])
def test_jwts_signed_with_words_are_placeholders(signature: str) -> None:
    assert at(lint_text("notes/auth.yaml", f"token_sample: {_jwt(signature)}\n"), "PS001") == []


def test_a_jwt_with_a_real_signature_is_reported() -> None:
    signed = _jwt("Qm9rT1xZ3vR8pW2kLs7nHd4aFj6eUc0yBi5gMt9oXqE")
    assert at(lint_text("notes/auth.yaml", f"session: {signed}\n"), "PS001") == [(1, 10)]


@pytest.mark.parametrize(
    "url",
    [
        "twilio://AccountSid:AuthToken@FromPhoneNo",
        "ringc://SourcePhoneNo:JWTToken@ClientID/ClientSecret",
        "postmark://{apikey}:{from_email}?bcc=bcc@example.com",
        "mailto://user:mypassword@mail.example.com",
        "rocket://user:webhook@chat.example.com",
        "https://git:\\$HUB_TOKEN@code.example.com/org/repo",
        "smtp://me:<password>@mail.example.com",
    ],
)
def test_documented_url_passwords_are_field_names(url: str) -> None:
    assert at(lint_text("src/notify.py", f'# Example:\nURL = "{url}"\n'), "PS001") == []


@pytest.mark.parametrize(
    "url", ["postgresql://app:Kx82mQpz4tLs@db.example.com/app", "https://deploy:hV7qZ2pL9xW4@git.example.com/r"]
)
def test_url_passwords_that_look_real_are_reported(url: str) -> None:
    assert at(lint_text("src/settings.py", f'DATABASE = "{url}"\n'), "PS001") != []


def test_commented_key_placeholders_and_placeholder_attributes() -> None:
    placeholder_key = (
        "#   -----BEGIN " + "RSA PRIVATE KEY-----\n" + "#   privatekeyprivatekeyprivatekeyprivatekey\n" * 4
    )
    assert at(lint_text("sentry/config.yml", placeholder_key), "PS001") == []
    form = 'placeholder: "sk-' + 'asddassdfasdefqsdfasd23das3dasdcasd",\n'
    assert at(lint_text("app/form.tsx", form), "PS001") == []
    slack = "# token looks like: xoxp-" + "1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d\n"
    assert at(lint_text("plugins/slack.py", slack), "PS001") == []


def test_real_key_material_and_tokens_outside_placeholders_are_reported() -> None:
    # a whole DER body (its length header matches what follows): a key cut short is no key
    chooser = random.Random(5)
    der = base64.b64encode(b"\x30\x82\x04\xa3" + bytes(chooser.randrange(256) for _ in range(0x4A3))).decode()
    body = "".join(der[i : i + 64] + "\n" for i in range(0, len(der), 64))
    key = "-----BEGIN " + "RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----\n"
    assert at(lint_text("deploy/key.yaml", "key: |\n" + "".join("  " + ln + "\n" for ln in key.splitlines())), "PS001")
    token = "sk-proj-" + "Z8k2Lq9Wm4Rt7Yp1Xv3Bn6Hc5Jd0Fs2Ga8KeAb12"
    assert at(lint_text("app/config.ts", f'const key = "{token}";\n'), "PS001") == [(1, 14)]


# ---- PS001: fixture keys and documentation examples outside test folders (second round) --------
# Development repositories: xtejas/jose (tap/fixtures.ts, JSDoc examples in src/), caronc/apprise
# (example tokens in plugins' comments), cloudfoundry/credhub (src/contractTest/), and public code
# with `const TEST_PRIVATE_KEY = "-----BEGIN ...` / `FAKE_PAT = "ghp_..."` constants.

_KEY_BODY = "MIIEowIBAAKCAQEAq7Zr4Lp9WmXc2Vb8Nt5Ks3Jd6Hf1Ga0Qe7Ry4Tu2Io9Pa5Sd8Fg3Hj6Kl1Zx"
_PEM = "-----BEGIN " + "PRIVATE KEY-----"
_TOKEN = "ghp_" + "Z8k2Lq9Wm4Rt7Yp1Xv3Bn6Hc5Jd0Fs2Ga8Ke"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("src/rsa_keys.rs", f'const TEST_FAKE_RSA_KEY_2: &str = "{_PEM}\n{_KEY_BODY}\n{_KEY_BODY}\n";\n'),
        ("lib/keys.ts", f'export const testPrivateKey = "{_PEM}\\n{_KEY_BODY}\\n";\n'),
        ("app/Config.java", f'    private static final String FAKE_PAT = "{_TOKEN}";\n'),
        ("pkg/auth/keys.go", f"var dummyKey = `{_PEM}\n{_KEY_BODY}\n{_KEY_BODY}\n`\n"),
        ("conf/settings.py", f'EXAMPLE_TOKEN = (\n    "{_TOKEN}"\n)\n'),
        ("Keys.kt", f'    val sampleKey =\n        """{_PEM}\n{_KEY_BODY}\n{_KEY_BODY}\n"""\n'),
        ("conf/app.yaml", f"mock-token: {_TOKEN}\n"),
    ],
)
def test_values_of_names_that_say_test_or_fake_are_fixtures(path: str, text: str) -> None:
    assert at(lint_text(path, text), "PS001") == []


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("src/jwt/sign.ts", f" * const pkcs8 = `{_PEM}\n * {_KEY_BODY}\n * {_KEY_BODY}\n`\n"),
        ("plugins/chat.py", f"#   https://example.invalid/hook?token={_TOKEN}\n"),
        ("src/lib.rs", f'/// let token = "{_TOKEN}";\n'),
        ("src/Client.cs", f"// {_TOKEN}\n"),
    ],
)
def test_tokens_in_comments_of_program_source_are_documentation(path: str, text: str) -> None:
    """Low, not left out: a real token commented out is still there."""
    found = [f for f in lint_text(path, text) if f.rule == "PS001"]
    assert found and {f.severity for f in found} == {"low"}
    assert all("comment of program source" in f.message for f in found)


@pytest.mark.parametrize(
    "path",
    [
        "tap/fixtures.ts",
        "spec/key_fixture.rb",
        "src/contractTest/resources/contract.groovy",
        "app/src/androidTest/kotlin/TestKeys.kt",
        "lib/src/testFixtures/java/Keys.java",
        "src/integrationTests/config.yaml",
        "blog/tests.py",
        "src/keys/tests.rs",
    ],
)
def test_fixture_files_and_test_source_sets(path: str) -> None:
    assert at(lint_text(path, f'key = "{_TOKEN}"\n'), "PS001") == []


_PEM_VALUE = f'"{_PEM}\\n{_KEY_BODY}\\n{_KEY_BODY}\\n"'


@pytest.mark.parametrize(
    "text",
    [
        f"pub fn f() {{}}\n\n#[cfg(test)]\nmod tests {{\n    const KEY: &str = {_PEM_VALUE};\n}}\n",
        'fn f() {}\n#[cfg(test)]\n#[allow(unused)]\npub(crate) mod test {\n    let u = "https://git:Kx82mQpz4t@host.example/r";\n}\n',
        f"#[cfg(test)]\nmod checks {{\n    use super::*;\n    fn k() -> &'static str {{ {_PEM_VALUE} }}\n}}\n",
    ],
)
def test_values_in_rust_test_modules_are_fixtures(text: str) -> None:
    """Development repositories: Eugeny/russh (keys in `#[cfg(test)] mod test {` of keys/mod.rs, and
    keys/format/tests.rs)."""
    assert at(lint_text("src/keys/mod.rs", text), "PS001") == []
    assert at(lint_text("src/keys/format/tests.rs", f"let key = {_PEM_VALUE};\n"), "PS001") == []


def test_rust_keys_before_a_test_module_or_beside_a_declared_one_are_reported() -> None:
    before = f"const KEY: &str = {_PEM_VALUE};\n#[cfg(test)]\nmod tests {{}}\n"
    assert at(lint_text("src/keys.rs", before), "PS001") == [(1, 20)]
    declared = f"#[cfg(test)]\nmod tests;\nconst KEY: &str = {_PEM_VALUE};\n"
    assert at(lint_text("src/keys.rs", declared), "PS001") == [(3, 20)]


def test_published_emulator_keys_and_eg_examples_are_not_secrets() -> None:
    """The storage emulator's key is the same everywhere (testcontainers-python ships it); "e.g.,"
    and "eg" before a URL mark an example (prometheus-community's elasticsearch-exporter values)."""
    azurite = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
    conn = f'CONN = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;Account" + "Key={azurite};"\n'
    assert at(lint_text("src/emulator.cs", conn.replace('" + "', "")), "PS001") == []
    for lead in ("# -- MongoDB URI, eg ", "# e.g., ", "# such as "):
        text = f"{lead}mongodb://sally:Kx82mQpz4tLs@db.example.com:27017/app\nuri: ''\n"
        assert at(lint_text("charts/app/values.yaml", text), "PS001") == [], lead
    assert at(lint_text("charts/app/values.yaml", "# mongodb://sally:Kx82mQpz4tLs@db.example.com/a\n"), "PS001")


def test_keys_and_tokens_next_to_fixture_looking_code_are_still_reported(tmp_path: Path) -> None:
    """A real name, a name that merely contains "test" in a word (latest, contest), a commented
    token in a .env or YAML file (not program source), and a folder called latest/ stay findings;
    include-examples reports a fixture-named value at low."""
    for path, text in [
        ("src/keys.rs", f'const SIGNING_KEY: &str = "{_PEM}\n{_KEY_BODY}\n{_KEY_BODY}\n";\n'),
        ("app/config.ts", f'const latestToken = "{_TOKEN}";\n'),
        ("app/config.ts", f'const contestKey = "{_TOKEN}";\n'),
        (".env", f"# GITHUB_TOKEN={_TOKEN}\n"),
        ("deploy/values.yaml", f"# token: {_TOKEN}\n"),
        ("releases/latest/config.py", f'TOKEN = "{_TOKEN}"\n'),
    ]:
        assert at(lint_text(path, text), "PS001") != [], (path, text)
    (tmp_path / "k.py").write_text(f'FAKE_PAT = "{_TOKEN}"\n')
    found = lint_tree(tmp_path, ("PS001",), settings=RuleSettings(include_examples=True))
    assert [(f.severity, "named as a test or sample value" in f.message) for f in found] == [("low", True)]


# ---- PS002: encrypted values and password hashes (second round) ---------------------------------
# Development repositories: szinn/k8s-homelab and budimanjojo/home-cluster (SOPS-encrypted .env and
# YAML, an AdGuard bcrypt hash), techno-tim/k3s-ansible (molecule/*/molecule.yml `ssh.password: vagrant`).

_CIPHER = "ENC[AES256_GCM,data:" + "GmyIaevLcM6uA8o1bvU3l+7Bi+eUwI0jFCC=,iv:YdDpiBWTQlbq03M2P0=,tag:Zq8v==,type:str]"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("config.sops.env", f"export GITHUB_TOKEN={_CIPHER}\n"),
        ("cluster/secret.sops.yaml", f"stringData:\n  RESTIC_PASSWORD: {_CIPHER}\n"),
        ("secrets.json", json.dumps({"api_key": _CIPHER})),
        ("group_vars/all.yml", "db_password: $ANSIBLE_VAULT;1.1;AES256\n"),
        (
            "adguard/AdGuardHome.yaml",
            "users:\n  - name: admin\n    password: $2y$05$YG8EzZEcoNPWI59fcg715OhF4uMmZQSLS75VNg0FiQXF\n",
        ),
        ("conf/users.yaml", "password: $6$rounds=5000$saltsalt$Kx82mQpz4tLsHd4aFj6eUc0yBi5gMt9oXqE\n"),
        ("conf/users.yaml", "password_hash: $argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$Kx82mQpz4tLsHd4aFj6eUc0\n"),
        ("conf/ldap.yaml", "rootpw: {SSHA}Kx82mQpz4tLsHd4aFj6eUc0yBi5g\n"),
        ("molecule/default/molecule.yml", "platforms:\n  - name: node\n    ssh.password: vagrant\n"),
    ],
)
def test_encrypted_values_hashes_and_molecule_scenarios_are_not_plaintext(path: str, text: str) -> None:
    assert at(lint_text(path, text), "PS002") == []


def test_plaintext_next_to_encrypted_values_is_still_reported() -> None:
    text = f"stringData:\n  A_TOKEN: {_CIPHER}\n  DB_PASSWORD: Kx82mQpz4tLs\n  PASS: $2y$short\n"
    assert at(lint_text("cluster/secret.yaml", text), "PS002") == [(3, 16), (4, 9)]


# ---- IS001: builder stages and public front-end settings (second round) ---------------------------
# Development repositories: jorisfalter/dreamhouseai (NEXT_PUBLIC_POSTHOG_KEY in a builder and a
# runner stage) and public Next.js Dockerfiles passing SENTRY_AUTH_TOKEN to a builder stage.

_RUNNER = 'FROM node:20-alpine AS runner\nCOPY --from=builder /app/.next ./.next\nCMD ["node", "server.js"]\n'


@pytest.mark.parametrize(
    "builder",
    [
        "FROM node:20 AS builder\nARG SENTRY_AUTH_TOKEN\nENV SENTRY_AUTH_TOKEN=$SENTRY_AUTH_TOKEN\nRUN npm run build\n",
        "FROM node:20 AS builder\nARG NPM_TOKEN\nRUN npm ci\n",
        "FROM golang:1.22 AS builder\nENV GITHUB_TOKEN=${GITHUB_TOKEN}\nRUN go build ./...\n",
    ],
)
def test_secrets_of_a_builder_stage_no_image_is_built_from_are_low(builder: str) -> None:
    found = [f for f in lint_text("web/Dockerfile", builder + _RUNNER) if f.rule == "IS001"]
    assert found and all(f.severity == "low" and "no image is built from" in f.message for f in found)


@pytest.mark.parametrize(
    ("dockerfile", "severity"),
    [
        ("FROM node:20 AS builder\nARG SENTRY_AUTH_TOKEN\nRUN build\nFROM builder AS runner\nCMD run\n", "medium"),
        ("FROM node:20\nARG SENTRY_AUTH_TOKEN\nRUN npm run build\n", "medium"),
        ("FROM node:20 AS builder\nRUN build\nFROM node:20 AS debug\nENV API_TOKEN=$T\n" + _RUNNER, "high"),
    ],
)
def test_secrets_of_stages_that_are_shipped_keep_their_severity(dockerfile: str, severity: str) -> None:
    """A stage the final one is built FROM, a single stage, and a stage nobody copies from (a
    --target someone builds) are shipped."""
    assert {f.severity for f in lint_text("Dockerfile", dockerfile) if f.rule == "IS001"} == {severity}


@pytest.mark.parametrize(
    "name", ["NEXT_PUBLIC_POSTHOG_KEY", "VITE_SUPABASE_ANON_KEY", "REACT_APP_MAPS_API_KEY", "EXPO_PUBLIC_API_TOKEN"]
)
def test_public_front_end_settings_are_not_image_secrets(name: str) -> None:
    assert at(lint_text("Dockerfile", f"FROM node:20\nARG {name}\nENV {name}=${name}\n"), "IS001") == []


def test_public_prefixed_secrets_and_credential_values_are_still_reported() -> None:
    text = "FROM node:20\nARG NEXT_PUBLIC_STRIPE_SECRET_KEY\nARG VITE_DB_PASSWORD\n"
    assert at(lint_text("Dockerfile", text), "IS001") == [(2, 5), (3, 5)]
    token = "sk-proj-" + "Z8k2Lq9Wm4Rt7Yp1Xv3Bn6Hc5Jd0Fs2Ga8KeAb12"
    found = [f for f in lint_text("Dockerfile", f"FROM node:20\nENV NEXT_PUBLIC_AI_KEY={token}\n") if f.rule == "IS001"]
    assert [f.severity for f in found] == ["critical"]


# ---- IS002 / IS003 ---------------------------------------------------------------------------------


def test_copied_settings_without_credentials_are_not_secrets() -> None:
    files = {
        "Dockerfile": "FROM node:20\nCOPY .npmrc .npmrc\nCOPY dh/ffdhe4096.pem /etc/dh.pem\nCOPY certs/ca.pem /ca.pem\n",
        ".npmrc": "legacy-peer-deps=true\nregistry=https://registry.example.com/\n",
        "dh/ffdhe4096.pem": "-----BEGIN DH PARAMETERS-----\nMIIBCAKCAQEA//////////+t+FRYortKmq\n-----END DH PARAMETERS-----\n",
        "certs/ca.pem": "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
    }
    assert at(lint_files(files), "IS002") == []


def test_copied_settings_with_credentials_are_reported() -> None:
    files = {
        "Dockerfile": "FROM node:20\nCOPY .npmrc .npmrc\nCOPY tls/server.pem /srv.pem\n",
        ".npmrc": "//registry.example.com/:_authToken=Kx82mQpz4tLs9Wq\n",
        "tls/server.pem": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nMIIE\n",
    }
    assert at(lint_files(files), "IS002") == [(2, 6), (3, 6)]


@pytest.mark.parametrize(
    "dockerfile",
    [
        "FROM node:20 AS build\nCOPY . .\nRUN npm ci && npm run build\nFROM nginx\nCOPY --from=build /app/dist /srv\n",
        "FROM golang AS deps\nCOPY . .\nFROM deps AS build\nRUN go build\nFROM scratch\nCOPY --from=build /out /app\n",
        "FROM node AS base\nFROM base AS builder\nCOPY . .\nFROM base\nCOPY --from=builder /a /a\n",
        "FROM node AS src\nADD . /src\nFROM alpine\nRUN --mount=type=bind,from=src,target=/src make\n",
    ],
)
def test_context_copies_in_discarded_builder_stages(dockerfile: str) -> None:
    assert at(lint_text("Dockerfile", dockerfile), "IS003") == []


@pytest.mark.parametrize(
    "dockerfile, line",
    [
        ("FROM node:20\nCOPY . .\n", 2),
        ("FROM node AS base\nCOPY . .\nFROM base\nRUN npm ci\n", 2),  # the final stage is built on it
        ("FROM node AS build\nRUN x\nFROM nginx AS web\nCOPY . /srv\nFROM alpine AS tools\nRUN y\n", 4),  # a target
    ],
)
def test_context_copies_that_reach_an_image(dockerfile: str, line: int) -> None:
    assert [pos[0] for pos in at(lint_text("Dockerfile", dockerfile), "IS003")] == [line]


# ---- AI001 -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "source .venv/bin/activate",
        ". .venv/bin/activate",
        "source .tox/py311/bin/activate",
        "source .env/bin/activate.fish",
        "source .direnv/python-3.11/bin/activate",
    ],
)
def test_virtual_environment_activation_is_not_a_hidden_script(command: str) -> None:
    assert at(lint_text("CLAUDE.md", f"# Setup\n\n```\n{command}\npytest -q\n```\n"), "AI001") == []


def test_scripts_in_hidden_folders_are_still_reported() -> None:
    found = at(lint_text("CLAUDE.md", "# Setup\n\nRun `bash .cache/setup.sh`.\n\nThen `node .vscode/x.js`.\n"), "AI001")
    assert len(found) == 2


# ---- HU002 / HU003 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "پیش\u200cفرض",  # Persian ZWNJ inside a word
        "آن\u200c را",  # at a word's end, before a space
        "سیستم،\u200c شما",  # after an Arabic comma
        "مثال:\u200c {0} از API\u200c (اخ",  # after a colon and a Latin word on a Persian line
        "सेटिंग्\u200cस",  # Devanagari after a virama
        "సెట్టింగ్\u200cలు",  # Telugu after a virama
        "کتاب\u200cها",  # Urdu
        "ക്\u200dക",  # Malayalam ZWJ
    ],
)
def test_joiners_in_scripts_that_spell_with_them(text: str) -> None:
    assert at(lint_text(".vscode/settings.json", json.dumps({"label": text}, ensure_ascii=False)), "HU003") == []
    assert at(lint_text("CLAUDE.md", f"# {text}\n"), "HU003") == []


@pytest.mark.parametrize("text", ["cu\u200crl", "ev\u200dal", "rm -rf\u200c/", "a\u200bb"])
def test_joiners_and_spaces_in_latin_text_are_reported(text: str) -> None:
    assert at(lint_text("CLAUDE.md", f"# {text}\n"), "HU003") != []
    assert at(lint_text("config/app.yaml", f"name: '{text}'\n"), "HU003") != []


def test_direction_marks_and_embeddings_in_rtl_translations() -> None:
    catalogue = {
        "docs": "بررسی مستندات: \u200f{0}",
        "group": "برای مثال: \u202d628123456789-342345",
        "resume": "\u202cدەستپێکردنەوە",
        "save": "ذخیره تغییرات",
    }
    assert at(lint_text("src/lang/fa.json", json.dumps(catalogue, ensure_ascii=False)), "HU002") == []
    prose = lint_text("docs/fa/guide.md", "# راهنما\n\nبرای مثال: \u202d628123456789\n")
    assert [(f.rule, f.severity) for f in prose if f.rule == "HU002"] == [("HU002", "low")]


def test_bidi_overrides_outside_rtl_text_stay_high() -> None:
    findings = lint_text(
        "src/lang/en.json", json.dumps({"a": "access \u202eevil\u202c level", "b": "Save changes"}, ensure_ascii=False)
    )
    assert [f.severity for f in findings if f.rule == "HU002"] == ["high", "high"]


def test_a_demo_password_named_like_one_is_still_a_password() -> None:
    url = "postgres://astronomy_user:astronomy_password@astronomy-db/astronomy_db"
    assert at(lint_text("charts/shop/values.yaml", f"env:\n  - name: DB\n    value: {url}\n"), "PS001") != []


# ---- Helm templates the masking could not read ----------------------------------------------------

CHART = {"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"}
DAEMONSET = """\
{{/*
Renders {{ include "c.name" . }} on every node.
*/}}
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ include "c.fullname" . }}
spec:
  updateStrategy:
{{ toYaml .Values.updateStrategy | indent 4 }}
  template:
    spec:
      hostNetwork: {{ .Values.hostNetwork }}
      containers:
        - name: c
          args:
{{- range $k, $v := .Values.extraArgs }}
            {{ $k }}: {{ $v }}
{{- end }}
          ports:
{{ toYaml .Values.ports | indent 12 }}
          securityContext:
{{ toYaml .Values.securityContext | indent 12 }}
"""
VALUES = (
    "updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}\nhostNetwork: true\n"
    "extraArgs: {}\nports: [{containerPort: 80}]\nsecurityContext: {privileged: true}\n"
)


def test_templates_the_masking_once_broke_are_read() -> None:
    """`toYaml | indent N` at column 0, a comment holding a directive, a flow list at its key's
    column, a line a loop builds: the template is checked, with its values.yaml defaults."""
    findings = lint_files({**CHART, "chart/values.yaml": VALUES, "chart/templates/ds.yaml": DAEMONSET})
    assert at(findings, "SK001") == []
    assert [pos[0] for pos in at(findings, "PV001")] == [23]
    assert [pos[0] for pos in at(findings, "PV002")] == [13]


def test_include_given_a_values_path_is_not_that_value() -> None:
    template = 'apiVersion: v1\nkind: Service\nspec:\n  {{- include "c.limits" .Values.monitor | nindent 2 }}\n  selector:\n    app: c\n'
    findings = lint_files(
        {**CHART, "chart/values.yaml": "monitor: {interval: 30s}\n", "chart/templates/svc.yaml": template}
    )
    assert at(findings, "SK001") == []


def test_templated_yaml_elsewhere_in_a_chart_is_a_template() -> None:
    crd = "{{- if .Values.crds.create }}\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x\n{{- end }}\n"
    findings = lint_files({**CHART, "chart/values.yaml": "crds: {create: true}\n", "chart/conf/crds/x.yaml": crd})
    assert at(findings, "SK001") == []


def test_a_template_past_saving_is_still_reported() -> None:
    broken = "apiVersion: v1\nkind: ConfigMap\ndata:\n" + "".join(
        f"  k{i}: [unclosed {{{{ .Values.x }}}}\n" for i in range(20)
    )
    findings = lint_files({**CHART, "chart/values.yaml": "x: 1\n", "chart/templates/cm.yaml": broken})
    assert [f.severity for f in findings if f.rule == "SK001"] == ["info"]


# ---- SK001: anchors defined twice, templates named like plain YAML (second round) -----------------
# Development repositories: budimanjojo/home-cluster (`name: &name CF_API_TOKEN` in each env entry of
# a HelmRelease) and navikt/dp-faktasider-frontend (nais/nais.yaml with `{{ingresses}}`).

_REDEFINED = [
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: app\n      image: busybox\n"
    "      env:\n        - name: &name A\n          valueFrom: {secretKeyRef: {name: s, key: *name}}\n"
    "        - name: &name B\n          valueFrom: {secretKeyRef: {name: s, key: *name}}\n"
    "      securityContext: {privileged: true}\n",
    "services:\n  a: &svc\n    image: busybox\n  b: &svc\n    image: alpine\n    privileged: true\n  c: *svc\n",
    "x-base: &base {image: busybox}\nservices:\n  web:\n    <<: *base\n    privileged: true\n"
    "  worker:\n    <<: &base {image: alpine}\n    command: run\n",
]


@pytest.mark.parametrize("text", _REDEFINED)
def test_an_anchor_defined_twice_is_yaml(text: str) -> None:
    """The YAML specification lets a later anchor replace an earlier one; what the file says is
    still checked (the privileged container of each shape is found)."""
    name = "deploy/pod.yaml" if text.startswith("apiVersion") else "compose.yaml"
    findings = lint_text(name, text)
    assert at(findings, "SK001") == []
    assert at(findings, "PV001") != []


def test_a_large_text_that_redefines_anchors_keeps_its_parse_error() -> None:
    """The Python composer that accepts a redefined anchor is far slower than libyaml's, so only
    texts up to 64 KB get it: a 1 MB file of redefinitions is a parse error, read in libyaml's time."""
    items = "".join(f"      - name: &n V{i}\n        value: *n\n" for i in range(30_000))
    text = _REDEFINED[0].split("      env:")[0] + "      env:\n" + items
    assert [f.severity for f in lint_text("deploy/pod.yaml", text) if f.rule == "SK001"] == ["medium"]


def test_an_alias_refers_to_the_closest_definition() -> None:
    from sandkit.syntax.yaml import load_documents

    docs = load_documents("a: &x 1\nb: *x\nc: &x 2\nd: *x\n")
    assert docs == [{"a": 1, "b": 1, "c": 2, "d": 2}]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (
            "nais/nais.yaml",
            "apiVersion: nais.io/v1alpha1\nkind: Application\nspec:\n  image: {{image}}\n  {{ingresses}}\n",
        ),
        (
            "roles/cilium/templates/pool.yaml",
            "apiVersion: cilium.io/v2alpha1\nkind: CiliumLoadBalancerIPPool\nspec:\n  blocks:\n"
            "{% for cidr in pools %}\n    - cidr: {{ cidr }}\n{% endfor %}\n",
        ),
        (
            "tests/Snapshots/Publish#03.verified.yaml",
            'apiVersion: v1\nkind: ConfigMap\ndata:\n  TLS: {{ if eq .Values.tls "true" }},ssl=true{{ else }},ssl=false{{ end }}\n',
        ),
    ],
)
def test_templates_named_like_plain_yaml_are_read_with_their_directives_masked(path: str, text: str) -> None:
    # once an info "not YAML until filled in"; now read as a template (tests/lint/test_template_reading.py)
    assert [f.severity for f in lint_text(path, text) if f.rule == "SK001"] == []


def test_broken_yaml_and_twice_written_keys_stay_medium() -> None:
    """Not a template: a broken workflow (its ${{ }} expressions are not directives) and a
    duplicate key next to a directive."""
    workflow = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.sha }}\n       bad: [\n"
    assert [f.severity for f in lint_text(".github/workflows/ci.yml", workflow) if f.rule == "SK001"] == ["medium"]
    twice = "services:\n  a:\n    image: x\n    command: '{{.Names}}'\n    image: y\n"
    assert [f.severity for f in lint_text("compose.yaml", twice) if f.rule == "SK001"] == ["medium"]


# ---- RS001 / RS002 -------------------------------------------------------------------------------

DIND_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: build}
spec:
  containers:
    - name: builder
      image: docker:27-cli
      env:
        - {name: DOCKER_HOST, value: "%s"}
%s    - name: dind
      image: docker:27-dind
      securityContext: {privileged: true}
"""


@pytest.mark.parametrize(
    "host, extra",
    [
        ("tcp://localhost:2376", ""),
        ("tcp://127.0.0.1:2376", ""),
        ("tcp://localhost:2375", "        - {name: DOCKER_TLS_VERIFY, value: '1'}\n"),
        ("https://localhost:2376", ""),
    ],
)
def test_a_pods_own_dind_sidecar_behind_tls(host: str, extra: str) -> None:
    findings = lint_text("k8s/build.yaml", DIND_POD % (host, extra))
    assert at(findings, "RS002") == []
    assert at(findings, "PV001") != []  # the sidecar's privilege is still reported


def test_local_daemons_without_tls_and_remote_daemons() -> None:
    """In an agent's pod; in a pod that names no coding agent it is info (test_severity_reach.py)."""
    agent_pod = DIND_POD.replace("{name: build}", "{name: aider-build}")
    local = [f for f in lint_text("k8s/build.yaml", agent_pod % ("tcp://localhost:2375", "")) if f.rule == "RS002"]
    assert [f.severity for f in local] == ["medium"]
    remote = [
        f for f in lint_text("k8s/build.yaml", agent_pod % ("tcp://docker.example.com:2376", "")) if f.rule == "RS002"
    ]
    assert [f.severity for f in remote] == ["high"]
    no_agent = [f for f in lint_text("k8s/build.yaml", DIND_POD % ("tcp://localhost:2375", "")) if f.rule == "RS002"]
    assert [f.severity for f in no_agent] == ["info"]


@pytest.mark.parametrize(
    "volume",
    [
        "${SOCKET_PATH}:/var/run/docker.sock:ro",
        "$DOCKER_SOCK:/run/docker.sock",
        "${SOCK?required}:/var/run/docker.sock",
    ],
)
def test_a_variable_mounted_onto_the_socket_path(volume: str) -> None:
    compose = f"services:\n  app:\n    image: app\n    volumes:\n      - {volume}\n"
    assert [f.severity for f in lint_text("compose.yaml", compose) if f.rule == "RS001"] == ["high"]


@pytest.mark.parametrize(
    "volume", ["${DATA_DIR}:/data", "${CONFIG}:/etc/app/config.yaml:ro", "/var/lib/app:/var/run/app.sock"]
)
def test_variables_mounted_elsewhere_are_not_sockets(volume: str) -> None:
    compose = f"services:\n  app:\n    image: app\n    volumes:\n      - {volume}\n"
    assert at(lint_text("compose.yaml", compose), "RS001") == []


# ---- PV007 / EG003 -------------------------------------------------------------------------------


def test_anonymous_volumes_are_not_the_project_folder() -> None:
    compose = "services:\n  claude:\n    image: claude-code\n    volumes:\n      - /app/node_modules\n      - .:/app\n"
    assert [pos[0] for pos in at(lint_text("compose.yaml", compose), "PV007")] == [6]


def test_parent_folders_without_git_in_a_checkout(tmp_path: object) -> None:
    import pathlib

    from tests.lint.helpers import lint_tree, write_tree

    root = pathlib.Path(str(tmp_path))
    compose = "services:\n  claude:\n    image: claude-code\n    volumes:\n      - ../..:/work\n      - ..:/up\n"
    write_tree(root, {"deploy/agent/compose.yaml": compose, "deploy/.keep": "", ".git/HEAD": "ref: refs/heads/main\n"})
    assert [f.line for f in lint_tree(root) if f.rule == "PV007"] == [5]  # ../.. is the checkout; .. is deploy/


@pytest.mark.parametrize(
    "image, name",
    [
        ("otel/opentelemetry-collector-contrib:0.110.0", "claude-otel-collector"),
        ("prom/prometheus", "claude-code-metrics"),
        ("grafana/grafana:11", "codex-dashboards"),
        ("postgres:16", "aider-db"),
    ],
)
def test_servers_named_after_an_agent_are_not_agents(image: str, name: str) -> None:
    compose = f"services:\n  {name}:\n    image: {image}\n    network_mode: host\n"
    assert at(lint_text("compose.yaml", compose), "EG003") == []


def test_agents_on_the_host_network_are_still_reported() -> None:
    compose = "services:\n  agent:\n    image: ghcr.io/example/claude-code:1\n    network_mode: host\n"
    assert at(lint_text("compose.yaml", compose), "EG003") != []


# ---- misses: AA004 runners with any argument, AA008 flags through a variable ---------------------


@pytest.mark.parametrize(
    "entry",
    [
        "Bash(node *)",
        "Bash(python3:*)",
        "Bash(bash -c:*)",
        "Bash(npx *)",
        "Bash(git config *)",
        "Bash(git:*)",
        "Bash(env *)",
        "Bash(xargs:*)",
        "Bash(sudo *)",
        "Bash(deno*)",
        "Bash(timeout 30 bash:*)",
        "Bash(timeout --signal=KILL 5m python3 *)",
        "Bash(nice -n 10 sh:*)",
        "Bash(env FOO=1 node *)",
        "Bash(MSYS_NO_PATHCONV=1 bash:*)",
        "Bash(sudo -u build npx *)",
        "Bash(go:*)",
        "Bash(cargo *)",
        "Bash(dotnet:*)",
    ],
)
def test_runners_allowed_with_any_argument(entry: str) -> None:
    settings = json.dumps({"permissions": {"allow": ["Read", entry]}})
    assert len(at(lint_text(".claude/settings.json", settings), "AA004")) == 1


@pytest.mark.parametrize(
    "entry",
    [
        "Bash(npm test:*)",
        "Bash(node scripts/build.js)",
        "Bash(git status:*)",
        "Bash(git diff *)",
        "Bash(pytest:*)",
        "Bash(timeout 30 pytest:*)",
        "Bash(go test:*)",
        "Bash(go build ./...)",
        "Bash(cargo test:*)",
        "Bash(timeout 5 npm test:*)",
        "Bash(gopls:*)",
        "Bash(sudo apt install python3:*)",
        "Bash(sudo -E apt-get install nodejs:*)",
    ],
)
def test_narrow_allow_rules_stay_quiet(entry: str) -> None:
    settings = json.dumps({"permissions": {"allow": [entry]}})
    assert at(lint_text(".claude/settings.json", settings), "AA004") == []


@pytest.mark.parametrize(
    "script",
    [
        'claude_flags="--dangerously-skip-permissions"\nclaude -p "fix it" $claude_flags\n',
        'FLAGS="--model opus --dangerously-skip-permissions"\nclaude ${FLAGS} -p hi\n',
        'args=(--print --dangerously-skip-permissions)\nclaude "${args[@]}"\n',
    ],
)
def test_approval_flags_passed_through_a_variable_in_a_workflow(script: str) -> None:
    step = "".join(f"          {line}\n" for line in script.splitlines())
    workflow = f"on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n{step}"
    assert len(at(lint_text(".github/workflows/agent.yml", workflow), "AA008")) == 1


# ---- misses: default secrets in a committed .env, spoofable bot conditions ------------------------


@pytest.mark.parametrize(
    "line", ["RPC_SHARED_SECRET=supersecret", "ADMIN_PASSWORD=opensesame", "sessionToken=keyboardcat"]
)
def test_word_defaults_of_secrets_in_a_committed_env(line: str) -> None:
    assert len(at(lint_text("deploy/.env", f"LOG_LEVEL=info\n{line}\n"), "PS002")) == 1


@pytest.mark.parametrize(
    "path, line",
    [
        ("deploy/.env", "JWT_SECRET=changeme"),
        ("deploy/.env", "SECRET_BACKEND=vault"),
        ("deploy/.env", "API_KEY=auto"),
        ("deploy/.env", "AUTH_PROVIDER=github"),
        ("deploy/.env.example", "RPC_SHARED_SECRET=supersecret"),
        ("deploy/.env", "DB_PASSWORD=${DB_PASSWORD}"),
    ],
)
def test_settings_placeholders_and_templates_of_env_files(path: str, line: str) -> None:
    assert at(lint_text(path, f"{line}\n"), "PS002") == []


AUTO_APPROVE = """\
on: %s
permissions:
  pull-requests: write
jobs:
  approve:
    runs-on: ubuntu-latest
    if: %s
    steps:
      - run: gh pr review --approve "$PR_URL"
        env:
          PR_URL: ${{ github.event.pull_request.html_url }}
          GH_TOKEN: ${{ secrets.GITHUB_TOKEN }}
"""


@pytest.mark.parametrize(
    "trigger, condition",
    [
        ("pull_request_target", "github.actor == 'dependabot[bot]'"),
        ("pull_request_target", "${{ github.triggering_actor == 'renovate[bot]' }}"),
        ("[workflow_run]", "\"'dependabot[bot]' == github.actor\""),
    ],
)
def test_spoofable_bot_conditions_guarding_an_approval(trigger: str, condition: str) -> None:
    findings = [
        f for f in lint_text(".github/workflows/auto.yml", AUTO_APPROVE % (trigger, condition)) if f.rule == "CP008"
    ]
    assert [(f.line, f.severity) for f in findings] == [(7, "high")]


@pytest.mark.parametrize(
    "trigger, condition",
    [
        ("pull_request_target", "github.event.pull_request.user.login == 'dependabot[bot]'"),
        ("pull_request", "github.actor == 'dependabot[bot]'"),
        ("push", "github.actor == 'dependabot[bot]'"),
    ],
)
def test_bot_checks_a_fork_cannot_spoof(trigger: str, condition: str) -> None:
    assert at(lint_text(".github/workflows/auto.yml", AUTO_APPROVE % (trigger, condition)), "CP008") == []


@pytest.mark.parametrize(
    "line", ["ENV TOKEN=123456", "ENV API_KEY=changeme", "ENV SECRET_KEY=xxxxxxxx", "ENV DB_PASSWORD=000000"]
)
def test_dummy_image_defaults_are_info(line: str) -> None:
    findings = [f for f in lint_text("Dockerfile", f"FROM x\n{line}\n") if f.rule == "IS001"]
    assert [f.severity for f in findings] == ["info"]


@pytest.mark.parametrize("line", ["ENV DB_PASSWORD=Kx82mQpz4t", "ENV GH_TOKEN=$GH_TOKEN", "ENV API_KEY=${API_KEY}"])
def test_real_looking_image_secrets_stay_high(line: str) -> None:
    findings = [f for f in lint_text("Dockerfile", f"FROM x\n{line}\n") if f.rule == "IS001"]
    assert [f.severity for f in findings] == ["high"]


def test_a_file_cut_at_the_scan_limit_is_not_a_parse_error() -> None:
    import pathlib
    import tempfile

    from tests.lint.helpers import lint_tree, write_tree

    big = json.dumps({"api_token": "Kx82mQpz4t", "items": [{"description": "x" * 90} for _ in range(400)]})
    with tempfile.TemporaryDirectory() as tmp:
        files = {"report.json": big, "compose.yaml": "services: [\n", ".devcontainer/devcontainer.json": big}
        write_tree(pathlib.Path(tmp), files)
        findings = lint_tree(pathlib.Path(tmp), max_bytes=10_000)
    # report.json is data: listed in the summary as read in part, neither SK001 nor SK002
    assert sorted((f.path, f.rule) for f in findings if f.rule.startswith("SK")) == [
        (".devcontainer/devcontainer.json", "SK002"),
        ("compose.yaml", "SK001"),
    ]
    assert "does not parse" in next(f.message for f in findings if f.rule == "SK002")


def test_catalogues_with_untranslated_entries() -> None:
    catalogue = {f"k{i}": "" for i in range(30)} | {"Password": "Parool", "Save": "Salvesta", "Hello": "Tere tulemast"}
    assert at(lint_text("vue3/src/locales/et.json", json.dumps(catalogue)), "PS002") == []


# ---- not-actionable classes of the second held-out set (third round) ------------------------------

INHERIT = "on: push\npermissions: {}\njobs:\n  a:\n    uses: %s\n    secrets: inherit\n"


@pytest.mark.parametrize(
    "uses",
    [
        "./.github/workflows/build.yml",
        "$/.github/workflows/publish-pypi.yml",
        "  ./.github/workflows/r.yaml",
        "'$/.github/workflows/check-docs.yml'",
    ],
)
def test_inherit_to_a_workflow_of_the_same_repository_is_not_reported(uses: str) -> None:
    assert at(lint_text(".github/workflows/ci.yml", INHERIT % uses), "CS002") == []


@pytest.mark.parametrize(
    "uses",
    [
        "org/shared/.github/workflows/build.yml@main",
        "org/shared/.github/workflows/build.yml@0123456789abcdef0123456789abcdef01234567",
        "octo/x/.github/workflows/$/y.yml@v1",
    ],
)
def test_inherit_to_another_repository_stays_medium(uses: str) -> None:
    findings = [f for f in lint_text(".github/workflows/ci.yml", INHERIT % uses) if f.rule == "CS002"]
    assert [f.severity for f in findings] == ["medium"]


JOB_ENV = "on: push\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    env:\n      V: ${{ secrets.%s }}\n"


@pytest.mark.parametrize(
    "name",
    [
        "DOCKER_HUB_USERNAME",
        "DOCKERHUBUSERNAME",
        "AZURE_DEPLOYMENT_TEST_SUBSCRIPTION_ID",
        "AZURE_TENANT_ID",
        "AWS_ACCESS_KEY_ID",
        "QUAY_USER",
        "GCP_PROJECT",
        "DOCKER_ORG",
        "NOTIFY_EMAIL",
    ],
)
def test_identifiers_kept_as_secrets_are_not_credentials(name: str) -> None:
    assert at(lint_text(".github/workflows/ci.yml", JOB_ENV % name), "CS001") == []


@pytest.mark.parametrize(
    "name, severity",
    [
        ("DOCKER_HUB_PASSWORD", "medium"),
        ("AWS_SECRET_ACCESS_KEY", "medium"),
        ("AZURE_CLIENT_SECRET", "medium"),
        ("USER_TOKEN", "medium"),
        ("ID_RSA", "medium"),
        ("SLACK_WEBHOOK_URL", "medium"),
        ("GITHUB_TOKEN", "info"),
    ],
)
def test_credentials_in_job_env_stay_reported(name: str, severity: str) -> None:
    findings = [f for f in lint_text(".github/workflows/ci.yml", JOB_ENV % name) if f.rule == "CS001"]
    assert [f.severity for f in findings] == [severity]


OPEN_POLICY = (
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: %s}\n"
    "spec:\n  podSelector: {matchLabels: {app: %s}}\n  policyTypes: [Ingress, Egress]\n  egress:\n    - {}\n"
)


@pytest.mark.parametrize("app", ["adservice", "redis-cart", "postgres", "frontend"])
def test_open_egress_of_an_application_is_not_a_sandbox_finding(app: str) -> None:
    assert at(lint_text("kustomize/np.yaml", OPEN_POLICY % (app, app)), "EG001") == []


@pytest.mark.parametrize("app", ["claude-code", "openhands-runtime", "aider", "codex-agent"])
def test_open_egress_of_an_agent_stays_high(app: str) -> None:
    findings = [f for f in lint_text("k8s/np.yaml", OPEN_POLICY % ("np", app)) if f.rule == "EG001"]
    assert [(f.line, f.severity) for f in findings] == [(8, "high")]


CI_SOCKET = (
    "on: push\npermissions: {}\njobs:\n  t:\n    runs-on: %s\n    steps:\n"
    "      - run: docker run -v /var/run/docker.sock:/var/run/docker.sock img test\n"
)


@pytest.mark.parametrize("runner", ["ubuntu-latest", "windows-2022", "[ubuntu-24.04]", "${{ matrix.os }}"])
def test_a_socket_on_a_hosted_runner_is_low(runner: str) -> None:
    findings = [f for f in lint_text(".github/workflows/t.yml", CI_SOCKET % runner) if f.rule == "RS001"]
    assert [f.severity for f in findings] == ["low"]


@pytest.mark.parametrize(
    "runner, extra",
    [
        ("[self-hosted, linux]", ""),
        ("self-hosted", ""),
        ("ubuntu-latest", "      - run: claude --dangerously-skip-permissions -p fix\n"),
    ],
)
def test_a_socket_on_a_kept_runner_or_beside_an_agent_stays_critical(runner: str, extra: str) -> None:
    findings = [f for f in lint_text(".github/workflows/t.yml", CI_SOCKET % runner + extra) if f.rule == "RS001"]
    assert [f.severity for f in findings] == ["critical"]


def test_a_compose_socket_is_still_critical() -> None:
    text = "services:\n  ci:\n    image: x\n    volumes: ['/var/run/docker.sock:/var/run/docker.sock']\n"
    assert [f.severity for f in lint_text("compose.yaml", text) if f.rule == "RS001"] == ["critical"]


def test_wrapper_arguments_cost_little_on_hostile_entries() -> None:
    """A wrapper's arguments are read by disjoint forms, so a long run of them fails to match at once."""
    entries = [f"Bash(nice {'-n 1 ' * 2000}x *)", f"Bash(sudo {'-u a -E 1 ' * 2000})", f"Bash({'A=1 ' * 4000}x)"]
    settings = json.dumps({"permissions": {"allow": entries}})
    started = cpu_seconds()
    assert at(lint_text(".claude/settings.json", settings), "AA004") == []
    assert cpu_seconds() - started < 2


@pytest.mark.parametrize(
    "path",
    [".github/workflows/ci.yml", ".github/workflows/de.yml", "compose.yaml", "action.yml"],
)
def test_configuration_named_like_a_catalogue_is_read_for_secrets(path: str) -> None:
    """A consumer's configuration is never a catalogue, however prose-like its strings: a workflow
    named ``ci.yml`` (a locale-shaped name) whose step names read as sentences keeps its password."""
    prose = "".join(f"# {i}\n" for i in range(3))
    body = {
        ".github/workflows/ci.yml": "on: push\njobs:\n  t:\n    name: Run the tests of the app\n"
        "    runs-on: ubuntu-latest\n    env:\n      DB_PASSWORD: Kx82mQpz4tLw\n"
        "    steps:\n      - name: Check out the code here\n        run: make test\n"
        "      - name: Build the whole thing now\n        run: make build\n",
        "compose.yaml": "services:\n  db:\n    image: postgres\n    labels:\n      a: Store the data here\n"
        "      b: Keep it safe always\n      c: Run it every day\n    environment:\n      DB_PASSWORD: Kx82mQpz4tLw\n",
        "action.yml": "name: Build the app\ndescription: Builds the whole app for you\nruns:\n  using: composite\n"
        "  steps:\n    - name: Run the build now\n      shell: bash\n      run: make\n      env:\n"
        "        DB_PASSWORD: Kx82mQpz4tLw\n",
    }
    text = body.get(path, body[".github/workflows/ci.yml"])
    assert at(lint_text(path, prose + text), "PS002") != []
