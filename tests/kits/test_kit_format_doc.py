"""docs/kit-format.md's field table is the kit model's: every field, its type (as the JSON Schema
has it), its default and its description (regenerate: SANDKIT_UPDATE_GOLDEN=1, see field_table)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from sandkit.kits.model import Kit
from sandkit.kits.schema import kit_schema
from tests.conftest import REPO
from tests.generated import check_generated_section

DOC = REPO / "docs" / "kit-format.md"
BEGIN = "<!-- field table: generated from sandkit/kits/model.py by tests/kits/test_kit_format_doc.py -->\n"
END = "<!-- end of field table -->\n"


def fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, type[BaseModel], str, FieldInfo]]:
    """(dotted path, owning model, key, field) of every field, depth first in declaration order; the
    entries of a list of sections are `name[].key`."""
    for name, info in model.model_fields.items():
        key = info.alias or name
        path = prefix + key
        yield path, model, key, info
        section = _section(info.annotation)
        if section is not None:
            yield from fields(section, f"{path}[]." if _is_list(info.annotation) else f"{path}.")


def _section(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds, alone, optional or as list entries."""
    candidates = [annotation, *getattr(annotation, "__args__", ())]
    return next((c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None)


def _is_list(annotation: Any) -> bool:
    return getattr(annotation, "__origin__", None) is list


def type_text(schema: dict[str, Any]) -> str:
    """A field's JSON Schema, in words."""
    if "const" in schema:
        return f"`{schema['const']}`"
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(type_text(s) for s in schema["anyOf"] if s.get("type") != "null")
    if "$ref" in schema:
        return "mapping"
    kind = schema.get("type")
    if kind == "array":
        return f"list of {_plural(type_text(schema['items']))}"
    values = schema.get("additionalProperties") or next(iter(schema.get("patternProperties", {}).values()), None)
    if kind == "object" and isinstance(values, dict):
        return f"mapping of {_plural(type_text(values))}"
    return {"object": "mapping", "boolean": "boolean"}.get(kind or "", kind or "any")


def _plural(text: str) -> str:
    return {"mapping": "mappings", "string": "strings", "integer": "integers"}.get(text, text)


def default_text(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    if info.default_factory is not None:
        value = info.default_factory()  # type: ignore[call-arg]
        return "" if isinstance(value, BaseModel) else f"`{value!r}`".replace("'", '"')
    value = info.default
    if value is None or value is PydanticUndefined:
        return "none"
    if value == "":
        return '`""`'
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def field_table() -> str:
    definitions = kit_schema()["$defs"]
    schema_of = {Kit: kit_schema()} | {
        model: definitions[model.__name__] for _, model, _, _ in fields(Kit) if model is not Kit
    }
    rows = ["| field | type | default | description |", "| --- | --- | --- | --- |"]
    for path, model, key, info in fields(Kit):
        kind = type_text(schema_of[model]["properties"][key])
        description = (info.description or "").replace("|", "\\|")
        rows.append(f"| `{path}` | {kind} | {default_text(info)} | {description} |")
    return "\n".join(rows) + "\n"


def test_every_field_is_described() -> None:
    missing = [path for path, _, _, info in fields(Kit) if not (info.description or "").strip()]
    assert missing == [], f"give these fields a description in sandkit/kits/model.py: {missing}"


def test_docs_list_every_field() -> None:
    check_generated_section(DOC, BEGIN, END, field_table())
