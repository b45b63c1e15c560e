#!/bin/sh
docker run --rm -v "$(pwd)/..:/repo:ro" debian:bookworm-slim ls /repo
