"""Issue 33, third round: the secret rules' wrong classes seen on the third held-out set (chart test
values outside ``ci/``, template expressions, made-up keys, base64 of placeholder words, public
web API keys, words of an ARG's text, globs that match nothing, a secret given to a command whose
output goes to a file), each with several shapes, and the look-alikes that must stay findings.

Credential-shaped values are assembled at run time so that this file holds no token itself.
"""

from __future__ import annotations

import base64
import json

import pytest

from sandkit.credentials import is_placeholder, made_up
from tests.lint.helpers import at, lint_files, lint_text

REAL = "Kx82mQpz4tLs"  # a password that looks typed by a generator

# ---- PS002: a chart's test values outside ci/ ------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "charts/nextcloud/test-values/postgresql.yaml",
        "charts/app/testvalues/ha.yaml",
        "charts/app/ci-values/redis.yml",
        "charts/app/ci-values.yaml",
        "charts/app/test-values-ha.yaml",
        "charts/app/lint-values.yaml",
        "charts/app/values-ci.yaml",
        "charts/app/values.e2e.yaml",
        "helm/app/e2e_values.yaml",
    ],
)
def test_chart_test_values_outside_ci_are_fixtures(path: str) -> None:
    assert at(lint_text(path, f"postgresql:\n  auth:\n    password: {REAL}\n"), "PS002") == []


@pytest.mark.parametrize(
    "path",
    ["charts/app/values.yaml", "charts/app/values-test.yaml", "deploy/values-prod.yaml", "charts/app/testing.yaml"],
)
def test_deployed_values_stay_findings(path: str) -> None:
    """``values-test.yaml`` is kept: "test" is also an environment whose values are deployed."""
    assert at(lint_text(path, f"postgresql:\n  auth:\n    password: {REAL}\n"), "PS002") == [(3, 15)]


# ---- PS002: expressions the consumer evaluates -----------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "[parameters('adminPassword')]",
        "[variables('sqlPassword')]",
        "[concat(parameters('prefix'), uniqueString(resourceGroup().id))]",
        "[steps('auth').clientSecret]",
        "[listKeys(resourceId('Microsoft.Storage/storageAccounts', 'acct'), '2019-06-01').keys[0].value]",
        "@Microsoft.KeyVault(SecretUri=https://vault.example.com/secrets/db/)",
        "@{parameters('apiToken')}",
        "@pipeline().parameters.token",
        "#{DbPassword}#",
        "#{Octopus.Action.Password}",
        "__DbPassword__",
        "((concourse_db_password))",
        "@db.password@",
        "$[variables.dbPassword]",
        "$(DbPassword)",
        "%{hiera('db_password')}",
        "<%= ENV['DB_PASSWORD'] %>",
        "{% raw %}{{ db_password }}{% endraw %}",
        "{{ .Values.auth.password }}",
        "[YOUR_API_KEY]",
    ],
)
def test_template_expressions_are_not_literals(value: str) -> None:
    for path in ("azure/mainTemplate.json", "deploy/app.yaml"):
        text = json.dumps({"properties": {"adminPassword": value, "apiToken": value}})
        assert at(lint_text(path, text), "PS002") == [], (path, value)


def test_literals_beside_expressions_stay_findings() -> None:
    text = json.dumps({"a": {"adminPassword": "[parameters('p')]", "sqlPassword": REAL, "apiKey": "[" + REAL}})
    assert len(at(lint_text("azure/mainTemplate.json", text), "PS002")) == 2


