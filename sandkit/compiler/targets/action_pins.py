"""Every third-party action a generated workflow (or sandkit's own release workflow) uses, pinned to a
full commit SHA.

A tag can be moved to other code after review; a 40-hex commit cannot. The version each SHA is
stays beside it so that a reader (and `uses: ...@SHA # VERSION` in the output) can tell what runs.
`python scripts/refresh-action-pins.py` rewrites the table below from `git ls-remote` (docs/actions.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from sandkit.compiler.yamlout import Commented


@dataclass(frozen=True)
class Pin:
    """One action at one commit, and the release tag that commit is."""

    sha: str
    version: str


# BEGIN PINS (rewritten by scripts/refresh-action-pins.py; keep one entry per line)
PINS: dict[str, Pin] = {
    "actions/attest-build-provenance": Pin("a2bbfa25375fe432b6a289bc6b6cd05ecd0c4c32", "v4.1.0"),
    "actions/checkout": Pin("3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"),
    "actions/create-github-app-token": Pin("1b10c78c7865c340bc4f6099eb2f838309f1e8c3", "v3.1.1"),
    "actions/download-artifact": Pin("3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c", "v8.0.1"),
    "actions/upload-artifact": Pin("bbbca2ddaa5d8feaa63e36b76fdaad77386f024f", "v7.0.0"),
    "docker/build-push-action": Pin("53b7df96c91f9c12dcc8a07bcb9ccacbed38856a", "v7.3.0"),
    "docker/setup-buildx-action": Pin("37fe631027851001ddb9b187196cc803df7f5f0e", "v4.3.0"),
    "pypa/gh-action-pypi-publish": Pin("81e9d935c883d0b210363ab89cf05f3894778450", "v1.8.14"),
    "step-security/harden-runner": Pin("b09bb98e06d4d774595224525879c09bc6e98c40", "v2.20.1"),
}
# END PINS


def uses(action: str) -> Commented:
    """The ``uses:`` value for an action, ``action@SHA # VERSION``."""
    pin = PINS[action]
    return Commented(f"{action}@{pin.sha}", pin.version)
