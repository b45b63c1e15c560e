"""Issue 33, the sixth held-out set's CI classes, fixed afterwards (docs/lint.md, "The sixth set's
CI classes, fixed afterwards"): each class from fixtures written here, with the look-alikes that
stay findings.

1. Secrets that hold identifiers or addresses (a role's ARN, a host, endpoint or registry URL, a
   project's mapping file, a secret named for nothing put in a variable named as an id): CS001,
   CS004.
2. Commands that pass their input on re-encoded (``gpg --dearmor``, ``openssl base64 -d``,
   ``gunzip``): CS004.
3. A workflow run only by ``workflow_call``: its token is what the caller grants (CP001).
4. Workflow-level write scopes that reach one job only, or a reusable workflow that sets its own
   permissions (CP002).
5. ``toJSON(...)`` of an object holding outsider text pasted into a script (CP006).
"""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_files, lint_text

WF = ".github/workflows/ci.yml"


def _found(text: str, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(WF, text, (rule,))]


# ---- 1. identifiers and addresses ------------------------------------------------------------------


def _job_env(variable: str, secret: str) -> str:
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        f"    env:\n      {variable}: ${{{{ secrets.{secret} }}}}\n    steps:\n      - run: make\n"
    )


IDENTIFIERS = [
    ("AWS_ROLE_TO_ASSUME", "AWS_ROLE_TO_ASSUME"),
    ("ROLE", "AWS_OIDC_ROLE_ARN"),
    ("ECR_ROLE", "REMOTE_DEV_AWS_ROLE_TO_ASSUME"),
    ("TOPIC", "SNS_TOPIC_ARN"),
    ("REGISTRY", "HARBOR_REGISTRY_URL"),
    ("SYNC", "CHATGPT_PROJECT_SYNC_ENDPOINT"),
    ("SMTP", "SMTP_HOST"),
    ("SONAR", "SONAR_HOST_URL"),
    ("API", "OPENAI_API_URL"),
    ("CLASP", "CLASP_JSON"),
]
CREDENTIALS = [
    ("HOOK", "SLACK_WEBHOOK_URL"),
    ("HOOK", "DISCORD_WEBHOOK"),
    ("HOOK", "TEAMS_WEBHOOK_ENDPOINT"),
    ("DB", "DATABASE_URL"),
    ("CACHE", "REDIS_URL"),
    ("PROXY", "HTTPS_PROXY_URL"),
    ("CLASP", "CLASPRC_JSON"),
    ("KEY", "OPENAI_API"),
    ("KEY", "REGISTRY_PASSWORD"),
    ("TOKEN", "HOST_TOKEN"),
]


@pytest.mark.parametrize(("variable", "secret"), IDENTIFIERS)
def test_an_identifier_or_address_in_job_env_is_not_cs001(variable: str, secret: str) -> None:
    assert _found(_job_env(variable, secret), "CS001") == []


@pytest.mark.parametrize(("variable", "secret"), CREDENTIALS)
def test_a_credential_named_near_an_address_stays_cs001(variable: str, secret: str) -> None:
    assert _found(_job_env(variable, secret), "CS001") == [(7, "medium")]


@pytest.mark.parametrize(
    "variable", ["ARM_CLIENT_ID", "AZURE_TENANT_ID", "DOCKERHUB_USERNAME", "AWS_REGION", "DEPLOY_ROLE_ARN"]
)
def test_a_secret_named_for_nothing_in_an_identifier_variable_is_info(variable: str) -> None:
    text = _job_env(variable, "REPO_AZURE_TERRAFORM_USER_SERVICE_PRINCIPAL")
    [finding] = [f for f in lint_text(WF, text, ("CS001",))]
    assert (finding.line, finding.severity) == (7, "info")
    assert "identifier" in finding.message and f"{variable} names an identifier" in finding.message


@pytest.mark.parametrize(
    ("variable", "secret"),
    [
        ("ARM_CLIENT_ID", "AZURE_CLIENT_SECRET"),  # the secret's name says credential
        ("CLIENT_ID", "SP_PASSWORD"),
        ("GH_USER", "GITHUB_TOKEN"),
        ("TOKEN", "SERVICE_PRINCIPAL"),  # the variable says credential
        ("ARM_CLIENT_SECRET", "SERVICE_PRINCIPAL"),
    ],
)
def test_a_credential_by_either_name_stays_medium(variable: str, secret: str) -> None:
    assert [s for _, s in _found(_job_env(variable, secret), "CS001")] in (["medium"], ["info"])
    if secret != "GITHUB_TOKEN":
        assert _found(_job_env(variable, secret), "CS001") == [(7, "medium")]


def _step(env: str, *lines: str) -> str:
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - env: {{{env}}}\n        run: |\n" + body
    )


