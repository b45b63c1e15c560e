#!/usr/bin/env bash
# Build the Kubernetes YAML oracle (k8s_yaml/main.go) from Debian's Go packages, offline:
# golang-go and golang-k8s-sigs-yaml-dev (with golang-gopkg-yaml.v2-dev), in GOPATH mode from
# /usr/share/gocode. No module proxy is used. Installs the packages with apt-get when they are
# missing and this runs as root (.ci/run installs them too).
#
# Usage: build.sh OUTPUT_BINARY    (prints nothing on success; exit 1 with the reason otherwise)
set -euo pipefail
out=${1:?usage: build.sh OUTPUT_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
gocode=/usr/share/gocode

if ! command -v go >/dev/null || [[ ! -d ${gocode}/src/sigs.k8s.io/yaml ]]; then
    if [[ ${EUID} -eq 0 ]] && command -v apt-get >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q --no-install-recommends golang-go golang-k8s-sigs-yaml-dev >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends golang-go golang-k8s-sigs-yaml-dev >/dev/null; } \
            || { echo "build.sh: apt-get install golang-go golang-k8s-sigs-yaml-dev failed" >&2; exit 1; }
    else
        echo "build.sh: needs go and ${gocode}/src/sigs.k8s.io/yaml (apt-get install golang-go golang-k8s-sigs-yaml-dev)" >&2
        exit 1
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
mkdir -p "${work}/src/k8s_yaml"
cp "${here}/k8s_yaml/main.go" "${work}/src/k8s_yaml/"
cd "${work}/src/k8s_yaml"
GO111MODULE=off GOPATH="${work}:${gocode}" GOCACHE="${work}/cache" GOFLAGS= GOPROXY=off \
    go build -o "${out}" . || { echo "build.sh: go build failed" >&2; exit 1; }
