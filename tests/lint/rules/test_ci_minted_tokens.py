"""CS004 on credentials a workflow mints while it runs (issue 33, a miss of the fifth held-out set):
a variable set to a command's output that is a token (GitHub's CLI, an App installation token, the
job's OIDC token, a cloud CLI) is printed or written like a secret, and GitHub masks none of them."""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_text

WF = ".github/workflows/release.yml"


def _workflow(*lines: str) -> str:
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - id: token\n        run: |\n" + body
    )


def _cs004(*lines: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in lint_text(WF, _workflow(*lines)) if f.rule == "CS004"]


MINTED = [
    ("TOKEN=$(gh auth token)", "gh auth token"),
    ('export TOKEN="$(gh auth token)"', "gh auth token"),
    (
        'TOKEN=$(curl -sX POST -H "Authorization: Bearer $JWT" '
        "https://api.github.com/app/installations/$ID/access_tokens | jq -r .token)",
        "/access_tokens",
    ),
    (
        'TOKEN=$(curl -sH "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" '
        '"$ACTIONS_ID_TOKEN_REQUEST_URL&audience=sts" | jq -r .value)',
        "$ACTIONS_ID_TOKEN_REQUEST_URL",
    ),
    ("TOKEN=$(gcloud auth print-access-token)", "gcloud auth print-access-token"),
    ("TOKEN=$(az account get-access-token --query accessToken -o tsv)", "az account get-access-token"),
    ("local TOKEN=$(aws ecr get-login-password --region eu-west-1)", "aws ecr get-login-password"),
    ("TOKEN=$(kubectl create token deployer)", "kubectl create token"),
    ("TOKEN=$(vault read -field=token secret/ci)", "vault read"),
]


@pytest.mark.parametrize(("setting", "minter"), MINTED)
@pytest.mark.parametrize(
    "leak",
    ['echo "token=$TOKEN" >> "$GITHUB_OUTPUT"', 'echo "TOKEN=${TOKEN}" >> $GITHUB_ENV', "echo $TOKEN"],
)
def test_a_minted_credential_printed_or_written_is_a_finding(setting: str, minter: str, leak: str) -> None:
    ((line, message),) = _cs004(setting, leak)
    assert line == 10  # the line that prints or writes it
    assert f"a credential minted by `{minter}`" in message


@pytest.mark.parametrize(
    "use",
    [
        'echo "$TOKEN" | docker login ghcr.io -u x --password-stdin',  # piped into a login
        'curl -H "Authorization: Bearer $TOKEN" https://api.github.com/user -o user.json',  # a command's input
        'echo "::add-mask::$TOKEN"',  # masking it
        'echo "has=${TOKEN:+yes}" >> /dev/null',  # thrown away
        'echo "length ${#TOKENS[@]}"',  # another variable, whose name starts the same
    ],
)
def test_a_minted_credential_used_but_not_printed_is_no_finding(use: str) -> None:
    assert _cs004("TOKEN=$(gh auth token)", use) == []


@pytest.mark.parametrize(
    "setting",
    [
        "TOKEN=$(gh auth status)",  # reads no token
        "TOKEN=$(cat token.txt)",  # not a minting command
        'TOKEN="gh auth token"',  # a string, not a command run
        "VERSION=$(gh release view --json tagName -q .tagName)",
    ],
)
def test_other_command_outputs_are_not_credentials(setting: str) -> None:
    assert _cs004(setting, 'echo "value=$TOKEN$VERSION" >> "$GITHUB_OUTPUT"') == []


def _with_action(uses: str, output: str, leak: str) -> str:
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - id: app\n        uses: {uses}\n"
        "      - id: out\n"
        f"        env:\n          APP_TOKEN: ${{{{ steps.app.outputs.{output} || '' }}}}\n"
        f"        run: |\n          {leak}\n"
    )


@pytest.mark.parametrize(
    ("uses", "output"),
    [
        ("actions/create-github-app-token@v1", "token"),
        ("actions/create-github-app-token@5d869da34e18e7287c1daad50e0b8ea0f506ce69", "token"),
        ("google-github-actions/auth@v2", "access_token"),
        ("google-github-actions/auth@v2", "id_token"),
        ("example/mint-password@v1", "password"),
    ],
)
def test_an_action_s_credential_output_written_to_a_file_is_a_finding(uses: str, output: str) -> None:
    text = _with_action(uses, output, 'echo "token=${APP_TOKEN}" >> "$GITHUB_OUTPUT"')
    (finding,) = [f for f in lint_text(WF, text) if f.rule == "CS004"]
    assert finding.line == 13
    assert f"(its output {output})" in finding.message


@pytest.mark.parametrize("output", ["app-slug", "installation-id", "token-expiry", "version", "tokens_used"])
def test_other_outputs_are_not_credentials(output: str) -> None:
    text = _with_action("actions/create-github-app-token@v1", output, 'echo "x=${APP_TOKEN}" >> "$GITHUB_OUTPUT"')
    assert [f for f in lint_text(WF, text) if f.rule == "CS004"] == []


def test_an_output_of_a_run_step_is_not_read_as_minted() -> None:
    # what a run step writes under a credential's name is read where it is written, not here
    text = _with_action("actions/checkout@v4", "token", 'echo "token=${APP_TOKEN}" >> "$GITHUB_OUTPUT"').replace(
        "uses: actions/checkout@v4", "run: echo token=abc >> $GITHUB_OUTPUT"
    )
    assert [f for f in lint_text(WF, text) if f.rule == "CS004"] == []
