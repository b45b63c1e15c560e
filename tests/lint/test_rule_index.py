"""The generated rule index, and what it buys: a scan imports only the rule families a file could
make fire, and finds exactly what a scan with every family imported finds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sandkit.lint.registry import index_rows
from tests.lint.helpers import lint_tree
from tests.lint.test_corpus import CASES

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("pydantic", "ruamel", "jinja2", "jsonschema", "sandkit.compiler", "sandkit.kits")
COMPOSE = "services:\n  web:\n    image: nginx:1.25\n    ports: ['8080:80']\n"
WORKFLOW = """\
name: ci
on: [push]
permissions:
  contents: read
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@b4ffde65f46336ab88eb53be808477a3936bae11
      - run: make test
"""


def test_the_index_matches_the_rule_families() -> None:
    from sandkit.lint import rule_index
    from sandkit.lint.write_rule_index import index_text

    assert list(rule_index.RULES) == index_rows(), "run: python -m sandkit.lint.write_rule_index"
    path = Path(rule_index.__file__)
    assert path.read_text(encoding="utf-8") == index_text(), "run: python -m sandkit.lint.write_rule_index"


def _modules_after(code: str, cwd: Path) -> set[str]:
    """The modules a fresh interpreter holds after ``code``, started as an installed console
    script's is: without the start-up code of .pth files (an editable install's finder imports
    typing and pathlib at every start), seeing this checkout and the installed dependencies."""
    script = f"import sys\n{code}\nprint('\\n'.join(sys.modules), file=sys.stderr)"
    path = os.pathsep.join([str(REPO), *(entry for entry in sys.path if entry)])
    done = subprocess.run(
        [sys.executable, "-S", "-c", script],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert done.returncode == 0, done.stderr
    return set(done.stderr.splitlines())


def test_linting_a_compose_file_and_a_workflow_imports_only_what_they_need(tmp_path: Path) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    (tmp_path / "Dockerfile").write_text('FROM python:3.12-slim\nCOPY app /app\nCMD ["python", "/app/main.py"]\n')
    (tmp_path / "run.sh").write_text("#!/bin/sh\nset -eu\necho hello\n")
    (tmp_path / ".sandkit.toml").write_text(
        'exclude = ["vendor"]\nselect = ["ALL"]\n[per-path-ignores]\n"tests/**" = ["PS001"]\n'
    )
    code = "from sandkit.cli import main\nmain(['lint', 'compose.yaml', '.github/workflows/ci.yml', 'Dockerfile', 'run.sh'])"
    loaded = _modules_after(code, tmp_path)
    assert "sandkit.lint.engine" in loaded and "sandkit.lint.syntax.toml" in loaded  # it did lint, configured
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)) == []
    families = {m.rsplit(".", 1)[-1] for m in loaded if m.startswith("sandkit.lint.rules.")}
    # every family with a rule that has no trigger, or whose trigger these files hold; never the
    # agent-file families, and never the repository passes' (there is no finding to pass over)
    assert families <= {"hidden_unicode", "plaintext_secret", "privileged", "agent_workflows", "ci_permissions"}
    assert not families & {"agent_instructions", "agent_mcp", "agent_autorun", "escalation", "image_secret"}
    assert not {"sandkit.lint.reporters.statistics", "sandkit.lint.catalogue", "hashlib"} & loaded
    # the records on this path are NamedTuples and plain classes: building dataclasses (and
    # importing dataclasses, which imports inspect, ast, dis and tokenize) cost a fifth of the run
    assert not {"dataclasses", "inspect"} & loaded
    # typing (its import and its NamedTuple's compiled annotations: sandkit.lean_typing), PyYAML
    # (block YAML is composed without it: sandkit.lint.syntax.block_yaml), and tomllib (the
    # configuration is read without it: sandkit.lint.syntax.plain_toml) were half of the run
    assert not {"typing", "yaml", "datetime", "tomllib"} & loaded
    # nor argparse and gettext: `sandkit lint PATH...` with no flag is read without them (sandkit.cli)
    assert not {"argparse", "gettext"} & loaded

    # readers of kinds these files are not, and the other sub-commands' arguments
    unneeded = {
        "sandkit.lint.facts.infrastructure",
        "sandkit.lint.syntax.hcl",
        "sandkit.lint.facts.kubernetes",
        "sandkit.lint.facts.ansible",
        "sandkit.lint.facts.ci_runners",
        "sandkit.lint.facts.units",
        "sandkit.lint.facts.testcontainers",
        "sandkit.lint.facts.agent_settings",
        "sandkit.lint.facts.mcp_servers",
        "sandkit.review.arguments",
        "sandkit.importer",
    }
    assert sorted(unneeded & loaded) == []


_SCAN_WITH_THE_INDEX = """
import json, sys
from sandkit.lint.engine import ScanOptions, scan
from sandkit.lint.registry import rule_index
from sandkit.lint.discovery import PathPatterns
out = {}
for case in sys.argv[1:]:
    result = scan([case], case, ScanOptions(tuple(r.id for r in rule_index())), PathPatterns(()), 1)
    assert not result.crashes, result.crashes
    out[case] = [[f.path, f.line, f.column, f.rule, f.severity, f.message] for f in result.findings]
print(json.dumps(out))
"""


def test_importing_families_on_demand_finds_what_importing_all_finds() -> None:
    """A fresh process, families imported as files call for them, against this one (all imported)."""
    done = subprocess.run(
        [sys.executable, "-c", _SCAN_WITH_THE_INDEX, *map(str, CASES)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    on_demand = json.loads(done.stdout)
    for case in CASES:
        expected = [[f.path, f.line, f.column, f.rule, f.severity, f.message] for f in lint_tree(case)]
        assert on_demand[str(case)] == expected, case.name


def test_a_run_with_findings_loads_neither_openssl_nor_textwrap(tmp_path: Path) -> None:
    """Fingerprints come from CPython's own SHA-256 and fix texts from the docstrings as written:
    hashlib's OpenSSL and dedenting every rule's documentation cost each process 5-8 ms."""
    (tmp_path / "compose.yaml").write_text(COMPOSE + "    volumes: ['/var/run/docker.sock:/s']\n")
    code = "from sandkit.cli import main\nassert main(['lint', '--format', 'json', 'compose.yaml']) == 1"
    loaded = _modules_after(code, tmp_path)
    assert "sandkit.lint.rules.runtime_socket" in loaded
    assert not {"hashlib", "_hashlib", "textwrap"} & loaded


def test_fingerprints_are_hashlibs_sha256() -> None:
    import hashlib

    from sandkit.lint.engine import fingerprint

    data = "\0".join(("RS001", "a/compose.yaml", "- /var/run/docker.sock:/s", "0"))
    assert (
        fingerprint("RS001", "a/compose.yaml", "  - /var/run/docker.sock:/s ", 0)
        == (hashlib.sha256(data.encode()).hexdigest()[:32])
    )


def test_each_rules_fix_text_is_its_documented_fix_section() -> None:
    from sandkit.lint.registry import all_rules

    rules = all_rules()
    assert all(r.fix == " ".join(r.sections.get("Fix", "").split()) for r in rules)
    assert sum(1 for r in rules if r.fix) >= 60
