"""Issue 33, the eighth set's CI classes, fixed afterwards (docs/lint.md, "The eighth set's CI
classes, fixed afterwards"): each class from fixtures written here, with the look-alikes that stay
findings.

1. A name a person or bot goes by is an identifier however its words are joined (``USER_NAME``,
   ``USERNAME``, ``user-name``, ``gitUserName``, ``COMMITTER_NAME``), and what ``git config
   user.name`` / ``user.email`` stores is who commits, whatever variable feeds it (CS004 info).
2. A secret is referred to only inside a ``${{ }}`` expression: ``secrets.Review`` in prose, a
   here-document's sentence or a shell comment is text (CS004, CS001, CS003); the context whole
   (``toJSON(secrets)``, ``secrets.*``) is every secret.
3. A reusable workflow of this repository called by its full name
   (``OWNER/REPO/.github/workflows/x.yml@v1``) is read from the checkout when ``OWNER/REPO`` is its
   ``origin`` (the local copy standing in for the ref, as the message says); one that cannot be
   read is still taken to hold the scope, and the message says so (CP002, CP001).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.lint.facts.expressions import EVERY_SECRET, exposed_secret_refs, secret_name
from sandkit.lint.rules.ci_secret_exposure import _identifier_name
from tests.lint.helpers import WORKFLOW, lint_files, lint_tree, one_run_step, workflow_findings, write_tree

WF = WORKFLOW
_found = workflow_findings
_run = one_run_step


# ---- 1. user names and git's identity ----------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "GIT_USER_NAME",
        "USERNAME",
        "DOCKER_USERNAME",
        "user-name",
        "github-user-name",
        "gitUserName",
        "gitUserEmail",
        "BOT_COMMITTER_NAME",
        "AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "LOGIN_NAME",
        "STORAGE_ACCOUNT_NAME",
    ],
)
def test_a_user_name_in_any_spelling_is_an_identifier(name: str) -> None:
    assert _identifier_name(name)


@pytest.mark.parametrize(
    "name",
    ["NAME", "BOT_NAME", "KEY_NAME", "SURNAME", "RENAME", "USER_PASSWORD", "USER_TOKEN", "userPassword", "NextToken"],
)
def test_names_that_only_end_like_a_user_name_are_not(name: str) -> None:
    assert not _identifier_name(name)


@pytest.mark.parametrize(
    ("line", "env"),
    [
        ('git config user.name "${GIT_USER_NAME}"', "    env: {GIT_USER_NAME: '${{ secrets.GIT_USER_NAME }}'}\n"),
        (
            'git config --global user.name "$COMMITTER_NAME"',
            "    env: {COMMITTER_NAME: '${{ secrets.BOT_COMMITTER_NAME }}'}\n",
        ),
        ('git config user.name "${{ secrets.BOT_AUTHOR_NAME }}"', ""),
        # Whatever the secret is called, git's user.name and user.email are who commits.
        ('git config user.name "${{ secrets.BOT }}"', ""),
        ('git config --local user.email "${{ secrets.RELEASE_BOT }}"', ""),
        ('git config set --global author.email "${{ secrets.BOT }}"', ""),
        ('git -C repo config committer.name "$WHO"', "    env: {WHO: '${{ secrets.RELEASE }}'}\n"),
        ('git config --file .git/config user.name "${{ secrets.BOT }}"', ""),
    ],
)
def test_git_identity_settings_are_info(line: str, env: str) -> None:
    found = _found(_run(line, env), "CS004")
    assert [(n, s) for n, s, _ in found] == [(10 if env else 9, "info")], found
    assert "as user." in found[0][2] or "as author." in found[0][2] or "as committer." in found[0][2]


@pytest.mark.parametrize(
    ("line", "env", "says", "severity"),
    [
        # A secret named as a credential is one, wherever it is put.
        ('git config user.name "${{ secrets.BOT_TOKEN }}"', "", "as user.name", "high"),
        ('git config user.email "$PASSWORD"', "    env: {PASSWORD: '${{ secrets.X }}'}\n", "as user.email", "high"),
        # Other git settings store what they are given, in the checkout's .git/config: a credential
        # file git reads (low since the ninth round, nothing uploads or runs an unpinned action after).
        ('git config credential.helper "${{ secrets.BOT }}"', "", ".git/config", "low"),
        ('git config user.signingkey "${{ secrets.BOT }}"', "", ".git/config", "low"),
        (
            'git config url."https://x:${{ secrets.BOT }}@github.com/".insteadOf https://github.com/',
            "",
            ".git/config",
            "low",
        ),
        # A user name's secret written to a file beside an unrelated token stays high for the token.
        ('echo "${{ secrets.DEPLOY_TOKEN }}" > who.txt', "", "to a file", "high"),
    ],
)
def test_credentials_beside_git_identity_stay_findings(line: str, env: str, says: str, severity: str) -> None:
    found = _found(_run(line, env), "CS004")
    assert [(n, s) for n, s, _ in found] == [(10 if env else 9, severity)], found
    assert says in found[0][2]


def test_a_user_name_secret_written_to_a_file_is_info() -> None:
    found = _found(_run('echo "${{ secrets.USER_NAME }}" > who.txt'), "CS004")
    assert [(n, s) for n, s, _ in found] == [(9, "info")], found


# ---- 2. a secret is referred to only inside an expression ----------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        'echo "::error::Trufflehog detected verified secrets. Review the scan output above."',
        'echo "::error::detected verified secrets.Review the scan output above."',
        'echo "Rotate the leaked secrets.Then re-run." > report.md',
        'echo "see secrets.TOKEN in the settings" >> "$GITHUB_STEP_SUMMARY"',
        "echo 'secrets[\"a-b\"] is unset' > out.txt",
        "# uses secrets.TOKEN > file",
        'python -c "import secrets; print(secrets.token_hex(8))" > nonce',
    ],
)
def test_secrets_in_text_outside_an_expression_is_no_reference(line: str) -> None:
    assert _found(_run(line), "CS004") == []


def test_a_markdown_sentence_in_a_heredoc_is_no_reference() -> None:
    text = (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: |\n          cat > report.md <<EOF\n          ## Scan\n"
        "          Found verified secrets. Rotate the secrets.Then re-run.\n          EOF\n"
    )
    assert _found(text, "CS004") == []


def test_a_secret_in_an_env_value_without_an_expression_is_text() -> None:
    text = (
        "on: pull_request_target\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: x\n"
        "    env:\n      NOTE: rotate secrets.TOKEN yearly\n    steps:\n"
        "      - uses: actions/checkout@v4\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n"
    )
    assert _found(text, "CS001") == [] and _found(text, "CS003") == []
    held = text.replace("rotate secrets.TOKEN yearly", "${{ secrets.TOKEN }}")
    assert [s for _, s, _ in _found(held, "CS001")] == ["medium"]
    assert [s for _, s, _ in _found(held, "CS003")] == ["critical"]


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ('echo "${{ secrets.TOKEN }}" > t', "secrets.TOKEN"),
        ("echo \"${{ secrets['a-b'] }}\" > t", "secrets.a-b"),
        ("echo '${{ toJSON(secrets) }}' > all.json", "every secret"),
        ('echo "${{ toJson( secrets ) }}"', "every secret"),
        # Prose beside a reference does not hide it.
        ('echo "rotate secrets.Then: ${{ secrets.DEPLOY_KEY }}" > notes', "secrets.DEPLOY_KEY"),
    ],
)
def test_a_reference_inside_an_expression_stays_a_finding(line: str, shown: str) -> None:
    found = _found(_run(line), "CS004")
    assert [(n, s) for n, s, _ in found] == [(9, "high")], found
    assert shown in found[0][2]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("${{ toJSON(secrets) }}", [EVERY_SECRET]),
        ("${{ secrets.* }}", [EVERY_SECRET]),
        ("${{ secrets }}", [EVERY_SECRET]),
        ("${{ contains(toJSON(secrets), 'x') }}", []),
        ("${{ needs.scan.outputs.secrets }}", []),
        ("${{ inputs.secrets-json }}", []),
        ("${{ format('found secrets.Review') }}", []),
        ("secrets.TOKEN ${{ secrets.B }} secrets.C", ["B"]),
        ("toJSON(secrets)", []),
    ],
)
def test_which_secrets_an_expression_names(text: str, names: list[str]) -> None:
    assert [secret_name(m) for m in exposed_secret_refs(text)] == names


# ---- 3. this repository's reusable workflows called by their full name -------------------------

UMBRELLA = """on: push
permissions:
  contents: write
