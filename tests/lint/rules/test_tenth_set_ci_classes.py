"""Issue 33, the classes the tenth held-out set showed in the CI rules (docs/lint.md, "The tenth
set's CI classes (issue 33, after the tenth set)"), each from fixtures written here with the
look-alikes that stay findings.

1. ``git config --file PATH`` (``-f``, ``--file=``) writes PATH, not the checkout's .git/config: the
   message names PATH and it is placed by its path; a file removed before anything else can read it
   is graded by the steps before its removal.
2. A variable derived from secrets (``IMAGE_NAME: ${{ secrets.DOCKER_USERNAME }}/app``) carries the
   grade of what it holds: identifiers only, info; any credential, as before.
3. An agent CLI's setup subcommands (``codex login``, ``claude auth``, ``claude mcp list``, ``gemini
   mcp list``, any ``--help``) run no agent: no CP005 (nor CP004) for them.
4. CP002 says how many jobs its message leaves out; a job (or agent step) whose ``if:`` is always
   false never runs and is reported by no CP/CS rule.
"""

from __future__ import annotations

import pytest

from tests.lint.helpers import agent_job, workflow_findings

# ---- 3. an agent CLI set up, not run ----------------------------------------------------------


@pytest.mark.parametrize(
    "lines",
    [
        ("printenv OPENAI_API_KEY | codex login --with-api-key",),
        ('echo "$OPENAI_API_KEY" | npx @openai/codex login --with-api-key',),
        ("codex login --with-api-key < key.txt",),
        ("codex login status",),
        ("codex logout",),
        ("codex mcp add docs -- npx docs-server",),
        ("claude auth status",),
        ("claude auth login --console",),
        ("claude setup-token",),
        ("claude mcp list",),
        ("claude mcp add github -- npx -y github-mcp",),
        ("claude update",),
        ("claude doctor",),
        ("gemini --version",),
        ("gemini mcp list",),
        ("gemini extensions install ./ext",),
        ("codex exec --help",),
        ("claude -h",),
    ],
)
def test_setting_an_agent_cli_up_runs_no_agent(lines: tuple[str, ...]) -> None:
    assert workflow_findings(agent_job(*lines), "CP005") == []


@pytest.mark.parametrize(
    "lines",
    [
        ("claude mcp serve",),  # Claude Code served over MCP: a running agent
        ("codex mcp-server",),
        ("claude -p update",),  # a prompt that happens to be a subcommand's name, after an option
        ('codex exec "fix the login page"',),
        ('codex login && codex exec "fix"',),
        ('printenv K | codex login --with-api-key; codex exec "review"',),
        ('claude -p "run claude auth"',),
        ('gemini -p "list the mcp servers"',),
    ],
)
def test_running_the_agent_stays_a_finding(lines: tuple[str, ...]) -> None:
    found = workflow_findings(agent_job(*lines), "CP005")
    assert len(found) == 1 and found[0][1] == "medium"


def test_login_step_and_agent_step_report_once() -> None:
    text = (
        "on: push\npermissions:\n  contents: write\njobs:\n  agent:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: printenv OPENAI_API_KEY | codex login --with-api-key\n"
        '      - run: codex exec --full-auto "fix the failing test"\n'
    )
    found = workflow_findings(text, "CP005")
    assert [line for line, _, _ in found] == [9]


# ---- 4. messages that say what they leave out; jobs that never run ------------------------------


def _jobs(count: int, extra: str = "") -> str:
    return "".join(
        f"  j{i}:\n{extra}    runs-on: ubuntu-latest\n    steps:\n      - run: echo {i}\n" for i in range(count)
    )


def test_cp002_says_how_many_jobs_it_leaves_out() -> None:
    found = workflow_findings("on: push\npermissions:\n  contents: write\njobs:\n" + _jobs(7), "CP002")
    assert [m for _, _, m in found] == ["contents: write at workflow level reaches jobs j0, j1, j2, j3 and 3 more"]
    four = workflow_findings("on: push\npermissions:\n  contents: write\njobs:\n" + _jobs(4), "CP002")
    assert [m for _, _, m in four] == ["contents: write at workflow level reaches jobs j0, j1, j2, j3"]


@pytest.mark.parametrize("condition", ["false", "${{ false }}", "'false'", "${{false}}", "0"])
def test_a_job_that_never_runs_holds_nothing(condition: str) -> None:
    text = (
        "on: issue_comment\npermissions:\n  contents: write\njobs:\n  agent:\n"
        f"    if: {condition}\n    runs-on: ubuntu-latest\n    env:\n      TOKEN: ${{{{ secrets.TOKEN }}}}\n"
        "    steps:\n      - run: claude -p 'fix it'\n      - run: echo \"$TOKEN\" > token.txt\n"
    )
    for rule in ("CP004", "CP005", "CS001", "CS004"):
        assert workflow_findings(text, rule) == [], rule


