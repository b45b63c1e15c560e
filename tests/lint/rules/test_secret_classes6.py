"""Issue 33, sixth round: PS002's remaining wrong classes of the fifth set (test values, variables
read as literals, public identifiers, emulator keys, password hashes), each with several shapes
and the look-alikes that must stay findings.

Credential-shaped values are assembled at run time so that this file holds no token itself.
"""

from __future__ import annotations

import base64
import struct
import tempfile
from pathlib import Path

import pytest

from tests.lint.helpers import at, lint_text, lint_tree, write_tree

REAL = "Kx82mQpz4tLs"  # a password that looks typed by a generator


def _ps002(path: str, text: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(path, text) if f.rule == "PS002"]


def _with_examples(path: str, text: str) -> list[tuple[int, str]]:
    from sandkit.lint.source import RuleSettings

    with tempfile.TemporaryDirectory() as tmp:
        write_tree(Path(tmp), {path: text})
        findings = lint_tree(Path(tmp), ("PS002",), settings=RuleSettings(include_examples=True))
    return [(f.line, f.severity) for f in findings]


def _workflow(job: str, env: str, services: bool = False, name: str = "") -> str:
    service = "    services:\n      db:\n        image: postgres:16\n" if services else ""
    title = f"    name: {name}\n" if name else ""
    return (
        "on: push\njobs:\n"
        f"  {job}:\n{title}    runs-on: ubuntu-latest\n{service}"
        f"    env:\n      JWT_SECRET: {env}\n    steps:\n      - run: make check\n"
    )


# 1. Test values in CI jobs and test scripts -------------------------------------------------


@pytest.mark.parametrize(
    ("job", "value", "services", "name"),
    [
        ("test-api", "test-jwt-secret-min-32-chars-for-ci", True, ""),
        ("api", "test-jwt-secret-min-32-chars-for-ci", True, ""),
        ("test-e2e", "ci-e2e-secret-not-for-production-use", False, ""),
        ("check", "SimTestPass123x", False, "Integration tests"),
    ],
)
def test_a_test_value_in_a_test_job_is_a_fixture(job: str, value: str, services: bool, name: str) -> None:
    text = _workflow(job, value, services, name)
    assert _ps002(".github/workflows/ci.yml", text) == []
    assert _with_examples(".github/workflows/ci.yml", text) == [(6 + bool(name) + 3 * services, "low")]


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        ("scripts/chain-e2e-test.sh", '#!/bin/sh\nVC_PASS="testpass12345678"\nLV_PASS="lvtestpass123456"\n', 2),
        ("scripts/simulate-payment.sh", '#!/bin/sh\nPASSWORD="SimTestPass123!"\n', 2),
        ("scripts/smoke_test.sh", "#!/bin/sh\nexport ADMIN_TOKEN=ci-token-q8Lm2\n", 2),
        ("docker-compose.e2e.yml", "services:\n  api:\n    environment:\n      JWT_SECRET: e2e-jwt-q8Lm2x\n", 4),
        (
            ".github/workflows/android-completion-smoke.yml",
            "on: push\njobs:\n  run:\n    runs-on: x\n    steps:\n      - uses: ./act\n"
            "        with:\n          service_password: synthetic-password\n",
            8,
        ),
    ],
)
def test_a_test_value_in_a_test_script_is_a_fixture(path: str, text: str, line: int) -> None:
    assert _ps002(path, text) == []
    assert (line, "low") in _with_examples(path, text)


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("scripts/e2e-test.sh", f'#!/bin/sh\nDB_PASSWORD="{REAL}"\n'),
        (".github/workflows/ci.yml", _workflow("build", REAL, services=True)),
        (".github/workflows/ci.yml", _workflow("e2e", REAL)),
    ],
)
def test_a_real_looking_value_in_a_test_is_info(path: str, text: str) -> None:
    """A test script may log in to a shared service with a real password: still shown."""
    assert [severity for _, severity in _ps002(path, text)] == ["info"]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("docker-compose.yml", "services:\n  api:\n    environment:\n      JWT_SECRET: test-jwt-secret-q8Lm2x\n"),
        ("deploy/values.yaml", "auth:\n  adminPassword: not-for-production-q8Lm2\n"),
        ("deploy/values.yaml", "auth:\n  apiToken: e2eToken9Lm2x\n"),
    ],
)
def test_a_value_saying_test_outside_a_test_is_info(path: str, text: str) -> None:
    """A deployment that keeps it runs with a secret everyone can read."""
    assert [severity for _, severity in _ps002(path, text)] == ["info"]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (".github/workflows/deploy.yml", _workflow("deploy", REAL)),
        ("scripts/deploy.sh", f'#!/bin/sh\nDB_PASSWORD="{REAL}"\n'),
        ("scripts/deploy.sh", '#!/bin/sh\nDB_PASSWORD="Lat3stZq9xContest"\n'),  # "test" inside a word
        ("scripts/attest.sh", f'#!/bin/sh\nAPI_TOKEN="{REAL}"\n'),  # "attest" is no test's word
        ("charts/app/values-test.yaml", f"auth:\n  adminPassword: {REAL}\n"),  # a deployed stage's name
        ("config/appsettings.Integration.json", f'{{"Db": {{"Password": "{REAL}"}}}}'),
    ],
)
def test_a_secret_outside_a_test_stays_medium(path: str, text: str) -> None:
    assert [severity for _, severity in _ps002(path, text)] == ["medium"]


