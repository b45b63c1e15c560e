"""``sandkit verify``: probes run inside a compiled sandbox where it runs (see docs/verify.md)."""
