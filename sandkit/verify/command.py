"""``sandkit verify``: the sandbox attacks itself where it runs, and says which fidelity rows hold.

Exit codes: 0 every probe passed; 1 a probe of a row the fidelity report marks enforced failed
(or could not decide: a probe that cannot tell is not a pass); 2 the command line or the folder
is wrong, or the probe could not run at all.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sandkit import __version__
from sandkit.errors import UsageError
from sandkit.verify import plan

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from sandkit.verify.probe import Probe

_HOST_PORT = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?):([0-9]{1,5})$")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", metavar="DIR", help="one kit's build output (sandbox/KIT, with compose.yaml)")
    p.add_argument(
        "-p", "--project", default=None, metavar="NAME", help="the compose project (default: the name in compose.yaml)"
    )
    p.add_argument(
        "-f",
        "--file",
        action="append",
        default=[],
        metavar="FILE",
        help="compose files the sandbox runs with, as for docker compose -f (default: DIR/compose.yaml)",
    )
    p.add_argument("--env-file", default=None, metavar="FILE", help="the env file the sandbox runs with")
    p.add_argument(
        "--probe",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="also check that HOST:PORT is refused (a real destination, reached only if the sandbox leaks)",
    )
    p.add_argument(
        "--target",
        choices=["compose", "kubernetes", "actions"],
        default="compose",
        help="compose (default: run the probes now), kubernetes (print the probe Job; with --results, score its log) "
        "or actions (with --results, score the job's probe step log)",
    )
    p.add_argument(
        "--results",
        default=None,
        metavar="FILE",
        help="with --target kubernetes or actions: the probe Job's or probe step's log (- for standard input) to score",
    )
    p.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=["text", "json", "sarif"],
        default="text",
        help="text (a scorecard, default), json, or sarif",
    )


def run(args: argparse.Namespace) -> int:
    from sandkit.verify import compose as runner
    from sandkit.verify import engine

    folder = Path(args.folder)
    if not folder.is_dir():
        raise UsageError(f"sandkit verify: error: {folder}: no such folder")
    extra: list[tuple[str, int]] = []
    for value in args.probe:
        match = _HOST_PORT.match(value)
        if match is None or not 0 < int(match.group(2)) < 65536:
            raise UsageError(f"sandkit verify: error: --probe {value!r}: give HOST:PORT (a name or IPv4 address)")
        extra.append((match.group(1), int(match.group(2))))
    if args.target == "kubernetes":
        return _kubernetes(args, folder, extra)
    if args.target == "actions":
        return _actions(args, folder, extra)
    if args.results is not None:
        raise UsageError(
            "sandkit verify: error: --results is for --target kubernetes or actions (compose probes run now)"
        )
    sandbox = plan.load(folder)
    files = [Path(f) for f in args.file] or [sandbox.compose_file]
    for path in files:
        if not path.is_file():
            raise UsageError(f"sandkit verify: error: {path}: no such compose file")
    compose = runner.Compose(files, args.project or sandbox.project, Path(args.env_file) if args.env_file else None)
    probes = plan.probes(sandbox, runner.gateways(compose) if plan.egress(sandbox) != "open" else [], extra)
    results, record = runner.run_probes(compose, probes)
    rows = _rows(sandbox, probes, results, "compose", lambda probe: runner.where(record, probe.setting, files[-1]))
    rows += engine.rows_for(sandbox)  # ports on 127.0.0.1 and the engine's version (moby/moby#45610)
    report = {
        "kit": sandbox.kit,
        "target": "compose",
        "project": compose.project,
        "mode": "the next session of services.agent, started in probe mode (docker compose run)",
        "egress": plan.egress(sandbox),
        "reach": plan.REACH_NOTE,
        "results": rows,
    }
    return _finish(report, args.format, files[-1])


def _rows(
    sandbox: plan.Sandbox,
    probes: list[Probe],
    results: dict[str, tuple[str, str]],
    target: str,
    where: Callable[[Probe], str],
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for probe in probes:
        status, detail = results.get(probe.id, ("error", "the probe printed no result"))
        level = plan.level(sandbox, probe.setting, target) or "not in the fidelity report"
        row = {"probe": probe.id, "setting": probe.setting, "level": level, "title": probe.title}
        row.update(status=status, detail=detail)
        if status != "pass":
            row["where"] = where(probe)
        rows.append(row)
    return rows


def _finish(report: dict[str, Any], fmt: str, location: Path) -> int:
    rows = report["results"]
    failed = [r for r in rows if r["status"] != "pass" and r["level"] == "enforced"]
    sys.stdout.write({"text": _text, "json": _json, "sarif": _sarif}[fmt](report, location))
    return 1 if failed else 0


def _kubernetes(args: argparse.Namespace, folder: Path, extra: list[tuple[str, int]]) -> int:
    """Print the probe Job, or score its log."""
    from sandkit.verify import kubernetes

    sandbox = kubernetes.load(folder)
    probes = plan.probes(sandbox, [], extra, cluster=True)
    if args.results is None:
        from sandkit.compiler.yamlout import dump_yaml

        sys.stdout.write(dump_yaml(kubernetes.probe_job(folder, probes)))
        return 0
    results = _results(args.results, probes)
    rows = _rows(sandbox, probes, results, "kubernetes", lambda probe: kubernetes.where(sandbox, probe))
    report = {
        "kit": sandbox.kit,
        "target": "kubernetes",
        "project": sandbox.project,
        "mode": "the probe Job's log (the agent Job's pod template with the probe in the agent's place)",
        "egress": plan.egress(sandbox),
        "reach": plan.REACH_NOTE,
        "results": rows,
    }
    return _finish(report, args.format, sandbox.compose_file)


def _results(source: str, probes: list[Probe]) -> dict[str, tuple[str, str]]:
    """The probes' results in a log (a file, or - for standard input), which must reach the end line."""
    from sandkit.verify.probe import parse

    text = sys.stdin.read(plan.MAX_FILE + 1) if source == "-" else plan.read_text(Path(source))
    if len(text) > plan.MAX_FILE:
        raise UsageError(f"sandkit verify: error: --results: larger than {plan.MAX_FILE} bytes")
    results, complete = parse(text, {p.id for p in probes})
    if not complete:
        raise UsageError(
            f"sandkit verify: error: {source}: no SANDKIT-PROBE-END line: the probe did not run to its end"
        )
    return results


