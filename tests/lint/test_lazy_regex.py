"""Patterns compiled on first use answer as compiled ones do."""

from __future__ import annotations

import re

from sandkit.lazy_regex import LazyPattern, lazy


def test_a_lazy_pattern_compiles_on_first_use_and_answers_as_re_does() -> None:
    source, text = r"(?P<key>[a-z]+)=(\d+)", "a=1, bb=22; c=x, dd=4"
    deferred, compiled = lazy(source), re.compile(source)
    assert deferred._compiled is None
    assert deferred.search(text).group("key") == compiled.search(text).group("key")  # type: ignore[union-attr]
    assert deferred.compiled is deferred.compiled  # compiled once
    assert deferred.match(text, 4) is None and compiled.match(text, 4) is None
    assert deferred.fullmatch("bb=22").span() == compiled.fullmatch("bb=22").span()  # type: ignore[union-attr]
    assert [m.span() for m in deferred.finditer(text, 2, 15)] == [m.span() for m in compiled.finditer(text, 2, 15)]
    assert deferred.findall(text) == compiled.findall(text)
    assert deferred.split(text, 1) == compiled.split(text, 1)
    assert deferred.sub(r"\g<key>", text) == compiled.sub(r"\g<key>", text)
    assert deferred.subn(lambda m: m.group(2), text, 2) == compiled.subn(lambda m: m.group(2), text, 2)
    assert deferred.groups == compiled.groups == 2
    assert LazyPattern(source, re.IGNORECASE).search("A=1") is not None