jobs:
  lint:
    uses: {lint}
  test:
    uses: {test}
  publish:
    runs-on: x
    steps: [{{run: make publish}}]
"""
READ_ONLY = "on: workflow_call\npermissions: {contents: read}\njobs:\n  l: {runs-on: x, steps: [{run: make}]}\n"
OPEN = "on: workflow_call\njobs:\n  l: {runs-on: x, steps: [{run: make}]}\n"
ORIGIN = '[core]\n\tbare = false\n[remote "origin"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'


def _umbrella(
    lint: str, test: str, git: dict[str, str | bytes] | None, called: dict[str, str] | None = None
) -> list[tuple[int, str]]:
    tree: dict[str, str | bytes] = {".github/workflows/ci.yml": UMBRELLA.format(lint=lint, test=test)}
    for name, text in (called if called is not None else {"lint.yml": READ_ONLY, "test.yml": READ_ONLY}).items():
        tree[f".github/workflows/{name}"] = text
    tree.update(git or {})
    return [(f.line, f.message) for f in lint_files(tree, ("CP002",)) if f.path.endswith("ci.yml")]


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/Acme/Tools.git",
        "https://github.com/acme/tools",
        "git@github.com:acme/tools.git",
        "ssh://git@github.com/acme/tools.git",
        "https://ghe.example.com/acme/tools.git/",
    ],
)
def test_this_repositorys_workflows_by_full_name_are_read_from_the_checkout(url: str) -> None:
    git: dict[str, str | bytes] = {".git/config": ORIGIN.format(url=url)}
    lint = "acme/tools/.github/workflows/lint.yml@v1.2.3"
    test = "ACME/tools/.github/workflows/test.yml@main"
    assert _umbrella(lint, test, git) == []  # both called workflows keep contents: read
    found = _umbrella(lint, test, git, {"lint.yml": READ_ONLY, "test.yml": OPEN})
    assert [line for line, _ in found] == [3]
    assert "reaches jobs test, publish" in found[0][1]
    assert "this checkout's copy was read, not main" in found[0][1]


def test_a_worktree_checkout_is_followed_to_its_common_git_folder(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "main/.git/config": ORIGIN.format(url="https://github.com/acme/tools.git"),
            "main/.git/worktrees/wt/commondir": "../..\n",
            "wt/.git": "gitdir: ../main/.git/worktrees/wt\n",
            "wt/.github/workflows/ci.yml": UMBRELLA.format(
                lint="acme/tools/.github/workflows/lint.yml@v1", test="acme/tools/.github/workflows/test.yml@v1"
            ),
            "wt/.github/workflows/lint.yml": READ_ONLY,
            "wt/.github/workflows/test.yml": READ_ONLY,
        },
    )
    assert [f for f in lint_tree(tmp_path / "wt", ("CP002",)) if f.path.endswith("ci.yml")] == []


@pytest.mark.parametrize(
    ("git", "lint", "says"),
    [
        # Another repository's: cannot be read here.
        (
            {".git/config": ORIGIN.format(url="https://github.com/acme/tools.git")},
            "other/tools/.github/workflows/lint.yml@v1",
            "which could not be read (another repository's)",
        ),
        # The same name, but nothing says this checkout is that repository.
        ({}, "acme/tools/.github/workflows/lint.yml@v1", "or this one's: no origin remote here names"),
        ({".git/config": "[core]\n\tbare = false\n"}, "acme/tools/.github/workflows/lint.yml@v1", "another"),
        (
            {".git/config": '[remote "upstream"]\n\turl = https://github.com/acme/tools.git\n'},
            "acme/tools/.github/workflows/lint.yml@v1",
            "another repository's",
        ),
        ({".git": "gitdir: nowhere\n"}, "acme/tools/.github/workflows/lint.yml@v1", "another repository's"),
        ({".git/config": b"\xff\x00[remote"}, "acme/tools/.github/workflows/lint.yml@v1", "another"),
        # This repository's, but the file is not in the checkout (or climbs out of it).
        (
            {".git/config": ORIGIN.format(url="git@github.com:acme/tools.git")},
            "acme/tools/.github/workflows/gone.yml@v1",
            "not a readable workflow in this checkout",
        ),
        (
            {".git/config": ORIGIN.format(url="git@github.com:acme/tools.git")},
            "acme/tools/.github/workflows/../../lint.yml@v1",
            "not a readable workflow in this checkout",
        ),
        # The same repository by a path: read as before, only missing here.
        ({}, "./.github/workflows/gone.yml", "not a readable workflow in this checkout"),
    ],
)
def test_a_called_workflow_that_cannot_be_read_is_taken_to_hold_the_scope(
    git: dict[str, str | bytes], lint: str, says: str
) -> None:
    found = _umbrella(lint, "./.github/workflows/test.yml", git)
    assert [line for line, _ in found] == [3], found
    assert "reaches jobs lint, publish" in found[0][1] and says in found[0][1]
    assert "taken to hold it" in found[0][1]


def test_cp001_names_the_checkouts_copy_it_read() -> None:
    text = "on: push\njobs:\n  a:\n    uses: acme/tools/.github/workflows/open.yml@v2\n"
    tree: dict[str, str | bytes] = {
        ".github/workflows/ci.yml": text,
        ".github/workflows/open.yml": OPEN,
        ".git/config": ORIGIN.format(url="https://github.com/acme/tools"),
    }
    found = [f for f in lint_files(tree, ("CP001",)) if f.path.endswith("ci.yml")]
    assert [(f.line, f.severity) for f in found] == [(4, "low")]
    assert "this checkout's copy read, not its v2" in found[0].message
    del tree[".git/config"]
    assert [f for f in lint_files(tree, ("CP001",)) if f.path.endswith("ci.yml")] == []


def test_a_linked_git_config_is_not_read(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "elsewhere/config": ORIGIN.format(url="https://github.com/acme/tools.git"),
            "repo/.github/workflows/ci.yml": UMBRELLA.format(
                lint="acme/tools/.github/workflows/lint.yml@v1", test="acme/tools/.github/workflows/test.yml@v1"
            ),
            "repo/.github/workflows/lint.yml": READ_ONLY,
            "repo/.github/workflows/test.yml": READ_ONLY,
        },
    )
    (tmp_path / "repo/.git").mkdir()
    (tmp_path / "repo/.git/config").symlink_to(tmp_path / "elsewhere/config")
    found = [f for f in lint_tree(tmp_path / "repo", ("CP002",)) if f.path.endswith("ci.yml")]
    assert [f.line for f in found] == [3] and "another repository's" in found[0].message
