"""`sandkit init` writes a kit that validates, or nothing: names checked, folders understood, and no
placeholder or path of the installation in what it writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sandkit
from sandkit.cli import main
from sandkit.kits import init as init_module
from sandkit.kits.init import SCHEMA_URL
from tests.compiler.helpers import in_folder


@pytest.mark.parametrize("stem", ["123", "true", "no", "null", "1e3", "0x1f", "on", "007"])
def test_a_name_yaml_would_read_as_something_else_is_quoted_and_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stem: str
) -> None:
    target = tmp_path / f"{stem}.yaml"
    assert main(["init", str(target)]) == 0
    assert f'name: "{stem}"' in target.read_text()
    assert main(["validate", str(target)]) == 0
    assert f"ok (Kit {stem})" in capsys.readouterr().out


@pytest.mark.parametrize("stem", ["___", "-", "---", "é"])
def test_a_file_name_that_makes_no_kit_name_is_refused_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stem: str
) -> None:
    assert main(["init", str(tmp_path / f"{stem}.yaml")]) == 2
    assert "cannot make a kit name from" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_folder_gets_kit_yaml_named_after_it(tmp_path: Path) -> None:
    with in_folder(tmp_path):
        assert main(["init", "agents/"]) == 0
        assert (tmp_path / "agents" / "kit.yaml").is_file()
        assert "name: agents" in (tmp_path / "agents" / "kit.yaml").read_text()
        (tmp_path / "reviewer").mkdir()
        assert main(["init", "reviewer"]) == 0
        assert main(["validate", "reviewer/kit.yaml"]) == 0


def test_nothing_written_when_the_kit_would_not_validate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A template bug must not leave an invalid file behind (simulated: a template with a root user)."""
    from sandkit.kits import template

    real = template.render_init
    monkeypatch.setattr(template, "render_init", lambda *a, **k: real(*a, **k).replace("user: agent", "user: root"))
    assert main(["init", str(tmp_path / "kits" / "reviewer.yaml")]) == 1
    assert "image.user" in capsys.readouterr().err
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_init_never_overwrites_without_force_nor_writes_through_a_folder(tmp_path: Path) -> None:
    target = tmp_path / "reviewer.yaml"
    target.write_text("mine\n")
    assert main(["init", str(target)]) == 2 and target.read_text() == "mine\n"
    assert main(["init", str(target), "--force"]) == 0 and "apiVersion: sandkit/v1" in target.read_text()
    (tmp_path / "file").write_text("x\n")
    assert main(["init", str(tmp_path / "file" / "k.yaml")]) == 2


def test_no_placeholder_and_no_path_of_the_installation(tmp_path: Path) -> None:
    installation = str(Path(sandkit.__file__).resolve().parent.parent)
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    target = tmp_path / "repo" / "kits" / "reviewer.yaml"
    with in_folder(tmp_path):
        assert main(["init", "repo/kits/reviewer.yaml"]) == 0
    text = target.read_text()
    assert not re.search(r"\{[^}]*\}", text.replace("manual: {}", "")), "a placeholder was left in the kit"
    assert installation not in text and str(tmp_path) not in text and "file://" not in text
    assert f"# yaml-language-server: $schema={SCHEMA_URL}\n" in text
    assert "sandkit validate kits/reviewer.yaml" in text


def test_the_schema_modeline_is_relative_to_the_kit_when_the_repository_has_one(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "kit.schema.json").write_text("{}\n")
    assert main(["init", str(tmp_path / "kits" / "deep" / "a.yaml")]) == 0
    assert "$schema=../../schemas/kit.schema.json\n" in (tmp_path / "kits" / "deep" / "a.yaml").read_text()


def test_a_schema_above_the_repository_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "kit.schema.json").write_text("{}\n")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    assert main(["init", str(tmp_path / "repo" / "a.yaml")]) == 0
    assert f"$schema={SCHEMA_URL}\n" in (tmp_path / "repo" / "a.yaml").read_text()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stem=st.text(alphabet="abcxyz019-_.TRUEno", min_size=1, max_size=12))
def test_init_writes_a_valid_kit_or_nothing(tmp_path_factory: pytest.TempPathFactory, stem: str) -> None:
    folder = tmp_path_factory.mktemp("init")
    target = folder / f"{stem}.yaml"
    code = init_module.init(str(target), preset=None, force=False) if _nameable(stem) else None
    if code is None:
        assert main(["init", str(target)]) == 2
        assert not target.exists()
    else:
        assert code == 0 and main(["validate", str(target)]) == 0


def _nameable(stem: str) -> bool:
    try:
        init_module.kit_name(Path(f"{stem}.yaml"))
    except Exception:
        return False
    return True