def test_an_agent_step_that_never_runs_holds_nothing() -> None:
    text = (
        "on: push\npermissions:\n  contents: write\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - if: ${{ false }}\n        run: claude -p 'fix it'\n"
    )
    assert workflow_findings(text, "CP005") == []


@pytest.mark.parametrize(
    "condition",
    [
        "github.ref == 'refs/heads/main'",
        "${{ false && github.ref == 'x' }}",
        "${{ always() }}",
        "true",
        "env.DRY == 'false'",
    ],
)
def test_a_job_that_may_run_stays_reported(condition: str) -> None:
    text = (
        "on: push\npermissions:\n  contents: write\njobs:\n  agent:\n"
        f"    if: {condition}\n    runs-on: ubuntu-latest\n    steps:\n      - run: claude -p 'fix it'\n"
    )
    assert [s for _, s, _ in workflow_findings(text, "CP005")] == ["medium"]


# ---- 1. git config --file PATH writes PATH ----------------------------------------------------

_THIRD_PARTY = "      - uses: some-owner/some-action@v1\n"


def _pat_step(*lines: str, after: str = "") -> str:
    """A push workflow whose one job has a step with ``PAT`` from a secret running ``lines``, then
    the steps ``after``."""
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - env:\n          PAT: ${{ secrets.CROSS_ORG_PAT }}\n        run: |\n" + body + after
    )


_INSTEAD = 'url."https://x-access-token:${PAT}@github.com/".insteadOf "https://github.com/"'


@pytest.mark.parametrize(
    ("option", "path", "where"),
    [
        ('--file "$RUNNER_TEMP/cross-org-gitconfig"', "$RUNNER_TEMP/cross-org-gitconfig", "outside"),
        ("-f /tmp/gitconfig", "/tmp/gitconfig", "outside"),
        ("--file=$HOME/.gitconfig-ci", "$HOME/.gitconfig-ci", "outside"),
        ("--file ~/ci.gitconfig", "~/ci.gitconfig", "outside"),
        ("-f .git-auth.conf", ".git-auth.conf", "in"),
        ('--file "${GITHUB_WORKSPACE}/auth.gitconfig"', "${GITHUB_WORKSPACE}/auth.gitconfig", "in"),
    ],
)
def test_git_config_file_names_the_file_it_writes(option: str, path: str, where: str) -> None:
    found = workflow_findings(_pat_step(f"git config {option} {_INSTEAD}"), "CS004")
    assert len(found) == 1
    _, severity, message = found[0]
    assert f"writes PAT to the git configuration file {path}," in message
    assert ".git/config" not in message
    assert f"a credential file {where} the workspace" in message
    assert severity == "low"


@pytest.mark.parametrize(
    ("lines", "shown", "where"),
    [
        (
            ('CFG="$RUNNER_TEMP/cross-org-gitconfig"', f'git config --file "$CFG" {_INSTEAD}'),
            "$CFG ($RUNNER_TEMP/",
            "outside",
        ),
        (("export CFG=/tmp/gc", f"git config -f $CFG {_INSTEAD}"), "$CFG (/tmp/gc)", "outside"),
        (("CFG=.git-auth.conf", f"git config --file ${{CFG}} {_INSTEAD}"), "${CFG} (.git-auth.conf)", "in"),
        # the last assignment before the command counts
        (
            ("CFG=.a.conf", 'CFG="$RUNNER_TEMP/b"', f'git config --file "$CFG" {_INSTEAD}'),
            "$CFG ($RUNNER_TEMP/b)",
            "outside",
        ),
        # a variable the script does not set: named as written, and read as in the workspace
        ((f'git config --file "$CFG" {_INSTEAD}',), "$CFG,", "in"),
    ],
)
def test_a_file_named_by_a_variable_is_where_the_script_set_it(lines: tuple[str, ...], shown: str, where: str) -> None:
    (found,) = workflow_findings(_pat_step(*lines), "CS004")
    assert f"the git configuration file {shown}" in found[2]
    assert f"a credential file {where} the workspace" in found[2]


