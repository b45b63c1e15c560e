"""sandkit.lean_typing's NamedTuple makes the class typing.NamedTuple makes, without typing."""

from __future__ import annotations

import pickle
import typing

import pytest

from sandkit.lean_typing import NamedTuple


class Lean(NamedTuple):
    """A record."""

    path: str
    line: int = 0
    tags: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def moved(self) -> Lean:
        return self._replace(line=self.line + 1)


class Typed(typing.NamedTuple):
    """A record."""

    path: str
    line: int = 0
    tags: tuple[str, ...] = ()


def test_a_lean_record_behaves_as_typings() -> None:
    lean = Lean("a", 2)
    typed = Typed("a", 2)
    assert lean.where == "a:2" and lean.moved() == ("a", 3, ())
    assert lean == typed == ("a", 2, ())
    assert hash(lean) == hash(typed)
    assert Lean._fields == Typed._fields
    assert Lean._field_defaults == Typed._field_defaults
    assert repr(lean) == "Lean(path='a', line=2, tags=())"
    assert Lean.__doc__ == "A record." and Lean.__module__ == __name__ and Lean.__qualname__ == "Lean"
    assert list(Lean.__annotations__) == ["path", "line", "tags"]
    assert pickle.loads(pickle.dumps(lean)) == lean and type(pickle.loads(pickle.dumps(lean))) is Lean
    assert isinstance(lean, tuple) and sorted([Lean("b"), Lean("a", 5)]) == [("a", 5, ()), ("b", 0, ())]
    with pytest.raises(TypeError):
        Lean()  # type: ignore[call-arg]


def test_a_lean_record_refuses_what_typing_refuses() -> None:
    with pytest.raises(TypeError, match="Non-default namedtuple field b"):

        class Defaults(NamedTuple):
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(AttributeError, match="_replace"):

        class Overwrites(NamedTuple):
            a: int

            def _replace(self) -> None:  # type: ignore[misc]
                pass
