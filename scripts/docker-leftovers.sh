#!/usr/bin/env bash
# What a test run left in the Docker engine: containers, networks and volumes that were not there
# before it. .ci/run takes a snapshot before pytest and compares after; a leftover fails CI.
#
#   bash scripts/docker-leftovers.sh snapshot > before.txt
#   bash scripts/docker-leftovers.sh compare before.txt   # exit 1 and a list on stderr if anything is new
set -euo pipefail

# One line per object: its kind and its full id (a volume has only its name).
objects() {
    docker ps -aq --no-trunc | sed 's/^/container /'
    docker network ls -q --no-trunc | sed 's/^/network /'
    docker volume ls -q | sed 's/^/volume /'
}

case ${1:-} in
    snapshot)
        objects | sort
        ;;
    compare)
        [[ -r ${2:-} ]] || { echo "usage: $0 compare SNAPSHOT" >&2; exit 2; }
        left=$(comm -13 "$2" <(objects | sort))
        [[ -z ${left} ]] && exit 0
        echo "docker-leftovers: the run left $(wc -l <<<"${left}") Docker object(s) behind:" >&2
        while read -r kind id; do
            case ${kind} in
                container)
                    docker ps -a --no-trunc --filter "id=${id}" --format 'container {{.Names}} ({{.Image}}, {{.Status}})' ;;
                network) docker network inspect --format 'network {{.Name}}' "${id}" 2>/dev/null || echo "network ${id}" ;;
                volume) echo "volume ${id}" ;;
            esac
        done <<<"${left}" >&2
        exit 1
        ;;
    *)
        echo "usage: $0 snapshot | compare SNAPSHOT" >&2
        exit 2
        ;;
esac
