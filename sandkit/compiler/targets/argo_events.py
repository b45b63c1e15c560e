"""The kubernetes target's webhooks: Argo Events resources that create the session Job per event.

A piece of the kubernetes target (like action_pins is of actions), not a target. Each webhook gets
an EventSource (Slack's own source, which checks the request's signature, or the generic webhook
source, which checks a bearer token) and a Sensor whose one trigger creates the session Job. The
event's selected fields travel as data only: the Sensor's parameter writes them, as one JSON text,
into an annotation of the Job's pod template, and a downwardAPI volume shows that annotation to the
agent as the file EVENT_PATH. Nothing of the event is templated into a command, an env value or a
script. Facts taken from Argo Events v1.9.11 (tests/compiler/data/README.md names the commit):
the webhook source's event data is ``{"header": ..., "body": ...}`` (a form body becomes a mapping
of lists), the Slack source's is the slash command or ``{"type", "Data"}`` of an Events API event;
data filters on strings are regular expressions (so values are anchored and quoted here); a
parameter's ``dataKey`` is a gjson path, and ``{"name":path,...}`` selects several fields at once.
"""

from __future__ import annotations

import copy
from typing import Any

from sandkit.compiler.plan import EVENT_FILE, EVENT_FOLDER, EVENT_PATH, EVENT_VARIABLE, Plan, Step, Webhook
from sandkit.compiler.yamlout import Commented

API_VERSION = "argoproj.io/v1alpha1"
EVENT_ANNOTATION = "sandkit.dev/event"
EVENT_VOLUME = "event"
WEBHOOK_LABEL = "sandkit.dev/webhook"
PORT = 12000
#: The largest request body the EventSource accepts: the selected fields must fit the pod's 256 KiB of
#: annotations even after Go's JSON encoding has escaped `<`, `>` and `&` (six bytes each at worst).
MAX_PAYLOAD = 32768
EVENT_BUS = "default"
#: A Go regexp's metacharacters (regexp.QuoteMeta's set): a filter value matches itself and nothing else.
_REGEXP_SPECIAL = frozenset("\\.+*?()|[]{}^$")


def payload_path(hook: Webhook, path: tuple[Step, ...]) -> str:
    """The gjson path of a kit selector in the event data the hook's Argo source emits.

    Keys are validated to ``[A-Za-z_][A-Za-z0-9_-]*`` and indices to digits, none of which gjson
    treats specially, so the steps join with dots unescaped.
    """
    steps: tuple[Step, ...]
    if hook.source == "slack":
        steps = ("Data", *path) if hook.slack_events else path
    elif hook.source == "twilio":
        steps = ("body", *path, 0)  # a form field is a list of its values; Twilio sends each once
    else:
        steps = ("body", *path)
    return ".".join(str(step) for step in steps)


def selection_key(hook: Webhook) -> str:
    """A gjson multipath: one JSON object of the selected fields, each under its kit name (absent ones left out)."""
    return "{" + ",".join(f'"{field.name}":{payload_path(hook, field.path)}' for field in hook.fields) + "}"


def exact_pattern(value: str) -> str:
    """A Go regexp that matches exactly ``value`` (Argo's string data filters are unanchored regexps)."""
    return "^" + "".join("\\" + c if c in _REGEXP_SPECIAL else c for c in value) + "$"


def event_job(job: dict[str, Any], hook: Webhook, deadline: int) -> dict[str, Any]:
    """The session Job with the event file: a downwardAPI view of the annotation the Sensor fills.

    The pod also gets ``activeDeadlineSeconds``, which puts it in the ResourceQuota's Terminating
    scope, the count that holds the kit's webhook sessions to ``max_sessions``.
    """
    job = copy.deepcopy(job)
    job["metadata"]["labels"][WEBHOOK_LABEL] = hook.name
    pod = job["spec"]["template"]
    pod["metadata"]["labels"][WEBHOOK_LABEL] = hook.name
    spec = pod["spec"]
    spec["activeDeadlineSeconds"] = deadline
    agent = spec["containers"][0]
    agent["env"] = [{"name": EVENT_VARIABLE, "value": EVENT_PATH}, *agent["env"]]
    agent["volumeMounts"].append({"name": EVENT_VOLUME, "mountPath": EVENT_FOLDER, "readOnly": True})
    item = {"path": EVENT_FILE, "fieldRef": {"fieldPath": f"metadata.annotations['{EVENT_ANNOTATION}']"}}
    spec["volumes"].append({"name": EVENT_VOLUME, "downwardAPI": {"items": [item], "defaultMode": 0o444}})
    return job


def secret_selector(secret: str, key: str) -> dict[str, str]:
    return {"name": secret, "key": key}


def event_source(
    plan: Plan, hook: Webhook, metadata: dict[str, Any], pod: dict[str, Any], secret: str
) -> dict[str, Any]:
    """One webhook's EventSource: its own Service port, the endpoint /NAME/HOOK, the sender authenticated."""
    context: dict[str, Any] = {
        "endpoint": f"/{plan.name}/{hook.name}",
        "method": "POST",
        "port": str(PORT),
        "url": Commented("", "unused by the webhook and Slack sources; Argo Events' schema requires the key"),
        "maxPayloadSize": MAX_PAYLOAD,
    }
    if hook.source == "slack":
        kind = "slack"
        body: dict[str, Any] = {
            "signingSecret": secret_selector(secret, hook.secret),
            "token": secret_selector(secret, hook.verification_token or ""),
            "webhook": context,
        }
    else:
        kind = "webhook"
        body = {**context, "authSecret": secret_selector(secret, hook.secret)}
    return {
        "apiVersion": API_VERSION,
        "kind": "EventSource",
        "metadata": metadata,
        "spec": {
            "eventBusName": EVENT_BUS,
            "template": pod,
            "service": {"ports": [{"name": "webhook", "port": PORT, "targetPort": PORT}]},
            kind: {hook.name: body},
        },
    }


def sensor(
    hook: Webhook, metadata: dict[str, Any], source_name: str, pod: dict[str, Any], job: dict[str, Any]
) -> dict[str, Any]:
    """One webhook's Sensor: its filters, and a rate-limited trigger that creates the event's Job."""
    dependency: dict[str, Any] = {"name": hook.name, "eventSourceName": source_name, "eventName": hook.name}
    if hook.matches:
        dependency["filters"] = {
            "data": [
                {
                    "path": payload_path(hook, match.path),
                    "type": "string",
                    "value": [exact_pattern(value) for value in match.values],
                }
                for match in hook.matches
            ]
        }
    parameter = {
        "src": {"dependencyName": hook.name, "dataKey": selection_key(hook)},
        "dest": "spec.template.metadata.annotations." + EVENT_ANNOTATION.replace(".", "\\."),
    }
    trigger = {
        "template": {
            "name": "session",
            "k8s": {"operation": "create", "source": {"resource": job}, "parameters": [parameter]},
        },
        "rateLimit": {"unit": "Minute", "requestsPerUnit": hook.per_minute},
    }
    return {
        "apiVersion": API_VERSION,
        "kind": "Sensor",
        "metadata": metadata,
        "spec": {"eventBusName": EVENT_BUS, "template": pod, "dependencies": [dependency], "triggers": [trigger]},
    }
