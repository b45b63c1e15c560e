"""Reporters: exact output for a fixed set of findings, SARIF checked against its schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from sandkit.lint.model import Finding
from sandkit.lint.registry import all_rules
from sandkit.lint.reporters import Report, render

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

FINDINGS = [
    Finding(
        "compose.yaml",
        5,
        9,
        "RS001",
        "runtime-socket",
        "critical",
        'service "builder" mounts the container runtime socket /var/run/docker.sock',
        "Do not mount it.",
        "f" * 32,
    ),
    Finding(
        "deploy/a b.yaml",
        12,
        3,
        "PV005",
        "privileged",
        "medium",
        "allowPrivilegeEscalation: true, 100%\nsecond line",
        "",
        "0" * 32,
    ),
]


def report(findings: list[Finding] | None = None) -> Report:
    chosen = FINDINGS if findings is None else findings
    return Report(chosen, all_rules(), files=3, tool_version="0.1.0")


def test_text_output_is_exact() -> None:
    assert render(report(), "text") == (
        'compose.yaml:5:9: critical RS001 service "builder" mounts the container runtime socket'
        " /var/run/docker.sock [fix: Do not mount it.]\n"
        "deploy/a b.yaml:12:3: medium PV005 allowPrivilegeEscalation: true, 100% second line\n"
        "2 findings (1 critical, 1 medium) in 3 files.\n"
    )


def test_text_output_without_findings() -> None:
    assert render(report([]), "text") == "0 findings in 3 files.\n"


def test_json_output_is_exact() -> None:
    document = json.loads(render(report(), "json"))
    assert document == {
        "version": 1,
        "findings": [
            {
                "rule": "RS001",
                "category": "runtime-socket",
                "severity": "critical",
                "base_severity": "critical",
                "path": "compose.yaml",
                "line": 5,
                "column": 9,
                "message": 'service "builder" mounts the container runtime socket /var/run/docker.sock',
                "fix": "Do not mount it.",
            },
            {
                "rule": "PV005",
                "category": "privileged",
                "severity": "medium",
                "base_severity": "medium",
                "path": "deploy/a b.yaml",
                "line": 12,
                "column": 3,
                "message": "allowPrivilegeEscalation: true, 100%\nsecond line",
                "fix": "",
            },
        ],
        "summary": {
            "files": 3,
            "findings": 2,
            "by_severity": {"critical": 1, "medium": 1},
            "by_category": {"runtime-socket": 1, "privileged": 1},
            "baselined": 0,
            "read_in_part": [],
            "skipped": [],
        },
    }


def test_github_annotations_escape_data_and_properties() -> None:
    assert render(report(), "github") == (
        "::error file=compose.yaml,line=5,col=9,title=RS001 (runtime-socket%2C critical)::"
        'service "builder" mounts the container runtime socket /var/run/docker.sock%0A'
        "Fix: Do not mount it.\n"
        "::warning file=deploy/a b.yaml,line=12,col=3,title=PV005 (privileged%2C medium)::"
        "allowPrivilegeEscalation: true, 100%25%0Asecond line\n"
    )


def test_sarif_is_valid_and_carries_rules_and_fingerprints() -> None:
    document = json.loads(render(report(), "sarif"))
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator(schema).validate(document)
    run = document["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["PV005", "RS001"]
    first = run["results"][0]
    assert first["ruleId"] == "RS001" and first["ruleIndex"] == 1 and first["level"] == "error"
    assert first["partialFingerprints"] == {"sandkit/v1": "f" * 32}
    location = run["results"][1]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "deploy/a%20b.yaml"
    assert location["region"] == {"startLine": 12, "startColumn": 3}
    help_text = run["tool"]["driver"]["rules"][1]["help"]["text"]
    assert "Fix:" in help_text
    # GitHub links an alert to its rule's page, and the tool to its home, from these.
    assert run["tool"]["driver"]["informationUri"] == "https://sandkit.dev/"
    assert [r["helpUri"] for r in run["tool"]["driver"]["rules"]] == [
        "https://sandkit.dev/rules/PV005",
        "https://sandkit.dev/rules/RS001",
    ]


def test_sarif_of_a_real_scan_is_valid(tmp_path: Path) -> None:
    from tests.lint.helpers import lint_tree, write_tree

    write_tree(
        tmp_path, {"compose.yaml": "services:\n  a:\n    privileged: true\n", "bad/compose.yaml": "services: [\n"}
    )
    document = json.loads(render(report(lint_tree(tmp_path)), "sarif"))
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(document)
    assert {r["ruleId"] for r in document["runs"][0]["results"]} == {"PV001", "SK001"}


SKIPPED = [("data/products.json", "file-too-large", 3_100_000), ("logs/run.jsonl", "file-too-large", 2_000_001)]


def test_files_read_in_part_are_in_the_summary_of_every_format() -> None:
    partial = report()._replace(skipped=SKIPPED, max_bytes=2_000_000)
    document = json.loads(render(partial, "json"))
    assert document["summary"]["skipped"] == [
        {"path": "data/products.json", "reason": "file-too-large", "size": 3_100_000},
        {"path": "logs/run.jsonl", "reason": "file-too-large", "size": 2_000_001},
    ]
    assert document["summary"]["read_in_part"] == [
        {"path": "data/products.json", "size": 3_100_000, "read_bytes": 2_000_000},
        {"path": "logs/run.jsonl", "size": 2_000_001, "read_bytes": 2_000_000},
    ]
    assert document["summary"]["findings"] == 2  # not findings: the count and the exit code ignore them
    line = (
        "2 files over 2 MB were read in part (the first 2 MB; findings in them come from that part only): "
        "data/products.json, logs/run.jsonl (raise max-file-size in [tool.sandkit] to read them whole)"
    )
    assert render(partial, "text").splitlines()[-1] == line
    assert render(partial._replace(quiet=True), "text").count("\n") == 2  # --quiet: the findings only
    assert render(partial, "github").splitlines()[-1] == f"::notice title=sandkit (files read in part)::{line}"
    sarif = json.loads(render(partial, "sarif"))
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(sarif)
    (invocation,) = sarif["runs"][0]["invocations"]
    notes = invocation["toolExecutionNotifications"]
    assert [n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for n in notes] == [
        "data/products.json",
        "logs/run.jsonl",
    ]
    assert len(sarif["runs"][0]["results"]) == 2


def test_one_file_read_in_part_and_many_are_said_briefly() -> None:
    one = report([])._replace(skipped=SKIPPED[:1], max_bytes=1_500_000)
    assert render(one, "text").splitlines()[-1] == (
        "1 file over 1500 kB was read in part (the first 1500 kB; findings in it come from that part only): "
        "data/products.json (raise max-file-size in [tool.sandkit] to read it whole)"
    )
    many = report([])._replace(skipped=[(f"d/{n}.json", "file-too-large", 9) for n in range(8)], max_bytes=4096)
    assert "d/0.json, d/1.json, d/2.json, d/3.json, d/4.json and 3 more" in render(many, "text")
    assert "4096 bytes" in render(many, "text")
    assert "invocations" not in json.loads(render(report(), "sarif"))["runs"][0]
    assert "::notice title=sandkit" not in render(report(), "github")