@pytest.mark.parametrize(
    "line",
    [
        'echo "HARBOR_DEV_URL=${{ secrets.HARBOR_REGISTRY_URL }}/dev" >> $GITHUB_ENV',
        'echo "role=${{ secrets.AWS_ROLE_TO_ASSUME }}" >> "$GITHUB_OUTPUT"',
        'echo "${{ secrets.DEPLOY_ROLE_ARN }}"',
        'jq \'.rootDir = "."\' <<<"$CLASP_JSON" > .clasp.json',
        'echo "$ARM_CLIENT_ID" > client-id.txt',
    ],
)
def test_cs004_on_an_identifier_or_address_is_info(line: str) -> None:
    env = "CLASP_JSON: '${{ secrets.CLASP_JSON }}', ARM_CLIENT_ID: '${{ secrets.SERVICE_PRINCIPAL }}'"
    assert _found(_step(env, line), "CS004") == [(9, "info")]


@pytest.mark.parametrize(
    "line",
    [
        'echo "url=${{ secrets.SLACK_WEBHOOK_URL }}" >> $GITHUB_ENV',
        'echo "${{ secrets.DATABASE_URL }}" > .env',
        "printf '%s' \"$CLASPRC_JSON\" > ~/.clasprc.json",
        'echo "$ARM_CLIENT_SECRET" > secret.txt',
    ],
)
def test_cs004_on_a_credential_stays_high(line: str) -> None:
    env = "CLASPRC_JSON: '${{ secrets.CLASPRC_JSON }}', ARM_CLIENT_SECRET: '${{ secrets.SERVICE_PRINCIPAL }}'"
    assert _found(_step(env, line), "CS004") == [(9, "high")]


# ---- 2. commands that pass their input on, re-encoded ----------------------------------------------

PASSED_ON = [
    'echo "${{ secrets.SIGNING_KEY }}" | gpg --dearmor > $HOME/secring.gpg',
    'echo "$KEY" | gpg --dearmor -o "$HOME/secring.gpg"',
    'echo "$KEY" | gpg2 --batch --dearmor --output key.gpg',
    'echo "$KEY" | base64 -d > key.p12',
    'echo "$KEY" | base64 --decode | gunzip > key.pem',
    'echo "$KEY" | openssl base64 -d -A > key.der',
    'echo "$KEY" | openssl enc -base64 -d -out key.der',
    "printf '%s' \"$KEY\" | xxd -r -p > key.bin",
    'echo "$KEY" | tr -d "\\r" | tee key.pem',
    "cat <<EOF | gpg --dearmor > key.gpg\n          $KEY\n          EOF",
]
USED = [
    'echo "$KEY" | gpg --batch --import',
    'echo "$KEY" | gpg --decrypt > plain.txt',
    'echo "$KEY" | gpg --dearmor | gpg --import',
    'echo "$KEY" | openssl enc -aes-256-cbc -d -a -pass pass:x > plain.txt',
    'echo "$KEY" | openssl dgst -sha256 > digest.txt',
    'echo "$KEY" | base64 -d | docker login -u me --password-stdin',
    'echo "$KEY" | gpg --dearmor > /dev/null',
]


@pytest.mark.parametrize("line", PASSED_ON)
def test_a_secret_re_encoded_into_a_file_is_written(line: str) -> None:
    found = _found(_step("KEY: '${{ secrets.SIGNING_KEY }}'", line), "CS004")
    # A key file (.gpg, .p12, .pem) is a credential file a later tool reads: low (ninth round);
    # any other file keeps the rule's high.
    key_file = any(line.split("\n", 1)[0].endswith(end) for end in (".gpg", '.gpg"', ".p12", ".pem"))
    assert [s for _, s in found] == ["low" if key_file else "high"]


@pytest.mark.parametrize("line", USED)
def test_a_secret_a_command_uses_is_not_written(line: str) -> None:
    assert _found(_step("KEY: '${{ secrets.SIGNING_KEY }}'", line), "CS004") == []


# ---- 3. a workflow run only by workflow_call ----------------------------------------------------------


@pytest.mark.parametrize(
    ("on", "severity"),
    [
        ("workflow_call", "info"),
        ("[workflow_call]", "info"),
        ("{workflow_call: {inputs: {x: {type: string}}}}", "info"),
        ("[workflow_call, workflow_dispatch]", "low"),
        ("[workflow_call, push]", "low"),
        ("pull_request", "low"),
    ],
)
def test_cp001_on_a_called_only_workflow_is_info(on: str, severity: str) -> None:
    text = f"on: {on}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"
    found = [f for f in lint_text(WF, text, ("CP001",))]
    assert [f.severity for f in found] == [severity]
    if severity == "info":
        assert "caller" in found[0].message


def test_cp001_write_all_in_a_called_workflow_stays_high() -> None:
    text = "on: workflow_call\npermissions: write-all\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: make\n"
    assert _found(text, "CP001") == [(2, "high")]


# ---- 4. workflow-level write scopes that reach one job -----------------------------------------------


def _two_jobs(first: str, second: str, perms: str = "{contents: read, id-token: write, issues: write}") -> str:
    return f"on: push\npermissions: {perms}\njobs:\n  validate:\n{first}  publish:\n{second}"


