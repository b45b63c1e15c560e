"""The engine check of `sandkit verify` (moby/moby#45610): version strings as engines write them, the row
for each, and the engine of this machine as it answers."""

from __future__ import annotations

import shutil

import pytest

from sandkit.verify import engine, plan
from tests.e2e.helpers import REPO

#: A compiled allowlist kit with a published port (examples/web-preview).
PREVIEW = REPO / "examples" / "web-preview" / "sandbox" / "web-preview"


@pytest.mark.parametrize(
    ("text", "parsed", "leaks"),
    [
        ("28.0.0", (28, 0, 0), False),
        ("28.2.2", (28, 2, 2), False),
        ("29.1.3", (29, 1, 3), False),
        ("v28.0.1", (28, 0, 1), False),
        ("28.0.0-rc.1", (28, 0, 0), False),
        ("27.5.1", (27, 5, 1), True),
        ("26.1.4", (26, 1, 4), True),
        ("20.10.24+dfsg1", (20, 10, 24), True),
        ("17.03.1-ce", (17, 3, 1), True),
        ("1.13.1", (1, 13, 1), True),
        ("28.1", (28, 1, 0), False),
    ],
)
def test_release_numbers_and_the_first_fixed_one(text: str, parsed: tuple[int, int, int], leaks: bool) -> None:
    assert engine.parse_version(text) == parsed
    assert engine.leaks_loopback_ports(parsed) is leaks
    row = engine.loopback_row("Docker Engine - Community", text, "enforced")
    assert row["status"] == ("fail" if leaks else "pass") and row["setting"] == "ports"
    assert ("moby/moby#45610" in row["detail"]) is leaks


@pytest.mark.parametrize("text", ["", "dev", "master-dockerproject-2025-01-01", "28", "28.x.1", "28.0.0\n27.0.0"])
def test_anything_else_is_undecided_not_passed(text: str) -> None:
    assert engine.parse_version(text) is None
    assert engine.loopback_row("", text, "enforced")["status"] == "error"


def test_podman_is_not_judged_by_dockers_numbers() -> None:
    assert engine.loopback_row("Podman Engine", "4.9.3", "enforced")["status"] == "pass"


def test_only_a_sandbox_with_ports_asks_the_engine() -> None:
    no_ports = plan.load(REPO / "examples" / "pr-reviewer" / "sandbox" / "pr-reviewer")
    assert engine.rows_for(no_ports) == []


@pytest.mark.docker
def test_this_machines_engine_is_judged_by_its_own_version() -> None:
    """The engine here answers; its row follows from its version (28.0 or later passes, older fails)."""
    if shutil.which("docker") is None:
        pytest.fail("docker is not installed")
    platform, text = engine.server_version()
    version = engine.parse_version(text)
    assert version is not None, f"the engine gave no release number: {platform!r} {text!r}"
    (row,) = engine.rows_for(plan.load(PREVIEW))
    assert row["level"] == "enforced"
    assert row["status"] == ("fail" if engine.leaks_loopback_ports(version) else "pass"), row
