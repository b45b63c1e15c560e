"""PS002 on a secret's default in Compose interpolation (issue 33, a miss the fifth held-out set's
readers listed): ``${KEY:-word}`` is what the service runs with when the ``.env`` beside the file
does not set KEY, as compose-go interpolates it."""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_files


def _ps002(compose: str, env: str | None = None) -> list[tuple[int, str]]:
    files = {"app/docker-compose.yml": compose}
    if env is not None:
        files["app/.env"] = env
    found = [f for f in lint_files(files) if f.rule == "PS002"]
    assert all(f.severity == "low" for f in found)  # a fallback the operator replaces by setting it
    return [(f.line, f.message) for f in found]


def _service(line: str) -> str:
    return f"services:\n  api:\n    image: registry.example.com/api:1\n    environment:\n      {line}\n"


@pytest.mark.parametrize(
    "line",
    [
        'OPENARC_API_KEY: "${OPENARC_API_KEY:-oa9f8e7d6c5b4a3f2e1d0c9b8a}"',
        "DB_PASSWORD: ${DB_PASSWORD:-s3cr3tP4ss!}",
        "DB_PASSWORD: ${POSTGRES_PASSWORD-my-secret-pw}",  # without the colon: used when unset
        "- JWT_SECRET=${JWT_SECRET:-9f8e7d6c5b4a3f2e1d0c}",  # the list syntax
    ],
)
def test_a_literal_default_is_what_compose_runs_with(line: str) -> None:
    ((number, message),) = _ps002(_service(line))
    assert number == 5
    assert "which Compose uses where" in message


@pytest.mark.parametrize(
    "line",
    [
        "DB_PASSWORD: ${DB_PASSWORD:-changeme}",  # a placeholder
        "DB_PASSWORD: ${DB_PASSWORD:-}",  # empty
        "DB_PASSWORD: ${DB_PASSWORD}",  # no default
        "DB_PASSWORD: ${DB_PASSWORD:?set DB_PASSWORD}",  # required, no default
        "DB_PASSWORD: ${DB_PASSWORD:-${OTHER_PASSWORD}}",  # another variable
        "DB_HOST: ${DB_HOST:-db.internal}",  # not a secret's name
        "DB_PASSWORD_FILE: ${DB_PASSWORD_FILE:-/run/secrets/db}",  # a path
    ],
)
def test_no_literal_secret_default_is_no_finding(line: str) -> None:
    assert _ps002(_service(line)) == []


def test_a_default_the_env_file_overrides_is_not_what_runs() -> None:
    compose = _service("DB_PASSWORD: ${DB_PASSWORD:-s3cr3tP4ss!}")
    assert _ps002(compose, "DB_PASSWORD_OTHER=x\n") != []
    assert _ps002(compose, "DB_PASSWORD=${VAULT_VALUE}\n") == []  # set in the .env: that is what runs


def test_only_compose_files_read_defaults_this_way() -> None:
    # a shell default in a workflow or script is read by their own rules, not as Compose's
    files = {"deploy.sh": '#!/bin/sh\nDB_PASSWORD="${DB_PASSWORD:-s3cr3tP4ss!}"\n'}
    assert [f for f in lint_files(files) if f.rule == "PS002" and "Compose" in f.message] == []
