"""`sandkit init --preset P` writes a kit that works: built as written (with the host's CA bundle for
the registries), its agent answers `--version` inside the compose sandbox, at the version the preset
pins, on the base image the preset chose (the init kit no longer replaces it)."""

from __future__ import annotations

import pytest

from sandkit.kits.extends import preset_names
from tests.e2e.presets import PresetSandbox, pinned_version

pytestmark = pytest.mark.docker


@pytest.mark.parametrize("preset", preset_names())
def test_the_init_kit_of_each_preset_runs_its_agent(preset_sandboxes: dict[str, PresetSandbox], preset: str) -> None:
    sandbox = preset_sandboxes[preset]
    if sandbox.skipped:
        pytest.skip(sandbox.skipped)
    assert sandbox.build is not None and sandbox.build.returncode == 0, (
        f"the {preset} init kit does not build:\n{sandbox.build}"
    )
    dockerfile = (sandbox.folder / "Dockerfile").read_text(encoding="utf-8")
    assert f"\nFROM {sandbox.base}\n" in dockerfile, "the init kit replaced the preset's base image"
    result = sandbox.version()
    assert result.returncode == 0, f"{preset}'s agent does not start in its sandbox:\n{result}"
    assert pinned_version(preset) in result.stdout, f"not the pinned version:\n{result}"
    print(f"{preset}: built in {sandbox.seconds:.0f} s; {result.stdout.strip()}")
