"""Issue 33, the fifth held-out set's CI classes, fixed afterwards (docs/lint.md, "The fifth set's
CI classes, fixed afterwards"): each class from fixtures written here, with the look-alikes that
stay findings.

1. An expression that only tests a secret (``${{ secrets.X != '' }}``) is not the secret (CS001,
   CS003, CS004).
2. A command continued with a backslash onto the next line is one command (CS004).
3. ``_ID_<QUALIFIER>`` and ``_IDS`` name identifiers (CS001, CS004).
4. A checkout of the pull request's branch name from the base repository is low (CS003, CP003).
5. A branch name inside a quoted here-document whose text no shell reads is info (CP006).
"""

from __future__ import annotations

import pytest

from sandkit.lint.facts.expressions import exposed_secret_refs
from sandkit.lint.facts.run_scripts import script_lines
from tests.lint.helpers import at, lint_text

WF = ".github/workflows/ci.yml"


def _found(text: str, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(WF, text) if f.rule == rule]


# ---- 1. an expression whose result is true or false holds no secret --------------------------------


def _step_env(value: str, *lines: str) -> str:
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - env:\n          HAS_TOKEN: {value}\n        run: |\n" + body
    )


TESTS = [
    "${{ secrets.NPM_TOKEN != '' }}",
    "${{ secrets.NPM_TOKEN == '' }}",
    "${{ !secrets.NPM_TOKEN }}",
    "${{ !!secrets.NPM_TOKEN }}",
    "${{ secrets.NPM_TOKEN && 'yes' || 'no' }}",
    "${{ secrets.NPM_TOKEN != '' && 'true' || 'false' }}",
    "${{ (secrets.NPM_TOKEN != '') }}",
    "${{ secrets['NPM_TOKEN'] != '' }}",
    "${{ secrets.NPM_TOKEN != null }}",
    "${{ contains(secrets.NPM_TOKEN, 'npm_') }}",
    "${{ startsWith(secrets.NPM_TOKEN, 'npm_') && github.event_name == 'push' }}",
    "${{ github.event_name == 'push' && secrets.NPM_TOKEN != '' }}",
]


@pytest.mark.parametrize("value", TESTS)
def test_a_tested_secret_echoed_or_written_is_not_a_finding(value: str) -> None:
    text = _step_env(value, 'echo "has_token=$HAS_TOKEN" >> "$GITHUB_OUTPUT"', 'echo "token set: $HAS_TOKEN"')
    assert _found(text, "CS004") == []


@pytest.mark.parametrize("value", TESTS)
def test_a_tested_secret_inline_is_not_a_finding(value: str) -> None:
    text = _step_env("x", f'echo "configured={value}" >> "$GITHUB_OUTPUT"', f"echo {value}")
    assert _found(text, "CS004") == []


@pytest.mark.parametrize(
    "value",
    [
        "${{ secrets.NPM_TOKEN || 'default' }}",  # either side of || can come out
        "${{ secrets.NPM_TOKEN != '' && secrets.NPM_TOKEN || 'none' }}",
        "${{ github.event_name == 'push' && secrets.NPM_TOKEN }}",
        "${{ format('Bearer {0}', secrets.NPM_TOKEN) }}",
        "${{ toJSON(secrets.NPM_TOKEN) }}",
        "${{ fromJSON(secrets.NPM_TOKEN).token }}",
        "Bearer ${{ secrets.NPM_TOKEN }}",
        "${{ secrets.NPM_TOKEN != }}",  # not read: taken as the secret, as before
    ],
)
def test_an_expression_that_can_be_the_secret_stays_a_finding(value: str) -> None:
    text = _step_env(value, 'echo "t=$HAS_TOKEN" >> "$GITHUB_OUTPUT"')
    assert _found(text, "CS004") == [(10, "high")]
    text = _step_env("x", f'echo "{value}" > token.txt')
    assert _found(text, "CS004") == [(10, "high")]