# ---- PS002: made-up keys and base64 of placeholder words -------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "privatekeyprivatekey",
        "secretsecretsecret",
        "abcabcabcabc",
        "12341234",
        "0123456789abcdef",
        "abcdef123456",
        "9876543210",
        "qwertyuiop",
        "8312341g-5678-abcd-4a2b2c-33bcsd655",
        "1234abcd-12ab-34cd-56ef-12345678ghij",
        "your-secret-here",
        "password_goes_here",
        "api-key-here",
        "zzzzzzzzzzzz",
    ],
)
def test_made_up_keys_are_placeholders(value: str) -> None:
    assert is_placeholder(value)
    for name in ("access_key", "db_password", "client_secret"):
        text = f"sysdig:\n  {name}: {value}\n"
        assert at(lint_text("deploy/agent.yaml", text), "PS002") == [], (name, value)


@pytest.mark.parametrize(
    "value",
    [
        REAL,
        "3f9a1c2e-7b4d-4e8a-9c1f-2d6b8e041977",
        "d41d8cd98f00b204e9800998ecf8427e",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz",
        "s3cr3tP4ssw0rd",
        "hV7qZ2pL9xW4",
        "admin123!",
        "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    ],
)
def test_keys_made_by_a_generator_or_a_person_stay_findings(value: str) -> None:
    assert not made_up(value)
    assert at(lint_text("deploy/agent.yaml", f"agent:\n  db_password: '{value}'\n"), "PS002") == [(2, 16)]


def test_random_keys_are_almost_never_made_up() -> None:
    """The made-up shapes are rare among keys a generator makes: at most 3 in 2,000 per shape."""
    import random

    chance = random.Random(33)
    lower = "abcdefghijklmnopqrstuvwxyz0123456789"
    alphabets = (lower, "0123456789abcdef", lower + "ABCDEFGHIJKLMNOPQRSTUVWXYZ+/")
    for alphabet in alphabets:
        for length in (8, 12, 16, 24, 32, 40):
            drawn = ["".join(chance.choice(alphabet) for _ in range(length)) for _ in range(2000)]
            assert sum(map(made_up, drawn)) <= 3, (alphabet, length)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: chap
data:
  node.session.auth.password: {0}
  discovery.sendtargets.auth.password: {1}
"""


@pytest.mark.parametrize(
    "words", [("password", "changeme"), ("password\n", "admin"), ("your-secret-here", "privatekeyprivatekey")]
)
def test_base64_of_placeholder_words(words: tuple[str, str]) -> None:
    text = SECRET.format(*map(_b64, words))
    assert at(lint_text("k8s/iscsi/chap-secret.yaml", text), "PS002") == []


def test_base64_of_real_passwords_stays_a_finding() -> None:
    text = SECRET.format(_b64(REAL), _b64("Tr0ub4dor&3x"))
    assert at(lint_text("k8s/iscsi/chap-secret.yaml", text), "PS002") == [(6, 31), (7, 40)]


# ---- PS001: keys public by design ------------------------------------------------------------------

GOOGLE_KEY = "AIza" + "SyB4x9Qk2Lm7Wp3Zr8Tn5Vc1Hd6Jf0Gs2Kq"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (
            ".env.production",
            'VITE_APP_FIREBASE_CONFIG=\'{"apiKey":"%s","authDomain":"demo.firebaseapp.com",'
            '"projectId":"demo","messagingSenderId":"729911"}\'\n',
        ),
        (
            "web/src/firebase.ts",
            'const firebaseConfig = {\n  apiKey: "%s",\n  authDomain: "demo-app.firebaseapp.com",\n'
            '  projectId: "demo-app",\n  storageBucket: "demo-app.appspot.com",\n};\n',
        ),
        ("app/.env", "NEXT_PUBLIC_FIREBASE_API_KEY=%s\nNEXT_PUBLIC_FIREBASE_PROJECT_ID=demo\n"),
        ("config/firebase.json", '{"firebase": {"api_key": "%s", "auth_domain": "demo.firebaseapp.com"}}'),
        (
            "public/index.html",
            '<script src="https://maps.googleapis.com/maps/api/js?libraries=places&key=%s"></script>',
        ),
    ],
)
def test_browser_google_keys_are_info(path: str, text: str) -> None:
    findings = [f for f in lint_text(path, text % GOOGLE_KEY) if f.rule == "PS001"]
    assert [f.severity for f in findings] == ["info"]
    assert "public by design" in findings[0].message


@pytest.mark.parametrize(
    "text",
    [
        'GOOGLE_API_KEY = "%s"\n',
        'translate:\n  api_key: "%s"\n',
        'curl "https://maps.googleapis.com/maps/api/geocode/json?key=%s"\n',
    ],
)
def test_server_google_keys_stay_high(text: str) -> None:
    findings = [f for f in lint_text("deploy/settings.py", text % GOOGLE_KEY) if f.rule == "PS001"]
    assert [f.severity for f in findings] == ["high"]


def test_public_front_end_settings_are_info_in_env_files() -> None:
    text = f"NEXT_PUBLIC_POSTHOG_KEY=phc_{REAL}\nVITE_SENTRY_DSN_KEY={REAL}\nNEXT_PUBLIC_API_SECRET={REAL}\n"
    findings = [f for f in lint_text("web/.env", text) if f.rule == "PS002"]
    assert [(f.line, f.severity) for f in findings] == [(1, "info"), (2, "info"), (3, "medium")]


def test_firebase_keys_in_an_image_are_info() -> None:
    text = f"FROM node:20\nENV NEXT_PUBLIC_FIREBASE_API_KEY={GOOGLE_KEY}\nENV MAPS_KEY={GOOGLE_KEY}\n"
    findings = [f for f in lint_text("Dockerfile", text) if f.rule == "IS001"]
    assert [(f.line, f.severity) for f in findings] == [(2, "info"), (3, "critical")]


# ---- IS001: the text of a value is not names --------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        'ARG PATCH_SCRIPT="curl -fsSL https://example.com/k | (OUT=$(apt-key add - 2>&1) || echo $OUT)"',
        'ARG PATCH_SCRIPT="echo `apt-key list`"',
        'ENV SETUP="if [ -f x ]; then apt-key add x; fi" MODE=fast',
        'ENV SETUP="export KEY_FILE=/tmp/k; gpg --import $(cat /tmp/token-file)"',
        "ENV NOTES The api-key and auth-token settings come later",
        'ARG HELP="set TOKEN=... and PASSWORD=... at run time"',
    ],
)
def test_words_inside_a_value_are_not_secret_names(line: str) -> None:
    assert at(lint_text("Dockerfile", f"FROM debian:bookworm-slim\n{line}\nRUN true\n"), "IS001") == []


@pytest.mark.parametrize(
    ("line", "column"),
    [
        ("ARG GITHUB_TOKEN", 5),
        ('ARG VERSION=1.0 NPM_TOKEN="$(cat x)"', 17),
        ("ARG BUILD_MODE=release API_KEY", 24),
        ('ENV MODE="a b" DB_PASSWORD="two words"', 16),
        ("ENV DB_PASSWORD hunter22isnotaword", 5),
    ],
)
def test_secret_names_among_several_declarations_stay_findings(line: str, column: int) -> None:
    text = f"FROM debian:bookworm-slim\n{line}\nRUN true\n"
    assert at(lint_text("Dockerfile", text), "IS001") == [(2, column)]


# ---- IS002: globs that match nothing, files that hold nothing ---------------------------------------

COPY_SCRIPTS = "FROM debian:bookworm-slim\nCOPY library-scripts/*.sh library-scripts/*.env /tmp/library-scripts/\n"


def test_a_glob_in_a_folder_matching_no_file_is_low() -> None:
    for dockerfile in (COPY_SCRIPTS, "FROM debian:bookworm-slim\nCOPY config/*.pem /etc/app/\n"):
        findings = [f for f in lint_files({".devcontainer/Dockerfile": dockerfile}) if f.rule == "IS002"]
        assert [f.severity for f in findings] == ["low"], dockerfile
        assert "matches no file in the scanned tree" in findings[0].message


def test_matched_metadata_files_are_read() -> None:
    files = {
        ".devcontainer/Dockerfile": COPY_SCRIPTS,
        ".devcontainer/library-scripts/common.sh": "echo hi\n",
        ".devcontainer/library-scripts/meta.env": "VERSION=1.2\nDEFINITION_ID=python\nBUILD_TIMESTAMP=now\n",
        ".devcontainer/library-scripts/docker.env": "DOCKER_VERSION=24.0\nUSE_MOBY=true\n",
    }
    assert at(lint_files(files), "IS002") == []
    files[".devcontainer/library-scripts/deploy.env"] = f"API_TOKEN={REAL}\n"
    assert at(lint_files(files), "IS002") == [(2, 27)]


@pytest.mark.parametrize(
    "copy", ["COPY .env ./", "COPY .env* ./", "COPY *.env /app/", "COPY config/.env /app/", "COPY keys/id_rsa /root/"]
)
def test_names_and_top_level_globs_matching_nothing_stay_high(copy: str) -> None:
    """A developer's checkout keeps exactly these untracked: the classic leak."""
    findings = [f for f in lint_files({"Dockerfile": f"FROM debian:bookworm-slim\n{copy}\n"}) if f.rule == "IS002"]
    assert [f.severity for f in findings] == ["high"]


def test_too_many_matching_files_keep_the_finding() -> None:
    files: dict[str, str | bytes] = {f"conf/{n:02}.env": "LEVEL=debug\n" for n in range(51)}
    files["Dockerfile"] = "FROM debian:bookworm-slim\nCOPY conf/*.env /etc/app/\n"
    assert [f.severity for f in lint_files(files) if f.rule == "IS002"] == ["high"]
    del files["conf/50.env"]
    assert at(lint_files(files), "IS002") == []


# ---- CS004: a secret given to a command whose output goes to a file ---------------------------------

WF = ".github/workflows/release.yml"


def _workflow(*lines: str) -> str:
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    env:\n      TOKEN: ${{ secrets.TOKEN }}\n    steps:\n      - run: |\n" + body
    )


