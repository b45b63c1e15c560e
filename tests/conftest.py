"""Shared test helpers and the Docker gate.

Docker tests skip without an engine on a developer machine; with SANDKIT_REQUIRE_DOCKER=1 (as CI
sets) a missing engine fails them instead, so a green run never hides skipped end-to-end tests.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent

# The outside validators (hadolint, checkov, zizmor, ...) install as console scripts beside this
# interpreter; find them there even when that folder is not on PATH (no venv activated, or a
# version manager whose shims were not refreshed after `python -m pip install`).
_SCRIPTS = sysconfig.get_path("scripts")
if _SCRIPTS and _SCRIPTS not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + _SCRIPTS


# Hypothesis times each example against the clock: on a loaded CI machine (or beside Docker builds)
# the generators' speed says nothing about the property, so no health check fails on slowness.
settings.register_profile("sandkit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sandkit")


def docker_available() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        result = subprocess.run(
            ["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


@functools.cache
def _docker_ok() -> bool:
    return docker_available()


@pytest.fixture(autouse=True)
def _docker_gate(request: pytest.FixtureRequest) -> None:
    """Skip a docker-marked test without an engine, or fail it when CI requires Docker."""
    if request.node.get_closest_marker("docker") is None or _docker_ok():
        return
    missing("no Docker engine answers `docker info`")


def missing(why: str) -> NoReturn:
    """A test that cannot run here (no engine, no outside tool): skipped on a developer's machine, failed
    under SANDKIT_REQUIRE_DOCKER=1 (as .ci/run sets), so CI never passes with a check left out."""
    if os.environ.get("SANDKIT_REQUIRE_DOCKER") == "1":
        pytest.fail(f"SANDKIT_REQUIRE_DOCKER=1 but {why}")
    pytest.skip(f"{why} (CI sets SANDKIT_REQUIRE_DOCKER=1 to make this a failure)")


def cpu_seconds() -> float:
    """CPU time spent so far by this process and by the children it has waited for.

    Bounds on hostile input (a quadratic scan, an alias bomb) are checked against this, not the wall
    clock: what the work costs stays the same whatever else the machine runs, so the limit can stay
    tight without failing under load. How fast sandkit is gets measured and reported in bench/."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
