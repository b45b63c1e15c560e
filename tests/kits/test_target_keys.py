"""The per-target keys of the new targets (targets.sbx, ...): accepted when right, located when wrong."""

from __future__ import annotations

from pathlib import Path

from tests.kits.helpers import MINIMAL, errors, load

SBX = (
    MINIMAL
    + """\
secrets:
  - name: EXAMPLE_API_KEY
network:
  allow: [api.example.com, "*.cdn.example.com"]
  deny: [bad.cdn.example.com]
targets:
  sbx:
    image: registry.example.com/team/demo:1.0
    credentials:
      EXAMPLE_API_KEY:
        service: example
        inject:
          - {domain: api.example.com, header: x-api-key, format: "%s"}
          - {domain: files.cdn.example.com, scheme: bearer}
"""
)


def test_sbx_keys_load(tmp_path: Path) -> None:
    kit = load(tmp_path, SBX).kit
    credential = kit.targets.sbx.credentials["EXAMPLE_API_KEY"]
    assert (credential.service, credential.proxy_managed) == ("example", True)
    assert [r.domain for r in credential.inject] == ["api.example.com", "files.cdn.example.com"]
    assert kit.targets.sbx.image == "registry.example.com/team/demo:1.0"


def test_the_new_targets_take_an_empty_section(tmp_path: Path) -> None:
    text = MINIMAL + "targets:\n  openhands: {}\n  srt: {}\n  claude-code: {}\n  codex: {}\n"
    assert errors(tmp_path, text) == []


def test_an_inject_domain_must_be_allowed(tmp_path: Path) -> None:
    text = SBX.replace("{domain: api.example.com, header", "{domain: other.example.com, header")
    assert errors(tmp_path, text) == [
        "17:22: targets.sbx.credentials.EXAMPLE_API_KEY.inject[0].domain: other.example.com:443 is not allowed by "
        "`network`; sbx injects a credential only on an allowed host (add it to network.allow)"
    ]


def test_a_denied_or_deeper_wildcard_host_is_not_an_inject_domain(tmp_path: Path) -> None:
    denied = SBX.replace("files.cdn.example.com, scheme", "bad.cdn.example.com, scheme")
    deeper = SBX.replace("files.cdn.example.com, scheme", "a.b.cdn.example.com, scheme")
    for text in (denied, deeper):
        assert [e.split(": ", 1)[0] for e in errors(tmp_path, text)] == ["18:22"], (
            "one label under *.cdn.example.com only, and never a denied host"
        )


def test_a_credential_names_a_runtime_secret(tmp_path: Path) -> None:
    text = SBX.replace("      EXAMPLE_API_KEY:\n", "      OTHER_KEY:\n")
    assert errors(tmp_path, text) == [
        "15:9: targets.sbx.credentials.OTHER_KEY: OTHER_KEY is not a run-time secret of this kit "
        "(declare it in `secrets`)"
    ]


def test_inject_rules_are_checked_where_they_are_written(tmp_path: Path) -> None:
    cases = {
        '{domain: api.example.com, header: x-api-key, format: "%s", scheme: bearer}': "give `scheme` or `format`",
        "{domain: api.example.com, scheme: basic}": "scheme basic needs `username`",
        "{domain: api.example.com, header: x-api-key}": "give `header` and `format`, or a `scheme`",
        '{domain: api.example.com, header: x-api-key, format: "Bearer"}': "exactly one %s",
        '{domain: api.example.com, header: "x api", format: "%s"}': "HTTP header name",
        '{domain: "api.example.com:443", header: x-api-key, format: "%s"}': "not a valid host name",
    }
    for rule, expected in cases.items():
        text = SBX.replace('{domain: api.example.com, header: x-api-key, format: "%s"}', rule)
        found = errors(tmp_path, text)
        assert len(found) == 1 and expected in found[0] and found[0].startswith("17:"), (rule, found)


def test_image_is_for_the_compiled_image_only(tmp_path: Path) -> None:
    text = SBX.replace("  sbx:\n", "  sbx:\n    image_from: base\n")
    assert [e.split(": ", 2)[1] for e in errors(tmp_path, text)] == ["targets.sbx"]


def test_unknown_keys_under_the_new_targets_are_located(tmp_path: Path) -> None:
    text = SBX.replace("    image: registry", "    imgae: registry")
    assert errors(tmp_path, text) == ["12:5: unknown key `targets.sbx.imgae` (did you mean `image`?)"]


def test_a_clone_host_needs_a_one_label_wildcard_like_the_proxy(tmp_path: Path) -> None:
    """The model's reachability check matches `*.x` as the proxies do: one label, not any depth."""
    text = MINIMAL + "network:\n  allow: ['*.example.com']\nworkspace:\n  repo: https://a.b.example.com/x.git\n"
    assert ["workspace.repo" in e and "is not in `network.allow`" in e for e in errors(tmp_path, text)] == [True]
    assert errors(tmp_path, text.replace("a.b.example.com", "git.example.com")) == []
