#!/usr/bin/env bash
# Set up a real Docker engine for sandkit's end-to-end tests, from Debian's
# packages only (no container registry, no internet beyond the apt mirror).
#
# Idempotent: every step checks what is already there, so a rerun is quick.
# Usable by a developer (run as root, or it re-runs itself under sudo) and by
# CI (root on a fresh Debian 12 machine).
#
# What it does:
#   1. apt-get installs docker.io (dockerd, containerd, runc, tini), iptables,
#      debootstrap and gVisor's runsc from the machine's own Debian suite;
#   2. installs Compose v2 and buildx as Docker CLI plugins from the next
#      Debian release's packages, using a private apt state directory so the
#      system's own apt never sees that suite (nothing is upgraded);
#   3. registers runsc in /etc/docker/daemon.json as runtime "runsc" with
#      --network=none (the only mode it starts containers in here);
#   4. starts dockerd in the background if it is not answering and waits for it;
#   5. makes the base image debian:bookworm-slim with debootstrap + docker import
#      (the rootfs tarball is cached so a rerun does not debootstrap again).
#
# Environment knobs (all optional):
#   SANDKIT_DOCKER_LOG      dockerd's log file          (/var/log/sandkit-dockerd.log)
#   SANDKIT_CACHE_DIR       cache for tarballs, apt state (/var/cache/sandkit)
#   SANDKIT_PLUGIN_SUITE    suite Compose v2/buildx come from (trixie)
#   SANDKIT_BASE_IMAGE      image name to create        (debian:bookworm-slim)
#   SANDKIT_BASE_SUITE      suite debootstrapped         (bookworm)
#   SANDKIT_DOCKER_WAIT     seconds to wait for dockerd  (60)
set -euo pipefail