@pytest.mark.parametrize(
    "line",
    [
        "gpg --batch --passphrase '${{ secrets.GPG_PASSPHRASE }}' --export-secret-key 0xAB > key.asc",
        'gpg --passphrase "$TOKEN" --armor --export-secret-keys >> secring.asc',
        'curl -sfH "Authorization: token ${{ secrets.GH }}" https://api.example.com/x > out.json',
        'curl -H "token: $TOKEN" https://api.example.com/x -o out.json 2>err.log',
        'openssl enc -d -k "${{ secrets.KEY }}" -in a.enc > a.tar',
        'echo "${{ secrets.A }}" | docker login -u me --password-stdin > login.log',
        'docker login -u me --password-stdin <<< "$TOKEN" > login.log',
        'echo "${{ secrets.A }}" > /dev/null',
    ],
)
def test_a_secret_a_command_uses_is_not_written(line: str) -> None:
    assert at(lint_text(WF, _workflow(line)), "CS004") == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('echo "${{ secrets.A }}" > a.pem', "writes secrets.A to a.pem"),
        ("printf '%s' \"$TOKEN\" >> ~/.netrc", "writes TOKEN to ~/.netrc"),
        (
            'echo "T=${{ secrets.C }}" >> "$GITHUB_ENV"',
            "writes secrets.C to $GITHUB_ENV (every later step's environment)",
        ),
        ('echo "${{ secrets.D }}" | base64 -d > keystore.jks', "writes secrets.D to keystore.jks"),
        ('echo "${{ secrets.F }}" | tee key.pem', "writes secrets.F to key.pem"),
        ('base64 -d <<< "${{ secrets.I }}" > cert.p12', "writes secrets.I to cert.p12"),
        ("jq -n --arg t \"${{ secrets.J }}\" '{token: $t}' > config.json", "writes secrets.J to a file"),
        ('sed "s/@TOKEN@/$TOKEN/" app.tpl > app.conf', "writes TOKEN to a file"),
        ('gpg --import key.asc && echo "${{ secrets.K }}" &> pass.txt', "writes secrets.K to a file"),
        ('echo "${{ secrets.G }}" >&2', "prints secrets.G to the log"),
        ('gpg --passphrase "$TOKEN" --sign x; echo "$TOKEN"', "prints TOKEN to the log"),
    ],
)
def test_a_secret_in_the_output_is_written_or_printed(line: str, message: str) -> None:
    findings = [f for f in lint_text(WF, _workflow(line)) if f.rule == "CS004"]
    # A credential or key file's message goes on to say who else reads it (ninth round).
    assert [f.message.split(", a credential file")[0] for f in findings] == [f"run step {message}"]


