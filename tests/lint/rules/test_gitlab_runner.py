"""A GitLab runner's config.toml committed to a repository: its docker and kubernetes executors
are the containers every job starts in."""

from __future__ import annotations

from tests.lint.helpers import at, lint_text, rules_of

RUNNER = """\
concurrent = 2

[[runners]]
  name = "safe"
  executor = "docker"
  [runners.docker]
    image = "alpine:3.20"
    privileged = false
    volumes = ["/cache"]

[[runners]]
  name = "builds"
  executor = "docker"
  environment = ["DOCKER_HOST=tcp://docker.example.com:2375"]
  [runners.docker]
    privileged = true
    volumes = ["/var/run/docker.sock:/var/run/docker.sock", "/home/ci/.aws:/root/.aws:ro"]
    cap_add = ["SYS_ADMIN"]
    network_mode = "host"
    services_privileged = true

[[runners]]
  name = "k8s"
  executor = "kubernetes"
  [runners.kubernetes]
    privileged = true
    [[runners.kubernetes.volumes.host_path]]
      name = "docker"
      mount_path = "/var/run/docker.sock"
      host_path = "/var/run/docker.sock"
"""


def test_runner_executors_are_containers_at_their_own_entry() -> None:
    findings = lint_text("ci/gitlab-runner/config.toml", RUNNER)
    assert at(findings, "PV001") == [(16, 5), (20, 5), (26, 5)]  # the second entry, not the first one's lines
    assert at(findings, "RS001") == [(17, 5), (30, 7)]
    assert at(findings, "HC001") == [(17, 5)]
    assert at(findings, "PV003") == [(18, 5)] and at(findings, "PV002") == [(19, 5)]
    assert at(findings, "RS002") == [(14, 3)]
    assert 'GitLab runner "builds" (docker executor) runs privileged' in {f.message for f in findings}


def test_a_safe_runner_and_other_toml_are_quiet() -> None:
    safe = RUNNER.split('\n[[runners]]\n  name = "builds"')[0]
    assert lint_text("config.toml", safe) == []
    other = '[tool.poetry]\nname = "x"\n[[tool.poetry.source]]\nname = "runners"\nprivileged = true\n'
    assert rules_of(lint_text("pyproject.toml", other)) == set()
