"""A private https clone's token: one of the kit's run-time secrets, for https only, never in the URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kits.helpers import MINIMAL, errors, load

HTTPS = "network: {allow: [git.example.com]}\nsecrets: [{name: GIT_TOKEN}]\n"


def _workspace(settings: str, extra: str = HTTPS) -> str:
    return MINIMAL + extra + f"workspace: {{{settings}}}\n"


def test_an_https_clone_takes_a_token_of_the_kits_secrets(tmp_path: Path) -> None:
    kit = load(tmp_path, _workspace("repo: 'https://git.example.com/a/b.git', token: GIT_TOKEN")).kit
    assert kit.workspace.token == "GIT_TOKEN" and kit.workspace.token_username == "x-access-token"
    assert errors(tmp_path, _workspace("repo: 'https://git.example.com/a/b.git', token: GH_TOKEN")) == [
        "7:61: workspace.token: GH_TOKEN is not one of `secrets` (a run-time one, not `build: true`)"
    ]
    build = "network: {allow: [git.example.com]}\nsecrets: [{name: GIT_TOKEN, build: true}]\n"
    found = errors(tmp_path, _workspace("repo: 'https://git.example.com/a/b.git', token: GIT_TOKEN", build))
    assert len(found) == 1 and "GIT_TOKEN is not one of `secrets`" in found[0]


@pytest.mark.parametrize(
    ("repo", "message"),
    [
        ("http://git.example.com:80/a/b.git", "a token would cross the network in clear"),
        ("git@git.example.com:a/b.git", "a token is for https repositories, not ssh"),
        ("git://git.example.com/a/b.git", "a token is for https repositories, not git"),
        ("https://me@git.example.com/a/b.git", "the token replaces a user or password in the URL"),
    ],
)
def test_a_token_is_for_a_plain_https_url_only(tmp_path: Path, repo: str, message: str) -> None:
    allow = "network: {egress: open}\nsecrets: [{name: GIT_TOKEN}]\n"
    found = errors(tmp_path, _workspace(f"repo: '{repo}', token: GIT_TOKEN", allow))
    assert len(found) == 1 and found[0].startswith("7:") and f"workspace.token: {message}" in found[0], found


def test_a_token_needs_a_clone(tmp_path: Path) -> None:
    assert "workspace.token: needs `repo`" in errors(tmp_path, _workspace("token: GIT_TOKEN"))[0]
    found = errors(tmp_path, _workspace("mode: none, token: GIT_TOKEN"))
    assert len(found) == 1 and "apply only to workspace mode clone" in found[0]


def test_the_user_name_is_a_plain_name(tmp_path: Path) -> None:
    kit = "repo: 'https://git.example.com/a/b.git', token: GIT_TOKEN, token_username: 'a b'"
    assert "workspace.token_username: must be a user name" in errors(tmp_path, _workspace(kit))[0]
