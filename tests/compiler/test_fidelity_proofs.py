"""Every "enforced" cell of the fidelity report names the test that proves it, and that test exists.

The reports walked are those of every example kit, this repository's own kits, every preset's
`sandkit init` kit and two kits with ports (open egress, no egress), each built for every target. A row names its proof in ``proven_by`` beside the
row in the target's code (see sandkit/compiler/fidelity.py).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from sandkit.compiler.command import KitOutput, compile_kit
from sandkit.compiler.fidelity import PROVEN_STATICALLY, SQUID_DENY_PROOF, Fidelity
from sandkit.compiler.targets import NAMES
from sandkit.kits.extends import preset_names
from sandkit.kits.template import render_init
from tests.compiler.helpers import EXAMPLES, OWN_KITS, compile_from_repo
from tests.conftest import REPO


@functools.cache
def _test_names(path: Path) -> frozenset[str]:
    """``test_x`` and ``TestY::test_x`` for every test function the module defines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {f"{node.name}::{f.name}" for f in node.body if isinstance(f, ast.FunctionDef)}
    return frozenset(names)


def missing_test(node_id: str) -> str | None:
    """Why ``node_id`` names no test of this repository, or None when it does."""
    module, _, name = node_id.partition("::")
    path = REPO / module
    if not module.startswith("tests/") or not module.endswith(".py") or not path.is_file():
        return f"{module} is not a test module of this repository"
    if name not in _test_names(path):
        return f"{module} has no test {name}"
    return None


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[KitOutput]:
    folder = tmp_path_factory.mktemp("proofs")
    built = [compile_from_repo(kit, folder / "repo", list(NAMES)) for kit in EXAMPLES + OWN_KITS]
    for egress in ("open", "none"):  # the examples' ports are an allowlist's (examples/web-preview)
        kit = folder / f"ports-{egress}.yaml"
        kit.write_text(
            f"apiVersion: sandkit/v1\nname: ports-{egress}\nagent: {{command: [x]}}\nworkspace: {{mode: none}}\n"
            f"network: {{egress: {egress}}}\nports: [{{container: 3000}}, {{container: 53, protocol: udp}}]\n",
            encoding="utf-8",
        )
        built.append(compile_kit(kit, folder / "out", list(NAMES)))
    for preset in preset_names():
        kit = folder / f"init-{preset}.yaml"
        kit.write_text(
            render_init(f"init-{preset}", preset, schema_ref="kit.schema.json", kit_path="kit.yaml"), encoding="utf-8"
        )
        built.append(compile_kit(kit, folder / "out", list(NAMES)))
    return built


def _cells(reports: list[KitOutput]) -> list[tuple[str, str, str, Fidelity]]:
    return [
        (out.plan.kit_display, setting, target, row)
        for out in reports
        for setting, per_target in sorted(out.fidelity.items())
        for target, row in sorted(per_target.items())
    ]


def test_every_enforced_cell_names_a_test_that_exists(reports: list[KitOutput]) -> None:
    unproven = [
        f"{kit}: {setting} / {target}: " + ((missing_test(row.proven_by) or "") if row.proven_by else "names no test")
        for kit, setting, target, row in _cells(reports)
        if row.level == "enforced" and (not row.proven_by or missing_test(row.proven_by))
    ]
    assert unproven == [], "enforced rows without a proof:\n" + "\n".join(unproven)


def test_every_named_proof_exists(reports: list[KitOutput]) -> None:
    """A row of any level that names a proof (best-effort ones do, where a run shows how far they hold)."""
    wrong = [
        f"{kit}: {setting} / {target}: {missing_test(row.proven_by)}"
        for kit, setting, target, row in _cells(reports)
        if row.proven_by and missing_test(row.proven_by)
    ]
    assert wrong == []


def test_a_row_proven_statically_says_so_and_names_a_static_test(reports: list[KitOutput]) -> None:
    for kit, setting, target, row in _cells(reports):
        if PROVEN_STATICALLY in row.reason:
            assert row.reason.endswith(PROVEN_STATICALLY), (kit, setting, target)
            assert not row.proven_by.startswith("tests/e2e/"), f"{kit}: {setting} / {target} runs, so it is not static"
    run_here = {  # the pods played in the real engine (tests/compiler/test_kubernetes_docker.py)
        SQUID_DENY_PROOF,
        "tests/compiler/test_kubernetes_docker.py::"
        "test_the_session_pod_clones_then_runs_the_agent_with_the_configmap_in_force",
        "tests/compiler/test_kubernetes_docker.py::"
        "test_the_proxy_pod_injects_and_the_agent_pod_holds_no_trace_of_the_value",
    }
    for kit, setting, target, row in _cells(reports):
        if target == "kubernetes" and row.level == "enforced" and row.proven_by not in run_here:
            assert row.reason.endswith(PROVEN_STATICALLY), f"{kit}: {setting}: no cluster runs here"


def test_the_check_itself_catches_a_missing_test() -> None:
    assert missing_test("tests/compiler/test_fidelity_proofs.py::test_the_check_itself_catches_a_missing_test") is None
    assert "has no test" in (missing_test("tests/compiler/test_golden.py::test_that_was_renamed") or "")
    assert "not a test module" in (missing_test("sandkit/cli.py::main") or "")
    assert "not a test module" in (missing_test("tests/e2e/test_gone.py::test_x") or "")
