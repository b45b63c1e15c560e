"""JSON with comments for the linter: the parse layer's reader (:mod:`sandkit.syntax.jsonc`),
named here where the linter's modules import it from."""

from __future__ import annotations

from sandkit.syntax.jsonc import load_jsonc

__all__ = ["load_jsonc"]
