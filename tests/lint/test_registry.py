"""The rule registry: one explicit list of families, what a lint run imports, and findings that do
not depend on what the process read before."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

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


def test_every_family_module_is_in_the_one_list() -> None:
    import sandkit.lint.rules as package
    from sandkit.lint.registry import all_rules
    from sandkit.lint.rules import FAMILIES

    modules = sorted(p.stem for p in Path(package.__file__).parent.glob("*.py") if not p.name.startswith("_"))
    assert sorted(FAMILIES) == modules and len(set(FAMILIES)) == len(FAMILIES)
    from sandkit.lint.repository import _PASSES

    families = {r.check.__module__.rsplit(".", 1)[-1] for r in all_rules() if r.check is not None}
    passes = [function.__module__.rsplit(".", 1)[-1] for _, function in _PASSES]
    assert families | set(passes) == set(FAMILIES)
    # they run in the list's order, whatever order their modules were imported (and so registered) in
    assert _run_order(FAMILIES) == sorted(passes, key=FAMILIES.index)


def _run_order(families: tuple[str, ...]) -> list[str]:
    """The families of the passes in the order run_passes calls them, registered in reverse."""
    import sandkit.lint.repository as repository
    from sandkit.lint.model import Finding

    called: list[str] = []

    def recorder(family: str) -> repository.Pass:
        def record(findings: list[Finding], repo: repository.RepositoryView) -> list[Finding]:
            called.append(family)
            return findings

        record.__module__ = f"sandkit.lint.rules.{family}"
        return record

    saved = list(repository._PASSES)
    try:
        repository._PASSES[:] = [(name, recorder(f.__module__.rsplit(".", 1)[-1])) for name, f in reversed(saved)]
        repository.run_passes([], repository.RepositoryView("."), families)
    finally:
        repository._PASSES[:] = saved
    return called


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
    assert "sandkit.lint.engine" in loaded and "sandkit.syntax.toml" in loaded  # it did lint, configured
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)) == []
    # the records on this path are NamedTuples and plain classes: building dataclasses (and
    # importing dataclasses, which imports inspect, ast, dis and tokenize) cost a fifth of the run
    assert not {"dataclasses", "inspect"} & loaded

    # the other sub-commands' arguments
    assert not {"sandkit.review.arguments", "sandkit.importer"} & loaded


_READ_BEFORE = """
import json, sys
from pathlib import Path
from sandkit.lint.engine import ScanOptions, scan
from sandkit.lint.registry import all_rules
from sandkit.lint.discovery import PathPatterns
options = ScanOptions(tuple(r.id for r in all_rules()))
before, case = Path(sys.argv[1]), sys.argv[2]
for n in range(int(sys.argv[3])):  # other YAML, JSON and TOML files read by this process first
    for name in ("compose.yaml", "devcontainer.json", "config.toml"):
        scan([str(before / name)], str(before), options, PathPatterns(()), 1)
result = scan([case], case, options, PathPatterns(()), 1)
print(json.dumps([[f.path, f.line, f.column, f.rule, f.severity, f.message] for f in result.findings]))
"""


def test_findings_do_not_depend_on_what_the_process_read_before(tmp_path: Path) -> None:
    """The same corpus case gives the same findings in a fresh process and in one that first read
    a hundred other structured files (the parser of a file is its format's, always)."""
    (tmp_path / "compose.yaml").write_text(COMPOSE + "    privileged: true\n")
    (tmp_path / "devcontainer.json").write_text('{"runArgs": ["--privileged"], // c\n}')
    (tmp_path / "config.toml").write_text('[mcp_servers.x]\ncommand = "npx"\nargs = ["y"]\n')

    def findings(case: Path, count: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", _READ_BEFORE, str(tmp_path), str(case), count],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    # 24 independent processes: side by side they use every core instead of one (pytest runs on one)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        runs = {case: [pool.submit(findings, case, count) for count in ("0", "100")] for case in CASES[:12]}
        for case, (fresh, after_others) in runs.items():
            assert fresh.result() == after_others.result(), case.name


def test_a_run_with_findings_does_not_dedent_every_rules_documentation(tmp_path: Path) -> None:
    """Fix texts come from the docstrings as written: dedenting every rule's documentation cost
    each process some milliseconds."""
    (tmp_path / "compose.yaml").write_text(COMPOSE + "    volumes: ['/var/run/docker.sock:/s']\n")
    code = "from sandkit.cli import main\nassert main(['lint', '--format', 'json', 'compose.yaml']) == 1"
    loaded = _modules_after(code, tmp_path)
    assert "sandkit.lint.rules.runtime_socket" in loaded
    assert "textwrap" not in loaded


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