if [[ ${EUID} -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        exec sudo --preserve-env=SANDKIT_DOCKER_LOG,SANDKIT_CACHE_DIR,SANDKIT_PLUGIN_SUITE,SANDKIT_BASE_IMAGE,SANDKIT_BASE_SUITE,SANDKIT_DOCKER_WAIT \
            bash "$0" "$@"
    fi
    echo "setup-docker: must run as root (and sudo is not available)" >&2
    exit 1
fi

DOCKER_LOG=${SANDKIT_DOCKER_LOG:-/var/log/sandkit-dockerd.log}
CACHE_DIR=${SANDKIT_CACHE_DIR:-/var/cache/sandkit}
PLUGIN_SUITE=${SANDKIT_PLUGIN_SUITE:-trixie}
BASE_IMAGE=${SANDKIT_BASE_IMAGE:-debian:bookworm-slim}
BASE_SUITE=${SANDKIT_BASE_SUITE:-bookworm}
DOCKER_WAIT=${SANDKIT_DOCKER_WAIT:-60}
PLUGIN_DIR=/usr/local/lib/docker/cli-plugins
DAEMON_JSON=/etc/docker/daemon.json
export DEBIAN_FRONTEND=noninteractive

CURRENT_STEP=""
STEP_START=0
SCRIPT_START=$(date +%s.%N)
declare -a TIMINGS=()

log() { printf 'setup-docker: %s\n' "$*" >&2; }
die() { printf 'setup-docker: ERROR: %s\n' "$*" >&2; exit 1; }

elapsed() { # start -> seconds with one decimal
    awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'
}

on_error() {
    local rc=$?
    if [[ -n ${CURRENT_STEP} ]]; then
        printf 'setup-docker: ERROR: step "%s" failed (exit %s) at line %s: %s\n' \
            "${CURRENT_STEP}" "${rc}" "${BASH_LINENO[0]}" "${BASH_COMMAND}" >&2
    fi
    exit "${rc}"
}
trap on_error ERR

step() {
    CURRENT_STEP=$1
    STEP_START=$(date +%s.%N)
    log "==> ${CURRENT_STEP}"
}

step_done() {
    local t
    t=$(elapsed "${STEP_START}")
    TIMINGS+=("$(printf '%7ss  %s' "${t}" "${CURRENT_STEP}")")
    log "    done in ${t}s"
    CURRENT_STEP=""
}

# The URI of the Debian archive this machine already uses for its own release,
# read from apt's configured sources at run time (deb822 or one-line format).
debian_mirror() {
    local codename uri
    # shellcheck disable=SC1091
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [[ -n ${codename} ]] || die "cannot read VERSION_CODENAME from /etc/os-release"
    # shellcheck disable=SC2016  # $(...) are apt's format fields, not shell
    uri=$(apt-get indextargets --format '$(RELEASE) $(COMPONENT) $(REPO_URI)' 'Created-By: Packages' \
        | awk -v c="${codename}" '$1 == c && $2 == "main" { print $3; exit }')
    [[ -n ${uri} ]] || die "no apt source for suite '${codename}' component main; cannot find the Debian mirror"
    printf '%s\n' "${uri%/}"
}

# apt-get with a private state: its own sources list, lists and cache under
# CACHE_DIR, so the system's apt never learns about PLUGIN_SUITE.
plugin_apt() {
    local d=${CACHE_DIR}/apt-${PLUGIN_SUITE}
    apt-get \
        -o Dir::Etc::SourceList="${d}/sources.list" \
        -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::Etc::Preferences=/dev/null \
        -o Dir::Etc::PreferencesParts=/dev/null \
        -o Dir::State::Lists="${d}/lists" \
        -o Dir::Cache="${d}/cache" \
        -o APT::Get::List-Cleanup=0 \
        "$@"
}

# ---------------------------------------------------------------------------
step "apt-get install docker.io, runsc, debootstrap"
need=()
for pkg in docker.io containerd runc tini iptables debootstrap runsc ca-certificates xz-utils; do
    dpkg-query -W -f '${Status}' "${pkg}" 2>/dev/null | grep -q 'install ok installed' || need+=("${pkg}")
done
if ((${#need[@]})); then
    log "    installing: ${need[*]}"
    apt-get update -q >/dev/null || die "apt-get update failed"
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null \
        || die "apt-get install ${need[*]} failed"
else
    log "    already installed"
fi
for bin in dockerd containerd runc debootstrap runsc; do
    command -v "${bin}" >/dev/null || die "${bin} is not on PATH after installing its package"
done
command -v docker >/dev/null || die "no docker client on PATH"
step_done

# ---------------------------------------------------------------------------
step "Compose v2 and buildx CLI plugins from Debian ${PLUGIN_SUITE}"
have_plugins=1
docker compose version >/dev/null 2>&1 || have_plugins=0
docker buildx version >/dev/null 2>&1 || have_plugins=0
if ((have_plugins)); then
    log "    already installed: $(docker compose version --short 2>/dev/null), buildx $(docker buildx version | awk '{print $2}')"
else
    mirror=$(debian_mirror)
    d=${CACHE_DIR}/apt-${PLUGIN_SUITE}
    mkdir -p "${d}/lists/partial" "${d}/cache/archives/partial" "${d}/debs"
    # apt downloads as the unprivileged _apt user where it exists.
    if id _apt >/dev/null 2>&1; then chown _apt "${d}/debs"; fi
    printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
        "${mirror}" "${PLUGIN_SUITE}" >"${d}/sources.list"
    plugin_apt update -q >/dev/null || die "apt-get update of the ${PLUGIN_SUITE} suite failed"
    (cd "${d}/debs" && rm -f ./*.deb && plugin_apt download docker-compose docker-buildx >/dev/null) \
        || die "apt-get download docker-compose docker-buildx from ${PLUGIN_SUITE} failed"
    mkdir -p "${PLUGIN_DIR}"
    for pkg in docker-compose docker-buildx; do
        deb=$(find "${d}/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -n1)
        [[ -n ${deb} ]] || die "no ${pkg} .deb downloaded"
        x=$(mktemp -d)
        dpkg-deb -x "${deb}" "${x}"
        # The binary's place differs between packages; take the one plugin file.
        src=$(find "${x}" -type f -name "${pkg}" -perm -u+x -path '*cli-plugins*' | head -n1)
        [[ -n ${src} ]] || src=$(find "${x}" -type f -name "${pkg}" -perm -u+x | head -n1)
        [[ -n ${src} ]] || die "${deb} holds no ${pkg} executable"
        install -m 0755 "${src}" "${PLUGIN_DIR}/${pkg}.new"
        mv -f "${PLUGIN_DIR}/${pkg}.new" "${PLUGIN_DIR}/${pkg}"
        rm -rf "${x}"
    done
    docker compose version >/dev/null || die "docker compose does not answer after installing the plugin"
    docker buildx version >/dev/null || die "docker buildx does not answer after installing the plugin"
    log "    $(docker compose version), $(docker buildx version)"
fi
step_done

# ---------------------------------------------------------------------------
step "register runsc in ${DAEMON_JSON}"
runsc_path=$(command -v runsc)
mkdir -p "$(dirname "${DAEMON_JSON}")"
daemon_changed=$(python3 - "${DAEMON_JSON}" "${runsc_path}" <<'PY'
import json, os, sys
path, runsc = sys.argv[1], sys.argv[2]
try:
    with open(path) as f:
        text = f.read()
    cfg = json.loads(text) if text.strip() else {}
except FileNotFoundError:
    cfg = {}
want = {"path": runsc, "runtimeArgs": ["--network=none"]}
if cfg.get("runtimes", {}).get("runsc") == want:
    print("no")
    sys.exit(0)
cfg.setdefault("runtimes", {})["runsc"] = want
tmp = path + ".tmp"
with open(tmp, "w") as f:
    json.dump(cfg, f, indent=2, sort_keys=True)
    f.write("\n")
os.replace(tmp, path)
print("yes")
PY
) || die "could not update ${DAEMON_JSON} (is it valid JSON?)"
log "    changed: ${daemon_changed}"
step_done

# ---------------------------------------------------------------------------
step "start dockerd"
if docker info >/dev/null 2>&1; then
    if [[ ${daemon_changed} == yes ]]; then
        # dockerd reloads its runtimes on SIGHUP.
        pid=$(pidof dockerd || true)
        [[ -n ${pid} ]] || die "docker answers but no local dockerd process to reload ${DAEMON_JSON}"
        log "    reloading dockerd (pid ${pid}) for the new runtime"
        kill -HUP "${pid}"
        sleep 1
    else
        log "    already running"
    fi
else
    pidof dockerd >/dev/null && die "dockerd is running but 'docker info' fails; see ${DOCKER_LOG}"
    mkdir -p "$(dirname "${DOCKER_LOG}")"
    log "    starting dockerd, log: ${DOCKER_LOG}"
    nohup dockerd >>"${DOCKER_LOG}" 2>&1 </dev/null &
    disown || true
    deadline=$((SECONDS + DOCKER_WAIT))
    until docker info >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            tail -n 30 "${DOCKER_LOG}" >&2 || true
            die "dockerd did not answer within ${DOCKER_WAIT}s; log: ${DOCKER_LOG}"
        fi
        pidof dockerd >/dev/null || { tail -n 30 "${DOCKER_LOG}" >&2; die "dockerd exited; log: ${DOCKER_LOG}"; }
        sleep 0.5
    done
fi
docker info --format '{{json .Runtimes}}' | grep -q '"runsc"' \
    || die "dockerd does not list the runsc runtime after (re)loading ${DAEMON_JSON}"
step_done

# ---------------------------------------------------------------------------
step "base image ${BASE_IMAGE}"
if docker image inspect "${BASE_IMAGE}" >/dev/null 2>&1; then
    log "    already present"
else
    tarball=${CACHE_DIR}/rootfs-${BASE_SUITE}-minbase.tar
    if [[ ! -s ${tarball} ]]; then
        mirror=$(debian_mirror)
        mkdir -p "${CACHE_DIR}"
        rootfs=$(mktemp -d "${CACHE_DIR}/rootfs.XXXXXX")
        log "    debootstrap --variant=minbase ${BASE_SUITE}"
        if ! debootstrap --variant=minbase "${BASE_SUITE}" "${rootfs}" "${mirror}" \
            >"${CACHE_DIR}/debootstrap.log" 2>&1; then
            tail -n 30 "${CACHE_DIR}/debootstrap.log" >&2 || true
            rm -rf "${rootfs}"
            die "debootstrap failed; log: ${CACHE_DIR}/debootstrap.log"
        fi
        # Give the image the same suites of the same mirror as this machine
        # (e.g. its -updates and -security suites), like Debian's own images.
        # shellcheck disable=SC2016  # $(...) are apt's format fields, not shell
        apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Created-By: Packages' \
            | awk -v s="${BASE_SUITE}" '$3 == "main" && ($2 == s || index($2, s "-") == 1) && !seen[$1 " " $2]++ {
                    printf "Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n", $1, $2
                }' >"${rootfs}/etc/apt/sources.list.d/debian.sources"
        if [[ -s ${rootfs}/etc/apt/sources.list.d/debian.sources ]]; then
            rm -f "${rootfs}/etc/apt/sources.list"
        else
            rm -f "${rootfs}/etc/apt/sources.list.d/debian.sources"
        fi
        # Leave no package lists or downloaded .debs in the image.
        rm -rf "${rootfs}"/var/cache/apt/archives/*.deb "${rootfs}"/var/lib/apt/lists/*
        tar --numeric-owner -C "${rootfs}" -cf "${tarball}.tmp" .
        mv -f "${tarball}.tmp" "${tarball}"
        rm -rf "${rootfs}"
    else
        log "    using cached ${tarball}"
    fi
    docker import --change 'CMD ["bash"]' "${tarball}" "${BASE_IMAGE}" >/dev/null \
        || die "docker import of ${tarball} failed"
fi
docker run --rm --network none "${BASE_IMAGE}" true \
    || die "a container from ${BASE_IMAGE} does not start"
step_done

total=$(elapsed "${SCRIPT_START}")
log "timings:"
for t in "${TIMINGS[@]}"; do log "${t}"; done
log "$(printf '%7ss  total' "${total}")"
