"""`--strict` judges the targets asked for, "not applicable" never fails it, and the printed report
shows only what some target does not fully enforce (fidelity.json stays whole)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sandkit.cli import main
from sandkit.compiler.command import compile_kit
from sandkit.compiler.targets import NAMES
from sandkit.kits.extends import preset_names
from sandkit.kits.template import render_init
from tests.compiler.helpers import EXAMPLES, OWN_KITS, in_folder
from tests.conftest import REPO

OFFLINE = """\
apiVersion: sandkit/v1
name: offline
agent: {command: [agent]}
network: {egress: none}
workspace: {mode: none}
"""
SCHEDULED = """\
apiVersion: sandkit/v1
name: nightly
agent: {command: [agent]}
network: {allow: [api.example.com]}
workspace: {mode: none}
triggers: [{schedule: "0 3 * * *"}]
"""


def _build(tmp_path: Path, text: str, *argv: str) -> tuple[int, str, str]:
    (tmp_path / "kit.yaml").write_text(text, encoding="utf-8")
    with in_folder(tmp_path):
        code = main(["build", "kit.yaml", "-o", "out", *argv])
    return code, "", ""


def test_a_minimal_kit_passes_strict_for_every_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Every target but openhands: OpenHands reaches its runtime over the network, so it has no egress
    # none, and --strict rightly fails there (test_new_targets.py::test_openhands_refuses_strict_...).
    everything_but_openhands = ",".join(name for name in NAMES if name != "openhands")
    code, _, _ = _build(tmp_path, OFFLINE, "--strict", "-q", "--target", everything_but_openhands)
    assert code == 0, capsys.readouterr().err
    rows = json.loads((tmp_path / "out/offline/fidelity.json").read_text())["settings"]
    assert rows["network.egress"]["docker"]["level"] == "not applicable"  # an image does not choose its network


def test_strict_judges_only_the_targets_asked_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """actions builds on compose, which cannot schedule; asking for actions alone does not judge compose."""
    assert _build(tmp_path, SCHEDULED, "--strict", "-q", "--target", "actions")[0] == 0
    assert (tmp_path / "out/nightly/compose.yaml").is_file(), "compose's files are still built for actions"
    capsys.readouterr()
    assert _build(tmp_path, SCHEDULED, "--strict", "-q", "--target", "compose")[0] == 1
    err = capsys.readouterr().err
    assert "triggers is unsupported by compose" in err and "docker" not in err


def test_a_manual_trigger_is_what_compose_and_the_dev_container_do(tmp_path: Path) -> None:
    out = compile_kit(_write(tmp_path, OFFLINE + "triggers: [{manual: {}}]\n"), tmp_path / "out", list(NAMES))
    assert {t: r.level for t, r in out.fidelity["triggers"].items()} == {
        "docker": "not applicable",
        "compose": "enforced",
        "kubernetes": "enforced",
        "actions": "enforced",
        "devcontainer": "enforced",
        "sbx": "enforced",
        "openhands": "enforced",
        "srt": "enforced",
        "claude-code": "enforced",
        "codex": "enforced",
    }


def test_ports_with_an_allowlist_are_published_where_a_person_watches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24: compose and the dev container publish an allowlisted agent's ports (they were unsupported,
    so --strict failed and only open egress showed the app); a CI job has no one to watch them."""
    kit = OFFLINE.replace("network: {egress: none}", "network: {allow: [api.example.com]}")
    kit += "ports: [{container: 3000}]\n"
    out = compile_kit(_write(tmp_path, kit), tmp_path / "out", list(NAMES))
    assert {t: r.level for t, r in out.fidelity["ports"].items()} == {
        "docker": "not applicable",
        "compose": "enforced",
        "kubernetes": "unsupported",
        "actions": "not applicable",
        "devcontainer": "enforced",
        "sbx": "best-effort",
        "claude-code": "unsupported",
        "codex": "unsupported",
        "srt": "unsupported",
    }
    assert _build(tmp_path, kit, "--strict", "-q", "--target", "compose,devcontainer,actions")[0] == 0, (
        capsys.readouterr().err
    )


