"""`secrets[].inject`: the shapes the proxy's configuration can hold, hosts the allowlist reaches,
located errors for every rule, and presets that declare their API's injection."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.compiler.plan import Destination, Injection, make_plan
from sandkit.kits.extends import PRESET_DIR, preset_names
from sandkit.kits.inject import header_value
from tests.kits.helpers import MINIMAL, errors, load

GITHUB = """\
network:
  allow: [api.github.com, "*.example.com", "git.example.com:8443"]
  deny: [secret.example.com]
secrets:
  - name: GH_TOKEN
    placeholder: not-the-token
    inject:
      - host: {host}
        header: {header}
        format: {format}
"""


def _kit(host: str = "api.github.com", header: str = "Authorization", format: str = '"Bearer {value}"') -> str:
    return MINIMAL + GITHUB.format(host=host, header=header, format=format)


def test_an_injection_reaches_the_plan(tmp_path: Path) -> None:
    plan = make_plan(load(tmp_path, _kit()))
    assert plan.injections == (
        Injection("GH_TOKEN", Destination("api.github.com", 443), "Authorization", "Bearer {value}"),
    )
    assert plan.placeholders == (("GH_TOKEN", "not-the-token"),)
    assert plan.injected_secrets == ("GH_TOKEN",)
    assert plan.proxy_injects
    assert ("GH_TOKEN", True) in plan.secrets, "targets that cannot inject still hand the secret over"


def test_a_host_with_a_port_and_the_default_format(tmp_path: Path) -> None:
    plan = make_plan(load(tmp_path, _kit("git.example.com:8443", "x-api-key", '"{value}"')))
    assert plan.injections[0].destination == Destination("git.example.com", 8443)
    assert header_value(plan.injections[0].format, "abc") == "abc"


def test_a_host_a_wildcard_allows_is_reached(tmp_path: Path) -> None:
    assert errors(tmp_path, _kit("api.example.com")) == []


@pytest.mark.parametrize(
    ("host", "message"),
    [
        ("evil.example.org", "evil.example.org:443 is not in `network.allow`; the proxy injects only on allowed hosts"),
        ("secret.example.com", "secret.example.com:443 is denied; the proxy injects only on allowed hosts"),
        ("api.github.com:8443", "api.github.com:8443 is not in `network.allow`"),
        ("a.b.example.com", "a.b.example.com:443 is not in `network.allow`"),
    ],
)
def test_an_injection_host_the_allowlist_does_not_reach_is_a_located_error(
    tmp_path: Path, host: str, message: str
) -> None:
    found = errors(tmp_path, _kit(host))
    assert len(found) == 1 and found[0].startswith("12:15: secrets[0].inject[0].host: ") and message in found[0], found


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("host", '"*.example.com"', "a wildcard would send the secret to every name under it"),
        ("host", "https://api.github.com", "give a host, not a URL"),
        ("host", "10.0.0.1", "is an IP literal"),
        ("header", '"x api key"', "must be an HTTP header name"),
        ("header", "Host", "Host frames or routes the request"),
        ("header", "Proxy-Authorization", "the proxy injects credentials, not Proxy-Authorization"),
        ("format", '"Bearer"', "must contain {value} exactly once"),
        ("format", '"{value} {value}"', "must contain {value} exactly once"),
        ("format", '"Bearer {value}\\r\\nX-Evil: 1"', "found '\\n', '\\r'"),
        ("format", '"Bearer \\"{value}\\""', "found '\"'"),
        ("format", '"%{value}"', "found '%'"),
        ("format", '"\\\\{value}"', "found '\\\\'"),
    ],
)
def test_each_field_has_a_shape_the_proxy_configuration_cannot_misread(
    tmp_path: Path, field: str, value: str, message: str
) -> None:
    values = {"host": "api.github.com", "header": "Authorization", "format": '"Bearer {value}"', field: value}
    found = errors(tmp_path, _kit(**values))
    assert len(found) == 1 and f"secrets[0].inject[0].{field}: " in found[0] and message in found[0], found


@pytest.mark.parametrize(
    ("secret", "message"),
    [
        (
            "  - name: T\n    build: true\n    inject: [{host: api.github.com, header: x-t}]\n",
            "10:13: secrets[0].inject: a build secret is read by `install`, never sent by the proxy",
        ),
        (
            "  - name: T\n    placeholder: x\n",
            "9:18: secrets[0].placeholder: a placeholder stands in for an injected secret; add `inject`",
        ),
        (
            "  - name: T\n    placeholder: two words\n    inject: [{host: api.github.com, header: x-t}]\n",
            "9:18: secrets[0].placeholder: must be 1 to 256 printable ASCII characters without spaces",
        ),
        (
            "  - name: A\n    inject: [{host: api.github.com, header: X-T}]\n"
            "  - name: B\n    inject: [{host: api.github.com, header: x-t}]\n",
            "11:14: secrets[1].inject[0]: A already sets x-t on api.github.com:443; a header has one value",
        ),
    ],
)
def test_secret_level_rules_are_located(tmp_path: Path, secret: str, message: str) -> None:
    text = MINIMAL + "network:\n  allow: [api.github.com]\nsecrets:\n" + secret
    assert errors(tmp_path, text) == [message]


@pytest.mark.parametrize("egress", ["open", "none"])
def test_without_a_proxy_an_injection_is_kept_but_not_active(tmp_path: Path, egress: str) -> None:
    plan = make_plan(load(tmp_path, _kit().replace("network:\n", f"network:\n  egress: {egress}\n")))
    assert plan.injections and not plan.proxy_injects


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_injects_its_api_key_on_a_host_it_allows(preset: str, tmp_path: Path) -> None:
    """A preset's required key is sent by the proxy; the agent's CLI gets a placeholder to send instead."""
    source = PRESET_DIR / f"{preset}.yaml"
    loaded = load(tmp_path, MINIMAL + f"extends: [{preset}]\n")
    plan = make_plan(loaded)
    required = [name for name, required in plan.secrets if required]
    assert plan.injected_secrets == tuple(required), f"{source.name}: every required key is injected"
    assert {name for name, _ in plan.placeholders} == set(required)
    for injection in plan.injections:
        assert injection.destination in plan.allow, f"{source.name}: {injection.destination} is not allowed"
