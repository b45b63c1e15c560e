"""``sandkit summary``: one page per kit, the preset's part marked, and what each target enforces."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sandkit.compiler.command import compile_kit
from sandkit.compiler.targets import NAMES
from tests.conftest import REPO
from tests.review.helpers import check_golden, sandkit


@pytest.mark.parametrize(
    ("fmt", "golden"), [("text", "summary.txt"), ("markdown", "summary.md"), ("json", "summary.json")]
)
def test_summary_of_the_example_matches_the_golden_file(
    capsys: pytest.CaptureFixture[str], fmt: str, golden: str
) -> None:
    code, out, err = sandkit(REPO, capsys, "summary", "examples/pr-reviewer/kit.yaml", "--format", fmt)
    assert (code, err) == (0, "")
    check_golden(golden, out)


def test_the_presets_part_is_marked(capsys: pytest.CaptureFixture[str]) -> None:
    out = sandkit(REPO, capsys, "summary", "examples/pr-reviewer/kit.yaml", "--format", "json")[1]
    kit = json.loads(out)["kits"][0]
    allow = {a["destination"]: a["from"] for a in kit["reach"]["allow"]}
    assert allow == {
        "api.anthropic.com:443": "preset claude-code",
        "github.com:443": "",
        "api.github.com:443": "",
        "*.githubusercontent.com:443": "",
    }
    assert {s["name"]: s["from"] for s in kit["secrets"]} == {"ANTHROPIC_API_KEY": "preset claude-code", "GH_TOKEN": ""}


def test_a_mixins_part_is_marked_with_its_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mixins").mkdir()
    (tmp_path / "mixins/net.yaml").write_text(
        "apiVersion: sandkit/v1\nkind: Mixin\nname: net\nnetwork: {allow: [a.example.com]}\n"
    )
    (tmp_path / "kit.yaml").write_text(
        "apiVersion: sandkit/v1\nname: k\nextends: [./mixins/net.yaml]\nagent: {command: [x]}\nworkspace: {mode: none}\n"
    )
    code, out, _ = sandkit(tmp_path, capsys, "summary", "kit.yaml")
    assert code == 0 and "    a.example.com:443 (from mixins/net.yaml)" in out


def test_the_enforcement_rows_are_the_builds_fidelity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = sandkit(REPO, capsys, "summary", "examples/offline-gvisor/kit.yaml", "--format", "json")[1]
    summary = json.loads(out)["kits"][0]["fidelity"]
    built = json.loads(
        compile_kit(REPO / "examples/offline-gvisor/kit.yaml", tmp_path, summary["targets"]).files["fidelity.json"]
    )
    assert summary["settings"] == built["settings"]


def test_invalid_kits_and_mixins_are_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.yaml").write_text("apiVersion: sandkit/v1\nname: bad\n")
    code, _, err = sandkit(tmp_path, capsys, "summary", "bad.yaml")
    assert code == 1 and "bad.yaml:1:1: error: agent" in err
    code, _, err = sandkit(REPO, capsys, "summary", "sandkit/kits/presets/codex.yaml")
    assert code == 1 and "this file is a Mixin" in err


def _modules_after(*args: str) -> set[str]:
    code = (
        "import sys; from sandkit.cli import main; main(sys.argv[1:]); sys.stderr.write(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True, check=False, timeout=120
    )
    return set(done.stderr.split())


def test_diff_renders_nothing_and_summary_no_templates() -> None:
    """Start-up stays light: neither imports jinja2; diff imports no target at all."""
    diff = _modules_after("diff", "HEAD", "HEAD", "kits")
    assert "jinja2" not in diff and not any(m.startswith("sandkit.compiler.targets") for m in diff)
    assert not any(m.startswith("sandkit.lint.rules") for m in diff)  # only when commands changed
    summary = _modules_after("summary", "examples/pr-reviewer/kit.yaml")
    assert "jinja2" not in summary and "sandkit.compiler.targets.docker" in summary  # fidelity, not rendering


def test_what_a_target_does_not_own_is_not_listed_as_a_gap(capsys: pytest.CaptureFixture[str]) -> None:
    """An image does not choose its network: "not applicable" is no gap to review."""
    out = sandkit(REPO, capsys, "summary", "examples/pr-reviewer/kit.yaml")[1]
    gaps = out.split("Not enforced everywhere:\n")[1]
    assert "not applicable" not in gaps and "docker: network.egress" not in gaps
    assert "is best-effort" in gaps or "is unsupported" in gaps


def test_the_summary_is_about_the_kits_own_targets(capsys: pytest.CaptureFixture[str]) -> None:
    """pr-reviewer's targets.build is [actions]: its page shows that target, with a legend, in 100
    columns; --verbose shows every target, and its table still fits 100 columns (in blocks)."""
    out = sandkit(REPO, capsys, "summary", "examples/pr-reviewer/kit.yaml")[1].splitlines()
    start = out.index("Enforced by its targets (targets.build; --verbose: every target):")
    assert out[start + 1].split() == ["setting", "actions"]
    assert out[out.index("Not enforced everywhere:") - 2 :][:2] == [
        "  enforced: held whatever the agent does   best-effort: held in part, or while the agent plays along",
        "  unsupported: the target cannot hold it   n/a: not this target's to hold   -: not in its files",
    ]
    assert len(out) < 80
    table = out[start : out.index("Not enforced everywhere:")]
    gaps = out[out.index("Not enforced everywhere:") :]
    assert max(len(line) for line in table + gaps) <= 100
    assert all(line.startswith("  actions: ") or line.startswith("    ") for line in gaps[1:])
    every = sandkit(REPO, capsys, "summary", "examples/pr-reviewer/kit.yaml", "--verbose")[1].splitlines()
    start = every.index("Enforced by each target (fidelity):")
    table = every[start : every.index("Not enforced everywhere:")]
    assert max(len(line) for line in table) <= 100
    assert [t for line in table if line.startswith("  setting ") for t in line.split()[1:]] == list(NAMES)
