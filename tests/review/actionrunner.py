"""Run a composite action's steps here as a GitHub runner would: contexts, ``if:``, env, outputs.

Enough of GitHub's expression language for sandkit's own action.yml: context paths (``inputs.x``,
``github.event.pull_request.number``, ``steps.id.outputs.name``), string literals, ``==``, ``!=``,
``!``, ``&&``, ``||`` (with GitHub's "first truthy operand" result) and ``always()``. A step that
``uses:`` another action is recorded, not run. Every ``run:`` goes through ``bash -e -o pipefail``,
which is what ``shell: bash`` means on a GitHub runner.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

_TOKEN = re.compile(r"\s*('(?:[^']|'')*'|&&|\|\||==|!=|!|\(|\)|always\(\)|[A-Za-z_][\w.-]*)")
_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}")


@dataclass
class Run:
    """What one run of the action did: each step's exit code, outputs, and what it printed."""

    codes: dict[str, int] = field(default_factory=dict)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    logs: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(code != 0 for code in self.codes.values())


def _lookup(context: dict[str, Any], path: str) -> Any:
    value: Any = context
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def evaluate(expression: str, context: dict[str, Any]) -> Any:
    """The value of a GitHub expression (the part inside ``${{ }}``, or an ``if:``)."""
    tokens = _TOKEN.findall(expression)
    if "".join(tokens).replace(" ", "") != expression.replace(" ", ""):
        raise ValueError(f"unsupported expression: {expression!r}")
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def primary() -> Any:
        token = take()
        if token == "!":
            return not primary()
        if token == "(":
            value = either()
            take()
            return value
        if token == "always()":
            return True
        if token.startswith("'"):
            return token[1:-1].replace("''", "'")
        return _lookup(context, token)

    def comparison() -> Any:
        left = primary()
        while peek() in ("==", "!="):
            operator, right = take(), primary()
            same = str(left if left is not None else "") == str(right if right is not None else "")
            left = same if operator == "==" else not same
        return left

    def both() -> Any:
        left = comparison()
        while peek() == "&&":
            take()
            right = comparison()
            left = right if left else left
        return left

    def either() -> Any:
        left = both()
        while peek() == "||":
            take()
            right = both()
            left = left if left else right
        return left

    return either()


def substitute(text: str, context: dict[str, Any]) -> str:
    def one(match: re.Match[str]) -> str:
        value = evaluate(match.group(1).strip(), context)
        return "" if value is None else str(value)

    return _EXPRESSION.sub(one, text)


def run_action(
    action: Path,
    inputs: dict[str, str],
    github: dict[str, Any],
    runner_temp: Path,
    workspace: Path,
    env: dict[str, str],
    reuse: dict[str, dict[str, str]] | None = None,
) -> Run:
    """Run every step of ``action`` (a composite action.yml) with these inputs and ``github`` context.

    A step whose id is in ``reuse`` is not run again: its outputs are taken from there (a test that
    runs the action several times installs sandkit once).
    """
    spec = YAML(typ="safe").load(action.read_text(encoding="utf-8"))
    defaults = {name: str(meta.get("default", "")) for name, meta in spec["inputs"].items()}
    context: dict[str, Any] = {"github": github, "steps": {}}
    context["inputs"] = {name: substitute(value, context) for name, value in defaults.items()} | inputs
    result = Run()
    summary = runner_temp / "step-summary.md"
    for index, step in enumerate(spec["runs"]["steps"]):
        name = step.get("id") or f"step{index}"
        condition = str(step.get("if", "")).strip()
        condition = condition[3:-2].strip() if condition.startswith("${{") else condition
        if "always()" in condition:
            runs = bool(evaluate(condition, context))
        else:  # GitHub's implicit success(): a step after a failed one is skipped
            runs = not result.failed and (not condition or bool(evaluate(condition, context)))
        if not runs:
            result.skipped.append(name)
            continue
        if "uses" in step:
            result.used.append(step["uses"])
            continue
        if reuse and name in reuse:
            result.outputs[name] = reuse[name]
            context["steps"][name] = {"outputs": reuse[name], "outcome": "success"}
            continue
        output = runner_temp / f"output-{index}"
        output.write_text("")
        step_env = {key: substitute(str(value), context) for key, value in (step.get("env") or {}).items()}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env=os.environ
            | env
            | {"RUNNER_TEMP": str(runner_temp), "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)}
            | step_env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        result.codes[name] = done.returncode
        result.logs[name] = done.stdout + done.stderr
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
        result.outputs[name] = outputs
        context["steps"][name] = {"outputs": outputs, "outcome": "success" if done.returncode == 0 else "failure"}
    return result
