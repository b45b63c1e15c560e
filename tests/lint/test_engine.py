"""The engine: discovery, kinds, parse errors, caps, suppressions and fingerprints."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandkit.lint.discovery import Candidate, discover
from sandkit.lint.engine import FileResult
from sandkit.lint.kinds import kind_by_content, kind_by_name
from tests.lint.helpers import lint_files, lint_tree, rules_of, write_tree

BROKEN_COMPOSE = "services:\n  web: [\n"


def test_broken_structured_file_is_a_parse_error_and_scan_goes_on() -> None:
    findings = lint_files({"compose.yaml": BROKEN_COMPOSE, "other/compose.yml": BROKEN_COMPOSE})
    errors = [f for f in findings if f.rule == "SK001"]
    assert [f.path for f in errors] == ["compose.yaml", "other/compose.yml"]
    assert errors[0].category == "parse-error"
    assert errors[0].line == 3


def test_broken_devcontainer_json_reports_line_and_column() -> None:
    findings = lint_files({".devcontainer/devcontainer.json": '{\n  "a": 1,\n  "b" 2\n}\n'})
    assert [(f.rule, f.line, f.column) for f in findings] == [("SK001", 3, 7)]


def test_jsonc_comments_and_trailing_commas_are_not_errors() -> None:
    text = '// top\n{\n  /* block */ "image": "x", // tail\n  "mounts": [],\n}\n'
    assert lint_files({".devcontainer/devcontainer.json": text}) == []


def test_discovery_reads_hidden_folders_skips_git_and_dependencies(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".hidden/compose.yaml": "services: {}\n",
            ".git/config.yaml": "x: 1\n",
            "node_modules/pkg/compose.yaml": "services: {}\n",
            "node_modules/pkg/CLAUDE.md": "hi\n",
            "vendor/x/.mcp.json": "{}\n",
        },
    )
    found = {c.path: c.in_dependency for c in discover([str(tmp_path)], str(tmp_path))}
    assert found == {".hidden/compose.yaml": False, "node_modules/pkg/CLAUDE.md": True, "vendor/x/.mcp.json": True}


def test_discovery_never_escapes_the_root_or_loops(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    write_tree(outside, {"compose.yaml": "services: {}\n"})
    write_tree(root, {"a/compose.yaml": "services: {}\n"})
    os.symlink(outside, root / "escape")
    os.symlink(root / "a", root / "a" / "loop")
    found = [c.path for c in discover([str(root)], str(root))]
    assert found == ["a/compose.yaml"]


def test_binary_files_are_skipped_and_huge_files_capped(tmp_path: Path) -> None:
    big = "services:\n  web:\n    image: x\n" + "# padding\n" * 5000
    write_tree(tmp_path, {"bin/compose.yaml": b"services:\x00\x01\x02", "compose.yaml": big})
    findings = lint_tree(tmp_path, max_bytes=4096)
    assert [(f.path, f.rule) for f in findings] == [("compose.yaml", "SK002")]


def test_kind_by_content_recognises_yaml_by_its_keys() -> None:
    vague = kind_by_name("deploy/app.yaml")
    assert kind_by_content(vague, "apiVersion: sandkit/v1\nkind: Kit\n").kind == "kit"
    assert kind_by_content(vague, "apiVersion: apps/v1\nkind: Deployment\n").kind == "kubernetes"
    assert kind_by_content(vague, "on: push\njobs:\n  a: {}\n").kind == "workflow"
    assert kind_by_content(vague, "services:\n  web: {}\n").kind == "compose"
    assert kind_by_content(vague, "name: x\nitems: []\n").kind == "yaml"


def test_suppression_without_reason_is_reported() -> None:
    findings = lint_files({"compose.yaml": "# sandkit: ignore[SK001]\nservices: [\n"})
    assert rules_of(findings) == {"SK001", "SK003"}


def test_suppression_with_unknown_rule_is_reported() -> None:
    findings = lint_files({"compose.yaml": "services: {}  # sandkit: ignore[ZZ999] typo\n"})
    assert rules_of(findings) == {"SK004"}


def test_suppression_with_reason_hides_the_finding_below_it() -> None:
    text = "# sandkit: ignore[parse-error] fixture for a test\nservices: a: b\n"
    assert lint_files({"compose.yaml": text}) == []


def test_named_files_follow_the_same_skips_as_a_walk(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "node_modules/p/compose.yaml": "services: [\n",
            "node_modules/p/CLAUDE.md": "hi\n",
            ".git/compose.yaml": "x: [\n",
            "compose.yaml": "services: {}\n",
        },
    )
    names = [
        str(tmp_path / n)
        for n in ("node_modules/p/compose.yaml", "node_modules/p/CLAUDE.md", ".git/compose.yaml", "compose.yaml")
    ]
    found = [c.path for c in discover(names, str(tmp_path))]
    assert found == ["node_modules/p/CLAUDE.md", "compose.yaml"]


def test_a_few_large_files_are_checked_by_the_pool_with_the_same_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lockfiles, bundles and logs are few files but most of the work: they go to both workers,
    a large file in a chunk of its own, the largest first; findings are those of one process."""
    from sandkit.lint import engine

    filler = "x" * 1_400_000 + "\n"
    files = {f"app{i}/compose.yaml": "services:\n  a:\n    volumes: ['/var/run/docker.sock:/s']\n" for i in range(3)}
    files |= {f"app{i}/big.log": filler + "ghp_" + "Z8k2Lq9Wm4Rt7Yp1Xv3Bn6Hc5Jd0Fs2Ga8Ke\n" for i in range(3)}
    write_tree(tmp_path, files)
    chunks: list[list[str]] = []
    real_parallel = engine._parallel

    def recording(chunked: Iterator[list[Candidate]], *args: Any) -> Iterator[FileResult]:
        listed = list(chunked)
        chunks.extend([c.path for c in chunk] for chunk in listed)
        return real_parallel(iter(listed), *args)

    monkeypatch.setattr(engine, "_parallel", recording)
    serial = lint_tree(tmp_path, jobs=1)
    assert chunks == []
    assert lint_tree(tmp_path, jobs=2) == serial
    assert sorted(f.rule for f in serial) == ["PS001"] * 3 + ["RS001"] * 3
    assert [len(chunk) for chunk in chunks[:3]] == [1, 1, 1]
    assert {path for chunk in chunks[:3] for path in chunk} == {f"app{i}/big.log" for i in range(3)}


