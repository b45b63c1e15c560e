"""Issue 33, the ninth held-out set's secrets classes, fixed afterwards (docs/lint.md, "The ninth
set's secrets classes, fixed afterwards (issue 33)"). Each class from fixtures written here, with
the look-alikes that stay findings.

1. PS001/PS002: the example word anywhere among a file name's parts (``.env.sample.prod``) or a
   folder's (``env_examples/``) makes it an example file.
2. PS002: a placeholder written in leetspeak (``Ple4seCh4ngeThisN0tAVerySecretV4lue``).
3. PS002: a value whose own comment says it is a dummy to replace.
4. CS004/CS001: a name whose last word is an identifier's (``SSH_HOST``, ``SSH_PORT``).
5. CS004: any file directly under ``~/.ssh/`` is the ssh tool's credential file.
6. AM003: a literal key under a vendor's prefix in an MCP server's ``env``.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from sandkit.lint.facts.secret_values import is_example_path
from sandkit.lint.rules.ci_secret_exposure import _identifier_name
from sandkit.lint.source import RuleSettings
from tests.lint.helpers import at, lint_files, lint_text, lint_tree, workflow_findings, write_tree


def _random(length: int, seed: int) -> str:
    """A value as a generator makes one: letters of both cases and digits, built at run time."""
    chooser = random.Random(seed)
    return "".join(chooser.choice(string.ascii_letters + string.digits) for _ in range(length))


def _found(name: str, text: str, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(name, text) if f.rule == rule]


# ---- 1. example files by any part of their name -------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "env_examples/.env.sample.without_traefik",
        ".env.sample.prod",
        ".env.example.local",
        "env.template.docker",
        "config.example.yaml",
        "sample.env",
        "deploy/config-samples/app.yaml",
        "examples/.env.prod",
        ".env.sample",
        ".env.example",
    ],
)
def test_an_example_word_anywhere_in_a_name_makes_an_example_file(path: str) -> None:
    assert is_example_path(path)
    text = "DB_PASSWORD=Xk39fjQ2mzPq81\n" if not path.endswith(".yaml") else "db:\n  password: Xk39fjQ2mzPq81\n"
    assert not _found(path, text, "PS002")


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".env.prod",
        ".env.local",
        "deploy/prod.env",
        "charts/app/templates/secret.yaml",  # a chart's templates are what it deploys
        "templates.yaml",
        "resample/.env.prod",
        "counterexamples/.env.prod",
        "sampler/config.yaml",
    ],
)
def test_names_that_only_hold_the_letters_stay(path: str) -> None:
    assert not is_example_path(path)


def test_an_example_file_is_reported_with_include_examples(tmp_path: Path) -> None:
    write_tree(tmp_path, {"env_examples/.env.sample.prod": "DB_PASSWORD=Xk39fjQ2mzPq81\n"})
    found = lint_tree(tmp_path, ("PS002",), settings=RuleSettings(include_examples=True))
    assert [f.line for f in found] == [1] and found[0].severity in ("low", "info"), found


@pytest.mark.parametrize(
    "path", ["env_examples/.env.sample.without_traefik", ".env.example.local_dev", "config.example.local.yaml"]
)
def test_ps001_still_reports_a_live_looking_token_there(path: str) -> None:
    token = "ghp_" + _random(36, 11)
    text = f"GITHUB_TOKEN={token}\n" if not path.endswith(".yaml") else f"github:\n  token: {token}\n"
    assert len(_found(path, text, "PS001")) == 1
    assert not _found(".env.example", text, "PS001")  # as before: the plain example names stay out


# ---- 2. placeholders in leetspeak -------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "Ple4seCh4ngeThisN0tAVerySecretV4lue",  # Rook's upstream value
        "PleaseChangeThisNotAVerySecretValue",
        "R3pl4c3M3",
        "ch4ng3-m3-n0w",
        "N0t-4-S3cr3t",
        "3x4mpl3P4ssw0rd",
        "s3cur3-r3d1s-p4ssw0rd",  # describes itself, in leetspeak
    ],
)
def test_a_placeholder_in_leetspeak_is_not_a_finding(value: str) -> None:
    assert not _found("deploy.yaml", f"db:\n  password: {value}\n", "PS002")
    assert not _found(".env", f"REDIS_PASSWORD={value}\n", "PS002")


@pytest.mark.parametrize(
    "value",
    ["T4x9Lq2w8Zr5", "S3cr3tP4ss", "p@ssw0rd123x", "Xk39fjQ2mzPq81", "changethis"]
    + [_random(length, seed) for seed, length in enumerate((12, 16, 24, 32, 40, 64))],
)
def test_a_real_looking_value_with_digits_stays(value: str) -> None:
    assert len(_found("deploy.yaml", f"db:\n  password: {value}\n", "PS002")) == 1


def test_random_values_are_read_as_placeholders_no_more_often_than_before() -> None:
    from sandkit.credentials import is_placeholder

    values = [_random(length, seed) for seed in range(3000) for length in (16, 40)]
    assert sum(is_placeholder(v) for v in values) <= 2


# ---- 3. a value whose own comment says it is a dummy --------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".env", "DB_PASSWORD=Zq8rT2vX5nB1  # dummy, replace me\n"),
        (".env", "# replace with your own\nAPI_KEY=k8Fj2mQp9Zx4\n"),
        (".env", "ADMIN_PASSWORD=rootpass  # placeholder: change it\n"),
        (".env", "ADMIN_PASSWORD=rootpass  # change me\n"),
        ("values.yaml", "auth:\n  # -- Dummy password for local runs; replace it.\n  password: Zq8rT2vX5nB1\n"),
        ("values.yaml", "auth:\n  password: Zq8rT2vX5nB1 # [MUST CHANGE]\n"),
        (
            "docker-compose.yml",
            "services:\n  db:\n    image: x\n    environment:\n"
            "      POSTGRES_PASSWORD: Zq8rT2vX5nB1 # not a real password\n",
        ),
    ],
)
def test_a_value_its_comment_calls_a_dummy_is_not_a_finding(name: str, text: str) -> None:
    assert not _found(name, text, "PS002")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".env", "DB_PASSWORD=Zq8rT2vX5nB1  # generated with openssl rand\n"),
        (".env", "# do not change this\nAPI_KEY=k8Fj2mQp9Zx4\n"),
        # leryn-leah/chart-repo's Harbor values (the eighth set): the password it runs with until changed
        (
            "values.yaml",
            "# The initial password of Harbor admin. Change it from portal after launching Harbor\n"
            'harborAdminPassword: "Zq8rT2vX5nB1"\n',
        ),
        (".env", "# change this in production\nSECRET_KEY=k8Fj2mQp9Zx4aa\n"),
        (".env", "# dummy values below\n\nAPI_KEY=k8Fj2mQp9Zx4\n"),  # not the line right above
        (".env", "API_KEY=k8Fj2mQp9Zx4\n# replace with your own\n"),  # the line below is another's
        ("values.yaml", "auth:\n  # -- The admin password\n  password: Zq8rT2vX5nB1\n"),
    ],
)
def test_other_comments_leave_the_finding(name: str, text: str) -> None:
    assert len(_found(name, text, "PS002")) == 1


# ---- 4. identifiers by their last word ---------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["SSH_HOST", "SSH_PORT", "SSH_USER", "DEPLOY_PATH", "SSH_KEY_PATH", "PROD_SSH_HOSTNAME", "sshHost", "DB_HOST"],
)
def test_a_last_identifier_word_makes_an_identifier(name: str) -> None:
    assert _identifier_name(name)


@pytest.mark.parametrize(
    "name", ["SSH_PRIVATE_KEY", "SSH_KEY", "SECRET_ID", "CLIENT_SECRET_ID", "SESSION_ID", "SSH_PASSPHRASE", "KEY_NAME"]
)
def test_a_credential_word_last_stays_a_credential(name: str) -> None:
    assert not _identifier_name(name)


def _steps(*lines: str) -> str:
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n      - run: |\n" + body + "      - run: make deploy\n"
    )


@pytest.mark.parametrize(
    "line",
    [
        'echo "Host ${{ secrets.SSH_HOST }}" >> ~/.ssh/config',
        'echo "  Port ${{ secrets.SSH_PORT }}" >> ~/.ssh/config',
        'echo "${{ secrets.DEPLOY_PATH }}" > target.txt',
        'echo "${{ secrets.SSH_HOST }}"',
    ],
)
def test_an_ssh_host_written_or_printed_is_info(line: str) -> None:
    found = workflow_findings(_steps(line), "CS004")
    assert [s for _, s, _ in found] == ["info"], found
    assert "an identifier rather than a credential" in found[0][2]


@pytest.mark.parametrize(
    "line",
    ['echo "${{ secrets.SSH_PRIVATE_KEY }}" > out.txt', 'echo "${{ secrets.SECRET_ID }}"'],
)
def test_a_credential_written_stays_high(line: str) -> None:
    assert [s for _, s, _ in workflow_findings(_steps(line), "CS004")] == ["high"]


def test_an_ssh_host_in_job_env_is_not_cs001() -> None:
    text = (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    env:\n      HOST: ${{ secrets.SSH_HOST }}\n      KEY: ${{ secrets.SSH_PRIVATE_KEY }}\n"
        "    steps:\n      - run: make\n"
    )
    found = workflow_findings(text, "CS001")
    assert len(found) == 1 and "SSH_PRIVATE_KEY" in found[0][2], found


# ---- 5. any file under ~/.ssh/ ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "file"),
    [
        ('echo "${{ secrets.SSH_PRIVATE_KEY }}" > ~/.ssh/deploy_key', "~/.ssh/deploy_key"),
        ('echo "${{ secrets.DEPLOY_KEY }}" > $HOME/.ssh/deploy_key', "$HOME/.ssh/deploy_key"),
        ('printf "%s\\n" "${{ secrets.DEPLOY_KEY }}" > "$HOME/.ssh/github"', "$HOME/.ssh/github"),
        ('echo "${{ secrets.SSH_PRIVATE_KEY }}" > ~/.ssh/id_rsa', "~/.ssh/id_rsa"),
        ('echo "${{ secrets.SSH_KEY }}" | base64 -d > ~/.ssh/server.key', "~/.ssh/server.key"),
    ],
)
def test_a_key_written_under_dot_ssh_is_low(line: str, file: str) -> None:
    found = workflow_findings(_steps(line), "CS004")
    assert [s for _, s, _ in found] == ["low"], found
    assert file in found[0][2]


@pytest.mark.parametrize(
    "line",
    [
        'echo "${{ secrets.SSH_PRIVATE_KEY }}" | ssh-add -',
        'echo "${{ secrets.SSH_PRIVATE_KEY }}" | tr -d "\\r" | ssh-add -',
        'ssh-add - <<< "${{ secrets.SSH_PRIVATE_KEY }}"',
    ],
)
def test_ssh_add_input_is_a_command_use(line: str) -> None:
    assert workflow_findings(_steps(line), "CS004") == []


@pytest.mark.parametrize(
    "line",
    [
        'echo "${{ secrets.SSH_PRIVATE_KEY }}" > ~/.ssh/keys/deploy',  # a folder below .ssh: not ssh's own file
        'echo "${{ secrets.SSH_PRIVATE_KEY }}" > deploy_key',
        'echo "${{ secrets.SSH_PRIVATE_KEY }}" > ~/.sshkeys',
    ],
)
def test_other_files_stay_high(line: str) -> None:
    assert [s for _, s, _ in workflow_findings(_steps(line), "CS004")] == ["high"]


def test_an_unpinned_action_after_it_raises_it_to_medium() -> None:
    text = _steps('echo "${{ secrets.SSH_PRIVATE_KEY }}" > ~/.ssh/deploy_key').replace(
        "      - run: make deploy\n", "      - uses: appleboy/ssh-action@v1\n"
    )
    assert [s for _, s, _ in workflow_findings(text, "CS004")] == ["medium"]


# ---- 6. a vendor's prefix before key material ---------------------------------------------------


def _lower_key(seed: int) -> str:
    """A vendor-prefixed key as some vendors issue them: lower-case letters and digits after the prefix."""
    chooser = random.Random(seed)
    return "chakra-" + "".join(chooser.choice(string.ascii_lowercase + string.digits) for _ in range(60))


def _mcp(path: str, value: str) -> dict[str, str]:
    servers = "servers" if path.startswith(".vscode") else "mcpServers"
    return {
        path: f'{{"{servers}": {{"chakra": {{"command": "npx", "args": ["-y", "chakra-mcp@1.2.0"], '
        f'"env": {{"CHAKRA_PRO_API_KEY": "{value}"}}}}}}}}\n'
    }


@pytest.mark.parametrize("path", [".cursor/mcp.json", ".vscode/mcp.json", ".mcp.json"])
@pytest.mark.parametrize("seed", range(4))
def test_a_vendor_prefixed_key_in_an_mcp_servers_env_is_am003_once(path: str, seed: int) -> None:
    for value in (_lower_key(seed), "chakra-zjOB" + _random(60, seed)):
        found = [(f.rule, f.severity) for f in lint_files(_mcp(path, value)) if f.category in _SECRET_CATEGORIES]
        assert found == [("AM003", "high")], (value, found)


_SECRET_CATEGORIES = ("agent-mcp", "plaintext-secret")


@pytest.mark.parametrize("seed", range(4))
def test_a_vendor_prefixed_key_elsewhere_is_ps002(seed: int) -> None:
    assert _found("deploy/app.env", f"CHAKRA_API_KEY={_lower_key(seed)}\n", "PS002") != []
    assert _found("values.yaml", f"chakra:\n  apiKey: {_lower_key(seed)}\n", "PS002") != []


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("apiKeySecret", "harbor-core-secret"),  # a Secret's name
        ("tokenSecretRef", "ns/app-7d9f8b6c5d"),  # with a short hash
        ("secretKey", "release-name-postgresql"),
        ("signingKey", "cosign-key-2"),
    ],
)
def test_names_of_secrets_stay_references(name: str, value: str) -> None:
    assert not _found("values.yaml", f"app:\n  {name}: {value}\n", "PS002")


# ---- a key of random letters alone, after a vendor's prefix -----------------------------------


def _letters(seed: int, length: int = 64) -> str:
    pick = random.Random(seed)
    return "".join(pick.choice(string.ascii_letters) for _ in range(length))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("prefix", ["", "chakra-", "acme_", "vendor.pro-"])
def test_a_key_of_letters_alone_is_key_material(seed: int, prefix: str) -> None:
    """A key with no digit (``chakra-`` and 64 mixed-case letters) in an MCP server's env is
    AM003's, and under a secret's name in other configuration PS002's."""
    value = prefix + _letters(seed)
    mcp = json.dumps({"mcpServers": {"ui": {"command": "ui-mcp", "env": {"UI_PRO_API_KEY": value}}}})
    assert [f.rule for f in lint_text(".cursor/mcp.json", mcp)] == ["AM003"]
    assert at(lint_text("config/app.json", json.dumps({"ui_api_key": value})), "PS002") != []


@pytest.mark.parametrize(
    "value",
    [
        "AbstractSingletonProxyFactoryBean",
        "XMLHttpRequestHandlerFactory",
        "UIApplicationDidBecomeActiveNotification",
        "kCFStreamPropertySSLSettings",
        "myAppIsGoingToBeAWinnerToday",
        "chakra-NextTokenProviderFactoryBean",
        "NqVwYSVPHbzjOBkq",  # random, but too short to tell from a name
    ],
)
def test_identifiers_of_letters_stay_names(value: str) -> None:
    mcp = json.dumps({"mcpServers": {"ui": {"command": "ui-mcp", "env": {"UI_API_KEY": value}}}})
    assert at(lint_text(".cursor/mcp.json", mcp), "AM003") == []
    assert at(lint_text("config/app.json", json.dumps({"ui_api_key": value})), "PS002") == []
