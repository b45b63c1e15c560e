"""The webhook trigger: each source's needs, the selector language, and located errors for every rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandkit.compiler.plan import make_plan
from sandkit.kits.webhooks import parse_selector
from tests.kits.helpers import MINIMAL, errors, load

SLACK = """\
triggers:
  - webhook:
      source: slack
      secret: SLACK_SIGNING_SECRET
      verification_token: SLACK_VERIFICATION_TOKEN
      command: /agent
      fields: {request: $.text, user: {path: $.user_name, description: who asked}}
"""


def _kit(trigger: str, extra: str = "") -> str:
    return MINIMAL + extra + "triggers:\n  - webhook:\n" + "".join(f"      {line}\n" for line in trigger.splitlines())


def test_a_slack_webhook_reaches_the_plan_with_its_filter_and_fields(tmp_path: Path) -> None:
    hook = make_plan(load(tmp_path, MINIMAL + SLACK)).triggers.webhooks[0]
    assert (hook.name, hook.source, hook.secret, hook.verification_token) == (
        "slack",
        "slack",
        "SLACK_SIGNING_SECRET",
        "SLACK_VERIFICATION_TOKEN",
    )
    assert [(m.path, m.values) for m in hook.matches] == [(("command",), ("/agent",))]
    assert [(f.name, f.path, f.description) for f in hook.fields] == [
        ("request", ("text",), ""),
        ("user", ("user_name",), "who asked"),
    ]
    assert not hook.slack_events and (hook.max_sessions, hook.per_minute) == (1, 10)


def test_source_shorthands_become_matches_on_the_sources_payload(tmp_path: Path) -> None:
    jira = "source: jira\nsecret: T\nevents: [jira:issue_updated]\ntransition: Ready for agent\n"
    jira += "match: {$.issue.fields.priority.name: [High]}\nfields: {key: $.issue.key}"
    hook = make_plan(load(tmp_path, _kit(jira))).triggers.webhooks[0]
    assert [(m.path, m.values) for m in hook.matches] == [
        (("webhookEvent",), ("jira:issue_updated",)),
        (("transition", "transitionName"), ("Ready for agent",)),
        (("issue", "fields", "priority", "name"), ("High",)),
    ]
    datadog = "source: datadog\nsecret: T\nevents: [metric_alert_monitor]\nfields: {title: $.title}"
    assert make_plan(load(tmp_path, _kit(datadog))).triggers.webhooks[0].matches[0].path == ("event_type",)
    slack = "source: slack\nsecret: S\nverification_token: V\nevents: [app_mention]\nfields: {text: $.text}"
    assert make_plan(load(tmp_path, _kit(slack))).triggers.webhooks[0].slack_events


@pytest.mark.parametrize(
    ("trigger", "expected"),
    [
        (
            "source: slack\nsecret: S\ncommand: /agent\nfields: {t: $.text}",
            "7:7: triggers[0].webhook: a slack webhook needs `verification_token` (Argo Events' Slack source checks it)",
        ),
        (
            "source: slack\nsecret: S\nverification_token: V\nfields: {t: $.text}",
            "7:7: triggers[0].webhook: a slack webhook needs exactly one of `command` (a slash command) or `events`",
        ),
        (
            "source: jira\nsecret: S\ncommand: /agent\nfields: {t: $.text}",
            "9:16: triggers[0].webhook.command: applies only to source slack",
        ),
        (
            "source: datadog\nsecret: S\ntransition: Done\nfields: {t: $.text}",
            "9:19: triggers[0].webhook.transition: applies only to source jira",
        ),
        (
            "source: generic\nsecret: S\nevents: [push]\nfields: {t: $.text}",
            "9:15: triggers[0].webhook.events: does not apply to source generic; use `match`",
        ),
        (
            "source: slack\nsecret: S\nverification_token: V\ncommand: /a\nfields: {t: $.token}",
            "11:19: triggers[0].webhook.fields.t: $.token is the slack verification token; the agent never sees it",
        ),
        (
            "source: twilio\nsecret: S\nfields: {t: $.Body.x}",
            "9:19: triggers[0].webhook.fields.t: $.Body.x: Twilio posts a flat form, so a selector is one key "
            "(`$.Body`)",
        ),
        (
            "source: generic\nsecret: S\nfields: {T: $.x}",
            "9:16: triggers[0].webhook.fields.T: 'T' is not a field name: a lowercase letter, then lowercase "
            "letters, digits or `_` (at most 40)",
        ),
        (
            "source: generic\nsecret: S\nfields: {t: $.x..y}",
            "9:19: triggers[0].webhook.fields.t: '$.x..y': at character 4 expected `.key` (a letter or `_`, "
            "then letters, digits, `_` or `-`) or `[index]`",
        ),
        (
            "source: generic\nsecret: S\nfields: {}",
            "9:15: triggers[0].webhook.fields: give at least 1 item; found 0",
        ),
        (
            "source: generic\nsecret: S\nmatch: {$.a: []}\nfields: {t: $.a}",
            "9:14: triggers[0].webhook.match: match $.a lists no value",
        ),
        (
            "source: slack\nsecret: S\nverification_token: V\ncommand: 'agent'\nfields: {t: $.text}",
            "10:16: triggers[0].webhook.command: 'agent' is not a slash command: `/` then lowercase letters, "
            "digits, `_` or `-`",
        ),
        (
            "source: github\nsecret: S\nfields: {t: $.text}",
            "7:15: triggers[0].webhook.source: give one of slack, jira, datadog, twilio, generic; found text 'github'",
        ),
    ],
)
def test_each_source_rule_is_a_located_error(tmp_path: Path, trigger: str, expected: str) -> None:
    assert expected in errors(tmp_path, _kit(trigger)), errors(tmp_path, _kit(trigger))


def test_a_webhook_key_is_never_one_of_the_agents_secrets(tmp_path: Path) -> None:
    text = MINIMAL + "secrets: [{name: SLACK_SIGNING_SECRET}]\n" + SLACK
    assert errors(tmp_path, text) == [
        "9:15: triggers[0].webhook.secret: SLACK_SIGNING_SECRET is one of `secrets`: the agent would hold the key "
        "that lets anyone start it; use a key of its own"
    ]


def test_two_webhooks_need_two_names_and_one_workflow_dispatch(tmp_path: Path) -> None:
    hook = "  - webhook: {source: generic, secret: T, fields: {t: $.t}, dispatch: workflow_dispatch}\n"
    assert errors(tmp_path, MINIMAL + "triggers:\n" + hook + hook) == [
        "7:14: triggers[1].webhook: two webhooks are named generic; give one a `name`"
    ]
    named = hook.replace("source: generic", "source: generic, name: other")
    assert errors(tmp_path, MINIMAL + "triggers:\n" + hook + named)[0].endswith(
        "triggers[1].webhook.dispatch: only one webhook can use workflow_dispatch (a workflow has one set of inputs)"
    )


STEP = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,10}", fullmatch=True).map(lambda k: f".{k}"),
    st.integers(0, 9999).map(lambda i: f"[{i}]"),
)


@given(st.lists(STEP, min_size=1, max_size=16))
def test_every_selector_of_the_language_parses_to_its_steps(steps: list[str]) -> None:
    parsed = parse_selector("$" + "".join(steps))
    assert [f".{s}" if isinstance(s, str) else f"[{s}]" for s in parsed] == steps


@given(st.text(max_size=40))
def test_any_other_text_is_refused_with_a_message_never_a_crash(text: str) -> None:
    try:
        steps = parse_selector(text)
    except ValueError as error:
        assert str(error)
    else:
        rebuilt = "$" + "".join(f".{s}" if isinstance(s, str) else f"[{s}]" for s in steps)
        assert rebuilt == text
