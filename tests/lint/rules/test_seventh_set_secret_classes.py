"""Issue 33, the seventh set's secret classes, fixed afterwards (docs/lint.md, "The seventh set's
secret classes, fixed afterwards"): each class from fixtures written here, with the look-alikes
that stay findings.

1. A secret's name is read whole through its hyphens (``secrets.github-username``, also
   ``secrets['github-username']``), so the name's words decide as they do for ``GITHUB_USERNAME``
   (CS001, CS003, CS004).
2. A URL's password that opens a container the same CI job starts (its ``services:``, a ``.env``
   it writes before ``docker compose up``, ``docker run -e``) is left out, unless the job deploys
   (PS001; PS002's test jobs stop being a test's when they deploy).
3. A Compose default is a secret's by the variable it defaults, wherever it is used (a glued key
   such as ``ME_CONFIG_MONGODB_ADMINPASSWORD``, a URL, a ``command:``): every line is reported (PS002).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from sandkit.lint.facts.expressions import exposed_secret_refs
from sandkit.lint.source import RuleSettings
from tests.lint.helpers import WORKFLOW, lint_files, lint_text, lint_tree, one_run_step, workflow_findings, write_tree

WF = WORKFLOW
_found = workflow_findings
_run = one_run_step


# ---- 1. a secret's name runs on through its hyphens ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("${{ secrets.github-username }}", "github-username"),
        ("${{ secrets . deploy-key-2 }}", "deploy-key-2"),
        ("${{ secrets['github-username'] }}", "github-username"),
        ('${{ secrets["a-b_c"] }}', "a-b_c"),
        ("${{ format('{0}', secrets.npm-token) }}", "npm-token"),
        ("${{ secrets.npm-token || secrets.NPM_TOKEN }}", "npm-token"),
    ],
)
def test_a_hyphenated_secret_name_is_read_whole(text: str, name: str) -> None:
    found = exposed_secret_refs(text)
    assert found and (found[0].group(1) or found[0].group(2)) == name


@pytest.mark.parametrize(
    "text",
    [
        "${{ secrets.npm-token != '' }}",
        "${{ !secrets.npm-token }}",
        "${{ secrets['npm-token'] && 'yes' || 'no' }}",
        "${{ needs.a-with-inherited-secrets.outputs.x-y }}",
    ],
)
def test_a_hyphenated_name_only_tested_or_not_a_secret_is_not_exposed(text: str) -> None:
    assert exposed_secret_refs(text) == []


@pytest.mark.parametrize(
    "line",
    [
        'git config user.name "${{ secrets.github-username }}"',
        'git config user.email "${{ secrets.github-email }}"',
        "git config user.name \"${{ secrets['github-username'] }}\"",
        'git config --global user.email "${{ secrets.bot-e-mail }}"',
        'echo "${{ secrets.gke-project }}" > project.txt',
        'echo "${{ secrets.docker-hub-user }}" >> "$GITHUB_ENV"',
        'echo "region=${{ secrets.aws-region }}"',
    ],
)
def test_an_identifier_named_with_hyphens_is_info(line: str) -> None:
    found = _found(_run(line), "CS004")
    assert [(n, s) for n, s, _ in found] == [(9, "info")]
    assert "an identifier rather than a credential" in found[0][2]


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ('git config user.password "${{ secrets.github-token }}"', "secrets.github-token"),
        ('echo "${{ secrets.npm-token }}" > .npmrc', "secrets.npm-token"),
        ("echo \"${{ secrets['deploy-key'] }}\" > key", "secrets.deploy-key"),
        ('echo "${{ secrets.github-user-password }}" > pw', "secrets.github-user-password"),
        ('echo "${{ secrets.registry-user-token }}"', "secrets.registry-user-token"),
        ('echo "${{ secrets.project-id-json }}" > sa.json', "secrets.project-id-json"),
    ],
)
def test_a_credential_named_with_hyphens_stays_a_finding(line: str, shown: str) -> None:
    found = _found(_run(line), "CS004")
    # git's configuration and .npmrc are credential files a later tool reads: low (ninth round).
    expected = "low" if line.startswith("git config") or ".npmrc" in line else "high"
    assert [(n, s) for n, s, _ in found] == [(9, expected)]
    assert shown in found[0][2] and "identifier" not in found[0][2]


def test_job_env_with_hyphenated_names() -> None:
    user = "    env:\n      GH_USER: ${{ secrets.github-username }}\n"
    token = "    env:\n      NPM_TOKEN: ${{ secrets['npm-token'] }}\n"
    assert [s for _, s, _ in _found(_run("make", user), "CS001")] in ([], ["info"])
    found = _found(_run("make", token), "CS001")
    assert [s for _, s, _ in found] == ["medium"] and "secrets.npm-token" in found[0][2]


def test_untrusted_checkout_names_the_hyphenated_secret() -> None:
    text = (
        "on: pull_request_target\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - uses: actions/checkout@v4\n        with:\n"
        "          ref: ${{ github.event.pull_request.head.sha }}\n"
        "      - run: npm test\n        env:\n          T: ${{ secrets.npm-token }}\n"
    )
    found = _found(text, "CS003")
    assert found and "npm-token" in found[0][2]


# ---- 2. a URL's password that opens a container the same CI job starts -----------------------------

PW = "Kx82mQpz4tLs"  # looks typed by a generator: nothing but the job's shape may excuse it


def _ps001(text: str, *, examples: bool = False, path: str = WF) -> list[tuple[int, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(Path(tmp), {path: text})
        found = lint_tree(Path(tmp), ("PS001",), settings=RuleSettings(include_examples=examples))
    return [(f.line, f.severity) for f in found]


def _services_job(url: str, password: str = PW, *, job: str = "test", extra: str = "", steps: str = "") -> str:
    return (
        "on: push\npermissions: {contents: read}\njobs:\n"
        f"  {job}:\n    runs-on: ubuntu-latest\n{extra}"
        "    services:\n      postgres:\n        image: postgres:16\n        env:\n"
        f"          POSTGRES_USER: app\n          POSTGRES_PASSWORD: {password}\n        ports: ['5432:5432']\n"
        "    steps:\n      - uses: actions/checkout@v4\n" + steps + "      - run: pytest\n        env:\n"
        f"          DATABASE_URL: {url}\n"
    )


def _compose_job(url_line: str, setting: str, *, job: str = "integration", up: str = "docker compose up -d") -> str:
    return (
        "on: push\npermissions: {contents: read}\njobs:\n"
        f"  {job}:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
        "      - run: |\n          cat > .env << EOF\n"
        f"          {setting}\n          {url_line}\n          EOF\n"
        f"      - run: |\n          {up}\n          pytest\n          docker compose down -v\n"
    )


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://app:{PW}@localhost:5432/app",
        f"postgres://app:{PW}@127.0.0.1:5432/app",
        f"postgresql+asyncpg://app:{PW}@postgres:5432/app",
        f"postgresql://postgres:{PW}@localhost/app?sslmode=disable",
    ],
)
def test_a_password_of_the_jobs_service_container_is_not_a_finding(url: str) -> None:
    text = _services_job(url)
    assert _ps001(text) == []
    assert _ps001(text, examples=True) == [(17, "low")]


@pytest.mark.parametrize(
    ("url_line", "setting", "up"),
    [
        (f"DATABASE_URL=postgresql://app:{PW}@postgres:5432/app", f"POSTGRES_PASSWORD={PW}", "docker compose up -d"),
        (f"DATABASE_URL=postgresql://app:{PW}@db:5432/app", f"DB_PASSWORD={PW}", "docker-compose up -d db redis"),
        (
            f"MONGO_URL=mongodb://root:{PW}@mongo:27017",
            f"MONGO_INITDB_ROOT_PASSWORD={PW}",
            "docker compose -f ci.yml up -d",
        ),
        (
            f"REDIS_URL=redis://default:{PW}@localhost:6379",
            f"REDIS_PASSWORD={PW}",
            "docker run -d --env-file .env redis:7",
        ),
    ],
)
def test_a_password_of_the_jobs_own_compose_stack_is_not_a_finding(url_line: str, setting: str, up: str) -> None:
    text = _compose_job(url_line, setting, up=up)
    assert _ps001(text) == []
    assert _ps001(text, examples=True) == [(11, "low")]


def test_a_docker_run_option_gives_the_container_its_password() -> None:
    text = (
        "on: push\njobs:\n  e2e:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - run: docker run -d -p 3306:3306 -e MYSQL_ROOT_PASSWORD={PW} mysql:8\n"
        f"      - run: DATABASE_URL=mysql://root:{PW}@127.0.0.1:3306/app npm test\n"
    )
    assert _ps001(text) == []


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # the service's password is another: the URL opens something else
        (_services_job(f"postgresql://app:{PW}@localhost:5432/app", password="other-pass-2"), 17),
        # the host is not the runner nor a container beside it
        (_services_job(f"postgresql://app:{PW}@db.prod.example.com:5432/app"), 17),
        (_services_job(f"postgresql://app:{PW}@10.0.3.7:5432/app"), 17),
        # a job that deploys: an environment, a deploy's name, a remote shell, an image built with it
        (_services_job(f"postgresql://app:{PW}@localhost/app", extra="    environment: production\n"), 18),
        (_services_job(f"postgresql://app:{PW}@localhost/app", job="deploy"), 17),
        (_services_job(f"postgresql://app:{PW}@localhost/app", steps="      - run: ssh ci@app.example.com ./up\n"), 18),
        (
            _services_job(
                f"postgresql://app:{PW}@localhost/app",
                steps="      - run: docker build --build-arg DATABASE_URL -t app . && docker push app\n",
            ),
            18,
        ),
        (
            _services_job(
                f"postgresql://app:{PW}@localhost/app",
                steps="      - uses: appleboy/ssh-action@v1\n        with: {host: app.example.com}\n",
            ),
            19,
        ),
        # a .env written with the password, but no container started by the job
        (
            _compose_job(
                f"DATABASE_URL=postgresql://app:{PW}@postgres/app", f"POSTGRES_PASSWORD={PW}", up="make migrate"
            ),
            11,
        ),
        # the job starts its stack, but the password is set nowhere in it
        (_compose_job(f"DATABASE_URL=postgresql://app:{PW}@postgres/app", "POSTGRES_USER=app"), 11),
        # a deploy job that starts the stack on a remote host
        (
            _compose_job(
                f"DATABASE_URL=postgresql://app:{PW}@postgres/app", f"POSTGRES_PASSWORD={PW}", job="deploy-prod"
            ),
            11,
        ),
        (
            _compose_job(
                f"DATABASE_URL=postgresql://app:{PW}@postgres/app",
                f"POSTGRES_PASSWORD={PW}",
                up="docker compose -H ssh://ci@app.example.com up -d",
            ),
            11,
        ),
    ],
)
def test_look_alikes_stay_findings(text: str, line: int) -> None:
    assert _ps001(text) == [(line, "high")]


def test_the_password_of_another_jobs_service_does_not_excuse() -> None:
    other = (
        "  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ./migrate\n        env:\n"
        f"          DATABASE_URL: postgresql://app:{PW}@localhost:5432/app\n"
    )
    text = _services_job(f"postgresql://app:{PW}@localhost:5432/app") + other
    assert _ps001(text) == [(23, "high")]


def test_the_same_url_outside_a_workflow_stays() -> None:
    text = f"DATABASE_URL=postgresql://app:{PW}@localhost:5432/app\nPOSTGRES_PASSWORD={PW}\n"
    assert _ps001(text, path=".env") == [(1, "high")]


def test_a_test_job_that_deploys_is_not_a_tests_for_ps002_either() -> None:
    base = _services_job("postgresql://localhost/app", extra="{extra}")
    plain = base.replace("{extra}", "")
    deploying = base.replace("{extra}", "    environment: staging\n")

    def ps002(text: str) -> list[tuple[int, str]]:
        return [(f.line, f.severity) for f in lint_text(WF, text) if f.rule == "PS002"]

    assert ps002(plain) == [(11, "info")]
    assert ps002(deploying) == [(12, "medium")]


# ---- 3. a Compose default is a secret's by the variable it defaults ---------------------------------


def _compose_defaults(files: dict[str, str]) -> list[tuple[str, int, str]]:
    found = [f for f in lint_files(files) if f.rule == "PS002"]
    assert all(f.severity == "low" for f in found)
    return [(f.path.rsplit("/", 1)[-1], f.line, f.message) for f in found]


MONGO = (
    "services:\n  mongodb:\n    image: mongo:8\n    environment:\n"
    f"      - MONGO_INITDB_ROOT_PASSWORD=${{MONGO_INITDB_ROOT_PASSWORD:-{PW}}}\n"
    "  mongo-express:\n    image: mongo-express:1\n    environment:\n"
    f"      - ME_CONFIG_MONGODB_ADMINPASSWORD=${{MONGO_INITDB_ROOT_PASSWORD:-{PW}}}\n"
    f"      - ME_CONFIG_MONGODB_URL=mongodb://root:${{MONGO_INITDB_ROOT_PASSWORD:-{PW}}}@mongodb:27017/\n"
)


def test_every_line_that_sets_the_same_default_is_reported() -> None:
    found = _compose_defaults({"app/docker-compose.yml": MONGO})
    assert [(line, "MONGO_INITDB_ROOT_PASSWORD:-" in m) for _, line, m in found] == [
        (5, True),  # the variable's own key
        (9, True),  # a key whose name is glued (ADMINPASSWORD) but the variable says password
        (10, True),  # inside a URL
    ]
    assert "ME_CONFIG_MONGODB_URL holds a literal value" in found[2][2]


def test_the_default_without_colon_is_reported_as_written() -> None:
    text = (
        "services:\n  api:\n    image: registry.example.com/api:1\n    environment:\n"
        f"      SETTING_A: ${{DB_PASSWORD-{PW}}}\n      SETTING_B: ${{DB_PASSWORD:-{PW}}}\n"
    )
    found = _compose_defaults({"app/compose.yaml": text})
    assert [(line, "${DB_PASSWORD-...}" in m, "${DB_PASSWORD:-...}" in m) for _, line, m in found] == [
        (5, True, False),
        (6, False, True),
    ]


def test_the_same_default_in_two_files_is_reported_in_each() -> None:
    line = f"      DB_PASSWORD: ${{DB_PASSWORD:-{PW}}}\n"
    service = "services:\n  api:\n    image: registry.example.com/api:1\n    environment:\n" + line
    found = _compose_defaults({"a/docker-compose.yml": service, "b/docker-compose.yml": service})
    assert [(name, number) for name, number, _ in found] == [("docker-compose.yml", 5), ("docker-compose.yml", 5)]


@pytest.mark.parametrize(
    "line",
    [
        f"ME_CONFIG_MONGODB_ADMINPASSWORD: ${{MONGO_INITDB_ROOT_PASSWORD:-{PW}}}",
        f"DATABASE_URL: postgres://app:${{POSTGRES_PASSWORD:-{PW}}}@db:5432/app",
        f"OPTIONS: --requirepass ${{REDIS_PASSWORD-{PW}}} --appendonly yes",
        f"OPTIONS: redis-server --requirepass ${{REDIS_PASSWORD:-{PW}}}",
        f"DB_PASSWORD: ${{VAULT_VALUE:-{PW}}}",  # the whole value: the key's name says password
    ],
)
def test_a_secret_default_anywhere_in_a_value(line: str) -> None:
    service = f"services:\n  api:\n    image: registry.example.com/api:1\n    environment:\n      {line}\n"
    assert [number for _, number, _ in _compose_defaults({"docker-compose.yml": service})] == [5]


@pytest.mark.parametrize(
    "line",
    [
        "ME_CONFIG_MONGODB_ADMINUSERNAME: ${MONGO_INITDB_ROOT_USERNAME:-mongoadmin}",  # a user, not a secret
        "DATABASE_URL: postgres://app:${POSTGRES_PASSWORD:-changeme}@db:5432/app",  # a placeholder
        "DATABASE_URL: postgres://${DB_USER:-app}:${POSTGRES_PASSWORD}@db:5432/app",  # no default for it
        f"DB_PASSWORD: prefix-${{SUFFIX:-{PW}}}",  # part of a value, under a variable that names no secret
        "API_URL: https://${API_HOST:-api.example.com}/v1",
    ],
)
def test_defaults_that_are_no_secrets_stay_out(line: str) -> None:
    service = f"services:\n  api:\n    image: registry.example.com/api:1\n    environment:\n      {line}\n"
    assert _compose_defaults({"docker-compose.yml": service}) == []


def test_a_default_in_a_command_with_no_secret_named_key() -> None:
    text = (
        f"services:\n  cache:\n    image: redis:7\n    command: redis-server --requirepass ${{REDIS_PASSWORD:-{PW}}}\n"
    )
    assert [(n, line) for n, line, _ in _compose_defaults({"compose.yml": text})] == [("compose.yml", 4)]


def test_a_variable_the_env_beside_sets_is_not_its_default() -> None:
    files = {
        "app/docker-compose.yml": MONGO,
        "app/.env": "MONGO_INITDB_ROOT_PASSWORD=x\n",
    }
    assert _compose_defaults(files) == []
