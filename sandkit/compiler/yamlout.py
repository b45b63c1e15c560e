"""YAML emitted from data structures, never from string templates.

Strings that a YAML 1.1 reader (PyYAML, kubectl's older paths, many CI tools) would take for
something else (``no``, ``on``, ``1e3``, ``0o17``, ``~``) are quoted, so every consumer reads the
same value that sandkit wrote.
"""

from __future__ import annotations

import functools
import io
from typing import Any


class LiteralBlock(str):
    """Text that sandkit itself wrote (a script), shown as a ``|`` block; never wrap a kit value in it."""


@functools.cache
def _yaml() -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.representer import SafeRepresenter
    from ruamel.yaml.resolver import VersionedResolver

    strict_resolvers = [VersionedResolver(version=v) for v in ((1, 1), (1, 2))]

    def represent_str(representer: SafeRepresenter, value: str) -> Any:
        ambiguous = any(
            r.resolve(ScalarNode, value, (True, False)) != "tag:yaml.org,2002:str" for r in strict_resolvers
        )
        style = "'" if ambiguous and value.isprintable() else None
        return representer.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    class Representer(SafeRepresenter):  # a subclass: SafeRepresenter itself stays untouched
        pass

    def represent_literal(representer: SafeRepresenter, value: LiteralBlock) -> Any:
        return representer.represent_scalar("tag:yaml.org,2002:str", str(value), style="|")

    Representer.add_representer(str, represent_str)
    Representer.add_representer(LiteralBlock, represent_literal)
    yaml = YAML(typ="safe", pure=True)
    yaml.Representer = Representer
    yaml.default_flow_style = False
    yaml.allow_unicode = False
    yaml.width = 1 << 30
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def dump_yaml(data: Any, *, documents: bool = False) -> str:
    """Block-style YAML, keys in insertion order, non-ASCII escaped, no line folding."""
    yaml = _yaml()
    stream = io.StringIO()
    if documents:
        yaml.explicit_start = True
        yaml.dump_all(data, stream)
        yaml.explicit_start = False
    else:
        yaml.dump(data, stream)
    return stream.getvalue()
