"""TOML for the linter: the parse layer's reader (:mod:`sandkit.syntax.toml`, tomllib), named
here where the linter's modules import it from."""

from __future__ import annotations

from sandkit.syntax.toml import load_toml, load_toml_value

__all__ = ["load_toml", "load_toml_value"]
