"""The kubernetes target's webhooks: Argo Events' schema (strict), least privilege, limits, and data only.

What runs them (gjson, Go's regexp, the Job the Sensor creates, the pod) is in
test_kubernetes_docker.py; here is what can be read off the manifests.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, example, given, settings

from sandkit.compiler.command import KitOutput
from sandkit.compiler.targets import argo_events
from sandkit.kits.dump import dump_kit
from sandkit.kits.model import Kit
from tests.compiler.helpers import EXAMPLES, compile_from_repo, compile_text
from tests.compiler.test_hostile_values import HOSTILE
from tests.compiler.test_kubernetes import VARIANTS, manifests, of_kind, sensor_jobs

SCHEMA = Path(__file__).parent / "data" / "argo-events.schema.json"


def _strict(schema: Any) -> Any:
    """Every object that lists its properties refuses any other key (Argo's Go types would drop it)."""
    if isinstance(schema, dict):
        strict = {k: _strict(v) for k, v in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            strict["additionalProperties"] = False
        return strict
    if isinstance(schema, list):
        return [_strict(v) for v in schema]
    return schema


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    schema = _strict(json.loads(SCHEMA.read_text(encoding="utf-8")))
    return jsonschema.Draft7Validator(schema)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> list[KitOutput]:
    folder = tmp_path_factory.mktemp("webhooks")
    built = [compile_from_repo(kit) for kit in EXAMPLES]
    built.append(compile_text(folder, VARIANTS["webhooks"], name="webhooks.yaml"))
    return [out for out in built if out.plan.triggers.webhooks]


def _plain(document: Any) -> Any:
    """The manifest as the API server receives it (comments and YAML types gone)."""
    return json.loads(json.dumps(document))


def test_eventsources_and_sensors_pass_argo_events_schema_strictly(
    outputs: list[KitOutput], validator: jsonschema.Draft7Validator
) -> None:
    checked = 0
    for out in outputs:
        for kind in ("EventSource", "Sensor"):
            for document in of_kind(out, kind):
                errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(_plain(document))]
                assert not errors, (out.plan.name, kind, errors)
                checked += 1
    assert checked >= 8


def test_the_strict_schema_catches_a_misplaced_key(
    outputs: list[KitOutput], validator: jsonschema.Draft7Validator
) -> None:
    sensor = copy.deepcopy(_plain(of_kind(outputs[0], "Sensor")[0]))
    sensor["spec"]["triggers"][0]["rateLimits"] = sensor["spec"]["triggers"][0].pop("rateLimit")
    assert any("rateLimits" in e.message for e in validator.iter_errors(sensor))
    source = _plain(of_kind(outputs[0], "EventSource")[0])
    source["spec"]["webhooks"] = source["spec"].pop(next(k for k in ("slack", "webhook") if k in source["spec"]))
    assert not validator.is_valid(source)


def test_the_sensor_may_only_create_jobs_in_the_kits_namespace(outputs: list[KitOutput]) -> None:
    for out in outputs:
        namespace = out.plan.kubernetes.namespace
        account = f"{out.plan.name}-webhook-sensor"  # an injecting proxy has a Role of its own (test_inject.py)
        (role,) = [r for r in of_kind(out, "Role") if r["metadata"]["name"] == account]
        (binding,) = [b for b in of_kind(out, "RoleBinding") if b["metadata"]["name"] == account]
        assert role["metadata"]["namespace"] == binding["metadata"]["namespace"] == namespace
        assert role["rules"] == [{"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["create"]}]
        sensor_account = binding["subjects"] == [
            {"kind": "ServiceAccount", "name": role["metadata"]["name"], "namespace": namespace}
        ]
        assert sensor_account and binding["roleRef"]["name"] == role["metadata"]["name"]
        accounts = {a["metadata"]["name"]: a["automountServiceAccountToken"] for a in of_kind(out, "ServiceAccount")}
        assert accounts[out.plan.name] is False  # the agent's own identity stays without rights or token
        assert role["metadata"]["name"] != out.plan.name
        for sensor in of_kind(out, "Sensor"):
            assert sensor["spec"]["template"]["serviceAccountName"] == role["metadata"]["name"]
            for job in sensor_jobs(sensor):
                assert job["metadata"]["namespace"] == namespace and job["kind"] == "Job"
                assert job["spec"]["template"]["spec"]["serviceAccountName"] == out.plan.name
        for source in of_kind(out, "EventSource"):
            assert accounts[source["spec"]["template"]["serviceAccountName"]] is False
        for argo in (*of_kind(out, "Sensor"), *of_kind(out, "EventSource")):  # high fixed uids, as every pod's
            template = argo["spec"]["template"]
            assert template["securityContext"]["runAsUser"] == template["securityContext"]["runAsGroup"] >= 10000
            assert template["container"]["securityContext"]["runAsUser"] >= 10000


def test_sessions_are_bounded_at_once_and_per_minute(outputs: list[KitOutput]) -> None:
    for out in outputs:
        hooks = out.plan.triggers.webhooks
        (quota,) = of_kind(out, "ResourceQuota")
        assert quota["spec"] == {"hard": {"pods": str(sum(h.max_sessions for h in hooks))}, "scopes": ["Terminating"]}
        sensors = {s["spec"]["dependencies"][0]["eventName"]: s for s in of_kind(out, "Sensor")}
        for hook in hooks:
            (trigger,) = sensors[hook.name]["spec"]["triggers"]
            assert trigger["rateLimit"] == {"unit": "Minute", "requestsPerUnit": hook.per_minute}
            pod = sensor_jobs(sensors[hook.name])[0]["spec"]["template"]["spec"]
            assert pod["activeDeadlineSeconds"] > 0  # in the quota's Terminating scope
        for _, doc in manifests(out):  # nothing else of the kit is in that scope
            if doc["kind"] in ("Job", "CronJob", "Deployment"):
                spec = doc["spec"].get("jobTemplate", doc)["spec"]["template"]["spec"]
                assert "activeDeadlineSeconds" not in spec, doc["kind"]


def test_the_event_is_a_read_only_file_of_an_annotation_the_sensor_fills(outputs: list[KitOutput]) -> None:
    for out in outputs:
        for sensor in of_kind(out, "Sensor"):
            (trigger,) = sensor["spec"]["triggers"]
            (parameter,) = trigger["template"]["k8s"]["parameters"]
            assert parameter["dest"] == "spec.template.metadata.annotations.sandkit\\.dev/event"
            assert set(parameter["src"]) == {"dependencyName", "dataKey"}  # no template, no default value
            pod = sensor_jobs(sensor)[0]["spec"]["template"]["spec"]
            volume = next(v for v in pod["volumes"] if v["name"] == argo_events.EVENT_VOLUME)
            assert volume["downwardAPI"]["items"] == [
                {"path": "event.json", "fieldRef": {"fieldPath": "metadata.annotations['sandkit.dev/event']"}}
            ]
            (agent,) = pod["containers"]
            assert {"name": "event", "mountPath": "/run/sandkit", "readOnly": True} in agent["volumeMounts"]
            assert {"name": "SANDKIT_EVENT", "value": "/run/sandkit/event.json"} in agent["env"]
            assert all(m["name"] != "event" for c in pod.get("initContainers", []) for m in c["volumeMounts"])


def test_each_source_gets_its_own_authentication(outputs: list[KitOutput]) -> None:
    secret = "chatops-webhooks"
    out = next(o for o in outputs if o.plan.name == "chatops" and "kubernetes/webhooks.yaml" in o.files)
    sources = {s["metadata"]["name"]: s["spec"] for s in of_kind(out, "EventSource")}
    slack = sources["chatops-webhook-slack"]["slack"]["slack"]
    assert slack["signingSecret"] == {"name": secret, "key": "SLACK_SIGNING_SECRET"}
    assert slack["token"] == {"name": secret, "key": "SLACK_VERIFICATION_TOKEN"}
    assert slack["webhook"]["endpoint"] == "/chatops/slack" and slack["webhook"]["method"] == "POST"
    jira = sources["chatops-webhook-jira"]["webhook"]["jira"]
    assert jira["authSecret"] == {"name": secret, "key": "JIRA_WEBHOOK_TOKEN"}
    assert jira["maxPayloadSize"] == argo_events.MAX_PAYLOAD
    agent_secret = "chatops-secrets"
    assert agent_secret != secret and secret not in out.files["kubernetes/job.yaml"].decode()


@pytest.mark.parametrize(
    ("value", "matches", "refuses"),
    [
        ("Ready for agent", ["Ready for agent"], ["Ready for agents", "xReady for agent", "ready for agent"]),
        ("a.b", ["a.b"], ["axb"]),
        (".*", [".*"], ["", "anything"]),
        ("(?i)x|y", ["(?i)x|y"], ["x", "X", "y"]),
        ("^$\\[]{}()+?", ["^$\\[]{}()+?"], [""]),
    ],
)
def test_filter_values_become_exact_patterns(value: str, matches: list[str], refuses: list[str]) -> None:
    """Python's re reads these escapes as Go's RE2 does (the Docker test runs Go's own regexp)."""
    pattern = re.compile(argo_events.exact_pattern(value))
    assert all(pattern.search(text) for text in matches)
    assert not any(pattern.search(text) for text in refuses)


STRUCTURED = HOSTILE.map(lambda t: re.sub(r"[\x00-\x1f\x7f\u0080-\u009f\u2028\u2029]", "", t).strip()).filter(bool)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=STRUCTURED, description=HOSTILE)
@example(value="${{ secrets.X }}", description="'\n--- x: 1")
@example(value="{{.Input}} $(id)", description="\\")
def test_hostile_kit_values_stay_one_value(tmp_path: Path, value: str, description: str) -> None:
    kit = {
        "apiVersion": "sandkit/v1",
        "name": "hostile",
        "agent": {"command": ["agent"]},
        "workspace": {"mode": "none"},
        "triggers": [
            {
                "webhook": {
                    "source": "jira",
                    "secret": "T",
                    "transition": value,
                    "match": {"$.issue.fields.status.name": [value]},
                    "fields": {"key": {"path": "$.issue.key", "description": description}},
                }
            }
        ],
    }
    out = compile_text(tmp_path, dump_kit(Kit.model_validate(kit)), ["docker", "kubernetes"], "hostile.yaml")
    (sensor,) = of_kind(out, "Sensor")
    filters = sensor["spec"]["dependencies"][0]["filters"]["data"]
    assert [f["value"] for f in filters] == [[argo_events.exact_pattern(value)]] * 2
    assert re.fullmatch(filters[0]["value"][0], value)


def test_each_sources_payload_is_addressed_where_its_argo_source_puts_it(tmp_path: Path) -> None:
    """Argo's webhook source wraps the body as `body` (a form's fields as lists); its Slack source emits
    the slash command's fields, or an Events API event as `{"type", "Data"}` (slack-go's marshalling)."""
    hooks = """\
triggers:
  - webhook: {source: slack, secret: S, verification_token: V, command: /agent, fields: {text: $.text}}
  - webhook: {source: slack, name: mentions, secret: S, verification_token: V, events: [app_mention],
              fields: {text: $.text}}
  - webhook: {source: twilio, secret: T, match: {$.From: ["+15550100"]}, fields: {text: $.Body}}
  - webhook: {source: datadog, secret: D, events: [metric_alert_monitor], fields: {title: "$.tags[0]"}}
"""
    text = "apiVersion: sandkit/v1\nname: paths\nagent: {command: [agent]}\nworkspace: {mode: none}\n" + hooks
    out = compile_text(tmp_path, text, ["docker", "kubernetes"])
    seen = {}
    for sensor in of_kind(out, "Sensor"):
        (dependency,) = sensor["spec"]["dependencies"]
        (trigger,) = sensor["spec"]["triggers"]
        filters = [(f["path"], f["value"]) for f in dependency["filters"]["data"]]
        seen[dependency["eventName"]] = (filters, trigger["template"]["k8s"]["parameters"][0]["src"]["dataKey"])
    assert seen == {
        "slack": ([("command", ["^/agent$"])], '{"text":text}'),
        "mentions": ([("Data.type", ["^app_mention$"])], '{"text":Data.text}'),
        "twilio": ([("body.From.0", ["^\\+15550100$"])], '{"text":body.Body.0}'),
        "datadog": ([("body.event_type", ["^metric_alert_monitor$"])], '{"title":body.tags.0}'),
    }
