#!/usr/bin/env bash
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
claude -p "Fix lint errors" --dangerously-skip-permissions
