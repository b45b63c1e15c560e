"""Issue 33, the seventh set's secret classes, fixed afterwards (docs/lint.md, "The seventh set's
secret classes, fixed afterwards"): each class from fixtures written here, with the look-alikes
that stay findings.

1. A secret's name is read whole through its hyphens (``secrets.github-username``, also
   ``secrets['github-username']``), so the name's words decide as they do for ``GITHUB_USERNAME``
   (CS001, CS003, CS004).
"""

from __future__ import annotations

import pytest

from sandkit.lint.facts.expressions import exposed_secret_refs
from tests.lint.helpers import lint_text

WF = ".github/workflows/ci.yml"


def _found(text: str, rule: str) -> list[tuple[int, str, str]]:
    return [(f.line, f.severity, f.message) for f in lint_text(WF, text) if f.rule == rule]


def _run(line: str, env: str = "") -> str:
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        f"{env}    steps:\n      - run: |\n          make\n          {line}\n"
    )


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
    assert [(n, s) for n, s, _ in found] == [(9, "high")]
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
