#!/usr/bin/env python3
"""Print what the sandbox sees: proof that it is offline and unprivileged."""
import os, socket
print("uid", os.getuid())
try:
    socket.create_connection(("203.0.113.1", 80), timeout=2)
    print("network: reachable")
except OSError as error:
    print("network: unreachable", error.__class__.__name__)
