"""GitHub triggers: a comment starts the agent only on a command from someone trusted; a pull request's
head is never checked out under pull_request_target."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kits.helpers import MINIMAL, errors, load

CLONE = "network: {allow: [github.com]}\nworkspace: {repo: 'https://github.com/acme/app.git'}\n"


def _trigger(github: str, extra: str = "") -> str:
    return MINIMAL + extra + f"triggers:\n  - github: {github}\n"


def test_a_comment_trigger_needs_a_command(tmp_path: Path) -> None:
    assert errors(tmp_path, _trigger("{event: issue_comment}")) == [
        "6:13: triggers[0].github: a trigger on issue_comment needs `command`, the command a comment must start "
        "with (`/review`): without one, every comment would start a session"
    ]
    for event in ("discussion_comment", "pull_request_review_comment", "pull_request_review"):
        assert "needs `command`" in errors(tmp_path, _trigger(f"{{event: {event}}}"))[0], event
    assert errors(tmp_path, _trigger("{event: issue_comment, command: /review}")) == []


@pytest.mark.parametrize("command", ["review", "/Review", "/review now", "/", "/$(id)"])
def test_a_command_is_a_slash_and_a_word(tmp_path: Path, command: str) -> None:
    found = errors(tmp_path, _trigger(f"{{event: issue_comment, command: {command!r}}}"))
    assert len(found) == 1 and "triggers[0].github.command: " in found[0] and "is not a slash command" in found[0]


def test_the_trusted_associations_are_the_default_and_wider_ones_need_acknowledgement(tmp_path: Path) -> None:
    kit = load(tmp_path, _trigger("{event: issue_comment, command: /review}")).kit
    github = kit.triggers[0].github
    assert github is not None and github.author_associations == ["OWNER", "MEMBER", "COLLABORATOR"]
    wide = "{event: issue_comment, command: /review, author_associations: [MEMBER, CONTRIBUTOR, NONE]}"
    assert errors(tmp_path, _trigger(wide)) == [
        "6:75: triggers[0].github.author_associations: CONTRIBUTOR, NONE lets people without write access start "
        "the agent with the repository's secrets; set `acknowledge_risk: true` if you mean it"
    ]
    assert errors(tmp_path, _trigger(wide[:-1] + ", acknowledge_risk: true}")) == []
    found = errors(tmp_path, _trigger("{event: issue_comment, command: /review, author_associations: [ADMIN]}"))
    assert len(found) == 1 and found[0].startswith("6:76: triggers[0].github.author_associations[0]: give one of")


def test_comment_settings_belong_to_comment_events(tmp_path: Path) -> None:
    assert errors(tmp_path, _trigger("{event: push, command: /review}")) == [
        "6:36: triggers[0].github.command: applies only to comment events (issue_comment, discussion_comment, "
        "pull_request_review_comment, pull_request_review)"
    ]
    assert "triggers[0].github.bots: applies only" in errors(tmp_path, _trigger("{event: push, bots: ['a[bot]']}"))[0]
    found = errors(tmp_path, _trigger("{event: push, author_associations: [OWNER]}"))
    assert "triggers[0].github.author_associations: applies only" in found[0]


def test_bots_are_app_accounts(tmp_path: Path) -> None:
    ok = "{event: issue_comment, command: /fix, bots: ['renovate[bot]']}"
    assert load(tmp_path, _trigger(ok)).kit.triggers[0].github.bots == ["renovate[bot]"]  # type: ignore[union-attr]
    found = errors(tmp_path, _trigger("{event: issue_comment, command: /fix, bots: [octocat]}"))
    assert found == [
        "6:58: triggers[0].github.bots[0]: 'octocat' is not a bot account: a GitHub App's slug and `[bot]` "
        "(`renovate[bot]`)"
    ]


def test_checkout_belongs_to_pull_request_events(tmp_path: Path) -> None:
    assert errors(tmp_path, _trigger("{event: push, checkout: base}")) == [
        "6:37: triggers[0].github.checkout: applies only to events about a pull request, not push"
    ]
    assert errors(tmp_path, _trigger("{event: issue_comment, command: /fix, checkout: base}")) == []


def test_pull_request_target_never_checks_out_the_head(tmp_path: Path) -> None:
    found = errors(tmp_path, _trigger("{event: pull_request_target, acknowledge_risk: true}", CLONE))
    assert found == [
        "8:13: triggers[0].github.checkout: pull_request_target runs with the repository's secrets on a fork's "
        "pull request; checking out its head would hand the fork's code those secrets (a 'pwn request'). Use "
        "`event: pull_request` to work on the head, or `checkout: base` to work on workspace.ref"
    ]
    head = "{event: pull_request_target, acknowledge_risk: true, checkout: head}"
    assert errors(tmp_path, _trigger(head, CLONE))[0].startswith("8:76: triggers[0].github.checkout: ")
    base = "{event: pull_request_target, acknowledge_risk: true, checkout: base}"
    assert errors(tmp_path, _trigger(base, CLONE)) == []
    # no clone: nothing is checked out, so nothing of the fork runs
    nothing = "workspace: {mode: none}\n"
    assert errors(tmp_path, _trigger("{event: pull_request_target, acknowledge_risk: true}", nothing)) == []


def test_the_agents_job_gets_no_write_scope(tmp_path: Path) -> None:
    found = errors(tmp_path, MINIMAL + "targets: {actions: {permissions: {issues: read, pull-requests: write}}}\n")
    assert found == [
        "5:34: targets.actions.permissions: pull-requests: write: the agent's job holds no write token; its results "
        "leave through `targets.actions.publish`, whose own job gets the one write scope it needs"
    ]


def test_publishing_needs_a_trigger_with_something_to_publish_on(tmp_path: Path) -> None:
    review = "targets: {actions: {publish: review}}\n"
    assert errors(tmp_path, MINIMAL + review + "triggers: [{schedule: '0 9 * * 1'}, {github: {event: issues}}]\n") == [
        "5:30: targets.actions.publish: a review needs a trigger whose event names a pull request (issue_comment, "
        "pull_request, pull_request_review, pull_request_review_comment, pull_request_target)"
    ]
    assert errors(tmp_path, MINIMAL + review + "triggers: [{github: {event: pull_request}}]\n") == []
    comment = "targets: {actions: {publish: comment}}\ntriggers: [{github: {event: issues}}]\n"
    assert errors(tmp_path, MINIMAL + comment) == []
    found = errors(tmp_path, MINIMAL + "targets: {actions: {publish: pull-request}}\n")
    assert len(found) == 1 and "targets.actions.publish: " in found[0]


def test_a_branch_is_published_from_any_trigger_but_never_from_a_pull_requests_head(tmp_path: Path) -> None:
    branch = "targets: {actions: {publish: branch}}\n"
    assert errors(tmp_path, MINIMAL + CLONE + branch + "triggers: [{schedule: '0 9 * * 1'}, {manual: {}}]\n") == []
    head = errors(tmp_path, MINIMAL + CLONE + branch + "triggers: [{github: {event: pull_request}}]\n")
    assert len(head) == 1 and head[0].startswith("8:") and "triggers[0].github.checkout: with" in head[0], head
    assert "a fork's code, which a push would carry into the repository" in head[0]
    base = "triggers: [{github: {event: pull_request, checkout: base}}]\n"
    assert errors(tmp_path, MINIMAL + CLONE + branch + base) == []


def test_an_apps_key_is_never_the_agents_and_the_app_only_publishes(tmp_path: Path) -> None:
    app = "targets: {actions: {publish: comment, app: {client_id: APP_ID, private_key: APP_KEY}}}\n"
    issues = "triggers: [{github: {event: issues}}]\n"
    assert errors(tmp_path, MINIMAL + issues + app) == []
    assert errors(tmp_path, MINIMAL + "secrets: [{name: APP_KEY}]\n" + issues + app) == [
        "7:77: targets.actions.app.private_key: APP_KEY is one of `secrets`: the agent would hold the key that "
        "mints tokens; keep it an Actions secret of its own"
    ]
    found = errors(tmp_path, MINIMAL + "targets: {actions: {app: {client_id: A, private_key: B}}}\n")
    assert found == ["5:26: targets.actions.app: posts the agent's results: it needs `publish`"]
