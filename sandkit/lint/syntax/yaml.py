"""YAML for the linter: the parse layer's reader (:mod:`sandkit.syntax.yaml`, libyaml through
PyYAML), named here where the linter's modules import it from."""

from __future__ import annotations

from sandkit.syntax.yaml import (
    bound_nesting,
    check_syntax,
    compose_nodes,
    convert_nodes,
    load_documents,
    parser_nodes,
)

__all__ = ["bound_nesting", "check_syntax", "compose_nodes", "convert_nodes", "load_documents", "parser_nodes"]
