"""``sandkit import``: turn another sandbox's configuration (a Docker Sandboxes spec.yaml, a dev container)
into a kit, and report every setting that has no kit equivalent instead of dropping it silently."""