def test_here_documents() -> None:
    text = _workflow(
        "cat <<EOF > ~/.npmrc",
        "//registry.example.com/:_authToken=${{ secrets.NPM }}",
        "EOF",
        "cat <<'EOF' | kubectl apply -f -",
        "password: ${{ secrets.KUBE }}",
        "EOF",
        "tee -a ~/.pypirc <<-END",
        "password = $TOKEN",
        "END",
        "kubectl create -f - <<EOF",
        "token: $TOKEN",
        "EOF",
        "cat <<'EOF' > literal.txt",
        "not expanded: $TOKEN",
        "EOF",
    )
    findings = [f for f in lint_text(WF, text) if f.rule == "CS004"]
    assert [(f.line, f.message.split(", a credential file")[0], f.severity) for f in findings] == [
        (11, "run step writes secrets.NPM to ~/.npmrc", "low"),
        (17, "run step writes TOKEN to ~/.pypirc", "low"),
    ]


# ---- CS004: a secret given to a command that stores it in a configuration file ---------------------


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("npm config set '//registry.example.com/:_authToken' \"${TOKEN}\"", "npm's configuration file"),
        ("npm config set //registry.example.com/:_authToken ${{ secrets.NPM }}", "npm's configuration file"),
        ("npm set //registry.example.com/:_authToken=$TOKEN", "npm's configuration file"),
        ('pnpm config set //registry.example.com/:_authToken "$TOKEN"', "pnpm's configuration file"),
        ('yarn config set npmAuthToken "$TOKEN"', "yarn's configuration file"),
        ("pip config set global.index-url https://u:${{ secrets.PIP }}@registry.example.com/simple", "pip's"),
        (
            'git config --global url."https://x-access-token:${{ secrets.PAT }}@github.com/".insteadOf https://github.com/',
            "git's global configuration file (~/.gitconfig)",
        ),
        (
            'git config http.extraheader "AUTHORIZATION: bearer $TOKEN"',
            "the checkout's git configuration (.git/config)",
        ),
        ("aws configure set aws_secret_access_key ${{ secrets.AWS_SECRET }}", "AWS credentials"),
        ("kubectl config set-credentials ci --token=${{ secrets.KUBE }}", "kubeconfig"),
        ("poetry config pypi-token.pypi ${{ secrets.PYPI }}", "auth.toml"),
        ("composer config --global github-oauth.github.com ${{ secrets.GH }}", "auth.json"),
        ("bundle config set --global rubygems.pkg.github.com x:$TOKEN", ".bundle/config"),
    ],
)
def test_a_secret_stored_by_a_config_command_is_written(line: str, where: str) -> None:
    findings = [f for f in lint_text(WF, _workflow(line)) if f.rule == "CS004"]
    assert len(findings) == 1 and findings[0].line == 10, findings
    assert where in findings[0].message