def test_a_test_jobs_neighbour_is_not_a_test() -> None:
    text = (
        "on: push\njobs:\n  test:\n    runs-on: x\n    services:\n      db:\n        image: postgres\n"
        "    steps:\n      - run: make test\n"
        f"  release:\n    runs-on: x\n    env:\n      NPM_TOKEN: {REAL}\n    steps:\n      - run: make\n"
    )
    assert _ps002(".github/workflows/ci.yml", text) == [(13, "medium")]


def test_a_known_format_in_a_test_script_is_still_reported() -> None:
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    assert at(lint_text("scripts/e2e-test.sh", f"#!/bin/sh\nGH_TOKEN={token}\n"), "PS001") == [(2, 10)]


# 2. A variable read as a literal -------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        'feed_credential="?$feed_credential"',
        "PASS=pre$SUFFIX",
        'DB_PASSWORD="x${SUFFIX}y"',
        'API_TOKEN="$1"',
        "export SECRET_KEY=k$(date +%s)",
    ],
)
def test_a_shell_expansion_is_not_a_literal(line: str) -> None:
    assert _ps002("scripts/install.sh", f"#!/bin/sh\n{line}\n") == []


@pytest.mark.parametrize("line", [f"DB_PASSWORD='{REAL[:4]}$abc{REAL[4:]}'", f'DB_PASSWORD="{REAL[:4]}\\$abc"'])
def test_a_dollar_in_single_quotes_or_escaped_is_literal(line: str) -> None:
    assert _ps002("scripts/install.sh", f"#!/bin/sh\n{line}\n") == [(2, "medium")]


@pytest.mark.parametrize(
    "body",
    ["snapshot_download(\n    repo_id=repo,\n    token=token,\n)", "connect(host=h, password=db_password)"],
)
@pytest.mark.parametrize("opener", ["python - <<'PY'", "python3 <<PY", "cat > /tmp/run.py <<'PY'"])
def test_a_variable_in_embedded_python_is_not_a_literal(body: str, opener: str) -> None:
    assert _ps002("scripts/entrypoint.sh", f"#!/bin/sh\n{opener}\n{body}\nPY\n") == []


@pytest.mark.parametrize(
    ("opener", "body"),
    [
        ("python - <<'PY'", f'client(token="{REAL}")'),  # a quoted literal in the code is still one
        ("cat > .env <<EOF", f"DB_PASSWORD={REAL}"),  # a file of settings written out
        ("cat > .env <<EOF", "DB_PASSWORD=db_password_value"),
        ("bash <<EOF", "ADMIN_PASSWORD=hunter_two"),  # shell read by a shell
    ],
)
def test_a_literal_in_a_here_document_is_still_reported(opener: str, body: str) -> None:
    assert _ps002("scripts/setup.sh", f"#!/bin/sh\n{opener}\n{body}\nEOF\n") == [(3, "medium")]


