"""The commented kit that ``sandkit init`` writes (plain string formatting: no jinja2 at start-up)."""

from __future__ import annotations

_AGENT_OWN = """\
agent:
  # The agent's command, in exec form. Replace it with your agent; a preset sets it for you
  # (sandkit init --preset claude-code).
  command: [bash, -lc, "echo 'set agent.command to the agent this sandbox runs'"]
  instructions: |
    Work only inside the workspace. Never push to the default branch; open a pull request.
  instructions_file: AGENTS.md
"""

_AGENT_PRESET = """\
agent:
  # The preset sets the command and the instruction file name; the kit gives the instructions.
  instructions: |
    Work only inside the workspace. Never push to the default branch; open a pull request.
"""

_TEMPLATE = """\
# yaml-language-server: $schema={schema_ref}
# A sandkit kit: one reviewed file that says what an unattended agent's sandbox holds.
# Check it with `sandkit validate {kit_path}`; compile it with `sandkit build`.
apiVersion: sandkit/v1
kind: Kit
name: {name}                 # names the image, services, jobs and workflows
description: An unattended coding agent in a sandbox
{extends}
{image}
startup:                        # run as the agent user at every start, before the agent
  - git config --global user.name sandbox-agent

env:                            # plain values only; anything secret goes under `secrets`
  CI: "true"

network:
  egress: allowlist             # allowlist (default) | none | open
  allow:                        # host (port 443 implied), host:port, or "*.host" (one label)
    - github.com
  deny: []                      # deny always wins over allow

{agent}
workspace:
  mode: clone                   # clone | mount | mount-readonly | none
  repo: https://github.com/acme/app.git
  ref: main

resources:
  cpus: 2
  memory: 4Gi
  pids: 512
  timeout: 1h

triggers:
  - manual: {{}}

targets:
  # What `sandkit build` makes, and what its report and `--strict` judge: docker, compose,
  # kubernetes, actions, devcontainer, sbx, openhands, srt, claude-code, codex (leave out for all).
  build: [compose]
"""


_IMAGE_OWN = """\
image:
  base: debian:bookworm-slim    # pin a digest for reproducible builds: name:tag@sha256:...
  user: agent                   # never root; uid 1000 unless `uid:` says otherwise
  packages:
    apt: [git, ca-certificates]
"""

#: With a preset the base image is the preset's (its agent's runtime: Node 22 for Claude Code, Python
#: 3.12 for OpenHands, ...); a base written here would replace it.
_IMAGE_PRESET = """\
image:                          # the preset chooses the base image its agent needs and installs the agent
  user: agent                   # never root; uid 1000 unless `uid:` says otherwise
  packages:
    apt: [git, ca-certificates]
"""


def render_init(name: str, preset: str | None, *, schema_ref: str, kit_path: str) -> str:
    """The kit; ``kit_path`` is where it lies from the repository's top folder (for the comment)."""
    extends = f"extends: [{preset}]           # bundled preset: agent install, command, API hosts\n" if preset else ""
    agent = _AGENT_PRESET if preset else _AGENT_OWN
    image = _IMAGE_PRESET if preset else _IMAGE_OWN
    return _TEMPLATE.format(
        name=plain_or_quoted(name), extends=extends, agent=agent, image=image, schema_ref=schema_ref, kit_path=kit_path
    )


def plain_or_quoted(name: str) -> str:
    """``name`` as a YAML scalar that every YAML version reads back as that text: ``123``, ``true``,
    ``no`` or ``1e3`` would be a number or a boolean to some reader, so they are quoted."""
    from sandkit.kits.yamlnodes import nodes_from_text
    from sandkit.syntax.yaml import load_yaml11

    as_12 = nodes_from_text(f"name: {name}\n", "name").value["name"].value
    as_11 = load_yaml11(f"name: {name}\n")["name"]
    return name if as_12 == name and as_11 == name else f'"{name}"'
