"""The target registry and the rules every target keeps (sandkit/compiler/target.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from sandkit.compiler.command import compile_kit, parse_targets
from sandkit.compiler.target import RenderContext
from sandkit.compiler.targets import NAMES, REGISTRY, _registry, with_requirements
from sandkit.errors import UsageError
from tests.compiler.helpers import EXAMPLES, compile_from_repo
from tests.python_source import imported_modules

TARGETS_FOLDER = Path(__file__).resolve().parents[2] / "sandkit" / "compiler" / "targets"


def test_every_target_module_is_registered_under_its_own_name() -> None:
    assert set(NAMES) == {
        *("docker", "compose", "kubernetes", "actions", "devcontainer"),
        *("sbx", "openhands", "srt", "claude-code", "codex"),
    }
    for name, target in REGISTRY.items():
        assert name == target.NAME
        assert callable(target.render) and callable(target.fidelity)
        assert all(NAMES.index(required) < NAMES.index(name) for required in target.REQUIRES)


@pytest.mark.parametrize("name", NAMES)
def test_no_target_imports_another_target(name: str) -> None:
    """Shared pieces live in shared modules; a target reads another's files only from its context."""
    modules = {other: getattr(REGISTRY[other], "__name__", "") for other in NAMES}
    others = {module for other, module in modules.items() if other != name}
    assert all(module.startswith("sandkit.compiler.targets.") for module in modules.values())
    path = TARGETS_FOLDER / (modules[name].rsplit(".", 1)[1] + ".py")
    assert not imported_modules(path) & others


def test_a_target_registered_before_what_it_requires_is_refused() -> None:
    first = SimpleNamespace(NAME="first", REQUIRES=("second",))
    second = SimpleNamespace(NAME="second", REQUIRES=())
    with pytest.raises(ValueError, match="target first: registered twice or before second"):
        _registry(first, second)  # stand-ins for target modules
    with pytest.raises(ValueError, match="target second: registered twice"):
        _registry(second, second)


def test_requirements_are_added_in_build_order() -> None:
    assert with_requirements(["devcontainer"]) == ["docker", "compose", "devcontainer"]
    assert with_requirements(["kubernetes", "actions"]) == ["docker", "compose", "kubernetes", "actions"]
    assert parse_targets("kubernetes") == ["kubernetes"]  # compile_kit adds what it needs
    assert parse_targets(None) is None  # each kit's own targets.build, else every target
    with pytest.raises(UsageError, match="unknown target"):
        parse_targets("docker,podman")


def test_a_target_sees_only_the_files_of_what_it_requires() -> None:
    context = RenderContext(Path("out"), {"docker": {"Dockerfile": b"FROM scratch\n"}})
    assert context.files_of("docker") == {"Dockerfile": b"FROM scratch\n"}
    with pytest.raises(LookupError, match="add it to REQUIRES"):
        context.files_of("compose")


@pytest.mark.parametrize("kit", EXAMPLES, ids=lambda p: p.parent.name)
def test_a_target_alone_renders_what_it_renders_among_all(kit: Path, tmp_path: Path) -> None:
    """Requirements are rendered for it, so its files never depend on which other targets were asked for."""
    every = compile_from_repo(kit, tmp_path, list(NAMES))
    for name in NAMES:
        alone = compile_from_repo(kit, tmp_path, [name])
        assert set(alone.fidelity) <= set(every.fidelity)
        for file, data in alone.files.items():
            if file != "fidelity.json":
                assert every.files[file] == data, f"{name}: {file}"


def test_compile_kit_renders_the_requirements_it_is_not_given(tmp_path: Path) -> None:
    result = compile_kit(EXAMPLES[0], tmp_path, ["kubernetes"])
    assert "Dockerfile" in result.files
    assert any("docker" in per_target for per_target in result.fidelity.values())
