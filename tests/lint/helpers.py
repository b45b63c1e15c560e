"""Shared helpers for linter tests: lint a small in-memory repository and look at findings."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from sandkit.lint.discovery import PathPatterns
from sandkit.lint.engine import ScanOptions, scan
from sandkit.lint.model import Finding
from sandkit.lint.registry import all_rules
from sandkit.lint.selection import select_rules
from sandkit.lint.source import RuleSettings


def lint_tree(
    root: Path,
    select: tuple[str, ...] = (),
    jobs: int = 1,
    exclude: tuple[str, ...] = (),
    max_bytes: int = 2_000_000,
    settings: RuleSettings | None = None,
) -> list[Finding]:
    """Scan ``root`` with every rule (or the selected ones) in this process."""
    rules = select_rules(all_rules(), select, ())
    options = ScanOptions(tuple(r.id for r in rules), settings or RuleSettings(), max_bytes)
    result = scan([str(root)], str(root), options, PathPatterns(exclude), jobs)
    assert not result.crashes, result.crashes
    return result.findings


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def lint_files(files: Mapping[str, str | bytes], select: tuple[str, ...] = ()) -> list[Finding]:
    """Write ``files`` into a fresh folder and scan it."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_tree(root, files)
        return lint_tree(root, select)


def lint_text(name: str, text: str, select: tuple[str, ...] = ()) -> list[Finding]:
    """Lint one file called ``name`` (a relative path: its name decides its kind)."""
    return lint_files({name: text}, select)


#: Where the workflow fixtures of the CI rules' tests are written.
WORKFLOW = ".github/workflows/ci.yml"


def workflow_findings(text: str, rule: str) -> list[tuple[int, str, str]]:
    """(line, severity, message) of one rule's findings on a workflow written at :data:`WORKFLOW`."""
    return [(f.line, f.severity, f.message) for f in lint_text(WORKFLOW, text) if f.rule == rule]


def one_run_step(line: str, env: str = "") -> str:
    """A push workflow with read-only permissions whose one job runs ``make`` and then ``line``
    (``env``: the job's lines before its steps, indented four spaces)."""
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        f"{env}    steps:\n      - run: |\n          make\n          {line}\n"
    )


def rules_of(findings: list[Finding]) -> set[str]:
    return {f.rule for f in findings}


def categories_of(findings: list[Finding]) -> set[str]:
    return {f.category for f in findings}


def at(findings: list[Finding], rule: str) -> list[tuple[int, int]]:
    return [(f.line, f.column) for f in findings if f.rule == rule]


def chdir(path: Path) -> str:
    """Change directory, returning the old one (for tests of relative paths)."""
    old = os.getcwd()
    os.chdir(path)
    return old


def run_sandkit(
    args: list[str], env: dict[str, str] | None = None, *, input: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m sandkit ARGS`` in a child process, without the caller's colour settings."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "sandkit", *args],
        capture_output=True,
        text=True,
        env=full_env,
        check=False,
        input=input,
        cwd=cwd,
    )


def agent_job(*lines: str) -> str:
    """A push workflow granting pull-requests: write whose one job runs ``lines``."""
    body = "".join(f"          {line}\n" for line in lines)
    return (
        "on: push\npermissions:\n  contents: read\n  pull-requests: write\njobs:\n  setup:\n"
        "    runs-on: ubuntu-latest\n    steps:\n      - run: |\n" + body
    )