def test_tested_secrets_in_workflow_and_job_env_are_not_broad_env() -> None:
    text = (
        "on: push\npermissions: {}\nenv:\n  HAS_NPM: ${{ secrets.NPM_TOKEN != '' }}\n"
        "  PUBLISH: ${{ secrets.NPM_TOKEN && 'yes' || 'no' }}\njobs:\n  a:\n    runs-on: x\n"
        "    env:\n      HAS_PYPI: ${{ !secrets.PYPI_TOKEN }}\n      TOKEN: ${{ secrets.PYPI_TOKEN || '' }}\n"
        "    steps:\n      - run: echo $HAS_NPM\n"
    )
    assert _found(text, "CS001") == [(11, "medium")]


def test_a_job_whose_secrets_are_only_tested_holds_none_on_pull_request_target() -> None:
    text = (
        "on: pull_request_target\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: x\n"
        "    env:\n      HAS_TOKEN: ${{ secrets.NPM_TOKEN != '' }}\n    steps:\n"
        "      - uses: actions/checkout@v4\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n"
    )
    assert _found(text, "CS003") == [] and _found(text, "CP003") == [(11, "high")]
    held = text.replace("${{ secrets.NPM_TOKEN != '' }}", "${{ secrets.NPM_TOKEN || '' }}")
    assert _found(held, "CS003") == [(11, "critical")]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("${{ secrets.A != '' && secrets.B || '' }}", ["B"]),
        ("${{ secrets.A }} ${{ secrets.B == '1' }}", ["A"]),
        ("${{ startsWith(github.ref, 'refs/tags/') && secrets.PROD || secrets.DEV }}", ["PROD", "DEV"]),
        ("${{ join(fromJSON(secrets.LIST), ',') }}", ["LIST"]),
        ("${{ hashFiles(secrets.A) }} ${{ success() && secrets.B }}", ["B"]),
        ("${{ matrix.tokens[secrets.A] }}", ["A"]),
        ("${{ secrets.A ) ( }}", ["A"]),
        ("${{ fn(,) && secrets.A }}", ["A"]),
        ("not an expression: secrets.A", []),  # text GitHub leaves alone (eighth set)
    ],
)
def test_which_secrets_reach_an_expression_result(text: str, names: list[str]) -> None:
    assert [m.group(1) or m.group(2) for m in exposed_secret_refs(text)] == names


# ---- 2. a command continued onto the next line ------------------------------------------------------


def _job_env(*lines: str) -> str:
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    env:\n      TOKEN: ${{ secrets.TOKEN }}\n    steps:\n      - run: |\n" + body
    )


@pytest.mark.parametrize(
    "lines",
    [
        ("printf '%s' \"$TOKEN\" \\", "  | docker login ghcr.io -u x --password-stdin"),
        ('echo "${{ secrets.GH_PAT }}" \\', "  | gh auth login --with-token"),
        ('echo "$TOKEN" \\', "  | base64 -d \\", "  | docker login -u x --password-stdin registry.example.com"),
        ("cat <<EOF \\", "  | docker login -u x --password-stdin", "$TOKEN", "EOF"),
        ('BODY="$(cat <<EOF', "token=$TOKEN", "EOF", ')"'),
        ("docker login ghcr.io -u x \\", '  --password-stdin <<< "$TOKEN"'),
        ("kubectl create secret generic x \\", "  --from-file=token=/dev/stdin <<EOF", "$TOKEN", "EOF"),
    ],
)
def test_a_secret_continued_into_a_command_is_not_written(lines: tuple[str, ...]) -> None:
    assert _found(_job_env(*lines), "CS004") == []


@pytest.mark.parametrize(
    ("lines", "where"),
    [
        (("printf '%s' \"$TOKEN\" \\", "  > token.txt"), (10, "writes TOKEN to a file")),
        (('echo "$TOKEN" \\', "  | base64 -d \\", "  > key.pem"), (10, "writes TOKEN to key.pem")),
        (('echo "${{ secrets.KEY }}" \\', "  | tee key.pem"), (10, "writes secrets.KEY to key.pem")),
        (("cat <<EOF \\", "  > ~/.npmrc", "//registry.example.com/:_authToken=$TOKEN", "EOF"), (12, "to ~/.npmrc")),
        (('echo "$TOKEN" # login below \\', "  | docker login -u x --password-stdin"), (10, "prints TOKEN")),
        (("# a comment \\", 'echo "$TOKEN"'), (11, "prints TOKEN to the log")),
        (("echo 'a \\' \"$TOKEN\" \\", "  >> out.txt"), (10, "writes TOKEN to a file")),
    ],
)
def test_a_secret_continued_into_a_file_or_the_log_stays_a_finding(
    lines: tuple[str, ...], where: tuple[int, str]
) -> None:
    findings = [f for f in lint_text(WF, _job_env(*lines)) if f.rule == "CS004"]
    assert [(f.line, where[1] in f.message) for f in findings] == [(where[0], True)], findings