RUNS = "    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"
OWN = "    permissions: {contents: read}\n" + RUNS


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (OWN, RUNS, 0),  # only publish inherits: the same as granting it there
        (RUNS, OWN, 0),
        (RUNS, RUNS, 2),  # both inherit both write scopes
        (OWN, OWN, 0),
    ],
)
def test_cp002_counts_the_jobs_that_inherit(first: str, second: str, expected: int) -> None:
    assert len(_found(_two_jobs(first, second), "CP002")) == expected


def test_cp002_three_jobs_two_inheriting_stays() -> None:
    text = _two_jobs(RUNS, RUNS) + "  report:\n" + OWN
    assert _found(text, "CP002") == [(2, "medium"), (2, "medium")]


CALLED = "on: workflow_call\npermissions:\n  contents: read\n  id-token: write\njobs:\n  x:\n" + RUNS
CALLER = (
    "on: push\npermissions:\n  contents: read\n  id-token: write\n  statuses: write\njobs:\n"
    "  validate:\n" + RUNS + "  publish:\n    uses: ./.github/workflows/{called}\n"
)


@pytest.mark.parametrize(
    ("called", "files", "lines"),
    [
        ("called.yml", {"called.yml": CALLED}, [4]),  # statuses reaches validate only; id-token both
        ("called.yml", {"called.yml": CALLED.replace("id-token: write", "id-token: none")}, []),
        (
            "called.yml",
            {"called.yml": CALLED.replace("permissions:\n  contents: read\n  id-token: write\n", "")},
            [4, 5],
        ),
        (
            "called.yml",
            {
                "called.yml": CALLED.replace(
                    "permissions:\n  contents: read\n  id-token: write\n", "permissions: write-all\n"
                )
            },
            [4, 5],
        ),
        ("missing.yml", {}, [4, 5]),  # not there: taken to inherit
        ("bad.yml", {"bad.yml": "on: [\n"}, [4, 5]),
        ("dir.yml", {"dir.yml/x": "x"}, [4, 5]),  # a folder, not a file
        ("bin.yml", {"bin.yml": b"\xff\x00permissions: {}"}, [4, 5]),
        ("deep.yml", {"deep.yml": "[" * 5000}, [4, 5]),
    ],
)
def test_cp002_reads_the_permissions_of_a_called_workflow(
    called: str, files: dict[str, str | bytes], lines: list[int]
) -> None:
    tree: dict[str, str | bytes] = {".github/workflows/caller.yml": CALLER.format(called=called)}
    tree.update({f".github/workflows/{name}": text for name, text in files.items()})
    found = [f for f in lint_files(tree, ("CP002",)) if f.path.endswith("caller.yml")]
    assert sorted(f.line for f in found) == lines


def test_cp002_a_remote_reusable_workflow_inherits() -> None:
    text = CALLER.format(called="x.yml").replace("./.github/workflows/x.yml", "org/repo/.github/workflows/x.yml@v1")
    assert [line for line, _ in _found(text, "CP002")] == [4, 5]


# ---- 5. toJSON of an object holding outsider text ------------------------------------------------------


def _run(*lines: str, on: str = "pull_request") -> str:
    body = "".join(f"          {line}\n" for line in lines)
    return (
        f"on: {on}\npermissions: {{contents: read}}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: |\n" + body
    )


@pytest.mark.parametrize(
    "expression",
    [
        "toJSON(github.event.pull_request)",
        "toJson(github.event)",
        "toJSON(github)",
        "toJSON( github.event.pull_request.head )",
        "toJSON(github.event.commits[0])",
        "toJSON(github.event.commits.*)",
        "toJSON(github.event.comment)",
        "toJSON(github.event.workflow_run)",
        "fromJSON(toJSON(github.event.issue)).number",
    ],
)
def test_cp006_reads_to_json_of_an_object_with_outsider_text(expression: str) -> None:
    text = _run(f"jq -n --argjson pr '${{{{ {expression} }}}}' '$pr.number'")
    assert _found(text, "CP006") == [(8, "high")]


@pytest.mark.parametrize(
    "expression",
    [
        "toJSON(github.event.pull_request.labels)",
        "toJSON(github.event.inputs)",
        "toJSON(github.event.repository)",
        "toJSON(needs)",
        "toJSON(github.event.pull_request.number)",
    ],
)
def test_cp006_to_json_of_other_objects_is_not_a_finding(expression: str) -> None:
    assert _found(_run(f"echo '${{{{ {expression} }}}}'"), "CP006") == []


def test_cp006_to_json_through_env_is_not_a_finding() -> None:
    text = _run('echo "$PR" | jq .title').replace(
        "      - run:", "      - env: {PR: '${{ toJSON(github.event.pull_request) }}'}\n        run:"
    )
    assert _found(text, "CP006") == []


def test_cp006_to_json_in_a_quoted_heredoc_stays_high() -> None:
    text = _run("cat <<'EOF' > pr.json", "${{ toJSON(github.event.pull_request.head) }}", "EOF")
    assert [s for _, s in _found(text, "CP006")] == ["high"]
