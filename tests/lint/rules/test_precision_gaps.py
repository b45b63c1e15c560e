"""Issue 33, known gaps of the third held-out set fixed as classes: each class with several
shapes, the look-alikes that must still be reported, and what the change now misses.

Reproduced on development repositories only (none of docs/lint.md's held-out lists).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandkit.lint.facts.host_paths import devcontainer_workspace
from sandkit.lint.kinds import AGENT_INSTRUCTIONS, SHELL, TEXT, kind_by_name
from tests.conftest import cpu_seconds
from tests.lint.helpers import at, lint_text, lint_tree, write_tree

# ---- HC001: ${localWorkspaceFolder} is the folder a dev container is opened from -----------------

CLIMB = '{"mounts": ["source=${localWorkspaceFolder}/%s,target=/src,type=bind"]}'


@pytest.mark.parametrize(
    ("path", "folder"),
    [
        (".devcontainer/devcontainer.json", ""),
        (".devcontainer.json", ""),
        ("a/b/.devcontainer.json", "a/b"),
        ("a/b/.devcontainer/devcontainer.json", "a/b"),
        ("a/b/.devcontainer/python/devcontainer.json", "a/b"),
        ("templates/src/go/.devcontainer/devcontainer.json", "templates/src/go"),
    ],
)
def test_the_workspace_folder_of_a_dev_container_file(path: str, folder: str) -> None:
    assert devcontainer_workspace(path) == folder


@pytest.mark.parametrize(
    ("path", "climb"),
    [
        ("script-library/test/regression/alpine/.devcontainer.json", "../../.."),
        ("script-library/test/sshd/debian/.devcontainer.json", "../../../.."),
        ("containers/x/test-project/.devcontainer/devcontainer.json", "../../.."),
        ("tests/fixtures/a/.devcontainer/variant/devcontainer.json", ".."),
        ("a/b/.devcontainer.json", "../src/.."),
    ],
)
def test_a_nested_dev_container_climbing_inside_the_tree_is_not_the_home(path: str, climb: str) -> None:
    assert at(lint_text(path, CLIMB % climb), "HC001") == []


@pytest.mark.parametrize(
    ("path", "climb", "where"),
    [
        (".devcontainer/devcontainer.json", "..", ".."),
        (".devcontainer.json", "../..", "../.."),
        ("a/.devcontainer.json", "../..", ".."),
        ("a/b/.devcontainer/python/devcontainer.json", "../../..", ".."),
    ],
)
def test_a_climb_that_leaves_the_scanned_tree_stays_critical(path: str, climb: str, where: str) -> None:
    """Above the scanned folder is unknown: the home folder, or more."""
    findings = [f for f in lint_text(path, CLIMB % climb) if f.rule == "HC001"]
    assert [f.severity for f in findings] == ["critical"]
    assert f": {where} from the project's root, above the project" in findings[0].message


@pytest.mark.parametrize(
    "source", ["${localEnv:HOME}/.ssh", "${localEnv:HOME}", "~/.aws", "/home/dev/.kube", "${localEnv:USERPROFILE}/.ssh"]
)
def test_home_forms_in_nested_dev_containers_are_still_found(source: str) -> None:
    text = json.dumps({"mounts": [f"source={source},target=/creds,type=bind"]})
    assert len(at(lint_text("script-library/test/regression/alpine/.devcontainer.json", text), "HC001")) == 1


def test_compose_relative_sources_still_start_at_the_compose_file() -> None:
    """Unchanged: a compose file's `..` is from its own folder."""
    text = 'services:\n  a:\n    volumes: ["../../..:/host", "..:/repo"]\n'
    assert at(lint_text("deploy/a/b/compose.yaml", text), "HC001") == []
    assert len(at(lint_text("deploy/compose.yaml", text), "HC001")) == 1