def _write(folder: Path, text: str) -> Path:
    (folder / "kit.yaml").write_text(text, encoding="utf-8")
    return folder / "kit.yaml"


@pytest.mark.parametrize("preset", [None, *preset_names()])
def test_the_init_kit_passes_strict(tmp_path: Path, preset: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    code = _build(
        tmp_path, render_init("starter", preset, schema_ref="kit.schema.json", kit_path="kit.yaml"), "--strict", "-q"
    )[0]
    assert code == 0, capsys.readouterr().err


@pytest.mark.parametrize("kit", EXAMPLES + OWN_KITS, ids=lambda p: str(p.relative_to(REPO)))
def test_examples_and_this_repositorys_kit_pass_strict_for_the_targets_they_list(
    kit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with in_folder(REPO):
        code = main(["build", str(kit.relative_to(REPO)), "-o", str(tmp_path), "--strict", "-q"])
    assert code == 0, capsys.readouterr().err


def test_targets_build_names_known_targets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _build(tmp_path, OFFLINE + "targets: {build: [compose, podman]}\n", "-q")[0] == 1
    assert "targets.build: unknown target(s) podman; the targets are docker, compose" in capsys.readouterr().err
    assert _build(tmp_path, OFFLINE + "targets: {build: [kubernetes]}\n", "-q")[0] == 0
    assert json.loads((tmp_path / "out/offline/fidelity.json").read_text())["targets"] == ["docker", "kubernetes"]


def _below(rows: dict[str, dict[str, dict[str, str]]], targets: list[str]) -> list[str]:
    """The settings one of ``targets`` holds but does not fully enforce, from fidelity.json."""
    return sorted(
        s
        for s, per in rows.items()
        if any(per[t]["level"] not in ("enforced", "not applicable") for t in targets if t in per)
    )


LEGEND = [
    "enforced: held whatever the agent does   best-effort: held in part, or while the agent plays along",
    "unsupported: the target cannot hold it   n/a: not this target's to hold   -: not in its files",
]


def test_the_report_shows_what_is_not_fully_enforced_and_one_summary_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A kit without targets.build: every target is the kit's, in blocks that fit 100 columns."""
    assert _build(tmp_path, OFFLINE)[0] == 0
    printed = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in printed) <= 100
    rows = json.loads((tmp_path / "out/offline/fidelity.json").read_text())["settings"]
    below = _below(rows, list(NAMES))
    assert below and len(rows) > len(below), "the kit has settings of both kinds"
    table = printed[1:-4]
    headers = [line.split() for line in table if line.startswith("setting ")]
    assert len(headers) > 1 and [t for h in headers for t in h[1:]] == list(NAMES)
    assert [re.split(r"\s{2,}", line)[0] for line in table[1 : len(below) + 1]] == below
    assert printed[-4:-2] == LEGEND
    assert printed[-2] == f"fidelity: {len(rows) - len(below)} of {len(rows)} settings enforced by every target " + (
        f"that holds them, {len(below)} not (above)"
    )
    assert printed[-1] == "every reason in out/offline/fidelity.json; --verbose prints every setting"
    assert _build(tmp_path, OFFLINE, "--verbose")[0] == 0
    verbose = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in verbose) <= 100
    assert [re.split(r"\s{2,}", line)[0] for line in verbose[2 : len(rows) + 2]] == sorted(rows)


