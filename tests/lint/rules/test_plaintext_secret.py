"""PS001 known-credential-format and PS002 secret-named-literal; hypothesis tests of the finder.

Credential-shaped values are assembled at run time ("ghp" + "_" + ...) so that this file does
not itself contain a token for the repository's own lint run to report.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandkit.credentials import credential_kind
from sandkit.lint.facts.secret_values import find_tokens
from tests.conftest import cpu_seconds
from tests.lint.helpers import at, lint_text

BODY = "Z8k2Lq9Wm4Rt7Yp1Xv3Bn6Hc5Jd0Fs2Ga8Ke"
REAL = {
    "GitHub token": "ghp" + "_" + BODY,
    "GitHub fine-grained token": "github" + "_pat_" + "11ABCDEFG0" + BODY + "x9Y8z7",
    "GitLab token": "glpat" + "-" + "Xk29fLm3Qp8Rv7Tz1Wn4",
    "AWS access key ID": "AKIA" + "Q3R9T2U7J5K8W4ZP",
    "Slack token": "xoxb" + "-2847561930-5019283746-" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw",
    "Stripe secret key": "sk" + "_live_" + "51Hc2Lq9Wm4Rt7Yp1Xv3Bn",
    "Anthropic API key": "sk" + "-ant-api03-" + BODY + "-Qw8Er7Ty6Ui5",
    "OpenAI API key": "sk" + "-proj-" + BODY + "Ab12",
    "npm token": "npm" + "_" + BODY,
    "Hugging Face token": "hf" + "_" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc2Ef4G",
}
# Key material as a real key has it: all three character classes, nothing repeated (a repeated
# word, "privatekeyprivatekey...", is a placeholder since issue 33).
PEM = (
    "-----BEGIN "
    + "RSA PRIVATE KEY-----\n"
    + "MIIEowIBAAKCAQEAq7Zr4Lp9WmXc2Vb8Nt5Ks3Jd6Hf1Ga0Qe7Ry4Tu2Io9Pa5Sd8"
    + "\n-----END"
)


@pytest.mark.parametrize("kind", sorted(REAL))
def test_known_formats_in_an_env_file(kind: str) -> None:
    findings = lint_text("app/.env", f"# config\nVALUE={REAL[kind]}\n")
    assert at(findings, "PS001") == [(2, 7)]
    message = next(f.message for f in findings if f.rule == "PS001")
    assert kind in message and REAL[kind] not in message  # shown redacted


def test_known_format_in_markdown_yaml_and_private_key() -> None:
    assert at(lint_text("deploy/setup.txt", f"Use `{REAL['GitHub token']}`.\n"), "PS001") == [(1, 6)]
    assert at(lint_text("deploy/key.pem", PEM), "PS001") == [(1, 1)]
    url = "postgres://app:" + "Vq8xR2mN5tLw" + "@db.internal:5432/app"
    assert at(lint_text("config.yaml", f"db: {url}\n"), "PS001") == [(1, 5)]


@pytest.mark.parametrize(
    "text",
    [
        "AKIAIOSFODNN7EXAMPLE",  # AWS's documented example
        "ghp" + "_" + "x" * 36,  # placeholder run
        "ghp" + "_" + "abcdefghijklmnopqrstuvwxyz0123456789",  # counting sequence
        "sk" + "-ant-api03-abcdefghijklmnopqrstuvwxyz",  # one character class
        "-----BEGIN " + "PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",  # no key material
        "postgres://user:${DB_PASSWORD}@db/app",  # reference
        "postgres://postgres:postgres@localhost/app",  # password equals user
        "https://user:<password>@example.com",  # placeholder
        # the jwt.io sample token
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
        "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "sha256:" + "ab" * 32,  # image digest
        "risk-assessment-framework-document-v2",  # "sk-" inside a word
    ],
)
def test_look_alikes_are_not_findings(text: str) -> None:
    assert at(lint_text("notes.md", f"value: {text}\n"), "PS001") == []


def test_dockerfile_env_and_mcp_env_are_left_to_their_own_rules() -> None:
    docker = f"FROM alpine\nENV TOKEN={REAL['GitHub token']}\nRUN echo {REAL['npm token']}\n"
    findings = lint_text("Dockerfile", docker)
    assert at(findings, "PS001") == [(3, 10)] and at(findings, "IS001")
    mcp = '{"mcpServers": {"a": {"command": "x", "env": {"T": "' + REAL["GitHub token"] + '"}}}}'
    findings = lint_text(".mcp.json", mcp)
    assert at(findings, "PS001") == [] and at(findings, "AM003")


def test_extra_secret_patterns_from_the_config() -> None:
    from pathlib import Path
    from tempfile import TemporaryDirectory

    from sandkit.lint.engine import ScanOptions, scan
    from sandkit.lint.source import RuleSettings

    with TemporaryDirectory() as tmp:
        (Path(tmp) / "a.txt").write_text("corp token ACME-" + "1234abcd" * 4 + "\n")
        options = ScanOptions(("PS003",), RuleSettings((r"ACME-[0-9a-f]{32}", "(")))
        result = scan([tmp], tmp, options, jobs=1)
    assert [(f.line, f.column) for f in result.findings] == [(1, 12)]


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("app/.env", "DB_PASSWORD=Vq8xR2mN5tLw\n", [(1, 13)]),
        ("compose.yaml", "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: Vq8xR2mN5tLw\n", [(4, 26)]),
        ("settings.json", '{"auth": {"clientSecret": "Vq8xR2mN5tLw9"}}', [(1, 27)]),
        ("config.toml", 'api_key = "Vq8xR2mN5tLw9"\n', [(1, 1)]),  # TOML values: line only
        ("run.sh", "export GITHUB_TOKEN=Vq8xR2mN5tLw9\n", [(1, 8)]),
        (
            "k8s/pod.yaml",
            "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: a\n      env:\n"
            "        - name: DB_PASS\n          value: Vq8xR2mN5tLw\n",
            [(8, 18)],
        ),
        ("project/.npmrc", "//registry.example.com/:_authToken=Vq8xR2mN5tLw9\n", [(1, 36)]),
    ],
)
def test_secret_named_literals(name: str, text: str, where: list[tuple[int, int]]) -> None:
    assert at(lint_text(name, text), "PS002") == where


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("app/.env", "DB_PASSWORD=${DB_PASSWORD}\nAPI_KEY=\nTOKEN=changeme\nSECRET=<secret>\n"),
        ("app/.env.example", "OPENAI_API_KEY=your-api-key-here\nPASSWORD=xxxxxxxx\n"),
        ("ci.yml", "cache:\n  key: ${{ runner.os }}-pip-abc123\n  primary_key: abcdef1234\n"),
        (
            "compose.yaml",
            "services:\n  a:\n    environment:\n      TOKEN_FILE: /run/secrets/token\n"
            "      API_KEY: API_KEY_FROM_ENV\n      PASSWORD_HASH: 5f4dcc3b5aa765d61d8327deb882cf99\n",
        ),
        ("settings.json", '{"publicKey": "pk_test_abc123def456", "token": "the token used by CI"}'),
        ("config.toml", 'password = true\nmax_tokens = 4096\nsecret = "op://vault/item/field"\n'),
    ],
)
def test_secret_named_look_alikes(name: str, text: str) -> None:
    assert at(lint_text(name, text), "PS002") == []


# ----- hypothesis: the finder never crashes, finds planted tokens, stays linear ------------
@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300), st.text(max_size=300))
def test_planted_token_is_found_anywhere(before: str, after: str) -> None:
    token = REAL["GitHub token"]
    text = f"{before} {token} {after}"
    found = [t for t in find_tokens(text) if t.kind == "GitHub token"]
    assert any(text[t.start : t.end] == token for t in found)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=500))
def test_finder_accepts_any_text(text: str) -> None:
    for token in find_tokens(text):
        assert text[token.start : token.end] == token.text
        assert credential_kind(token.text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "a" * 300_000,
        "sk-" * 100_000,
        "eyJ" * 100_000 + ".",
        "x://" + ":" * 300_000 + "@",
        "ghp_" + "A" * 300_000,
        "-----BEGIN " * 30_000,
        "AKIA" * 80_000,
        "@" * 300_000,
        ("DB_PASSWORD=" + "a" * 50 + "\n") * 5_000,
    ],
    ids=["letters", "sk", "jwt", "url", "ghp", "pem", "akia", "at", "env-lines"],
)
def test_adversarial_input_stays_cheap(text: str) -> None:
    start = cpu_seconds()
    list(find_tokens(text))
    lint_text("big.env", text)
    assert cpu_seconds() - start < 3.0


def test_identifier_values_are_names_not_secrets() -> None:
    text = '{"input_token": "NextToken", "result_key": "findings", "limit_key": "MaxResults"}'
    assert at(lint_text("data/paginators-1.json", text), "PS002") == []
    assert at(lint_text("app/.env", "DB_PASSWORD=mysecretpassword\n"), "PS002") == [(1, 13)]
    assert at(lint_text("url.py", 'u = f"https://{user}:{self.token}@host/x"\n'), "PS001") == []


def test_request_ids_and_paths_under_token_names() -> None:
    text = (
        '{"ChangeToken": "abcdef01-2345-6789-abcd-ef0123456789",\n'
        ' "S3Key": "my-app/5026-stage.war", "result_key": "PublicIpv4Pools",\n'
        ' "HEROKU_API_KEY": "3f9a1c2e-7b4d-4e8a-9c1f-2d6b8e041977"}'
    )
    assert at(lint_text("data/aws-1.json", text), "PS002") == [(3, 20)]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("package-lock.json", '{"packages": {"node_modules/x": {"dependencies": {"path-key": "^3.1.0"}}}}'),
        ("values.yaml", "auth:\n  adminPasswordKey: postgres-password\n  existingSecret: db-creds\n"),
        ("ingress.yaml", "metadata:\n  annotations:\n    auth-secret: default/basic-auth\n"),
        ("deploy.yaml", "affinity:\n  topologyKey: kubernetes.io/hostname\n"),
        ("schema.json", '{"$schema": "http://json-schema.org/draft-07/schema#", "password": "string-value-x"}'),
        (".gitleaks.json", '{"secret_pattern": "(?i)secret[=:]\\\\s*[a-z0-9]{16}"}'),
        # bitnami/charts redis and etcd values.yaml: an annotation name and a cluster's name
        ("values.yaml", "useExternalDNS:\n  annotationKey: external-dns.alpha.kubernetes.io/\n"),
        ("values.yaml", 'initialClusterToken: "etcd-cluster-k8s"\n'),
        # nektos/act pkg/schema/workflow_schema.json: GitHub's own schema format names types
        ("workflow_schema.json", '{"mapping": {"properties": {"username": "x", "password": "non-empty-string"}}}'),
    ],
)
def test_names_versions_references_schemas_and_patterns_are_not_secrets(name: str, text: str) -> None:
    assert at(lint_text(name, text), "PS002") == []


@pytest.mark.parametrize(
    "text",
    [
        "see postgres://app:abc123@db.example.com/app",  # a word and a number
        "token: " + "ghp" + "_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R9s0T" + "...",  # shown truncated
    ],
)
def test_placeholders_in_urls_and_truncated_tokens_are_not_secrets(text: str) -> None:
    assert at(lint_text("deploy/notes.txt", text), "PS001") == []


def test_test_fixtures_and_docs_are_left_out_unless_included() -> None:
    from pathlib import Path
    from tempfile import TemporaryDirectory

    from sandkit.lint.engine import ScanOptions, scan
    from sandkit.lint.source import RuleSettings

    files = {
        "tests/fixtures/secret.yaml": f"token: {REAL['GitHub token']}\npassword: Zq8vR2mN5tLw\n",
        "docs/setup.md": f"Use `{REAL['GitHub token']}`.\n",
        "deploy/app.env": "DB_PASSWORD=Zq8vR2mN5tLw\n",
    }
    found = {}
    for include in (False, True):
        with TemporaryDirectory() as tmp:
            for rel, text in files.items():
                (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / rel).write_text(text)
            options = ScanOptions(("PS001", "PS002"), RuleSettings(include_examples=include))
            found[include] = sorted((f.path, f.rule, f.severity) for f in scan([tmp], tmp, options, jobs=1).findings)
    assert found[False] == [("deploy/app.env", "PS002", "medium")]
    assert found[True] == [
        ("deploy/app.env", "PS002", "medium"),
        ("docs/setup.md", "PS001", "low"),
        ("tests/fixtures/secret.yaml", "PS001", "low"),
        ("tests/fixtures/secret.yaml", "PS002", "low"),
    ]


def test_sentinels_stubs_and_schema_examples_are_not_secrets() -> None:
    sentinel = "accessToken: sk-ant-oat01-proxy-managed\n"
    assert at(lint_text("spec.yaml", sentinel), "PS001") == []
    stub = (
        "const key = `-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEowIBAAKCAQEA" * 4 + "\n-----END RSA PRIVATE KEY-----`\n"
    )
    assert at(lint_text("helpers/ssh/stub_ssh_server.go", stub), "PS001") == []
    schema = '{"$schema": "http://json-schema.org/draft-07/schema#", "examples": ["redis://u:Zq8vR2mN5tLw@h:6379"]}'
    assert at(lint_text("schemas/x.json", schema), "PS001") == []
