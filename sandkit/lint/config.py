"""The linter's configuration: :mod:`sandkit.config` (shared with ``sandkit build``), named here
where the linter's modules import it from."""

from __future__ import annotations

from sandkit.config import CONFIG_NAMES, ConfigError, LintConfig, find_config, load_config

__all__ = ["CONFIG_NAMES", "ConfigError", "LintConfig", "find_config", "load_config"]
