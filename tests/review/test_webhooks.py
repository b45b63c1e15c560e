"""sandkit diff and summary on webhook triggers: whoever can post to the source writes the agent's event."""

from __future__ import annotations

from pathlib import Path

from sandkit.review.changes import compare
from sandkit.review.policy import Policy, policy_of
from sandkit.review.summary import _triggers
from tests.kits.helpers import MINIMAL, load

HOOK = """\
triggers:
  - webhook:
      source: jira
      secret: JIRA_TOKEN
      transition: Ready for agent
      fields: {key: $.issue.key}
      max_sessions: 1
"""


def _policy(tmp_path: Path, text: str) -> Policy:
    return policy_of(load(tmp_path, MINIMAL + text))


def _changes(tmp_path: Path, base: str, head: str) -> list[tuple[str, str]]:
    return [(c.kind, c.message(str)) for c in compare(_policy(tmp_path, base), _policy(tmp_path, head))]


def test_a_new_webhook_is_an_untrusted_trigger_and_meets_the_credentials(tmp_path: Path) -> None:
    changes = _changes(tmp_path, "", "secrets: [{name: API_KEY}]\n" + HOOK)
    assert ("untrusted-trigger-added", "the jira webhook jira starts the agent and shows it key") in changes
    assert ("untrusted-trigger-with-credentials", "the jira webhook jira starts the agent, which holds API_KEY") in (
        changes
    )
    assert _changes(tmp_path, HOOK, "") == [("trigger-removed", "the webhook jira no longer starts the agent")]


def test_a_webhook_widened_or_narrowed(tmp_path: Path) -> None:
    wider = HOOK.replace("      transition: Ready for agent\n", "").replace(
        "{key: $.issue.key}", "{key: $.issue.key, s: $.x}"
    )
    wider = wider.replace("max_sessions: 1", "max_sessions: 3")
    assert _changes(tmp_path, HOOK, wider) == [
        (
            "untrusted-trigger-broadened",
            "webhook jira: the filter on $.transition.transitionName is gone; the agent also sees s ($.x); "
            "3 sessions at once (was 1)",
        )
    ]
    assert _changes(tmp_path, wider, HOOK)[0][0] == "trigger-narrowed"
    assert _changes(tmp_path, HOOK, HOOK) == []


def test_the_summary_says_who_writes_the_event(tmp_path: Path) -> None:
    lines = [template.format(*values) for template, values in _triggers(_policy(tmp_path, HOOK))]
    assert lines == ["the jira webhook jira, showing the agent key; whoever posts to it writes that text"]
