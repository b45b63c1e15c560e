"""Write a kit back to YAML: only what differs from the defaults, in the model's field order."""

from __future__ import annotations

import io

from sandkit.kits.model import Kit


def dump_kit(kit: Kit) -> str:
    from ruamel.yaml import YAML

    data = kit.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data = {"apiVersion": kit.api_version, "kind": kit.kind, **data}
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.allow_unicode = False  # escape NEL, bidi and friends: safe to read and to load back
    yaml.width = 4096
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue()
