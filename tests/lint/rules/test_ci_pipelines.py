"""GitLab CI, CircleCI and Jenkinsfiles: the containers their jobs start, read by the container rules
(runtime socket, privileged, host credentials) with exact positions, and look-alikes that stay quiet."""

from __future__ import annotations

import pytest

from sandkit.lint import kinds
from sandkit.lint.kinds import kind_by_name
from tests.lint.helpers import at, lint_text, rules_of

GITLAB = """\
image: docker:27
services:
  - docker:27-dind
build:
  services:
    - name: registry.example.com/docker:dind-rootless
      alias: docker
  script:
    - docker run -v /var/run/docker.sock:/var/run/docker.sock alpine
    - >
      docker run --privileged alpine
  after_script: [echo done]
"""

JENKINSFILE = """\
pipeline {
  agent { docker { image 'maven:3'
     args '-v /var/run/docker.sock:/var/run/docker.sock' } }
  stages { stage('b') { steps {
     sh 'docker run -v $HOME/.ssh:/root/.ssh alpine'
     sh(returnStdout: true, script: \"\"\"
        docker run --privileged x
     \"\"\")
     script { docker.image('node:20').inside('--privileged') { sh 'ls' } }
  } } }
}
"""

CIRCLECI = """\
version: 2.1
jobs:
  build:
    docker:
      - image: cimg/base:2024.01
    steps:
      - checkout
      - setup_remote_docker
      - run: docker run -v /var/run/docker.sock:/var/run/docker.sock alpine
      - run:
          name: creds
          command: |
            docker run -v ~/.aws:/root/.aws alpine
"""


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (".gitlab-ci.yml", kinds.GITLAB_CI),
        ("ci/deploy.gitlab-ci.yml", kinds.GITLAB_CI),
        (".gitlab/ci/build.yml", kinds.GITLAB_CI),
        (".circleci/config.yml", kinds.CIRCLECI),
        ("Jenkinsfile", kinds.JENKINSFILE),
        ("ci/Jenkinsfile.release", kinds.JENKINSFILE),
        ("release.jenkinsfile", kinds.JENKINSFILE),
        ("docs/Jenkinsfile.md", kinds.TEXT),
        (".devcontainer/devcontainer-lock.json", kinds.JSON),
    ],
)
def test_ci_files_are_known_by_name(path: str, kind: str) -> None:
    assert kind_by_name(path).kind == kind


def test_gitlab_ci_scripts_and_dind_services() -> None:
    findings = lint_text(".gitlab-ci.yml", GITLAB)
    assert at(findings, "PV006") == [(3, 5), (6, 13)]
    assert at(findings, "RS001") == [(9, 21)]
    assert at(findings, "PV001") == [(11, 18)]


def test_jenkinsfile_steps_and_docker_agents() -> None:
    findings = lint_text("Jenkinsfile", JENKINSFILE)
    assert at(findings, "RS001") == [(3, 15)]
    assert at(findings, "HC001") == [(5, 24)]
    assert at(findings, "PV001") == [(7, 20), (9, 47)]


def test_circleci_run_steps() -> None:
    findings = lint_text(".circleci/config.yml", CIRCLECI)
    assert at(findings, "RS001") == [(9, 28)]
    assert at(findings, "HC001") == [(13, 27)]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".gitlab-ci.yml", "image: docker:27\nservices: [postgres:16]\ntest:\n  script: [docker build -t x .]\n"),
        (".gitlab-ci.yml", "test:\n  script: echo docker run --privileged is documented here\n"),
        (
            "Jenkinsfile",
            "pipeline { agent { docker { image 'node:20' } }\n stages { stage('t') { steps { sh 'npm test' } } } }\n",
        ),
        ("Jenkinsfile", "// sh 'docker ps' is fine\nnode { echo 'docker run --privileged' }\n"),
        (
            ".circleci/config.yml",
            "jobs:\n  b:\n    docker: [{image: 'docker:27'}]\n    steps: [{run: docker build .}]\n",
        ),
        (
            ".devcontainer/devcontainer-lock.json",
            '{"features": {"ghcr.io/devcontainers/features/docker-in-docker:2": {}}}',
        ),
    ],
)
def test_ci_look_alikes_stay_quiet(name: str, text: str) -> None:
    assert not rules_of(lint_text(name, text)) & {"RS001", "PV001", "PV006", "HC001"}


def test_unterminated_groovy_strings_and_agent_blocks_never_fail() -> None:
    assert rules_of(lint_text("Jenkinsfile", "docker {" * 5000 + "sh '''docker run --privileged")) == {"PV001"}
