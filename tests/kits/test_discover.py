"""Kits are told apart by parsing, not by sniffing text: what the YAML declares at its top level."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from sandkit.cli import main
from sandkit.kits.discover import find_kits, top_level_scalars
from tests.compiler.helpers import in_folder
from tests.conftest import REPO

KIT = "apiVersion: sandkit/v1\nname: {name}\nagent: {{command: [agent]}}\nworkspace: {{mode: none}}\n"
TRICKY = (
    KIT
    + "description: |\n  kind: Mixin\n  apiVersion: v1\nagent:\n  command: [agent]\n  instructions: |\n    kind: Mixin\n"
)


def test_a_kit_whose_text_holds_kind_mixin_is_built(tmp_path: Path) -> None:
    (tmp_path / "kits").mkdir()
    (tmp_path / "kits" / "tricky.yaml").write_text(
        TRICKY.format(name="tricky").replace("agent: {command: [agent]}\n", "")
    )
    with in_folder(tmp_path):
        assert main(["build", "kits", "-o", "out", "-q"]) == 0
        assert main(["build", "kits/tricky.yaml", "-o", "out2", "-q"]) == 0
    assert (tmp_path / "out" / "tricky" / "Dockerfile").is_file() and (tmp_path / "out2" / "tricky").is_dir()


def test_a_mixin_named_on_the_command_line_says_what_a_mixin_is_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "base.yaml").write_text("apiVersion: sandkit/v1\nkind: Mixin\nimage: {packages: {apt: [git]}}\n")
    with in_folder(tmp_path):
        assert main(["build", "base.yaml", "-o", "out"]) == 1
    err = capsys.readouterr().err
    assert (
        "base.yaml:1:1: error: this file is a Mixin: a partial kit that Kits take in with `extends: [./base.yaml]`"
        in err
    )
    assert "nothing written" in err and not (tmp_path / "out").exists()


def test_a_mixin_in_a_folder_is_validated_and_not_built(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "base.yaml").write_text("apiVersion: sandkit/v1\nkind: Mixin\nimage: {packages: {apt: [git]}}\n")
    (tmp_path / "kit.yaml").write_text(KIT.format(name="one") + "extends: [./base.yaml]\n")
    with in_folder(tmp_path):
        assert main(["validate", "."]) == 0
        assert "base.yaml: ok (Mixin" in capsys.readouterr().out
        assert main(["build", ".", "-o", "out", "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir()) == ["one"]


@pytest.mark.parametrize("command", ["validate", "build"])
@pytest.mark.parametrize("api", ["sandkit/v2", "sandkit.dev/v1", "SANDKIT/V1"])
def test_an_unknown_api_version_in_a_folder_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, api: str
) -> None:
    (tmp_path / "good.yaml").write_text(KIT.format(name="good"))
    (tmp_path / "future.yaml").write_text(KIT.format(name="future").replace("sandkit/v1", api))
    with in_folder(tmp_path):
        assert main([command, ".", "-o", "out"] if command == "build" else [command, "."]) == 1
    assert f"future.yaml:1:13: error: apiVersion: unknown apiVersion '{api}'" in capsys.readouterr().err


def test_other_yaml_in_a_folder_is_not_a_kit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kit.yaml").write_text(KIT.format(name="one"))
    (tmp_path / "deployment.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\n")
    (tmp_path / "list.yaml").write_text("- apiVersion: sandkit/v1\n")
    (tmp_path / "config.yml").write_text("name: x\nkind: Kit-ish\n")
    with in_folder(tmp_path):
        assert main(["validate", "."]) == 0
    assert capsys.readouterr().out == "kit.yaml: ok (Kit one)\nsandkit validate: 1 kit, valid\n"


def test_a_kit_broken_below_its_api_version_is_still_a_kit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kit.yaml").write_text("apiVersion: sandkit/v1\nname: [broken\n")
    with in_folder(tmp_path):
        assert main(["validate", "."]) == 1
    assert "kit.yaml:3:1: error: YAML syntax error" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["validate", "build"])
def test_two_kits_with_one_name_are_caught_naming_both_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    (tmp_path / "a.yaml").write_text(KIT.format(name="same"))
    (tmp_path / "b.yaml").write_text(KIT.format(name="same"))
    with in_folder(tmp_path):
        assert main([command, "a.yaml", "b.yaml"] + (["-o", "out"] if command == "build" else [])) == 1
    err = capsys.readouterr().err
    assert "a.yaml:2:7: error: 2 kits are named same: a.yaml, b.yaml" in err
    assert "b.yaml:2:7: error: 2 kits are named same: a.yaml, b.yaml" in err


def test_a_folder_walk_skips_fifos_and_link_loops(tmp_path: Path) -> None:
    (tmp_path / "kit.yaml").write_text(KIT.format(name="one"))
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "loop").symlink_to(tmp_path)
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        cwd=REPO,
    )
    assert done.returncode == 0 and done.stdout.endswith("kit.yaml: ok (Kit one)\nsandkit validate: 1 kit, valid\n"), (
        done
    )


scalars = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)
values = st.recursive(
    scalars | st.integers() | st.booleans(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(scalars, inner, max_size=3),
)
documents = st.dictionaries(st.sampled_from(["apiVersion", "kind", "name", "agent", "x"]) | scalars, values, max_size=6)


@given(document=documents)
def test_the_event_reader_agrees_with_a_full_parse(document: dict[object, object]) -> None:
    data = yaml.safe_dump(document, allow_unicode=True).encode()
    found, broken = top_level_scalars(data, ("apiVersion", "kind"))
    assert broken is None
    wanted = {k: v for k, v in document.items() if k in ("apiVersion", "kind") and not isinstance(v, list | dict)}
    assert set(found) == set(wanted)
    for key, value in wanted.items():
        assert (found[key] if isinstance(value, str) else yaml.safe_load(found[key])) == value


def test_find_kits_marks_what_was_named(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(KIT.format(name="a"))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "m.yml").write_text("apiVersion: sandkit/v1\nkind: Mixin\n")
    found = find_kits([str(tmp_path / "a.yaml"), str(tmp_path / "sub")])
    assert [(s.path.name, s.named, s.kind) for s in found] == [("a.yaml", True, "Kit"), ("m.yml", False, "Mixin")]