def test_a_worker_that_dies_loses_its_chunk_and_the_scan_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool is concurrent.futures'. A worker killed while checking a chunk (out of memory, a
    crash in a C extension) breaks the pool: that chunk's files are internal errors (exit code 2),
    and the other chunks are checked in a fresh pool with the findings one process gives."""
    from sandkit.lint import engine
    from sandkit.lint.engine import ScanOptions, scan
    from sandkit.lint.registry import all_rules

    files = {f"app{i:03}/compose.yaml": "services:\n  a:\n    privileged: true\n" for i in range(450)}
    write_tree(tmp_path, files)
    real = engine._Checker.check_chunk

    def dying(self: Any, chunk: list[Candidate]) -> FileResult:
        if any(c.path == "app007/compose.yaml" for c in chunk):
            os._exit(9)  # the worker process ends without answering
        return real(self, chunk)

    monkeypatch.setattr(engine._Checker, "check_chunk", dying)  # forked workers inherit it
    options = ScanOptions(tuple(r.id for r in all_rules()))
    result = scan([str(tmp_path)], str(tmp_path), options, jobs=2)
    lost = [c for c in result.crashes if "not checked: its worker process ended" in c]
    assert any(c.startswith("app007/compose.yaml:") for c in lost)
    assert len({c.split(":", 1)[0] for c in lost}) <= engine.CHUNK  # that chunk only
    checked = {f.path for f in result.findings if f.rule == "PV001"}
    assert len(checked) + len(lost) == 450
    assert not checked & {c.split(":", 1)[0] for c in lost}


_PAD = "# padding line\n" * 400  # past the 4096-byte limit the tests scan with


@pytest.mark.parametrize("jobs", [1, 2])
def test_data_and_prose_over_the_limit_are_listed_not_findings(tmp_path: Path, jobs: int) -> None:
    from sandkit.lint.engine import ScanOptions, scan
    from sandkit.lint.registry import all_rules

    row = json.dumps({"name": "product", "text": "x" * 80})
    write_tree(
        tmp_path,
        {
            # data and prose: no rule reads them as configuration
            "apps/api/src/scripts/data/products.json": json.dumps([json.loads(row)] * 200),
            "docs/checks/data/guard.jsonl": (row + "\n") * 200,
            "docs/big.md": "# Notes\n" + "text line\n" * 600,
            "data/table.yaml": "rows:\n" + "  - a: 1\n" * 600,
            "data/table.toml": "".join(f"k{n} = {n}\n" for n in range(600)),
            # configuration and instructions: a part left unread hides what the rules look for
            "compose.yaml": "services:\n  web:\n    image: x\n" + _PAD,
            ".github/workflows/ci.yml": "on: push\njobs:\n  a:\n    runs-on: x\n    steps: [{run: make}]\n" + _PAD,
            "Dockerfile": "FROM x\n" + _PAD,
            "deploy/app.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n" + _PAD,
            "CLAUDE.md": "# Rules\n" + "Be careful.\n" * 600,
            ".env": "A=1\n" + _PAD,
            "run.sh": "#!/bin/sh\necho hi\n" + _PAD,
            "small.json": "{}",
        },
    )
    every = all_rules()
    result = scan([str(tmp_path)], str(tmp_path), ScanOptions(tuple(r.id for r in every), max_bytes=4096), jobs=jobs)
    assert not result.crashes
    assert sorted(f.path for f in result.findings if f.rule == "SK002") == [
        ".env",
        ".github/workflows/ci.yml",
        "CLAUDE.md",
        "Dockerfile",
        "compose.yaml",
        "deploy/app.yaml",
        "run.sh",
    ]
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("apps/api/src/scripts/data/products.json", "file-too-large"),
        ("data/table.toml", "file-too-large"),
        ("data/table.yaml", "file-too-large"),
        ("docs/big.md", "file-too-large"),
        ("docs/checks/data/guard.jsonl", "file-too-large"),
    ]
    sizes = {s.path: s.size for s in result.skipped}
    assert sizes["docs/big.md"] == (tmp_path / "docs/big.md").stat().st_size  # the size on disk, not what was read
    assert not any(f.rule == "SK001" for f in result.findings)  # the cut JSON does not parse: no finding of its own
    # with SK002 not selected, the configuration files cut at the limit are listed instead
    chosen = tuple(r.id for r in every if r.id != "SK002")
    quiet = scan([str(tmp_path)], str(tmp_path), ScanOptions(chosen, max_bytes=4096), jobs=jobs)
    assert len(quiet.skipped) == 12 and not any(f.rule == "SK002" for f in quiet.findings)


def test_fail_on_ignores_files_listed_as_read_in_part(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sandkit.cli import main

    write_tree(
        tmp_path,
        {"pyproject.toml": "[tool.sandkit]\nmax-file-size = 4096\n", "data/rows.json": "[" + "1," * 3000 + "1]"},
    )
    assert main(["lint", str(tmp_path), "--fail-on", "info", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["findings"] == [] and len(document["summary"]["skipped"]) == 1
    assert document["summary"]["skipped"][0]["path"].endswith("/data/rows.json")
    write_tree(tmp_path, {"compose.yaml": "services:\n  web:\n    image: x\n" + _PAD})
    assert main(["lint", str(tmp_path), "--fail-on", "info"]) == 1
    out = capsys.readouterr().out
    assert "compose.yaml:1:1: info SK002" in out
    assert out.splitlines()[-1].startswith("1 file over 4096 bytes was read in part (the first 4096 bytes; ")
    assert out.splitlines()[-1].endswith("/data/rows.json (raise max-file-size in [tool.sandkit] to read it whole)")


def test_files_read_in_part_come_back_from_worker_processes(tmp_path: Path) -> None:
    from sandkit.lint.engine import PARALLEL_THRESHOLD, ScanOptions, scan
    from sandkit.lint.registry import all_rules

    files = {f"data/{n}.json": '{"a": 1}' for n in range(PARALLEL_THRESHOLD)}
    files |= {f"data/big{n}.json": "[" + "1," * 3000 + "1]" for n in range(3)}
    write_tree(tmp_path, files)
    options = ScanOptions(tuple(r.id for r in all_rules()), max_bytes=4096)
    result = scan([str(tmp_path)], str(tmp_path), options, jobs=2)
    assert not result.crashes
    assert [s.path for s in result.skipped] == ["data/big0.json", "data/big1.json", "data/big2.json"]
