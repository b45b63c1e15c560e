"""typing's TYPE_CHECKING, NamedTuple and Protocol for the linter's modules, without importing typing.

Importing typing takes some 4 ms, and typing's NamedTuple turns each field's annotation into a
ForwardRef it compiles (0.15 ms a class); a pre-commit ``sandkit lint`` defines about thirty
records before it reads a file, in a budget of 50 ms. Here a ``class X(NamedTuple)`` statement
makes the same ``collections.namedtuple`` class typing makes (fields, defaults, methods,
docstring) and leaves the annotations as the strings they are; a Protocol is a plain class at
run time, as nothing checks one against an object. Type checkers see typing's own names, and
``TYPE_CHECKING`` as true; other typing names are imported under ``if TYPE_CHECKING:``, as the
linter's modules only use them in annotations.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: type checkers take it as True

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
    from typing import Protocol as Protocol
else:
    Protocol = object

    from collections import namedtuple

    _PROHIBITED = frozenset(
        {
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
        }
    )
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _RecordMeta(type):
        """Turns a class statement's annotated fields into a namedtuple class, as typing does."""

        def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
            annotations = dict(namespace.get("__annotations__", {}))
            defaults = []
            for field in annotations:
                if field in namespace:
                    defaults.append(namespace[field])
                elif defaults:
                    raise TypeError(f"Non-default namedtuple field {field} cannot follow default field(s)")
            record = namedtuple(name, list(annotations), defaults=defaults, module=str(namespace["__module__"]))
            record.__annotations__ = annotations
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
                if key not in _SPECIAL and key not in annotations:
                    setattr(record, key, value)
            return record

    NamedTuple = type.__new__(_RecordMeta, "NamedTuple", (), {"__module__": __name__})
