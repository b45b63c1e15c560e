"""The gate of the process-sandbox tests, as for Docker: without the sandboxes (or without the user
namespaces bubblewrap needs) a test skips and says why, and under SANDKIT_REQUIRE_DOCKER=1, which CI
sets, it fails instead, so a green CI run never hides a sandbox that did not run."""

from __future__ import annotations

import os

import pytest

from tests.sandboxes.harness import unavailable


@pytest.fixture(autouse=True)
def _sandboxes_gate(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("sandboxes") is None:
        return
    why = unavailable()
    if why is None:
        return
    if os.environ.get("SANDKIT_REQUIRE_DOCKER") == "1":
        pytest.fail(f"SANDKIT_REQUIRE_DOCKER=1 but the process sandboxes cannot run: {why}")
    pytest.skip(f"{why} (CI sets SANDKIT_REQUIRE_DOCKER=1 to make this a failure)")
