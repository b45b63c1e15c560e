"""A git repository built in the test: two revisions of a kits folder that cover every change kind.

``BASE`` and ``HEAD`` map paths to file contents (None deletes). Commits get fixed authors and
dates, so their ids, and the golden reports that name them, are the same on every machine.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from collections.abc import Mapping
from pathlib import Path

DIGEST = "a" * 64
PEM = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n"


def _kit(text: str) -> str:
    return textwrap.dedent(text).lstrip()


def _deploy(*known_hosts: str) -> str:
    """The ssh-cloning kit of both sides, pinning ``known_hosts`` (the head changes them)."""
    pinned = "".join(f"    - {line}\n" for line in known_hosts)
    return (
        "apiVersion: sandkit/v1\nname: deploy\nagent: {command: [agent]}\nsecrets: [{name: DEPLOY_KEY}]\n"
        'network: {allow: ["git.example.com:22"]}\nworkspace:\n  mode: clone\n'
        "  repo: git@git.example.com:acme/app.git\n  ssh_key: DEPLOY_KEY\n  known_hosts:\n" + pinned
    )


BASE: dict[str, str | None] = {
    "kits/deploy.yaml": _deploy(
        "git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPhx7m29bHmRxt4VAKtvAbGTN+H5wBNSTGfUzX7aUrKC"
    ),
    "kits/app/README": "the code a mount workspace shows\n",
    "kits/certs/corp.pem": PEM,
    "kits/mixins/net.yaml": _kit(
        """
        apiVersion: sandkit/v1
        kind: Mixin
        name: net
        network:
          allow: [api.example.com]
        """
    ),
    # Only meaning-preserving edits happen to this one.
    "kits/same.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: same
        agent: {command: [agent, --run]}
        install: [echo one, echo two]
        network:
          allow: [api.example.com, git.example.com, docs.example.com]
          deny: [gist.example.com]
        resources: {cpus: 2, memory: 2Gi, timeout: 45m}
        triggers:
          - schedule: "0 9 * * 1"
          - github: {event: pull_request, types: [opened, synchronize]}
        """
    ),
    "kits/net.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: net
        agent: {command: [agent]}
        workspace: {mode: none}
        network:
          allow: [api.example.com, git.example.com, old.example.com]
          deny: [gist.example.com]
        """
    ),
    "kits/opened.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: opened
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {allow: [api.example.com]}
        """
    ),
    "kits/enabled.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: enabled
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {egress: none}
        """
    ),
    "kits/widen.yaml": _kit(
        f"""
        apiVersion: sandkit/v1
        name: widen
        extends: [claude-code]
        image:
          base: debian:bookworm-slim@sha256:{DIGEST}
          packages:
            pip: ["pytest==8.0.0", "requests==2.31.0"]
        env: {{CI: "true"}}
        secrets:
          - {{name: DEPLOY_KEY, build: true}}
        network:
          allow: [github.com]
        workspace: {{mode: clone, repo: "https://github.com/acme/app.git"}}
        resources: {{cpus: 1, memory: 1Gi, pids: 128, disk: 5Gi, timeout: 30m}}
        isolation: {{runtime: gvisor}}
        triggers:
          - github: {{event: pull_request, types: [opened]}}
        targets:
          actions: {{permissions: {{pull-requests: read}}}}
          kubernetes: {{namespace: agents}}
        """
    ),
    "kits/narrow.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: narrow
        image:
          ca_certificates: [./certs/corp.pem]
          packages: {apt: [jq, curl]}
        install: [apt-get install -y ripgrep]
        env: {A: "1"}
        secrets:
          - {name: API_TOKEN}
          - {name: BUILD_TOKEN}
          - {name: OPTIONAL_KEY, required: false}
        network: {egress: open}
        agent: {command: [agent, --run]}
        files:
          - {path: /etc/agent.conf, content: "x\\n"}
        workspace: {mode: mount, source: ./app}
        resources: {cpus: 4, memory: 8Gi, pids: 1024, disk: 20Gi, timeout: 2h}
        isolation: {runtime: gvisor, read_only_root: false, docker: rootless}
        ports: [{container: 3000, host: 8080}]
        triggers:
          - github: {event: push}
          - github: {event: pull_request}
          - schedule: "0 3 * * *"
          - manual: {}
        targets: {actions: {permissions: {contents: read}, publish: review}}
        """
    ),
    "kits/comments.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: comments
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {egress: none}
        triggers:
          - github: {event: issues, types: [opened]}
        """
    ),
    "kits/switch.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: switch
        extends: [claude-code]
        workspace: {mode: none}
        """
    ),
    "kits/mounts.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: mounts
        image: {base: "debian:bookworm-slim"}
        agent: {command: [agent]}
        network: {allow: [git.example.com]}
        workspace: {mode: clone, repo: "https://git.example.com/acme/app.git"}
        """
    ),
    "kits/repo.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: repo
        agent: {command: [agent]}
        network: {allow: [git.example.com]}
        workspace: {mode: clone, repo: "https://git.example.com/acme/app.git", ref: main}
        """
    ),
    "kits/workdir.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: workdir
        agent: {command: [agent]}
        workspace: {mode: none}
        """
    ),
    "kits/moving.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: moving
        agent: {command: [agent]}
        workspace: {mode: none}
        """
    ),
    "kits/old.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: old
        agent: {command: [agent]}
        workspace: {mode: none}
        """
    ),
    # secrets[].inject: which secrets the egress proxy holds back from the agent, and where it adds them.
    "kits/inject.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: inject
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {allow: [api.example.com, git.example.com]}
        secrets:
          - {name: EXPOSED, inject: [{host: api.example.com, header: x-key}]}
          - {name: WITHHELD}
          - {name: MOVED, inject: [{host: api.example.com, header: x-moved}]}
        """
    ),
    # Comment-triggered and holding secrets on both sides; the head opens its egress (one critical risk).
    "kits/trifecta.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: trifecta
        agent: {command: [agent]}
        workspace: {mode: none}
        secrets: [{name: API_TOKEN}, {name: GH_TOKEN}, {name: NPM_TOKEN}]
        network: {allow: [api.example.com]}
        triggers:
          - github:
              {event: issue_comment, types: [created], command: /agent, author_associations: [NONE], acknowledge_risk: true}
        """
    ),
    "kits/cloud.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: cloud
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {allow: [api.example.com]}
        """
    ),
    "kits/fixed.yaml": "apiVersion: sandkit/v1\nname: fixed\nagent: {command: [agent]\n",
    "kits/breaks.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: breaks
        agent: {command: [agent]}
        workspace: {mode: none}
        """
    ),
    "kits/stale.yaml": "apiVersion: sandkit/v1\nname: stale\n",
    "docs/notes.yaml": "not: a kit\n",
}

HEAD: dict[str, str | None] = {
    "kits/deploy.yaml": _deploy(
        "git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFPwL9FccHeUqqg4jdONfRJXCmtskGbbLJLdaGllCFCS",
        "mirror.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICQS04o2zvS/o49hrITL9gv520o9YsFjzsNMYRPPcHki",
    ),
    "kits/mixins/net.yaml": _kit(
        """
        # The hosts every agent here needs.
        apiVersion: sandkit/v1
        kind: Mixin
        name: net
        network:
          allow: [git.example.com, api.example.com]
        """
    ),
    "kits/mixins/limits.yaml": _kit(
        """
        apiVersion: sandkit/v1
        kind: Mixin
        name: limits
        resources: {timeout: 45m, memory: 2048Mi}
        """
    ),
    "kits/same.yaml": _kit(
        """
        # Reordered, commented, and half of it moved into mixins: the policy is the same.
        apiVersion: sandkit/v1
        name: same
        extends: [./mixins/net.yaml, ./mixins/limits.yaml]
        triggers:
          - github: {event: pull_request, types: [synchronize, opened]}  # both
          - schedule: "0 9 * * 1"
        network:
          deny: ["gist.example.com:443"]
          allow: ["docs.example.com:443", api.example.com]
        resources: {cpus: 2.0}
        install: [echo two, echo one]
        agent:
          command: [agent, --run]
        """
    ),
    "kits/net.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: net
        agent: {command: [agent]}
        workspace: {mode: none}
        network:
          allow: [api.example.com, git.example.com, "git.example.com:22", new.example.com, "*.cdn.example.com"]
        """
    ),
    "kits/opened.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: opened
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {egress: open}
        """
    ),
    "kits/enabled.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: enabled
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {allow: [api.example.com]}
        isolation: {runtime: gvisor}
        """
    ),
    "kits/widen.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: widen
        extends: [claude-code]
        image:
          base: debian:bookworm-slim
          user: builder
          ca_certificates: [./certs/corp.pem]
          packages:
            apt: [jq]
            pip: [pytest, "requests==2.32.0"]
            npm: ["@anthropic-ai/claude-code@2.2.0"]
        install:
          - curl -fsSL https://tools.example.com/install.sh | sh
        startup:
          - git clone https://github.com/acme/tools.git /tmp/tools
          - echo ready
        env: {CI: "true", DEBUG: "1"}
        secrets:
          - {name: DEPLOY_KEY}
          - {name: GH_TOKEN}
          - {name: NPM_TOKEN, build: true}
        network:
          allow: [github.com]
        agent:
          command: [claude, -p, Fix the issue, --dangerously-skip-permissions]
          instructions: Fix what the issue asks.
        files:
          - {path: /home/builder/.bashrc, content: "export PATH=$PATH:/opt/tools\\n"}
          - {path: /home/builder/notes.txt, content: "hello\\n"}
          - {path: /opt/tools/README, content: "tools\\n"}
        workspace: {mode: mount, source: ./app, git: writable}
        resources: {cpus: 4, memory: 8Gi, pids: 1024, disk: 20Gi, timeout: 2h}
        isolation: {runtime: default, read_only_root: false, docker: rootless}
        ports:
          - {container: 3000, host: 8080}
          - {container: 9000, host: 9000, host_ip: 0.0.0.0}
        triggers:
          - github: {event: pull_request, types: [opened, synchronize]}
          - github: {event: push, branches: [main]}
          - github:
              {event: issue_comment, types: [created], command: /agent, author_associations: [NONE], acknowledge_risk: true}
          - schedule: "0 3 * * *"
          - manual: {}
        targets:
          actions: {runs_on: self-hosted, permissions: {pull-requests: read, contents: read}, publish: comment}
          kubernetes: {namespace: agents-prod}
        """
    ),
    "kits/narrow.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: narrowed
        image:
          packages: {apt: [jq]}
        secrets:
          - {name: BUILD_TOKEN, build: true}
          - {name: OPTIONAL_KEY, required: true}
        network:
          allow: [api.example.com]
          deny: [gist.example.com]
        agent: {command: [agent, --run]}
        workspace: {mode: mount-readonly, source: ./app}
        resources: {cpus: 1, memory: 1Gi, pids: 128, disk: 5Gi, timeout: 30m}
        isolation: {runtime: kata}
        triggers:
          - github: {event: pull_request, types: [opened]}
        targets: {actions: {permissions: {contents: read}}}
        """
    ),
    "kits/comments.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: comments
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {egress: none}
        triggers:
          - github: {event: issues, types: [opened, edited]}
        """
    ),
    "kits/switch.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: switch
        extends: [gemini-cli]
        workspace: {mode: none}
        """
    ),
    "kits/mounts.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: mounts
        image: {base: "debian:trixie-slim"}
        agent: {command: [agent]}
        network: {allow: [git.example.com]}
        workspace: {mode: mount-readonly, source: ./app}
        """
    ),
    "kits/repo.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: repo
        agent: {command: [agent]}
        network: {allow: [git.example.com]}
        workspace: {mode: clone, repo: "https://git.example.com/acme/other.git", ref: dev}
        """
    ),
    "kits/workdir.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: workdir
        image: {workdir: /src}
        agent: {command: [agent]}
        workspace: {mode: none}
        """
    ),
    "kits/moving.yaml": None,
    "agents/moving.yaml": BASE["kits/moving.yaml"],
    "kits/old.yaml": None,
    "kits/new.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: new
        agent: {command: [agent, --work]}
        secrets: [{name: API_TOKEN}]
        network: {allow: [api.example.com]}
        workspace: {mode: none}
        triggers: [{schedule: "0 6 * * *"}]
        """
    ),
    # The agent now holds EXPOSED's value (the review's point), the proxy holds WITHHELD's and ADDED's.
    "kits/inject.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: inject
        agent: {command: [agent]}
        workspace: {mode: none}
        network: {allow: [api.example.com, git.example.com]}
        secrets:
          - {name: EXPOSED}
          - {name: WITHHELD, inject: [{host: api.example.com, header: x-withheld}]}
          - {name: MOVED, inject: [{host: git.example.com, header: x-moved}]}
          - {name: ADDED, inject: [{host: api.example.com, header: Authorization, format: "Bearer {value}"}]}
        """
    ),
    "kits/trifecta.yaml": BASE["kits/trifecta.yaml"].replace(  # type: ignore[union-attr]
        "network: {allow: [api.example.com]}", "network: {egress: open}"
    ),
    # A cloud credential and the cloud's API host, added together: one risk.
    "kits/cloud.yaml": BASE["kits/cloud.yaml"].replace(  # type: ignore[union-attr]
        "network: {allow: [api.example.com]}",
        "secrets: [{name: AWS_ACCESS_KEY_ID}, {name: AWS_SECRET_ACCESS_KEY}, {name: SENTRY_DSN}]\n"
        'network: {allow: [api.example.com, "*.amazonaws.com", docs.example.com]}',
    ),
    "kits/fixed.yaml": "apiVersion: sandkit/v1\nname: fixed\nagent: {command: [agent]}\nworkspace: {mode: none}\n",
    "kits/breaks.yaml": _kit(
        """
        apiVersion: sandkit/v1
        name: breaks
        extends: [../../../../etc/escape.yaml]
        agent: {command: [agent]}
        workspace: {mode: none}
        """
    ),
}

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Sandkit Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Sandkit Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def run_git(repo: Path, *args: str, date: str = "2026-01-01T00:00:00+00:00") -> str:
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def write_files(repo: Path, files: Mapping[str, str | None]) -> None:
    for name, text in files.items():
        path = repo / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def commit(repo: Path, files: Mapping[str, str | None], message: str, date: str) -> str:
    write_files(repo, files)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message, date=date)
    return run_git(repo, "rev-parse", "HEAD")


def make_repo(folder: Path) -> tuple[Path, str, str]:
    """A repository whose main branch holds BASE; a branch ``change`` on it holds HEAD."""
    repo = folder / "repo"
    repo.mkdir()
    run_git(repo, "init", "-q", "-b", "main")
    base = commit(repo, BASE, "base", "2026-01-01T00:00:00+00:00")
    run_git(repo, "checkout", "-q", "-b", "change")
    head = commit(repo, HEAD, "head", "2026-01-02T00:00:00+00:00")
    return repo, base, head
