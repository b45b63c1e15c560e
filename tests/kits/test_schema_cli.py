"""The committed schema, the CLI's exit codes and messages, ``init`` output, and light start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from sandkit.kits.schema import PACKAGED_SCHEMA, render_schema
from sandkit.kits.template import render_init
from tests.conftest import REPO
from tests.kits.helpers import MINIMAL

GOLDEN = REPO / "tests" / "golden" / "init"


def test_committed_schema_matches_the_model() -> None:
    """`sandkit schema` prints the committed file, so the model regenerates it, as the goldens."""
    if os.environ.get("SANDKIT_UPDATE_GOLDEN") == "1":
        PACKAGED_SCHEMA.write_text(render_schema(), encoding="utf-8")
    assert PACKAGED_SCHEMA.read_text(encoding="utf-8") == render_schema(), (
        "schema drifted: regenerate it with SANDKIT_UPDATE_GOLDEN=1 on purpose"
    )
    assert (REPO / "schemas" / "kit.schema.json").read_text(encoding="utf-8") == render_schema()


def test_schema_checks_kits_like_an_editor_would() -> None:
    schema = json.loads(render_schema())
    validator = jsonschema.Draft202012Validator(schema)
    good = YAML(typ="safe").load(MINIMAL)
    assert not list(validator.iter_errors(good))
    bad = {**good, "netwrk": {}}
    assert [e.message for e in validator.iter_errors(bad)] == [
        "Additional properties are not allowed ('netwrk' was unexpected)"
    ]


def test_examples_and_presets_pass_the_schema() -> None:
    validator = jsonschema.Draft202012Validator(json.loads(render_schema()))
    files = [*REPO.glob("examples/*/kit.yaml"), *REPO.glob("kits/*.yaml"), *REPO.glob("sandkit/kits/presets/*.yaml")]
    assert len(files) >= 9
    for path in files:
        errors = [e.message for e in validator.iter_errors(YAML(typ="safe").load(path.read_text()))]
        assert errors == [], f"{path}: {errors}"
    partial = {"apiVersion": "sandkit/v1", "kind": "Mixin", "env": {"A": "1"}}
    assert not list(validator.iter_errors(partial)), "a Mixin needs no agent or name"
    assert list(validator.iter_errors({**partial, "kind": "Kit"})), "a Kit does"
    wrong = {"apiVersion": "sandkit/v1", "name": "k", "agent": {"command": ["a"]}, "resources": {"timeout": "2 hours"}}
    assert [e.message for e in validator.iter_errors(wrong)] == [
        "'2 hours' does not match '^([0-9]+h)?([0-9]+m)?([0-9]+s)?$'"
    ]


def test_schema_command_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert capsys.readouterr().out == render_schema()


def test_validate_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(MINIMAL)
    bad = tmp_path / "bad.yaml"
    bad.write_text(MINIMAL + "image: {user: root}\n")
    assert main(["validate", str(good)]) == 0
    assert main(["validate", str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:5:15: error: image.user: the agent never runs as root" in err
    assert main(["validate", str(tmp_path / "missing.yaml")]) == 2
    assert main(["validate"]) == 2
    assert main(["validate", str(tmp_path)]) == 1  # a folder: every kit in it


@pytest.mark.parametrize("preset", [None, "claude-code"])
def test_init_golden(preset: str | None) -> None:
    name = preset or "plain"
    text = render_init("my-agent", preset, schema_ref="../schemas/kit.schema.json", kit_path="kits/my-agent.yaml")
    golden = GOLDEN / f"{name}.yaml"
    if os.environ.get("SANDKIT_UPDATE_GOLDEN") == "1":
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8"), "regenerate with SANDKIT_UPDATE_GOLDEN=1 on purpose"


@pytest.mark.parametrize("preset", [None, "claude-code", "codex", "aider", "openhands", "gemini-cli"])
def test_init_writes_a_kit_that_validates(tmp_path: Path, preset: str | None) -> None:
    target = tmp_path / "agents" / "reviewer.yaml"
    args = ["init", str(target)] + (["--preset", preset] if preset else [])
    assert main(args) == 0
    assert main(["validate", str(target)]) == 0
    assert "name: reviewer" in target.read_text()
    assert main(args) == 2, "init must not overwrite without --force"


def test_init_unknown_preset_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path / "k.yaml"), "--preset", "nope"]) == 2
    assert "unknown preset 'nope'" in capsys.readouterr().err


def _imported_after(argv: list[str]) -> set[str]:
    code = (
        "import sys, runpy; sys.argv = ['sandkit', *sys.argv[1:]];\n"
        "from sandkit.cli import main\ntry: main(sys.argv[1:])\nfinally: print('\\n'.join(sys.modules), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=REPO, check=False)
    return set(done.stderr.split())


@pytest.mark.parametrize("argv", [["--version"], ["validate", "tests/golden/init/plain.yaml"]])
def test_start_up_stays_light(argv: list[str]) -> None:
    modules = _imported_after(argv)
    assert "jinja2" not in modules
    assert not any(m.startswith(("sandkit.compiler", "sandkit.lint.engine", "sandkit.lint.rules")) for m in modules)


def test_python_dash_m_works() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "--version"], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert done.returncode == 0 and done.stdout.startswith("sandkit ")