def test_the_report_is_about_the_kits_own_targets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """targets.build [compose, srt]: two columns (docker, built for compose, is not one), a legend,
    and a closing line that counts the settings of those two targets only; --verbose adds docker."""
    kit = OFFLINE.replace("network: {egress: none}", "network: {allow: [api.example.com]}")
    kit += "targets: {build: [compose, srt]}\n"
    assert _build(tmp_path, kit)[0] == 0
    printed = capsys.readouterr().out.splitlines()
    rows = json.loads((tmp_path / "out/offline/fidelity.json").read_text())["settings"]
    own = {s: per for s, per in rows.items() if "compose" in per or "srt" in per}
    below = _below(rows, ["compose", "srt"])
    assert "resources.cpus" in below, "srt holds no limit"
    assert printed[0] == "kit.yaml -> out/offline/ (14 files)"
    assert printed[1] == "setting                   compose   srt"
    assert [line.split()[0] for line in printed[2:-4]] == below
    assert "resources.cpus            enforced  unsupported" in printed
    assert printed[-4:] == [
        *LEGEND,
        f"fidelity: {len(own) - len(below)} of {len(own)} settings enforced by each of the kit's 2 targets "
        f"that holds them, {len(below)} not (above)",
        "every reason in out/offline/fidelity.json; --verbose prints every setting and target",
    ]
    assert _build(tmp_path, kit, "-v")[0] == 0
    verbose = capsys.readouterr().out.splitlines()
    assert verbose[1].split() == ["setting", "docker", "compose", "srt"]
    assert verbose[-2] == printed[-2] and verbose[-1] == "every reason in out/offline/fidelity.json"


def test_a_kit_for_one_target_gets_one_closing_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """targets.build [compose]: compose enforces every setting it holds, so no table; docker's
    best-effort timeout (built because compose needs the image) is not the kit's to count."""
    kit = OFFLINE.replace("network: {egress: none}", "network: {allow: [api.example.com]}")
    assert _build(tmp_path, kit + "targets: {build: [compose]}\n")[0] == 0
    rows = json.loads((tmp_path / "out/offline/fidelity.json").read_text())["settings"]
    assert rows["resources.timeout"]["docker"]["level"] == "best-effort"
    held = sum("compose" in per for per in rows.values())
    assert capsys.readouterr().out.splitlines() == [
        "kit.yaml -> out/offline/ (12 files)",
        f"fidelity: {held} of {held} settings enforced by compose",
        "every reason in out/offline/fidelity.json; --verbose prints every setting and target",
    ]


@pytest.mark.parametrize("written", ["cpus: 2", "memory: 4Gi", "pids: 512", "timeout: 1h"])
def test_strict_judges_a_limit_written_equal_to_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], written: str
) -> None:
    """A limit the kit writes is one it asks for, even at the value `sandkit init` writes (the default):
    srt sets no limit, so --strict fails and names it; left out, the row is information only."""
    kit = OFFLINE + "targets: {build: [srt]}\n"
    assert _build(tmp_path, kit, "--strict", "-q")[0] == 0, capsys.readouterr().err
    assert _build(tmp_path, kit + f"resources: {{{written}}}\n", "--strict", "-q")[0] == 1
    setting = "resources." + written.split(":")[0]
    limit = {"cpus": "CPU", "memory": "memory", "pids": "process", "timeout": "time"}[written.split(":")[0]]
    assert capsys.readouterr().err.splitlines()[0] == (
        f"kit.yaml: {setting} is unsupported by srt: a process sandbox sets no {limit} limit"
        + (": nothing ends the agent after the kit's timeout" if limit == "time" else "")
    )


def test_the_init_kit_names_its_target_so_strict_judges_what_it_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`sandkit init` writes limits and `targets.build: [compose]`; asked for srt, --strict names each limit."""
    text = render_init("starter", None, schema_ref="kit.schema.json", kit_path="kit.yaml")
    assert "  build: [compose]\n" in text
    assert _build(tmp_path, text, "--strict", "-q", "--target", "srt")[0] == 1
    assert capsys.readouterr().err.splitlines() == [
        "kit.yaml: resources.cpus is unsupported by srt: a process sandbox sets no CPU limit",
        "kit.yaml: resources.memory is unsupported by srt: a process sandbox sets no memory limit",
        "kit.yaml: resources.pids is unsupported by srt: a process sandbox sets no process limit",
        "kit.yaml: resources.timeout is unsupported by srt: a process sandbox sets no time limit: nothing ends "
        "the agent after the kit's timeout",
        "sandkit build --strict: nothing written",
    ]