def _actions(args: argparse.Namespace, folder: Path, extra: list[tuple[str, int]]) -> int:
    """Score the Actions job's probe step log against the actions column of the fidelity report."""
    if args.results is None:
        raise UsageError(
            "sandkit verify: error: --target actions scores a probe step's log: give --results FILE "
            "(the job runs the probes itself when the repository variable SANDKIT_VERIFY is 1)"
        )
    if extra:
        raise UsageError("sandkit verify: error: --probe: the job's battery is fixed at build time")
    sandbox = plan.load(folder)
    gateways = list(plan.ACTIONS_GATEWAYS if plan.egress(sandbox) == "allowlist" else plan.ACTIONS_GATEWAYS[1:])
    probes = plan.probes(sandbox, gateways if plan.egress(sandbox) != "open" else [], [], target="actions")
    workflows = sorted((folder / "workflows").glob("*.yml"))
    location = workflows[0] if workflows else sandbox.compose_file
    rows = _rows(sandbox, probes, _results(args.results, probes), "actions", lambda _: str(location))
    report = {
        "kit": sandbox.kit,
        "target": "actions",
        "project": sandbox.project,
        "mode": "the job's probe step log (the agent step's script with the probe in the agent's place)",
        "egress": plan.egress(sandbox),
        "reach": plan.REACH_NOTE,
        "results": rows,
    }
    return _finish(report, args.format, location)


def _json(report: dict[str, Any], _: Path) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def _text(report: dict[str, Any], _: Path) -> str:
    rows = report["results"]
    lines = [
        f"sandkit verify: kit {report['kit']}, {report['target']} {report['project']}",
        f"  {report['mode']}; egress {report['egress']}",
        f"  note: {report['reach']}",
        "",
    ]
    for row in rows:
        mark = {"pass": "PASS", "fail": "FAIL", "error": "ERROR"}[row["status"]]
        lines.append(f"{mark:5} {row['setting']} ({row['level']}): {row['title']}")
        lines.append(f"      {row['detail']}")
        if row.get("where"):
            lines.append(f"      where: {row['where']}")
    bad = [r for r in rows if r["status"] != "pass"]
    enforced = sorted({r["setting"] for r in bad if r["level"] == "enforced"})
    lines.append("")
    lines.append(f"{len(rows)} probes: {len(rows) - len(bad)} passed, {len(bad)} did not")
    if enforced:
        lines.append(f"enforced rows that do not hold here: {', '.join(enforced)}")
    return "\n".join(lines) + "\n"


def _sarif(report: dict[str, Any], compose_file: Path) -> str:
    """SARIF 2.1.0: one rule per probe, one result per probe (kind pass or fail)."""
    rows = report["results"]
    rules = [
        {"id": r["probe"], "shortDescription": {"text": r["title"]}, "properties": {"setting": r["setting"]}}
        for r in rows
    ]
    results = []
    for row in rows:
        failed = row["status"] != "pass"
        text = f"{row['setting']} ({row['level']}): {row['title']}: {row['detail']}"
        if row.get("where"):
            text += f" [where: {row['where']}]"
        results.append(
            {
                "ruleId": row["probe"],
                "kind": "fail" if failed else "pass",
                "level": ("error" if row["level"] == "enforced" else "warning") if failed else "none",
                "message": {"text": text},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": compose_file.as_posix()}}}],
                "properties": {"setting": row["setting"], "fidelity": row["level"], "status": row["status"]},
            }
        )
    document = {
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [
            {
                "tool": {"driver": {"name": "sandkit verify", "version": __version__, "rules": rules}},
                "results": results,
                "properties": {k: report[k] for k in ("kit", "target", "project", "egress", "reach")},
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
