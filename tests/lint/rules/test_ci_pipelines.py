"""Azure Pipelines and Bitbucket Pipelines: the containers and `docker run` lines they start reach
the same rules as GitHub's and GitLab's."""

from __future__ import annotations

import pytest

from sandkit.lint import kinds
from tests.lint.helpers import at, lint_text

AZURE = """\
trigger: [main]
variables:
  DOCKER_HOST: tcp://build-host.example.com:2375
resources:
  containers:
    - container: builder
      image: docker:24
      options: --privileged -v /var/run/docker.sock:/var/run/docker.sock
    - container: tests
      image: python:3.12
jobs:
  - job: build
    container:
      image: node:20
      options: --network host
    steps:
      - script: |
          npm ci
          docker run --rm -v $HOME/.ssh:/root/.ssh alpine true
      - bash: docker run --cap-add SYS_ADMIN alpine true
"""

BITBUCKET = """\
image: atlassian/default-image:4
pipelines:
  default:
    - step:
        runs-on: [self.hosted, linux]
        services: [docker]
        script:
          - docker run --privileged -v /var/run/docker.sock:/var/run/docker.sock builder:1 make
          - pipe: atlassian/aws-s3-deploy:1.1.0
            variables: {S3_BUCKET: site}
        after-script:
          - docker run --pid=host alpine true
"""


def test_azure_container_resources_job_containers_and_scripts() -> None:
    findings = lint_text("azure-pipelines.yml", AZURE)
    assert at(findings, "RS002") == [(3, 16)]
    assert at(findings, "PV001") == [(8, 16)] and at(findings, "RS001") == [(8, 32)]
    assert at(findings, "PV002") == [(15, 26)]
    assert at(findings, "HC001") == [(19, 30)] and at(findings, "PV003") == [(20, 36)]


def test_bitbucket_script_and_after_script() -> None:
    findings = lint_text("bitbucket-pipelines.yml", BITBUCKET)
    assert at(findings, "PV001") == [(8, 24)] and at(findings, "RS001") == [(8, 40)]
    assert at(findings, "PV002") == [(12, 30)]


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("azure-pipelines.yml", kinds.AZURE_PIPELINES),
        ("ci/azure-pipelines-release.yaml", kinds.AZURE_PIPELINES),
        (".azure-pipelines/build.yml", kinds.AZURE_PIPELINES),
        (".azuredevops/templates/steps.yml", kinds.AZURE_PIPELINES),
        ("bitbucket-pipelines.yml", kinds.BITBUCKET_PIPELINES),
        ("docs/azure-pipelines.md", kinds.TEXT),
    ],
)
def test_pipeline_files_are_known_by_name(path: str, kind: str) -> None:
    assert kinds.kind_by_name(path).kind == kind


def test_safe_pipelines_are_quiet() -> None:
    azure = "steps:\n  - script: docker build -t app .\n  - bash: docker run --rm app pytest\n"
    bitbucket = "pipelines:\n  default:\n    - step:\n        services: [docker]\n        script: [docker build .]\n"
    assert lint_text("azure-pipelines.yml", azure) == []
    assert lint_text("bitbucket-pipelines.yml", bitbucket) == []


def test_a_broken_pipeline_is_a_located_parse_error() -> None:
    findings = lint_text("bitbucket-pipelines.yml", "pipelines:\n  default: [\n")
    assert [(f.rule, f.line) for f in findings] == [("SK001", 3)]
