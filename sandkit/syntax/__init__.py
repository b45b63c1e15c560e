"""The parse layer: the one place sandkit reads YAML, JSON, JSONC and TOML.

Kits, the linter, ``sandkit diff``/``summary`` and the importer all read through it, so a file
means one thing to all of them, and one set of bounds holds for every reader
(:mod:`sandkit.syntax.tree`: nesting depth, what YAML aliases may add, one 1-based position type).

- YAML: libyaml through PyYAML (:mod:`sandkit.syntax.yaml`), composing nodes only; ruamel.yaml's
  round-trip loader where kits need comments and positions kept (``load_round_trip``).
- JSON: ``json`` where no position is needed; JSON with comments and trailing commas
  (devcontainer.json, VS Code and agent settings) by :mod:`sandkit.syntax.jsonc`.
- TOML: ``tomllib`` (:mod:`sandkit.syntax.toml`), keys located afterwards.

Which reader reads a file depends only on its format: never on its size or on what the
process read before it.
"""
