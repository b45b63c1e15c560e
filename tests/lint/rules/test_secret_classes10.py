"""Issue 33, tenth round: an AWS access key ID of temporary STS credentials (``ASIA``) expires by
itself within hours, so PS001 reports it at info, in every place a long-term ``AKIA`` key is
reported; the long-term key stays high. The keys are built from a seeded generator so no real
one is written here."""

from __future__ import annotations

import random

import pytest

from tests.lint.helpers import lint_text

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def _key(prefix: str, seed: int) -> str:
    rng = random.Random(seed)
    return prefix + "".join(rng.choice(_ALPHABET) for _ in range(16))


SHAPES = {
    "lambda/handler.py": "event = {{'Records': [{{'accessKeyId': '{key}', 'eventName': 'Publish'}}]}}\n",
    "deploy/.env": "AWS_ACCESS_KEY_ID={key}\nREGION=eu-west-1\n",
    "config/settings.yaml": "aws:\n  access_key_id: {key}\n",
    "scripts/run.sh": "#!/bin/sh\nexport AWS_ACCESS_KEY_ID={key}\naws s3 ls\n",
}


def _ps001(path: str, key: str) -> list[tuple[str, str]]:
    return [(f.severity, f.message) for f in lint_text(path, SHAPES[path].format(key=key)) if f.rule == "PS001"]


@pytest.mark.parametrize("path", sorted(SHAPES))
def test_a_temporary_sts_key_is_info_and_says_it_expires(path: str) -> None:
    found = _ps001(path, _key("ASIA", 7))
    assert found, path
    assert {severity for severity, _ in found} == {"info"}
    assert all("AWS access key ID" in message for _, message in found)


@pytest.mark.parametrize("path", sorted(SHAPES))
def test_a_long_term_key_in_the_same_place_stays_high(path: str) -> None:
    found = _ps001(path, _key("AKIA", 7))
    assert found, path
    assert {severity for severity, _ in found} == {"high"}


def test_the_reason_names_the_expiry() -> None:
    text = SHAPES["deploy/.env"].format(key=_key("ASIA", 11))
    (finding,) = [f for f in lint_text("deploy/.env", text) if f.rule == "PS001"]
    assert "expires" in finding.message
