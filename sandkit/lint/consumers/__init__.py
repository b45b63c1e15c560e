"""Consumer profiles: each file kind typed as the program that runs it types it.

A YAML reader that follows the 1.2 core schema reads ``privileged: yes`` as the string "yes";
Compose (compose-go) casts it to true, and Kubernetes (sigs.k8s.io/yaml, YAML 1.1) decodes it as
true. A security linter that reads a value differently from the program that acts on it can be
evaded by spelling. So the facts (:mod:`sandkit.lint.facts`) read Compose files and Kubernetes
manifests through these profiles, which turn the parsed tree into the one the consumer would
use:

- :mod:`.compose`: compose-go's interpolation (``${VAR:-default}``, the ``.env`` beside the
  file), its boolean casts, ``extends`` and ``include``;
- :mod:`.kubernetes`: YAML 1.1 plain scalars as go-yaml v2 resolves them under sigs.k8s.io/yaml;
- :mod:`.escapes`: keys and strings spelled with JSON or YAML escapes, decoded for the rules'
  trigger words as every consumer decodes them.

docs/lint.md ("Reading as the consumer reads") lists, per file kind, which specification and
which implementation each profile follows; tests/lint/test_consumer_oracles.py holds them
against the real consumers.
"""
