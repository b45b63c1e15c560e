"""Patterns compiled on first use answer as compiled ones do, and PyYAML imported through the
linter still resolves, dumps and checks its input with its own (deferred) patterns."""

from __future__ import annotations

import re
import subprocess
import sys

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


_PYYAML_THROUGH_THE_LINTER = """
import re, sys
real = re.compile
from sandkit.lint.syntax.yaml import load_documents
assert load_documents("on: [push]\\nwhen: &w 2020-01-01\\n") == [{"on": ["push"], "when": "2020-01-01"}]  # an anchor: libyaml
import yaml
assert re.compile is real
assert yaml.reader.Reader.NON_PRINTABLE._compiled is None  # the C parser never needed it
assert yaml.safe_load("a: 2020-01-01\\nb: yes\\nc: 0x1f") == {"a": __import__("datetime").date(2020, 1, 1), "b": True, "c": 31}
assert yaml.safe_dump({"a": "yes", "b": "1.5"}) == "a: 'yes'\\nb: '1.5'\\n"
try:
    yaml.safe_load("x: \\x07")
except yaml.reader.ReaderError:
    print("ok")
"""


def test_pyyaml_imported_by_the_linter_still_uses_its_patterns() -> None:
    done = subprocess.run([sys.executable, "-c", _PYYAML_THROUGH_THE_LINTER], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
