"""The jinja2 environment every template renders through: strict, and with our escaping filters."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).parent / "templates"


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2  # here, not at the top: only a build needs it

    from sandkit.compiler.escape import json_array, json_string, sh_quote

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # each output language has its own filter below; HTML escaping fits none
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(shq=sh_quote, jsonarray=json_array, jsonstr=json_string)
    return env


def render_template(name: str, **values: Any) -> str:
    return _environment().get_template(name).render(**values)