def test_joined_lines_keep_their_offsets() -> None:
    script = "printf x \\\n  | cat <<EOF\nbody\nEOF\necho done"
    lines = list(script_lines(script))
    assert [(line.start, line.heredoc is None) for line in lines] == [(0, True), (25, False), (34, True)]
    assert lines[0].text == script[: len(lines[0].text)].replace("\\\n", "  ")


# ---- 3. identifier names with a qualifier after the id ---------------------------------------------

JOB_ENV = "on: push\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    env:\n      V: ${{ secrets.%s }}\n"


@pytest.mark.parametrize(
    "name",
    [
        "VERCEL_PROJECT_ID_WEB",
        "VERCEL_ORG_ID",
        "X_PROJECT_ID_ADMIN",
        "APP_ID_PROD_2",
        "ALLOWED_CHAT_IDS",
        "TELEGRAM_CHAT_IDS_PROD",
        "AWS_ACCESS_KEY_ID",
        "CLOUDFLARE_TOKEN_ID",
    ],
)
def test_ids_with_a_qualifier_are_identifiers(name: str) -> None:
    assert _found(JOB_ENV % name, "CS001") == []


@pytest.mark.parametrize(
    "name",
    [
        "API_TOKEN_WEB",
        "CLIENT_SECRET_ID",  # Azure's secret id is no use alone, but the value is often kept under it
        "VAULT_SECRET_ID",  # half of an AppRole login
        "SESSION_ID",
        "GOOGLE_ID_TOKEN",
        "CLIENT_ID_JSON",
        "ID_RSA",
        "FIREBASE_PROJECT_ID_SA_KEY",
        "PROJECT_ID_WEB_APP_KEY",
    ],
)
def test_credentials_near_an_id_stay_reported(name: str) -> None:
    assert _found(JOB_ENV % name, "CS001") == [(7, "medium")]


@pytest.mark.parametrize(
    ("env", "line", "severity"),
    [
        ("PROJECT: ${{ secrets.VERCEL_PROJECT_ID_WEB }}", 'echo "project=$PROJECT" >> "$GITHUB_OUTPUT"', "info"),
        ("VERCEL_ORG_ID: ${{ secrets.VERCEL_ORG_ID }}", 'echo "$VERCEL_ORG_ID" > .vercel/org', "info"),
        ("X: ${{ secrets.A }}", 'echo "${{ secrets.ADMIN_PROJECT_ID_ADMIN }}"', "info"),
        ("X: ${{ secrets.A }}", 'echo "${{ secrets.VAULT_SECRET_ID }}"', "high"),
        ("PROJECT_ID_WEB: ${{ secrets.API_TOKEN_WEB }}", 'echo "$PROJECT_ID_WEB" > id.txt', "high"),
    ],
)
def test_printing_an_id_with_a_qualifier_is_info(env: str, line: str, severity: str) -> None:
    text = (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - env:\n          {env}\n        run: |\n          {line}\n"
    )
    assert _found(text, "CS004") == [(10, severity)]


# ---- 4. a checkout of a branch name from the base repository ----------------------------------------

RUN = """\
on:
  workflow_run:
    workflows: [CI]
    types: [completed]
permissions: {contents: read}
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          WITH
      - run: npm run deploy
        env:
          VERCEL_TOKEN: ${{ secrets.VERCEL_TOKEN }}
"""


