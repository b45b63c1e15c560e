"""The plan: every fact a target needs, and nothing of the kit itself."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sandkit.compiler.plan import ActionsSettings, GithubEvent, KubernetesSettings, Plan, Triggers, make_plan
from sandkit.kits.loader import load_kit
from tests.compiler.helpers import EXAMPLES, OWN_KITS

KIT = """\
apiVersion: sandkit/v1
name: planned
agent: {command: [agent]}
workspace: {mode: none}
triggers:
  - github: {event: pull_request, types: [opened], branches: [main], paths: ["src/**"]}
  - schedule: "0 9 * * 1"
  - manual: {}
  - schedule: "0 9 * * 1"
  - github: {event: issues}
targets:
  kubernetes: {egress: cilium, sandbox_crd: true, secret_name: keys}
  actions: {runs_on: ubuntu-24.04, permissions: {pull-requests: read, issues: read}, publish: comment}
"""


def _plan(tmp_path: Path, text: str) -> Plan:
    path = tmp_path / "kit.yaml"
    path.write_text(text, encoding="utf-8")
    return make_plan(load_kit(path))


def _holds_a_model(value: Any) -> bool:
    if isinstance(value, BaseModel):
        return True
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_holds_a_model(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, tuple | list):
        return any(_holds_a_model(item) for item in value)
    return False


def test_the_plan_holds_no_part_of_the_kit_model(tmp_path: Path) -> None:
    """Targets cannot look at the kit again: nothing on the plan is a kit model object."""
    for kit in [*EXAMPLES, *OWN_KITS]:
        assert not _holds_a_model(make_plan(load_kit(kit)))
    assert not _holds_a_model(_plan(tmp_path, KIT))


def test_triggers_are_grouped_by_kind_in_the_kits_order(tmp_path: Path) -> None:
    assert _plan(tmp_path, KIT).triggers == Triggers(
        schedules=("0 9 * * 1", "0 9 * * 1"),
        # workspace mode none: nothing to check a pull request's head out in
        github=(GithubEvent("pull_request", ("opened",), ("main",), ("src/**",)), GithubEvent("issues")),
        manual=True,
    )


def test_no_triggers_is_not_a_request(tmp_path: Path) -> None:
    plan = _plan(tmp_path, KIT.split("triggers:")[0])
    assert plan.triggers == Triggers() and not plan.triggers.requested


def test_target_settings_with_their_defaults_applied(tmp_path: Path) -> None:
    plan = _plan(tmp_path, KIT)
    assert plan.kubernetes == KubernetesSettings("planned", True, "cilium", True, "keys")
    assert plan.actions == ActionsSettings("ubuntu-24.04", (("issues", "read"), ("pull-requests", "read")), "comment")
    defaults = _plan(tmp_path, KIT.split("triggers:")[0])
    assert defaults.kubernetes == KubernetesSettings(namespace="planned")
    assert defaults.actions == ActionsSettings()