@pytest.mark.parametrize(
    "line",
    [
        "npm config set '//registry.example.com/:_authToken' '${TOKEN}'",  # the placeholder, expanded by npm
        "npm config set registry https://registry.example.com/",
        "npm config get //registry.example.com/:_authToken",
        "npm config delete //registry.example.com/:_authToken",
        "npm publish --//registry.example.com/:_authToken=${{ secrets.NPM }}",
        'git -c http.extraheader="AUTHORIZATION: bearer ${{ secrets.PAT }}" clone https://github.com/o/r',
        "git config --global credential.helper store",
        "git config --get remote.origin.url",
        "poetry config repositories.x https://registry.example.com/simple",
        'echo "$TOKEN" | docker login -u me --password-stdin registry.example.com',
    ],
)
def test_config_commands_that_store_no_secret_are_not_findings(line: str) -> None:
    assert at(lint_text(WF, _workflow(line)), "CS004") == []


# ---- Fifth development sweep (issue 33, fifth round) ---------------------------------------------------
# Classes seen on development repositories (docs/lint.md, "A fifth development sweep").


def _url(user: str, password: str) -> str:
    return "postgresql://" + user + ":" + password + "@db:5432/app"


@pytest.mark.parametrize(
    ("user", "password"),
    [
        ("docmost", "STRONG_DB_PASSWORD"),
        ("app", "YOUR_PASSWORD"),
        ("app", "CHANGE_ME"),
        ("postgres", "p0stgr3s"),
        ("admin", "4dm1n"),
        ("Root", "r00t"),
    ],
)
def test_url_passwords_that_are_slots_or_the_user_are_not_findings(user: str, password: str) -> None:
    text = f"services:\n  app:\n    image: app:1\n    environment:\n      DATABASE_URL: '{_url(user, password)}'\n"
    assert at(lint_text("docker-compose.yml", text), "PS001") == []


