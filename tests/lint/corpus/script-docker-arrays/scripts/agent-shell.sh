#!/usr/bin/env bash
# Start the agent container with the developer's tools mounted in.
set -euo pipefail

IMAGE="${AGENT_IMAGE:-ghcr.io/acme/agent-runner:1.4}"
DOCKER_ARGS=(
  --rm -it
  --name "agent-$(whoami)"
  -v "$PWD:/workspace"
  -w /workspace
)

if [[ "${WITH_DOCKER:-0}" == 1 ]]; then
  DOCKER_ARGS+=(-v /var/run/docker.sock:/var/run/docker.sock)
fi

if [[ -d "$HOME/.aws" ]]; then
  DOCKER_ARGS+=(--volume "$HOME/.aws:/home/agent/.aws:ro")
fi

EXTRA_FLAGS="--cap-add SYS_PTRACE --security-opt seccomp=unconfined"

# shellcheck disable=SC2086
exec docker run "${DOCKER_ARGS[@]}" $EXTRA_FLAGS "$IMAGE" "$@"
