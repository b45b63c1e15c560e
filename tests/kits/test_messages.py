"""Messages a user can act on: the field in words, what to give and what was found, never pydantic's."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.kits.helpers import MINIMAL, errors


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            "agent: {command: claude}\n",
            '5:18: agent.command: give a list of words, such as [claude, -p, "Review the pull request"]; '
            "found text 'claude'",
        ),
        (
            'network: {allow: ["https://github.com"]}\n',
            "5:19: network.allow[0]: give a host, not a URL: 'github.com' (port 443 is implied; add ':PORT' for another)",
        ),
        (
            'network: {allow: ["http://example.com/x"]}\n',
            "5:19: network.allow[0]: give a host, not a URL: 'example.com:80' (port 443 is implied; add ':PORT' for "
            "another)",
        ),
        ('network: {deny: ["example.com/path"]}\n', "5:18: network.deny[0]: give a host without a path: 'example.com'"),
        (
            "install: apt-get update\n",
            "5:10: install: give a list of shell commands, one per entry; found text 'apt-get update'",
        ),
        ("description: 12\n", '5:14: description: give text; found 12 (YAML reads 12 as a number; quote it: "12")'),
        (
            "isolation: {read_only_root: maybe}\n",
            "5:29: isolation.read_only_root: give true or false; found text 'maybe'",
        ),
        (
            "triggers: [nightly]\n",
            "5:12: triggers[0]: give one trigger: {schedule: '0 9 * * 1'}, "
            "{github: {event: push}} or {manual: {}}; found text 'nightly'",
        ),
        ("resources: {pids: 3}\n", "5:19: resources.pids: give a number of at least 16; found 3"),
    ],
)
def test_field_specific_words(tmp_path: Path, extra: str, expected: str) -> None:
    text = MINIMAL.replace("agent:\n  command: [agent, --run]\n", "") if extra.startswith("agent") else MINIMAL
    problems = errors(tmp_path, text + extra)
    assert problems == [expected.replace("5:", f"{text.count(chr(10)) + 1}:", 1)]


def test_unknown_api_version_is_named(tmp_path: Path) -> None:
    assert errors(tmp_path, MINIMAL.replace("sandkit/v1", "sandkit/v2")) == [
        "1:13: apiVersion: unknown apiVersion 'sandkit/v2'; this sandkit reads kits of apiVersion sandkit/v1"
    ]


FIELDS = [
    "name",
    "kind",
    "description",
    "extends",
    "install",
    "startup",
    "env",
    "secrets",
    "files",
    "ports",
    "triggers",
    "agent.command",
    "agent.instructions",
    "image.base",
    "image.uid",
    "image.packages.apt",
    "image.ca_certificates",
    "network.egress",
    "network.allow",
    "workspace.mode",
    "resources.cpus",
    "resources.pids",
    "isolation.read_only_root",
    "targets.kubernetes",
    "targets.actions.permissions",
]
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "name", "x"]), inner, max_size=2),
    max_leaves=6,
)
PYDANTIC_WORDS = ("Input should", "List should", "instance of", "valid dictionary", "unable to parse")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), value=values)
def test_no_message_speaks_pydantic(field: str, value: object) -> None:
    document: dict[str, object] = {"apiVersion": "sandkit/v1", "name": "demo", "agent": {"command": ["a"]}}
    *parents, last = field.split(".")
    target = document
    for part in parents:
        child = target.setdefault(part, {})
        assert isinstance(child, dict)
        target = child
    target[last] = value
    with tempfile.TemporaryDirectory() as folder:
        for problem in errors(Path(folder), json.dumps(document)):
            assert not any(words in problem for words in PYDANTIC_WORDS), problem
