"""The webhook trigger of the kit format: a chat, ticketing or monitoring event that starts the agent.

sandkit runs no webhook server of its own: the kubernetes target compiles a webhook to Argo Events
(an EventSource and a Sensor) and the actions target to ``repository_dispatch`` or
``workflow_dispatch``. What the agent may see of an event is named here, field by field, with a
small JSONPath-like selector (``$.issue.fields.summary``, ``$.attachments[0].title``) whose grammar
is deliberately narrow: each step is a plain key or an array index, so one selector means the same
thing to Argo's gjson, to the workflow's own script, and to a reader.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator

from sandkit.kits.fields import no_control

if TYPE_CHECKING:
    from sandkit.kits.model import WebhookTrigger

WebhookSource = Literal["slack", "jira", "datadog", "twilio", "generic"]
SOURCES: tuple[WebhookSource, ...] = ("slack", "jira", "datadog", "twilio", "generic")
#: One selector step: a key (a letter or `_` first, then letters, digits, `_`, `-`) or an array index.
_KEY = r"[A-Za-z_][A-Za-z0-9_-]{0,63}"
_STEP = re.compile(rf"\.({_KEY})|\[(\d{{1,4}})\]")
_FIELD_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
_SLASH_COMMAND = re.compile(r"/[a-z0-9_-]{1,31}")
MAX_STEPS = 16
MAX_FIELDS = 10  # workflow_dispatch's limit of inputs, so one kit means the same on both engines
#: What each source's filter shorthands test, as selectors of its payload (docs/triggers.md).
SHORTHAND_PATHS = {
    ("slack", "command"): "$.command",
    ("slack", "events"): "$.type",
    ("jira", "events"): "$.webhookEvent",
    ("jira", "transition"): "$.transition.transitionName",
    ("datadog", "events"): "$.event_type",
}
#: Payload keys a selector may not reach: Slack's legacy verification token travels in every payload.
HIDDEN_KEYS = {"slack": ("token",)}

Step = str | int


def parse_selector(text: str) -> tuple[Step, ...]:
    """``$.a.b[0]`` as its steps (``("a", "b", 0)``); a ValueError says what is wrong."""
    if not text.startswith("$"):
        raise ValueError(f"{text!r} is not a selector: it starts with `$` (`$.issue.key`)")
    steps: list[Step] = []
    position = 1
    while position < len(text):
        step = _STEP.match(text, position)
        if step is None:
            raise ValueError(
                f"{text!r}: at character {position + 1} expected `.key` (a letter or `_`, then letters, digits, "
                "`_` or `-`) or `[index]`"
            )
        steps.append(step.group(1) if step.group(1) is not None else int(step.group(2)))
        position = step.end()
    if not steps:
        raise ValueError("`$` alone is the whole payload; name the fields the agent may see")
    if len(steps) > MAX_STEPS:
        raise ValueError(f"{text!r} has more than {MAX_STEPS} steps")
    return tuple(steps)


def _selector(value: str) -> str:
    parse_selector(value)
    return value


def _field_name(value: str) -> str:
    if not _FIELD_NAME.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a field name: a lowercase letter, then lowercase letters, digits or `_` (at most 40)"
        )
    return value


def _slash_command(value: str) -> str:
    if not _SLASH_COMMAND.fullmatch(value):
        raise ValueError(f"{value!r} is not a slash command: `/` then lowercase letters, digits, `_` or `-`")
    return value


Selector = Annotated[str, AfterValidator(_selector)]
FieldName = Annotated[str, AfterValidator(_field_name)]
SlashCommand = Annotated[str, AfterValidator(_slash_command)]
MatchValue = Annotated[str, AfterValidator(no_control)]


def source_problems(hook: WebhookTrigger) -> list[str]:
    """What the source needs or refuses, first problem first; ``@key`` in front locates one at its key."""
    problems = []
    if len(hook.fields) > MAX_FIELDS:
        problems.append(f"@fields at most {MAX_FIELDS} fields (workflow_dispatch takes no more inputs)")
    if hook.source == "slack":
        if hook.verification_token is None:
            problems.append("a slack webhook needs `verification_token` (Argo Events' Slack source checks it)")
        if (hook.command is None) == (not hook.events):
            problems.append("a slack webhook needs exactly one of `command` (a slash command) or `events`")
    else:
        for key in ("verification_token", "command"):
            if getattr(hook, key) is not None:
                problems.append(f"@{key} applies only to source slack")
    if hook.transition is not None and hook.source != "jira":
        problems.append("@transition applies only to source jira")
    if hook.events and (hook.source, "events") not in SHORTHAND_PATHS:
        problems.append(f"@events does not apply to source {hook.source}; use `match`")
    if hook.verification_token is not None and hook.verification_token == hook.secret:
        problems.append("@verification_token must be another key than `secret`")
    return problems + _selector_problems(hook)


def _selector_problems(hook: WebhookTrigger) -> list[str]:
    problems = []
    named = [(f"fields.{name}", spec.path) for name, spec in hook.fields.items()]
    for where, text in [*named, *(("match", text) for text in hook.match)]:
        steps = parse_selector(text)
        if steps[0] in HIDDEN_KEYS.get(hook.source, ()):
            problems.append(f"@{where} {text} is the {hook.source} verification token; the agent never sees it")
        if hook.source == "twilio" and len(steps) != 1:
            problems.append(f"@{where} {text}: Twilio posts a flat form, so a selector is one key (`$.Body`)")
    problems += [f"@match match {text} lists no value" for text, values in hook.match.items() if not values]
    return problems


def selector_or_field_schema(schema: dict[str, Any]) -> None:
    """JSON Schema of ``fields``: each value a selector string, or the mapping with ``path``."""
    schema["additionalProperties"] = {"anyOf": [{"type": "string", "pattern": r"^\$"}, schema["additionalProperties"]]}