# 3. Public identifiers under a secret-like key -----------------------------------------------


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("sonar-project.properties", "sonar.projectKey=Acme_web-app\nsonar.organization=acme\n"),
        ("pom.properties", "sonar.moduleKey=acme_core2\n"),
        ("appsettings.json", '{"Assemblies": [{"Name": "Acme.Core", "PublicKeyToken": "31bf3856ad364e35"}]}'),
        ("results/pilot.json", '{"rankKey": "sha256(masterId)"}'),
        ("data/audit.json", '{"rows": [{"identityKey": "216214CDS|cutaneous"}]}'),
        ("charts/harbor/values.yaml", "harbor:\n  existingSecretAdminPassword: harbor-admin\n"),
        ("charts/db/values.yaml", "auth:\n  existing_secret_password: db-creds\n"),
    ],
)
def test_a_public_identifier_is_not_a_secret(path: str, text: str) -> None:
    assert _ps002(path, text) == []


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("sonar-project.properties", f"sonar.projectKey=acme_web\nsonar.token=sq{REAL}9f3a\n"),
        ("appsettings.json", f'{{"SigningKey": "{REAL}31bf3856"}}'),
        ("data/audit.json", '{"identityKey": "5|hXZ3kPq9Lm2Vt8RwYc4Nb7Jd"}'),  # an id, a bar, a token
        ("charts/harbor/values.yaml", f"harbor:\n  existingSecretAdminPassword: {REAL}\n"),
        ("charts/harbor/values.yaml", "harbor:\n  adminPassword: harbor-admin\n"),
    ],
)
def test_a_secret_beside_identifiers_is_still_reported(path: str, text: str) -> None:
    assert [severity for _, severity in _ps002(path, text)] == ["medium"]


# 4. Emulators' published keys ------------------------------------------------------------------

_COSMOS = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
_AZURITE = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


@pytest.mark.parametrize("key", [_COSMOS, _AZURITE])
def test_an_emulators_published_key_is_no_finding(key: str) -> None:
    assert _ps002("charts/emulator/values.yaml", f"emulator:\n  accountKey: {key}\n") == []
    settings = f'{{"Storage": {{"AccountKey": "{key}"}}}}'
    assert lint_text("appsettings.Development.json", settings, ("PS001", "PS002")) == []


def test_a_key_of_the_same_shape_is_reported() -> None:
    other = "D3z7" + _COSMOS[4:]
    assert _ps002("charts/emulator/values.yaml", f"emulator:\n  accountKey: {other}\n") == [(2, "medium")]


# 5. Password hashes ------------------------------------------------------------------------------


def _identity_v3(prf: int = 1, iterations: int = 100_000) -> str:
    raw = bytes([1]) + struct.pack(">III", prf, iterations, 16) + bytes(range(16)) + bytes(range(32, 64))
    return base64.b64encode(raw).decode()


@pytest.mark.parametrize(
    "value",
    [
        "pbkdf2_sha256$600000$Qw3rty12saltsalt$J3bq7cPWtV0Hn9uG0nY0bpl2c3hJ+Kk2fO0I9E5cGk0=",
        "argon2$argon2id$v=19$m=102400,t=2,p=8$c29tZXNhbHQ$Pc5bW3Kk1M2c9o3hR8Jf1A",
        "{bcrypt}$2a$10$dXJ3SW6G7P50lGmMkkmwe.20cQQubK3.HZWzG3YB1tlRy.fqvM/BG",
        "$$2y$$10$$Ne6s8TY0wU4ZxTgZ8N0qyeZbqlBz7o2o0cKcP5W0DgxDbNpE7wEJe",
        "admin:$apr1$H6uskkkW$IgXLP6ewTrSuBkTrqE8wj/",
        _identity_v3(),
        _identity_v3(prf=2, iterations=10_000),
    ],
)
def test_a_password_hash_is_not_the_password(value: str) -> None:
    assert _ps002("config/users.yaml", f"admin:\n  password: '{value}'\n") == []


@pytest.mark.parametrize(
    "name", ["HashedPassword", "HashedPasswordSalt", "PasswordSalt", "HashedClientSecret", "ApiKeyHash"]
)
def test_a_hash_or_salt_named_as_one_is_not_a_secret(name: str) -> None:
    text = f'{{"Users": [{{"Name": "admin", "{name}": "TfKzh9RLix6FPcCNeHLkGrysFu3bYxqzGqduNdi8v1U="}}]}}'
    assert _ps002("src/appsettings.Development.json", text) == []


@pytest.mark.parametrize(
    "value",
    [
        "{noop}Sup3rS3cr3tPw",  # Spring's plain-text "encoding"
        "TfKzh9RLix6FPcCNeHLkGrysFu3bYxqzGqduNdi8v1U=",  # base64 under a password's own name
        "AQAAAA" + base64.b64encode(bytes(range(7, 47))).decode(),  # the format's start, not its fields
    ],
)
def test_a_password_that_is_no_hash_is_reported(value: str) -> None:
    assert _ps002("config/users.yaml", f"admin:\n  password: '{value}'\n") == [(2, "medium")]
