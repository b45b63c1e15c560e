"""The outside schemas the new targets are validated against: each is a valid schema, accepts what its
project documents, and refuses what that project refuses (so a validation that passes means something)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from tests.conftest import REPO

DATA = Path(__file__).parent / "data"
SBX_SCHEMA = REPO / "sandkit" / "schemas" / "sbx-spec-v2.schema.json"
SBX_SPEC = REPO / "tests" / "importer" / "data" / "sbx-full" / "spec.yaml"


def _validator(path: Path) -> jsonschema.protocols.Validator:
    schema = json.loads(path.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _errors(path: Path, document: Any) -> list[str]:
    return [error.message for error in _validator(path).iter_errors(document)]


@pytest.mark.parametrize("path", [*sorted(DATA.glob("*.schema.json")), SBX_SCHEMA], ids=lambda p: p.name)
def test_every_schema_is_a_valid_schema(path: Path) -> None:
    _validator(path)


def _sbx() -> dict[str, Any]:
    return dict(YAML(typ="safe").load(SBX_SPEC))


def _set(document: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(document)
    *parents, last = dotted.split(".")
    node: Any = out
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    if value is _DELETE:
        del node[last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return out


_DELETE = object()


def test_sbx_schema_accepts_a_spec_using_every_v2_block() -> None:
    assert _errors(SBX_SCHEMA, _sbx()) == []


@pytest.mark.parametrize(
    ("dotted", "value", "why"),
    [
        ("permissions.netwrok", {}, "strict decoding: an unknown key is an error (SPEC-v2 1.2)"),
        ("network", {"allowedDomains": []}, "a v1 block in a v2 spec is a decode error (SPEC-v2 1.1)"),
        ("schemaVersion", "3", "this grammar is version 2 only"),
        ("name", "Full_Agent", "name pattern"),
        ("kind", "agent", "v2 kinds are sandbox and mixin"),
        ("sandbox.image", _DELETE, "a root sandbox needs an image, and build needs image this release"),
        ("sandbox.resources.cpu", -1, "cpu is non-negative"),
        ("sandbox.resources.memory", "lots", "memory is a byte size"),
        ("sandbox.command", "--task-mode", "command is a list or {default, interactive}"),
        ("ports.0.container", 0, "container port 1..65535"),
        ("ports.0.protocol", "sctp", "protocol is tcp or udp"),
        ("credentials.0.apiKey.inject.0.scheme", "bearer", "scheme and format are mutually exclusive"),
        ("credentials.1.apiKey.inject.0.username", _DELETE, "scheme basic needs a username"),
        ("credentials.0.apiKey.inject.0.format", "Bearer", "format holds exactly one %s"),
        ("credentials.0.service", _DELETE, "service is required"),
        ("credentials.2.oauth.sentinels", {}, "sentinels are required unless passthrough"),
        ("environment.variables", {"NOT-A-NAME": "x"}, "variable names are shell identifiers"),
        ("volumes.0.type", "bind", "volume type is block or tmpfs"),
        ("setup.install.0.command", ["sh", "-c", "x"], "install commands are strings"),
        ("setup.startup.0.command", "mkdir -p ~/.x", "startup commands are argv lists"),
        ("setup.files.0.path", "relative/config.json", "file paths are absolute"),
        ("setup.files.0.mode", "0999", "file modes are octal"),
        ("locked", ["sandbox.image", "sandbox.image"], "locked paths are unique"),
        ("requires", {"agent": "claude"}, "requires is for mixins only"),
        ("args.channel.required", True, "an argument has a default or is required, not both"),
    ],
)
def test_sbx_schema_refuses_what_sbx_refuses(dotted: str, value: Any, why: str) -> None:
    assert _errors(SBX_SCHEMA, _set(_sbx(), dotted, value)), why


def test_sbx_schema_keeps_mixins_without_a_sandbox_block() -> None:
    mixin = {"schemaVersion": "2", "kind": "mixin", "name": "tools", "requires": {"agent": "claude"}}
    assert _errors(SBX_SCHEMA, mixin) == []
    assert _errors(SBX_SCHEMA, {**mixin, "sandbox": {"image": "x"}}), "a mixin may not carry a sandbox block"


SRT_README_EXAMPLE = {
    "network": {
        "allowedDomains": [
            "github.com",
            "*.github.com",
            "lfs.github.com",
            "api.github.com",
            "npmjs.org",
            "*.npmjs.org",
        ],
        "deniedDomains": ["malicious.com"],
        "allowUnixSockets": ["/var/run/docker.sock"],
        "allowLocalBinding": False,
    },
    "filesystem": {
        "denyRead": ["~/.ssh"],
        "allowWrite": [".", "src/", "test/", "/tmp"],
        "denyWrite": [".env", "config/production.json"],
    },
    "ignoreViolations": {"*": ["/usr/bin", "/System"], "git push": ["/usr/bin/nc"]},
    "enableWeakerNestedSandbox": False,
}


def test_srt_schema_accepts_the_readme_example() -> None:
    assert _errors(DATA / "srt-settings.schema.json", SRT_README_EXAMPLE) == []


@pytest.mark.parametrize(
    "domain",
    [
        *("*", "*.com", "example.com:0", "example.com:65536", "example.com:080"),
        *("https://example.com", "a.*.example.com", "example", ".example.com"),
    ],
)
def test_srt_schema_refuses_the_domains_srt_refuses(domain: str) -> None:
    document = _set(SRT_README_EXAMPLE, "network.allowedDomains", [domain])
    assert _errors(DATA / "srt-settings.schema.json", document)


@pytest.mark.parametrize("domain", ["example.com:443", "*.example.com:8443", "example.com:65535"])
def test_srt_schema_accepts_a_port_as_srt_0_0_83_does(domain: str) -> None:
    document = _set(SRT_README_EXAMPLE, "network.allowedDomains", [domain])
    assert _errors(DATA / "srt-settings.schema.json", document) == []


def test_srt_schema_refuses_unknown_and_missing_keys() -> None:
    schema = DATA / "srt-settings.schema.json"
    assert _errors(schema, _set(SRT_README_EXAMPLE, "network.allowedDomain", []))
    assert _errors(schema, _set(SRT_README_EXAMPLE, "filesystem.denyWrite", _DELETE))


def test_claude_schema_is_strict_inside_sandbox_and_permissions() -> None:
    schema = DATA / "claude-code-settings.schema.json"
    good = {
        "sandbox": {"enabled": True, "network": {"allowedDomains": ["example.com"]}},
        "permissions": {"deny": ["WebSearch"]},
    }
    assert _errors(schema, good) == []
    assert _errors(schema, _set(good, "sandbox.network.allowDomains", []))
    assert _errors(schema, _set(good, "permissions.deny", ["NotATool(x)"]))
    assert _errors(schema, _set(good, "permissions.defaultMode", "yolo"))


def test_codex_schema_is_strict_at_the_top_and_in_the_sandbox_table() -> None:
    schema = DATA / "codex-config.schema.json"
    good = {
        "sandbox_mode": "workspace-write",
        "approval_policy": "never",
        "sandbox_workspace_write": {"network_access": False},
    }
    assert _errors(schema, good) == []
    assert _errors(schema, _set(good, "sandbox_mode", "container"))
    assert _errors(schema, _set(good, "sandbox_workspace_write.network", False))
    assert _errors(schema, _set(good, "approval", "never"))


def test_openhands_sandbox_schema_refuses_what_extra_forbid_refuses() -> None:
    schema = DATA / "openhands-sandbox.schema.json"
    good = {"base_container_image": "sandkit/x:1", "volumes": "/src:/workspace:ro", "additional_networks": ["n"]}
    assert _errors(schema, good) == []
    assert _errors(schema, {**good, "runtime_image": "x"})
    assert _errors(schema, {**good, "volumes": "/src:/workspace:rx"})
