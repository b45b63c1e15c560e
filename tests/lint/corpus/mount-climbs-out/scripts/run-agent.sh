#!/bin/sh
docker run --rm -v "$(pwd)/../../..:/host:ro" debian:bookworm-slim ls /host