@pytest.mark.parametrize(
    ("user", "password"),
    [("app", REAL), ("app", "K8XQ2MZP7T4L"), ("postgres", "p0stgr3s" + "Q9"), ("postgres", "Postgres_2024x")],
)
def test_url_passwords_that_look_chosen_stay_findings(user: str, password: str) -> None:
    text = f"services:\n  app:\n    image: app:1\n    environment:\n      DATABASE_URL: '{_url(user, password)}'\n"
    assert [f.severity for f in lint_text("docker-compose.yml", text) if f.rule == "PS001"] == ["high"]


@pytest.mark.parametrize(
    "value",
    [
        "str(required=False)",
        "str()",
        'enum("true", "false", required=False)',
        "any(str(), null())",
        "include('credentials')",
        "regex('^[a-z]+$', name='key')",
    ],
)
def test_schema_validator_rules_are_not_values(value: str) -> None:
    text = f"annotations:\n  artifacthub.io/signKey: {value}\npassword: {value}\napiToken: {value}\n"
    assert at(lint_text(".github/config/yamale.yaml", text), "PS002") == []


@pytest.mark.parametrize("value", [REAL, "Kx(82)mQpz4t", "s3cr3t(9)x7Q"])
def test_values_with_brackets_that_are_no_call_stay_findings(value: str) -> None:
    text = f"db:\n  password: '{value}'\n"
    assert at(lint_text("values.yaml", text), "PS002") == [(2, 13)]


_BUILDER = "FROM node:20 AS build\n{lines}\nRUN npm run build\nFROM node:20-slim\nCOPY --from=build /app /app\n"


@pytest.mark.parametrize("marker", ["CAFEBABE", "DEADBEEF", "0xdeadbeef", "deadbeefdeadbeef", "BAADF00D"])
def test_hex_marker_defaults_in_a_builder_stage_are_info(marker: str) -> None:
    lines = f'ARG ENCRYPTION_KEY="{marker}"\nENV ENCRYPTION_KEY="$ENCRYPTION_KEY"'
    findings = [f for f in lint_text("Dockerfile", _BUILDER.format(lines=lines)) if f.rule == "IS001"]
    assert [(f.line, f.severity) for f in findings] == [(2, "info"), (3, "info")]