@pytest.mark.parametrize(
    "inputs",
    [
        "ref: ${{ github.event.workflow_run.head_branch }}",
        "ref: refs/heads/${{ github.event.workflow_run.head_branch }}",
        "ref: ${{ github.event.workflow_run.head_branch }}\n          repository: ${{ github.repository }}",
        "repository: octo/app\n          ref: ${{ github.event.workflow_run.head_branch }}",
        "ref: ${{ github.head_ref }}",
        "ref: ${{ github.event.pull_request.head.ref }}",
    ],
)
def test_a_branch_name_from_the_base_repository_is_low(inputs: str) -> None:
    text = RUN.replace("WITH", inputs)
    if "workflow_run.head_branch" not in inputs:
        text = text.replace(
            "  workflow_run:\n    workflows: [CI]\n    types: [completed]\n", "  pull_request_target:\n"
        )
    findings = [f for f in lint_text(WF, text) if f.rule in ("CS003", "CP003")]
    assert sorted((f.rule, f.severity) for f in findings) == [("CP003", "low"), ("CS003", "low")]
    assert all("base repository's branch" in f.message and "push access" in f.message for f in findings)


@pytest.mark.parametrize(
    "inputs",
    [
        "ref: ${{ github.event.workflow_run.head_branch }}\n"
        "          repository: ${{ github.event.workflow_run.head_repository.full_name }}",
        "repository: ${{ github.event.workflow_run.head_repository.full_name }}",
        "ref: ${{ github.event.workflow_run.head_sha }}",
        "ref: ${{ github.event.workflow_run.head_commit.id }}",
        "ref: ${{ github.event.workflow_run.head_branch }}\n          repository: ${{ steps.pr.outputs.repo }}",
        "ref: ${{ github.event.workflow_run.head_sha || github.event.workflow_run.head_branch }}",
    ],
)
def test_the_forks_commit_or_repository_stays_critical(inputs: str) -> None:
    findings = [f for f in lint_text(WF, RUN.replace("WITH", inputs)) if f.rule in ("CS003", "CP003")]
    assert sorted((f.rule, f.severity) for f in findings) == [("CP003", "high"), ("CS003", "critical")]


def test_a_later_checkout_of_the_forks_commit_decides_the_job() -> None:
    inputs = (
        "ref: ${{ github.event.workflow_run.head_branch }}\n"
        "      - uses: actions/checkout@v4\n        with:\n          ref: ${{ github.event.workflow_run.head_sha }}"
    )
    text = RUN.replace("WITH", inputs)
    assert _found(text, "CS003") == [(15, "critical")]
    assert _found(text, "CP003") == [(12, "low"), (15, "high")]


def test_pull_request_target_fork_checkouts_stay_critical() -> None:
    base = RUN.replace("  workflow_run:\n    workflows: [CI]\n    types: [completed]\n", "  pull_request_target:\n")
    for inputs in (
        "ref: ${{ github.event.pull_request.head.ref }}\n"
        "          repository: ${{ github.event.pull_request.head.repo.full_name }}",
        "ref: refs/pull/${{ github.event.number }}/merge",
        "ref: ${{ github.event.pull_request.head.sha }}",
    ):
        assert _found(base.replace("WITH", inputs), "CS003") == [(10, "critical")], inputs


# ---- 5. a branch name in a quoted here-document read as text ---------------------------------------


def _run(*lines: str, shell: str = "") -> str:
    body = "".join(f"          {line}\n" for line in lines)
    step = f"      - shell: {shell}\n        run: |\n" if shell else "      - run: |\n"
    return "on: pull_request_target\njobs:\n  a:\n    runs-on: x\n    steps:\n" + step + body


@pytest.mark.parametrize(
    ("lines", "line"),
    [
        (("cat <<'EOF' > notes.md", "Branch: ${{ github.head_ref }}", "EOF"), 8),
        (('cat <<"EOF" >> "$GITHUB_STEP_SUMMARY"', "${{ github.event.pull_request.head.ref }}", "EOF"), 8),
        (("cat <<\\EOF", "from ${{ github.event.pull_request.head.label }}", "EOF"), 8),
        (("cat <<-'EOF' | tee summary.txt", "\t${{ github.event.workflow_run.head_branch }}", "\tEOF"), 8),
        (("BODY=$(cat <<'EOF'", "Preview of ${{ github.head_ref }}", "EOF", ")"), 8),
        (("gh pr comment 1 --body \"$(cat <<'EOF'", "Built ${{ github.head_ref }}", "EOF", ')"'), 8),
        (("cat <<'EOF' | gh pr comment 1 --body-file -", "Built `${{ github.head_ref }}`", "EOF"), 8),
        (("echo start", "cat <<'EOF' >> \"$GITHUB_ENV\"", "BRANCH=${{ github.head_ref }}", "EOF"), 9),
    ],
)
def test_a_branch_name_in_a_quoted_here_document_read_as_text_is_info(lines: tuple[str, ...], line: int) -> None:
    findings = [f for f in lint_text(WF, _run(*lines)) if f.rule == "CP006"]
    assert [(f.line, f.severity) for f in findings] == [(line, "info")]
    assert "delimiter" in findings[0].message


