"""Issue 33, fifth round: the secret rules' wrong classes of the fifth held-out set, fixed after its
clean count, each with several shapes, and the look-alikes that must stay findings.

Credential-shaped values are assembled at run time so that this file holds no token itself.
"""

from __future__ import annotations

import json

import pytest

from tests.lint.helpers import at, lint_text

REAL = "Kx82mQpz4tLs"  # a password that looks typed by a generator


def _records(key: str, count: int) -> str:
    rows = [{"name": f"item {i}", key: f"{100000 + i * 7}ACH|oral"} for i in range(count)]
    return json.dumps({"rows": rows}, indent=1)


@pytest.mark.parametrize("key", ["identityKey", "specKey", "secret", "token"])
def test_a_key_with_many_values_in_one_file_is_a_data_sets_column(key: str) -> None:
    assert at(lint_text("data/census.json", _records(key, 40)), "PS002") == []
    yaml_rows = "".join(f"- code: c{i}\n  {key}: Zq{i:03d}x9Lm{i}\n" for i in range(12))
    assert at(lint_text("data/rows.yaml", yaml_rows), "PS002") == []


@pytest.mark.parametrize("count", [1, 3, 9])
def test_a_secret_key_with_few_values_is_still_reported(count: int) -> None:
    """One value per environment or component is configuration, however many components."""
    text = "".join(f"svc{i}:\n  apiToken: {REAL}{i}\n" for i in range(count))
    assert len(at(lint_text("values.yaml", text), "PS002")) == count


def test_a_repeated_password_with_one_value_is_still_reported() -> None:
    text = "".join(f"db{i}:\n  password: {REAL}\n" for i in range(15))
    assert len(at(lint_text("values.yaml", text), "PS002")) == 15


@pytest.mark.parametrize(
    "path",
    [
        "charts/keycloak/ci/ingress.yaml",
        "charts/mysql/ci/tls.yaml",
        "deploy/charts/app/ci/replication.yml",
    ],
)
def test_a_chart_collections_ci_scenarios_are_test_values(path: str) -> None:
    text = f"auth:\n  rootPassword: {REAL}\n  replicationPassword: {REAL}x\n"
    assert at(lint_text(path, text), "PS002") == []


@pytest.mark.parametrize(
    "path", ["ci/settings.yml", "ci/deploy.yaml", "infra/ci/secrets.yaml", "charts/app/values.yaml"]
)
def test_a_ci_folder_outside_a_chart_collection_is_read(path: str) -> None:
    text = f"auth:\n  rootPassword: {REAL}\n"
    assert len(at(lint_text(path, text), "PS002")) == 1


@pytest.mark.parametrize(
    "name",
    ["sonar.issue.ignore.multicriteria.e1.ruleKey", "resourceKey", "specKey", "entity_key", "columnKey"],
)
def test_identifier_keys_are_not_secret_names(name: str) -> None:
    assert at(lint_text("sonar-project.properties", f"{name}=typescript:S3358x\n"), "PS002") == []


@pytest.mark.parametrize("name", ["HashedPassword", "password_hash", "passwordDigest", "salted_password"])
def test_a_password_hash_by_its_name_is_not_a_secret(name: str) -> None:
    text = json.dumps({"Users": [{"Name": "admin", name: "AQAAAAIAAYagAAAAE" + REAL}]})
    assert at(lint_text("appsettings.Development.json", text), "PS002") == []


@pytest.mark.parametrize("name", ["password", "adminPassword", "api_key", "signingKey", "dbPass"])
def test_secret_names_beside_them_are_still_reported(name: str) -> None:
    assert len(at(lint_text("config.json", json.dumps({name: REAL})), "PS002")) == 1
