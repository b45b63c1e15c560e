"""The actions target's webhooks: dispatch triggers, typed inputs, and the event step run for real.

The event step is the workflow's one `shell: python` script; these tests run it with python3, as a
runner does, on GitHub's event file for hostile dispatches: the agent's file holds the selected
fields, decoded to exactly what was sent, and nothing else; a filter is an exact comparison.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from sandkit.compiler.targets import actions
from tests.compiler.helpers import compile_text
from tests.compiler.test_hostile_values import HOSTILE

KIT = """\
apiVersion: sandkit/v1
name: chat
agent: {command: [agent]}
workspace: {mode: none}
triggers:
  - webhook:
      source: slack
      secret: SLACK_SIGNING_SECRET
      verification_token: SLACK_VERIFICATION_TOKEN
      command: /agent
      fields: {request: $.text, user: $.user_name}
  - webhook:
      source: jira
      secret: JIRA_TOKEN
      transition: Ready for agent
      dispatch: workflow_dispatch
      fields:
        key: {path: $.issue.key, description: the issue}
        points: {path: $.issue.fields.points, type: number}
        urgent: {path: $.issue.fields.urgent, type: boolean}
  - webhook:
      source: generic
      secret: T
      match: {$.state: [firing, "a.b"]}
      fields: {title: $.alert.title, first: "$.alert.labels[0]"}
  - schedule: "0 9 * * 1"
"""


def _workflow(tmp_path: Path, text: str = KIT) -> dict[str, Any]:
    out = compile_text(tmp_path, text)
    document: dict[str, Any] = YAML(typ="safe").load(out.files[f"workflows/{out.plan.name}.yml"])
    return document


def test_webhooks_become_dispatch_triggers_with_typed_inputs(tmp_path: Path) -> None:
    on = _workflow(tmp_path)["on"]
    assert on["repository_dispatch"] == {"types": ["slack", "generic"]}
    assert on["workflow_dispatch"] == {
        "inputs": {
            "key": {"type": "string", "required": False, "description": "the issue"},
            "points": {"type": "number", "required": False},
            "urgent": {"type": "boolean", "required": False},
        }
    }
    assert on["schedule"] == [{"cron": "0 9 * * 1"}]


def test_the_event_step_comes_before_the_agent_which_it_can_skip(tmp_path: Path) -> None:
    steps = _workflow(tmp_path)["jobs"]["agent"]["steps"]
    names = [s["name"] for s in steps]
    event, agent = (
        steps[names.index("Write the event file from the dispatch")],
        steps[names.index("Run the agent in its sandbox")],
    )
    assert names.index(event["name"]) + 1 == names.index(agent["name"])
    assert event["shell"] == "python" and event["run"] == actions.EVENT_SCRIPT and "secrets" not in str(event)
    assert agent["if"] == "${{ steps.event.outputs.skip != 1 }}"
    hooks = json.loads(event["env"]["SANDKIT_WEBHOOKS"])
    assert hooks["generic"]["matches"] == [[["state"], ["firing", "a.b"]]]
    assert hooks["slack"]["fields"] == [["request", ["text"], "string"], ["user", ["user_name"], "string"]]


def test_a_kit_without_webhooks_gets_no_event_step(tmp_path: Path) -> None:
    text = KIT.split("triggers:")[0] + "triggers: [{manual: {}}]\n"
    steps = _workflow(tmp_path, text)["jobs"]["agent"]["steps"]
    assert all(s.get("shell") != "python" and "if" not in s for s in steps if "Run the agent" in s["name"])
    assert not any(s["name"].startswith("Write the event") for s in steps)


def _hooks(tmp_path: Path) -> str:
    steps = _workflow(tmp_path)["jobs"]["agent"]["steps"]
    return str(next(s for s in steps if s.get("shell") == "python")["env"]["SANDKIT_WEBHOOKS"])


def run_event_step(folder: Path, hooks: str, name: str, event: dict[str, Any]) -> tuple[str, bytes | None]:
    """The step as the runner runs it; (its outputs, the event file or None)."""
    for child in ("runner", "output", "event.json"):
        target = folder / child
        if target.is_dir():
            for item in target.rglob("*"):
                if item.is_file():
                    item.unlink()
    (folder / "runner").mkdir(exist_ok=True)
    (folder / "event.json").write_text(json.dumps(event), encoding="utf-8")
    (folder / "output").write_text("", encoding="utf-8")
    env = {
        "PATH": os.environ["PATH"],
        "SANDKIT_WEBHOOKS": hooks,
        "SANDKIT_EVENT_FILE": "event.json",
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(folder / "event.json"),
        "GITHUB_OUTPUT": str(folder / "output"),
        "RUNNER_TEMP": str(folder / "runner"),
    }
    done = subprocess.run(
        [sys.executable, "-c", actions.EVENT_SCRIPT], env=env, capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    written = folder / "runner" / "sandkit-event" / "event.json"
    return (folder / "output").read_text(encoding="utf-8"), written.read_bytes() if written.exists() else None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(title=HOSTILE, label=HOSTILE, other=HOSTILE, state=st.one_of(st.sampled_from(["firing", "a.b", "axb"]), HOSTILE))
@example(title="${{ secrets.T }}", label="$(id)\n", other="`id`", state="firing")
@example(title='\\u0000"]}', label="--- !!python/object:x", other="", state="a.b ")
def test_a_hostile_dispatch_reaches_the_file_intact_and_alone(
    tmp_path: Path, title: str, label: str, other: str, state: str
) -> None:
    hooks = _hooks(tmp_path)
    payload = {"state": state, "alert": {"title": title, "labels": [label, other], "other": other}, "x": other}
    output, written = run_event_step(
        tmp_path, hooks, "repository_dispatch", {"action": "generic", "client_payload": payload}
    )
    if state in ("firing", "a.b"):
        assert output == "" and written is not None
        assert json.loads(written) == {"title": title, "first": label}
        assert written.isascii()  # every non-ASCII character escaped: the file decodes the same anywhere
    else:
        assert output == "skip=1\n" and written is None


def test_workflow_dispatch_inputs_are_typed_and_absent_ones_left_out(tmp_path: Path) -> None:
    hooks = _hooks(tmp_path)
    inputs = {"key": "OPS-1", "points": "5", "urgent": "true"}
    _, written = run_event_step(tmp_path, hooks, "workflow_dispatch", {"inputs": inputs})
    assert written is not None and json.loads(written) == {"key": "OPS-1", "points": 5, "urgent": True}
    _, written = run_event_step(tmp_path, hooks, "workflow_dispatch", {"inputs": {"key": "", "points": "many"}})
    assert written is not None and json.loads(written) == {"key": ""}


def test_other_events_and_other_dispatches_write_no_file(tmp_path: Path) -> None:
    hooks = _hooks(tmp_path)
    assert run_event_step(tmp_path, hooks, "schedule", {"schedule": "0 9 * * 1"}) == ("", None)
    assert run_event_step(tmp_path, hooks, "repository_dispatch", {"action": "other", "client_payload": {}}) == (
        "",
        None,
    )
    output, written = run_event_step(
        tmp_path,
        hooks,
        "repository_dispatch",
        {"action": "slack", "client_payload": {"command": "/agent", "text": ["x"]}},
    )
    assert output == "" and written is not None and json.loads(written) == {"request": ["x"]}