def test_git_config_without_a_file_still_writes_the_checkouts() -> None:
    (found,) = workflow_findings(_pat_step(f"git config {_INSTEAD}"), "CS004")
    assert "the checkout's git configuration (.git/config)" in found[2] and found[1] == "low"
    (glob,) = workflow_findings(_pat_step(f"git config --global {_INSTEAD}"), "CS004")
    assert "~/.gitconfig" in glob[2]


def test_git_config_file_reading_is_no_write() -> None:
    assert workflow_findings(_pat_step('git config --file "$RUNNER_TEMP/gc" --get-regexp "${PAT}"'), "CS004") == []


def test_git_config_file_then_a_third_party_action_is_medium() -> None:
    (found,) = workflow_findings(
        _pat_step(f'git config --file "$RUNNER_TEMP/gc" {_INSTEAD}', after=_THIRD_PARTY), "CS004"
    )
    assert found[1] == "medium" and "some-owner/some-action@v1" in found[2]


_REMOVE = '      - if: always()\n        run: rm -f "$RUNNER_TEMP/gc"\n'


@pytest.mark.parametrize(
    ("lines", "after", "severity"),
    [
        # removed by the writing step itself: nothing later can read it
        (
            (f'git config --file "$RUNNER_TEMP/gc" {_INSTEAD}', "git fetch", 'rm -f "$RUNNER_TEMP/gc"'),
            _THIRD_PARTY,
            "info",
        ),
        ((f'git config -f "$RUNNER_TEMP/gc" {_INSTEAD} && git fetch && rm "$RUNNER_TEMP/gc"',), _THIRD_PARTY, "info"),
        (
            ('echo "//registry.example.com/:_authToken=${PAT}" > ~/.npmrc', "npm publish", "rm -f ~/.npmrc"),
            _THIRD_PARTY,
            "info",
        ),
        (
            ('echo "${PAT}" > /tmp/keys/cosign.key', "cosign sign --key /tmp/keys/cosign.key x", "rm -rf /tmp/keys"),
            _THIRD_PARTY,
            "info",
        ),
        # removed by a later step before the third-party action: graded by the steps before it
        ((f'git config --file "$RUNNER_TEMP/gc" {_INSTEAD}',), "      - run: make\n" + _REMOVE + _THIRD_PARTY, "low"),
        (
            (f'git config --file "$RUNNER_TEMP/gc" {_INSTEAD}',),
            '      - run: rm "$RUNNER_TEMP/gc"\n' + _THIRD_PARTY,
            "low",
        ),
        # look-alikes that keep their grade
        ((f'git config --file "$RUNNER_TEMP/gc" {_INSTEAD}',), _THIRD_PARTY + _REMOVE, "medium"),  # removed too late
        (
            (f'git config --file "$RUNNER_TEMP/gc" {_INSTEAD}',),
            '      - run: rm -f "$RUNNER_TEMP/other"\n' + _THIRD_PARTY,
            "medium",
        ),
        (
            (f'git config --file "$RUNNER_TEMP/gc" {_INSTEAD}',),
            '      - if: failure()\n        run: rm -f "$RUNNER_TEMP/gc"\n' + _THIRD_PARTY,
            "medium",
        ),
        (
            ('rm -f "$RUNNER_TEMP/gc"', f'git config --file "$RUNNER_TEMP/gc" {_INSTEAD}'),
            _THIRD_PARTY,
            "medium",
        ),  # removed before
        (
            (f'git config --file "$RUNNER_TEMP/gc" {_INSTEAD}', 'rm -rf "$RUNNER_TEMP"'),
            _THIRD_PARTY,
            "medium",
        ),  # too broad to read
        (('echo "${PAT}" > token.txt', "rm token.txt"), "", "high"),  # not a credential file: as before
    ],
)
def test_a_file_removed_is_graded_by_what_runs_before(lines: tuple[str, ...], after: str, severity: str) -> None:
    found = workflow_findings(_pat_step(*lines, after=after), "CS004")
    assert [s for _, s, _ in found] == [severity]


# ---- 2. a variable made from identifier secrets is one ----------------------------------------


def _env_step(env: dict[str, str], line: str, level: str = "step") -> str:
    """A push workflow printing ``line`` in a step, ``env`` set on the step or (``level`` "job") the job."""
    if level == "step":
        entries = "".join(f"          {k}: {v}\n" for k, v in env.items())
        return (
            "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
            f"      - env:\n{entries}        run: |\n          {line}\n"
        )
    entries = "".join(f"      {k}: {v}\n" for k, v in env.items())
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        f"    env:\n{entries}    steps:\n      - run: |\n          {line}\n"
    )