def test_real_defaults_in_a_builder_stage_stay_low() -> None:
    lines = f'ARG ENCRYPTION_KEY="{REAL}"\nENV ENCRYPTION_KEY="$ENCRYPTION_KEY"\nARG TELEMETRY_KEY=""\nENV TELEMETRY_KEY=$TELEMETRY_KEY'
    findings = [f for f in lint_text("Dockerfile", _BUILDER.format(lines=lines)) if f.rule == "IS001"]
    assert [(f.line, f.severity) for f in findings] == [(2, "low"), (3, "low"), (4, "low"), (5, "low")]


def test_hex_markers_in_a_shipped_image_are_info_and_real_values_high() -> None:
    text = f"FROM node:20\nENV SESSION_KEY=CAFEBABE\nENV SIGNING_KEY={REAL}\nENV CAFE_TOKEN=cafebabe{REAL}\n"
    findings = [f for f in lint_text("Dockerfile", text) if f.rule == "IS001"]
    assert [(f.line, f.severity) for f in findings] == [(2, "info"), (3, "high"), (4, "high")]


def _workflow_env(env: str, *lines: str) -> str:
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - env:\n          {env}\n        run: |\n" + body
    )


@pytest.mark.parametrize(
    ("env", "line"),
    [
        ("CF_ZONE_ID: ${{ secrets.CLOUDFLARE_ZONE_ID }}", 'echo "purging zone $CF_ZONE_ID"'),
        ("ACCOUNT: ${{ secrets.AWS_ACCOUNT_ID }}", 'echo "account=${ACCOUNT}" >> "$GITHUB_OUTPUT"'),
        ("X: ${{ secrets.A }}", 'echo "user ${{ secrets.DOCKERHUB_USERNAME }}"'),
    ],
)
def test_printing_an_identifier_secret_is_info(env: str, line: str) -> None:
    findings = [f for f in lint_text(WF, _workflow_env(env, line)) if f.rule == "CS004"]
    assert [f.severity for f in findings] == ["info"]


@pytest.mark.parametrize(
    ("env", "line"),
    [
        ("ZONE_ID: ${{ secrets.API_TOKEN }}", 'echo "$ZONE_ID"'),  # the variable's name hides a credential
        ("CF_TOKEN: ${{ secrets.CLOUDFLARE_ZONE_ID }}", 'echo "$CF_TOKEN"'),  # a credential-named variable
        ("X: ${{ secrets.A }}", 'echo "${{ secrets.CLOUDFLARE_API_TOKEN }}"'),
    ],
)
def test_printing_a_credential_stays_high(env: str, line: str) -> None:
    findings = [f for f in lint_text(WF, _workflow_env(env, line)) if f.rule == "CS004"]
    assert [f.severity for f in findings] == ["high"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('sed -i "s/LICENSE_KEY=.*/LICENSE_KEY=${{ secrets.LICENSE }}/" .env', "writes secrets.LICENSE to a file"),
        ('sed -i.bak "s|TOKEN_HERE|$TOKEN|" config.json', "writes TOKEN to a file"),
        ('sed -Ei "s/^K=.*/K=$TOKEN/" app.env', "writes TOKEN to a file"),
        ('sed --in-place "s/K=.*/K=$TOKEN/" app.env', "writes TOKEN to a file"),
        ('sed "s/K=.*/K=$TOKEN/" template.env', "prints TOKEN to the log"),
        ('sed -n "s/K=.*/K=$TOKEN/p" template.env > out.env', "writes TOKEN to a file"),
    ],
)
def test_sed_in_place_writes_the_file(line: str, message: str) -> None:
    findings = [f for f in lint_text(WF, _workflow(line)) if f.rule == "CS004"]
    assert [message in f.message for f in findings] == [True]
