"""sbx spec -> kit -> sbx spec: importing a Docker Sandboxes kit and building the sbx target gives the
same sandbox back, compared the way sbx itself reads a spec (spec/v2.go: the entrypoint and the
default command form one argv, scheme sugar expands to header and format, sizes are byte counts)."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from sandkit.importer.sbx import memory_quantity, startup_text
from sandkit.kits.fields import quantity_bytes

DATA = Path(__file__).parent / "data"


def _inject(rule: dict[str, Any]) -> tuple[Any, ...]:
    """An inject rule as sbx's decoder leaves it (expandCredentialSchemes in spec/v2.go)."""
    header, fmt = rule.get("header"), rule.get("format")
    if rule.get("scheme") == "bearer":
        header, fmt = header or "Authorization", "Bearer %s"
    elif rule.get("scheme") == "basic":
        fmt = "%s"
    return (rule["domain"], header, fmt, rule.get("username"))


def _files(spec: dict[str, Any], folder: Path) -> dict[str, tuple[bytes, str]]:
    found = {
        f["path"]: (f.get("content", "").encode(), f.get("mode", "0644").zfill(4))
        for f in spec.get("setup", {}).get("files", [])
    }
    home = folder / "files" / "home"
    for path in sorted(home.rglob("*")) if home.is_dir() else []:
        if path.is_file():
            mode = "0755" if os.stat(path).st_mode & 0o111 else "0644"
            found[f"/home/agent/{path.relative_to(home).as_posix()}"] = (path.read_bytes(), mode)
    return found


def canonical(spec_path: Path) -> dict[str, Any]:
    spec = YAML(typ="safe").load(spec_path)
    sandbox = spec["sandbox"]
    command = sandbox.get("command") or []
    default = command if isinstance(command, list) else command.get("default", [])
    memory = memory_quantity(sandbox["resources"]["memory"])
    network = spec.get("permissions", {}).get("network", {})
    return {
        "kind": spec["kind"],
        "name": spec["name"],
        "description": spec.get("description"),
        "image": sandbox["image"],
        "argv": [*sandbox.get("entrypoint", []), *default],
        "cpu": float(sandbox["resources"]["cpu"]),
        "memory": quantity_bytes(memory) if memory else None,
        "instructions": spec.get("agentInstructions"),
        "allow": sorted(network.get("allow", [])),
        "deny": sorted(network.get("deny", [])),
        "ports": sorted((p["container"], p.get("protocol") or "tcp") for p in spec.get("ports", [])),
        "credentials": {
            c["apiKey"]["name"]: (
                c["service"],
                c.get("description", ""),
                bool(c.get("required")),
                bool(c["apiKey"].get("proxyManaged")),
                [_inject(r) for r in c["apiKey"].get("inject", [])],
            )
            for c in spec.get("credentials", [])
        },
        "env": spec.get("environment", {}).get("variables", {}),
        "install": [(i["command"], i.get("user", "0")) for i in spec.get("setup", {}).get("install", [])],
        "startup": [
            (startup_text(s["command"]), s.get("user", "1000")) for s in spec.get("setup", {}).get("startup", [])
        ],
        "files": _files(spec, spec_path.parent),
    }


def _run(*argv: str) -> int:
    return main(list(argv))


def test_spec_to_kit_to_spec_keeps_every_setting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = DATA / "sbx-roundtrip" / "spec.yaml"
    kit = tmp_path / "kit" / "kit.yaml"
    kit.parent.mkdir()
    assert _run("import", str(source), "-o", str(kit)) == 0
    findings = capsys.readouterr().err.splitlines()
    assert [f for f in findings if ": not imported: " in f] == [], "this spec holds only settings a kit can carry"
    assert _run("build", str(kit), "-o", str(tmp_path / "out"), "--target", "sbx", "-q") == 0
    rebuilt = tmp_path / "out" / "round-trip" / "sbx" / "spec.yaml"
    assert canonical(rebuilt) == canonical(source)


def test_the_round_trip_comparison_sees_a_change(tmp_path: Path) -> None:
    """The comparison above can fail: one changed inject header, startup argument or file mode shows."""
    source = DATA / "sbx-roundtrip" / "spec.yaml"
    original = canonical(source)
    for old, new in (("header: x-api-key", "header: x-other"), ("--warm-cache", "--cold"), ('"0600"', '"0640"')):
        changed = tmp_path / old.replace(" ", "_").replace('"', "") / "spec.yaml"
        changed.parent.mkdir()
        changed.write_text(source.read_text().replace(old, new))
        assert canonical(changed) != original, old


def test_startup_argv_survives_as_its_shell_line() -> None:
    argv = ["rt-agent", "--name", "it's $HOME", "a;b"]
    assert shlex.split(startup_text(argv)) == argv
    assert startup_text(["sh", "-c", "echo $HOME && true"]) == "echo $HOME && true"