@pytest.mark.parametrize(
    ("env", "line", "level"),
    [
        ({"IMAGE_NAME": "${{ secrets.DOCKER_USERNAME }}/app"}, 'echo "Building $IMAGE_NAME"', "step"),
        ({"IMAGE_NAME": "${{ secrets.DOCKER_USERNAME }}/app"}, 'echo "Building ${IMAGE_NAME}:latest"', "job"),
        (
            {"IMAGE": "${{ secrets.REGISTRY_HOST }}/${{ secrets.DOCKERHUB_USER }}/app:${{ github.sha }}"},
            'echo "image=$IMAGE" >> "$GITHUB_OUTPUT"',
            "step",
        ),
        ({"TARGET": "${{ secrets.SSH_USER }}@${{ secrets.SSH_HOST }}"}, 'echo "deploying to $TARGET"', "job"),
    ],
)
def test_a_variable_made_from_identifiers_is_info(env: dict[str, str], line: str, level: str) -> None:
    (found,) = workflow_findings(_env_step(env, line, level), "CS004")
    assert found[1] == "info" and "made from identifiers" in found[2]


@pytest.mark.parametrize(
    ("env", "line"),
    [
        ({"AUTH": "${{ secrets.DOCKER_USERNAME }}:${{ secrets.DOCKER_PASSWORD }}"}, 'echo "$AUTH"'),
        ({"IMAGE_NAME": "${{ secrets.DOCKER_TOKEN }}/app"}, 'echo "$IMAGE_NAME"'),
        ({"REGISTRY_TOKEN": "${{ secrets.REGISTRY_USER }}-ci"}, 'echo "$REGISTRY_TOKEN"'),  # named a credential
        ({"URL": "https://${{ secrets.GH_USER }}:${{ secrets.GITHUB_TOKEN }}@github.com"}, 'echo "$URL"'),
        ({"IMAGE_NAME": "${{ secrets.DOCKER_USERNAME }}"}, 'echo "$IMAGE_NAME"'),  # whole: read as before
    ],
)
def test_a_variable_holding_a_credential_stays_high(env: dict[str, str], line: str) -> None:
    assert [s for _, s, _ in workflow_findings(_env_step(env, line), "CS004")] == ["high"]


def test_a_step_variable_replaces_the_jobs_derived_one() -> None:
    text = (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    env:\n      IMAGE_NAME: ${{ secrets.DOCKER_USERNAME }}/app\n    steps:\n"
        "      - env:\n          IMAGE_NAME: ${{ secrets.DOCKER_PASSWORD }}/app\n"
        '        run: echo "$IMAGE_NAME"\n'
    )
    assert [s for _, s, _ in workflow_findings(text, "CS004")] == ["high"]


@pytest.mark.parametrize(
    ("job_if", "step_if", "count"),
    [("false", "", 0), ("", "      - if: ${{ false }}\n  ", 0), ("github.event.comment.user.login == 'me'", "", 1)],
)
def test_script_injection_in_a_job_that_never_runs(job_if: str, step_if: str, count: int) -> None:
    job_line = f"    if: {job_if}\n" if job_if else ""
    step = (step_if + "      run:" if step_if else "      - run:") + ' echo "${{ github.event.comment.body }}"\n'
    text = (
        "on: issue_comment\npermissions: {contents: read}\njobs:\n  a:\n"
        f"{job_line}    runs-on: ubuntu-latest\n    steps:\n{step}"
    )
    assert len(workflow_findings(text, "CP006")) == count


def test_a_named_cleanup_step_is_named() -> None:
    """The shape of a development repository (held6's hivemq/helm-charts): a signing key written to
    $HOME, a pinned action, then a cleanup step run always()."""
    after = (
        "      - uses: helm/chart-releaser-action@cae68fefc6b5f367a0275617c9f83181ba54714f\n"
        "      - name: Cleanup GPG files\n        if: always()\n        run: rm -f $HOME/secring.gpg\n" + _THIRD_PARTY
    )
    (found,) = workflow_findings(_pat_step('echo "${PAT}" | gpg --dearmor > $HOME/secring.gpg', after=after), "CS004")
    assert found[1] == "low"
    assert 'every later step of the job before step "Cleanup GPG files", which removes it, can read it too' in found[2]


@pytest.mark.parametrize(("condition", "count"), [("false", 0), ("${{ false }}", 0), ("success()", 1)])
def test_a_step_that_never_runs_writes_nothing(condition: str, count: int) -> None:
    text = (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        f'      - if: {condition}\n        run: echo "${{{{ secrets.TOKEN }}}}" > token.txt\n'
    )
    assert len(workflow_findings(text, "CS004")) == count
