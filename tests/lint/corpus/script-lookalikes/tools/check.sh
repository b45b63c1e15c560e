#!/bin/sh
# docker run -v /var/run/docker.sock:/var/run/docker.sock --privileged
echo "never: docker run --privileged -v ~/.ssh:/root/.ssh"
grep -r "/var/run/docker.sock" . || true
docker run --rm -v "$PWD:/work" -w /work koalaman/shellcheck:v0.10.0 tools/check.sh
docker ps --filter "volume=/var/run/docker.sock"
