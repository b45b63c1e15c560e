"""Issue 33, the eighth set's CI classes, fixed afterwards (docs/lint.md, "The eighth set's CI
classes, fixed afterwards"): each class from fixtures written here, with the look-alikes that stay
findings.

1. A name a person or bot goes by is an identifier however its words are joined (``USER_NAME``,
   ``USERNAME``, ``user-name``, ``gitUserName``, ``COMMITTER_NAME``), and what ``git config
   user.name`` / ``user.email`` stores is who commits, whatever variable feeds it (CS004 info).
"""

from __future__ import annotations

import pytest

from sandkit.lint.rules.ci_secret_exposure import _identifier_name
from tests.lint.helpers import lint_text

WF = ".github/workflows/ci.yml"


def _found(text: str, rule: str) -> list[tuple[int, str, str]]:
    return [(f.line, f.severity, f.message) for f in lint_text(WF, text) if f.rule == rule]


def _run(line: str, env: str = "") -> str:
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        f"{env}    steps:\n      - run: |\n          make\n          {line}\n"
    )


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
    ("line", "env", "says"),
    [
        # A secret named as a credential is one, wherever it is put.
        ('git config user.name "${{ secrets.BOT_TOKEN }}"', "", "as user.name"),
        ('git config user.email "$PASSWORD"', "    env: {PASSWORD: '${{ secrets.X }}'}\n", "as user.email"),
        # Other git settings store what they are given.
        ('git config credential.helper "${{ secrets.BOT }}"', "", ".git/config"),
        ('git config user.signingkey "${{ secrets.BOT }}"', "", ".git/config"),
        ('git config url."https://x:${{ secrets.BOT }}@github.com/".insteadOf https://github.com/', "", ".git/config"),
        # A user name's secret written to a file beside an unrelated token stays high for the token.
        ('echo "${{ secrets.DEPLOY_TOKEN }}" > who.txt', "", "to a file"),
    ],
)
def test_credentials_beside_git_identity_stay_high(line: str, env: str, says: str) -> None:
    found = _found(_run(line, env), "CS004")
    assert [(n, s) for n, s, _ in found] == [(10 if env else 9, "high")], found
    assert says in found[0][2]


def test_a_user_name_secret_written_to_a_file_is_info() -> None:
    found = _found(_run('echo "${{ secrets.USER_NAME }}" > who.txt'), "CS004")
    assert [(n, s) for n, s, _ in found] == [(9, "info")], found
