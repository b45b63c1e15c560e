"""The proxy image is the machine's, not the kit's: its tag is the digest of what it holds.

Two kits whose proxies are the same (allowlist, denials, injections, the uid the injecting proxy runs as)
compile byte-identical egress/ build contexts and one tag, whatever else differs (name, kit path,
instructions, env, packages); a change to the proxy's configuration is another tag. What the image
cannot hold any more (the kit's name and digest, the agent's image, its own tag, for the session record
and the authority's name) every target passes to the proxy's container as variables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from sandkit.compiler.proxy import PROXY_REPOSITORY
from tests.compiler.helpers import KitOutput, compile_text

KIT = """\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim", packages: {{apt: [{apt}]}}}}
agent: {{command: [agent], instructions: "{instructions}"}}
env: {{CHANGED: "{env}"}}
network: {{allow: [{allow}]{deny}}}
workspace: {{mode: none}}
{secrets}"""
INJECT = """\
secrets:
  - name: API_KEY
    inject: [{host: api.example.com, header: x-api-key}]
"""
BASE = {"name": "kitnameone", "apt": "git", "instructions": "one", "env": "1", "allow": "api.example.com", "deny": ""}


def _compile(folder: Path, targets: list[str], **changes: str) -> KitOutput:
    folder.mkdir(parents=True)
    values = {**BASE, "secrets": "", **changes}
    return compile_text(folder, KIT.format(**values), targets)


def _proxy(out: KitOutput) -> tuple[str, dict[str, bytes]]:
    compose = yaml.safe_load(out.files["compose.yaml"])
    context = {name: data for name, data in out.files.items() if name.startswith("egress/")}
    return compose["services"]["egress"]["image"], context


@pytest.mark.parametrize("inject", ["", INJECT])
def test_kits_with_the_same_proxy_share_one_image(tmp_path: Path, inject: str) -> None:
    first = _compile(tmp_path / "a", ["compose"], secrets=inject)
    other = {"name": "kitnametwo", "apt": "curl", "instructions": "two", "env": "2"}
    second = _compile(tmp_path / "b", ["compose"], secrets=inject, **other)
    (tag, context), (tag2, context2) = _proxy(first), _proxy(second)
    assert tag == tag2 and tag.startswith(f"{PROXY_REPOSITORY}:") and context == context2
    assert first.plan.image_tag != second.plan.image_tag
    for data in context.values():  # nothing of the kit in what the image holds
        for trace in (b"kitnameone", first.plan.config_sha256.encode(), first.plan.config_sha256[:12].encode()):
            assert trace not in data


@pytest.mark.parametrize(
    "change",
    [
        {"allow": "other.example.com"},
        {"allow": "api.example.com, more.example.com"},
        {"deny": ", deny: [bad.api.example.com]"},
        {"secrets": INJECT},
    ],
)
def test_another_proxy_configuration_is_another_image(tmp_path: Path, change: dict[str, str]) -> None:
    tag, context = _proxy(_compile(tmp_path / "a", ["compose"]))
    tag2, context2 = _proxy(_compile(tmp_path / "b", ["compose"], **change))
    assert tag != tag2 and context != context2


def test_every_target_tells_the_shared_proxy_its_kit(tmp_path: Path) -> None:
    out = _compile(tmp_path / "k", ["compose", "kubernetes", "actions"], secrets=INJECT)
    plan = out.plan
    tag = _proxy(out)[0]
    expected = {
        "SANDKIT_KIT_NAME": plan.name,
        "SANDKIT_KIT_SHA256": plan.config_sha256,
        "SANDKIT_AGENT_IMAGE": plan.image_tag,
        "SANDKIT_PROXY_IMAGE": tag,
    }
    compose = yaml.safe_load(out.files["compose.yaml"])
    assert compose["services"]["egress"]["environment"] == expected
    manifests = [d for name, data in out.files.items() if name.startswith("kubernetes/") for d in _documents(data)]
    (proxy,) = [d for d in manifests if d.get("kind") == "Deployment" and d["metadata"]["name"].endswith("-egress")]
    spec = proxy["spec"]["template"]["spec"]
    squid_env = {e["name"]: e.get("value") for e in spec["containers"][0]["env"]}
    assert expected.items() <= squid_env.items()
    (job,) = [d for d in manifests if d.get("kind") == "Job" and "authority" in d["metadata"].get("name", "")]
    authority_env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert authority_env["SANDKIT_KIT_NAME"] == plan.name  # the authority's name, made once per Deployment
    workflow = next(data for name, data in out.files.items() if name.endswith(".yml") and b"jobs:" in data)
    steps = [s for job in yaml.safe_load(workflow)["jobs"].values() for s in job.get("steps", [])]
    start = next(s for s in steps if s.get("name") == "Start the egress proxy on the sandbox network")
    assert expected.items() <= start["env"].items()
    for name in expected:
        assert f"--env {name}" in start["run"]


def _documents(data: bytes) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(data) if isinstance(d, dict)]
