"""sandkit diff and summary on comment triggers: held to trusted authors' commands, a comment trigger is no
trigger anyone can pull; opening it to others (or to a bot) is."""

from __future__ import annotations

from pathlib import Path

from sandkit.review.changes import compare
from sandkit.review.policy import Policy, policy_of
from sandkit.review.summary import _triggers
from tests.kits.helpers import MINIMAL, load

SECRET = "secrets: [{name: API_KEY}]\n"
GATED = SECRET + "triggers: [{github: {event: issue_comment, command: /review}}]\n"
OPEN = SECRET + (
    "triggers: [{github: {event: issue_comment, command: /review, author_associations: [OWNER, NONE], "
    "acknowledge_risk: true}}]\n"
)
BOT = SECRET + "triggers: [{github: {event: issue_comment, command: /review, bots: ['helper[bot]']}}]\n"


def _policy(tmp_path: Path, text: str) -> Policy:
    return policy_of(load(tmp_path, MINIMAL + text))


def _kinds(tmp_path: Path, base: str, head: str) -> list[str]:
    return [c.kind for c in compare(_policy(tmp_path, base), _policy(tmp_path, head))]


def test_a_comment_trigger_held_to_trusted_authors_is_no_untrusted_trigger(tmp_path: Path) -> None:
    kinds = _kinds(tmp_path, SECRET, GATED)
    assert "trigger-added" in kinds
    assert "untrusted-trigger-added" not in kinds and "untrusted-trigger-with-credentials" not in kinds
    lines = [template.format(*values) for template, values in _triggers(_policy(tmp_path, GATED))]
    assert lines == ["GitHub event issue_comment; only a command from owners, members and collaborators"]


def test_opening_a_comment_trigger_to_others_or_to_a_bot_is_a_broadened_untrusted_trigger(tmp_path: Path) -> None:
    for head in (OPEN, BOT):
        kinds = _kinds(tmp_path, GATED, head)
        assert "untrusted-trigger-broadened" in kinds and "untrusted-trigger-with-credentials" in kinds, head
    assert "untrusted-trigger-added" in _kinds(tmp_path, SECRET, OPEN)
