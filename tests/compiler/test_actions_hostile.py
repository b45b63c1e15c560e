"""The hostile-value tests of test_hostile_values.py, extended to the workflow.

Free text (env, install, startup, command arguments, instructions, files) must not reach the
workflow at all; the structured values that do (trigger filters, the runner label) come out intact
or are refused, and never add a `${{ }}` that GitHub would evaluate.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from ruamel.yaml import YAML

from sandkit.compiler.command import KitOutput, compile_kit
from sandkit.compiler.targets import actions
from sandkit.errors import KitError
from sandkit.kits.dump import dump_kit
from sandkit.kits.model import Kit
from tests.compiler.test_hostile_values import HOSTILE, _kit

TARGETS = ["docker", "compose", "actions"]
EXPRESSION = re.compile(r"\$\{\{.*?\}\}")
#: Hostile text as a structured (one-line) field can hold it: no control characters, no blank ends.
STRUCTURED = HOSTILE.map(lambda t: re.sub(r"[\x00-\x1f\x7f\u0080-\u009f\u2028\u2029]", "", t).strip()).filter(bool)
WORKFLOW = "workflows/hostile.yml"


def _compile(kit: Kit) -> KitOutput:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kit.yaml"
        path.write_text(dump_kit(kit), encoding="utf-8")
        return compile_kit(path, Path(folder) / "out", TARGETS)


def _normalised(out: KitOutput) -> str:
    """The workflow with the kit's path, its sha256 (header) and its normalised sha256 (image tags, the proxy's env) blanked."""
    sha, config = out.plan.kit_sha256, out.plan.config_sha256
    text = out.files[WORKFLOW].decode().replace(out.plan.kit_path, "KIT")
    # The proxy is told the kit's whole digest, quoted where YAML would read it as a number.
    text = text.replace(sha, "SHA").replace(f"'{config}'", config).replace(config, "CONFIG")
    return text.replace(sha[:12], "SHA12").replace(config[:12], "CONFIG12")


BASELINE = _compile(_kit(dict.fromkeys(["text", "env", "install", "startup", "arg"], "plain")))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=HOSTILE, env=HOSTILE, install=HOSTILE, startup=HOSTILE, arg=HOSTILE)
@example(
    text="${{ secrets.X }}\n${{ github.event.issue.title }}",
    env="${{ toJSON(secrets) }}",
    install="$(id)",
    startup="`id`",
    arg="${{ github.token }}",
)
def test_free_text_never_reaches_the_workflow(text: str, env: str, install: str, startup: str, arg: str) -> None:
    out = _compile(_kit({"text": text, "env": env, "install": install, "startup": startup, "arg": arg}))
    assert _normalised(out) == _normalised(BASELINE)


def _with_filters(value: str, runs_on: str) -> Kit:
    base = _kit(dict.fromkeys(["text", "env", "install", "startup", "arg"], "plain")).model_dump(by_alias=True)
    base["triggers"] = [
        {"github": {"event": "push", "branches": [value], "paths": [value]}},
        {"github": {"event": "issues", "types": [value]}},
    ]
    base["targets"]["actions"]["runs_on"] = runs_on
    return Kit.model_validate(base)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=STRUCTURED, runs_on=st.one_of(st.just("ubuntu-latest"), STRUCTURED))
@example(value="${{ github.event.head_commit.message }}", runs_on="ubuntu-latest")
@example(value="main", runs_on="${{ github.event.comment.body }}")
@example(value="'] }} \n- x", runs_on="self-hosted")
def test_structured_values_are_intact_or_refused(value: str, runs_on: str) -> None:
    try:
        kit = _with_filters(value, runs_on)
    except ValidationError:
        assume(False)  # the kit format already refuses it (control characters, blank ends)
        return
    try:
        out = _compile(kit)
    except KitError as error:
        assert "${{" in value or not actions.RUNNER_LABEL.fullmatch(runs_on), error
        assert "kit.yaml: error: " in str(error)
        return
    text = out.files[WORKFLOW].decode()
    document: dict[str, Any] = YAML(typ="safe").load(text)
    assert document["on"]["push"] == {"branches": [value], "paths": [value]}
    assert document["on"]["issues"] == {"types": [value]}
    assert document["jobs"]["agent"]["runs-on"] == runs_on
    # push writes the image cache and issues only reads it: the event picks one of two builds per image
    builds = {"${{ github.event_name == 'push' }}", "${{ github.event_name != 'push' }}"}
    found = EXPRESSION.findall(text)
    assert {e for e in found if e in builds} == builds
    assert sorted(e for e in found if e not in builds) == sorted(EXPRESSION.findall(BASELINE.files[WORKFLOW].decode()))
    # the same scripts as the baseline's, and the GitHub event step (the baseline has no github trigger)
    # (the scripts only: here the event picks one of two builds per image, the baseline has one)
    own = [s["run"] for s in document["jobs"]["agent"]["steps"] if s.get("run", actions.GITHUB_EVENT_SCRIPT)
           != actions.GITHUB_EVENT_SCRIPT]  # fmt: skip
    baseline = YAML(typ="safe").load(BASELINE.files[WORKFLOW])["jobs"]["agent"]["steps"]
    assert own == [s["run"] for s in baseline if "run" in s]