@pytest.mark.parametrize(
    "lines",
    [
        ("cat <<'EOF' > notes.md", "${{ github.event.pull_request.title }}", "EOF"),  # a title may hold a line break
        ("cat <<'EOF' > notes.md", "${{ github.event.pull_request.body }}", "EOF"),
        ("cat <<'EOF' > notes.md", "${{ github.event.workflow_run.head_commit.message }}", "EOF"),
        ("cat <<'EOF' > notes.md", "${{ github.event.workflow_run.display_title }}", "EOF"),
        ("cat <<EOF > notes.md", "${{ github.head_ref }}", "EOF"),  # unquoted: $(...) in it runs
        ("bash <<'EOF'", "git push origin ${{ github.head_ref }}", "EOF"),
        ("cat <<'EOF' | sh", "git push origin ${{ github.head_ref }}", "EOF"),
        ("python3 - <<'EOF'", "print('${{ github.head_ref }}')", "EOF"),
        ("ssh ci@build.example.com <<'EOF'", "cd ${{ github.head_ref }}", "EOF"),
        ("cat <<'EOF' > deploy.sh", "git checkout ${{ github.head_ref }}", "EOF"),
        ("cat <<'EOF' | tee build.sh", "git checkout ${{ github.head_ref }}", "EOF"),
        ("eval \"$(cat <<'EOF'", "git checkout ${{ github.head_ref }}", "EOF", ')"'),
        ("cat <<'EOF' | envsubst", "${{ github.head_ref }}", "EOF"),
        ("cat <<'EOF' |", "git checkout ${{ github.head_ref }}", "EOF", "bash"),  # the pipe goes on after it
        ("cat <<'EOF' > \"${{ github.head_ref }}.md\"", "text", "EOF"),  # on the command line
        ("cat <<'EOF' > notes.md", "text", "EOF", "git checkout ${{ github.head_ref }}"),  # after it
    ],
)
def test_other_here_documents_stay_high(lines: tuple[str, ...]) -> None:
    assert [f.severity for f in lint_text(WF, _run(*lines)) if f.rule == "CP006"] == ["high"]


def test_a_branch_name_after_a_body_in_the_same_document_stays_high() -> None:
    lines = ("cat <<'EOF' > notes.md", "${{ github.event.pull_request.body }}", "${{ github.head_ref }}", "EOF")
    assert [f.severity for f in lint_text(WF, _run(*lines)) if f.rule == "CP006"] == ["high", "high"]
    before = ("cat <<'EOF' > notes.md", "${{ github.head_ref }}", "${{ github.event.pull_request.body }}", "EOF")
    assert [f.severity for f in lint_text(WF, _run(*before)) if f.rule == "CP006"] == ["info", "high"]


def test_a_quoted_here_document_in_another_shell_is_not_read() -> None:
    lines = ("cat <<'EOF' > notes.md", "${{ github.head_ref }}", "EOF")
    assert [f.severity for f in lint_text(WF, _run(*lines, shell="pwsh")) if f.rule == "CP006"] == ["high"]
    assert [f.severity for f in lint_text(WF, _run(*lines, shell="bash -e {0}")) if f.rule == "CP006"] == ["info"]
    action = (
        "runs:\n  using: composite\n  steps:\n    - shell: bash\n      run: |\n"
        "        cat <<'EOF' > notes.md\n        ${{ github.head_ref }}\n        EOF\n"
    )
    assert at(lint_text("action.yml", action), "CP006") == [(7, 9)]
