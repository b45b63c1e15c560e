"""The loader turns every hostile or broken file into one clear, located error naming the file."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from sandkit.errors import KitError
from sandkit.kits.loader import load_kit


def _error(path: Path) -> str:
    with pytest.raises(KitError) as caught:
        load_kit(path)
    assert len(caught.value.problems) == 1
    text = str(caught.value.problems[0])
    assert text.startswith(str(path))
    return text[len(str(path)) :]


def _kit(tmp_path: Path, data: bytes | str) -> Path:
    path = tmp_path / "kit.yaml"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_syntax_error_is_located(tmp_path: Path) -> None:
    assert _error(_kit(tmp_path, "apiVersion: sandkit/v1\nname: [demo\n")) == (
        ":3:1: error: YAML syntax error: expected ',' or ']', but got '<stream end>'"
    )


def test_not_a_mapping(tmp_path: Path) -> None:
    assert _error(_kit(tmp_path, "- a\n- b\n")) == (
        ":1:1: error: a kit must be a YAML mapping (key: value pairs), not a list"
    )


def test_duplicate_keys(tmp_path: Path) -> None:
    text = "apiVersion: sandkit/v1\nname: a\nname: b\n"
    assert _error(_kit(tmp_path, text)) == (":3:1: error: duplicate key 'name' (each key may appear once in a mapping)")


def test_an_integer_longer_than_python_converts_is_located(tmp_path: Path) -> None:
    """ruamel converts integers itself and raised ValueError out of the loader (a traceback)."""
    text = "apiVersion: sandkit/v1\nname: a\nlimits: {timeout: " + "9" * 5000 + "}\n"
    assert _error(_kit(tmp_path, text)) == ":3:19: error: an integer too long to read (over 4,300 digits)"


def test_billion_laughs_is_refused_quickly(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for letter in "bcdefghij":
        lines.append(f"{letter}: &{letter} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = letter
    path = _kit(tmp_path, "\n".join(lines) + "\n")
    started = time.process_time()  # CPU time: what the bomb costs, whatever else the machine runs
    message = _error(path)
    # Expanding it would take minutes and gigabytes; refusing costs well under a second of CPU
    # (about 0.3 s, up to 0.6 s on a loaded machine).
    assert time.process_time() - started < 1.5
    assert "alias bomb" in message


def test_huge_file_is_refused_without_parsing(tmp_path: Path) -> None:
    path = _kit(tmp_path, "a: " + "x" * (2 * 1024 * 1024) + "\n")
    started = time.process_time()
    assert "a kit may be at most 1048576 bytes" in _error(path)
    assert time.process_time() - started < 0.5


def test_non_utf8_bytes_are_located(tmp_path: Path) -> None:
    path = _kit(tmp_path, b"apiVersion: sandkit/v1\nname: d\xffmo\n")
    assert _error(path) == ":2:8: error: file is not valid UTF-8 (a kit must be UTF-8 text)"


def test_custom_tags_are_refused(tmp_path: Path) -> None:
    path = _kit(tmp_path, "apiVersion: sandkit/v1\nname: !!python/object:os.system x\n")
    assert "custom tags are not allowed" in _error(path)


def test_unquoted_date_asks_for_quotes(tmp_path: Path) -> None:
    path = _kit(tmp_path, "apiVersion: sandkit/v1\ndescription: 2026-01-01\n")
    assert _error(path) == ":2:14: error: a date or time here must be quoted to be a string"


def test_several_documents_are_refused(tmp_path: Path) -> None:
    assert "exactly one YAML document" in _error(_kit(tmp_path, "a: 1\n---\nb: 2\n"))


def test_empty_file(tmp_path: Path) -> None:
    assert "file is empty" in _error(_kit(tmp_path, "# nothing\n"))


def test_deep_nesting_is_bounded(tmp_path: Path) -> None:
    assert "nested" in _error(_kit(tmp_path, "a: " + "[" * 200 + "]" * 200 + "\n"))


def test_missing_file(tmp_path: Path) -> None:
    assert _error(tmp_path / "nope.yaml") == ": error: file not found"


def test_nul_character_is_refused(tmp_path: Path) -> None:
    path = _kit(tmp_path, 'apiVersion: sandkit/v1\nname: demo\nenv: {A: "x\\0y"}\n')
    assert _error(path) == ":3:10: error: a NUL character cannot reach a program (argv and environment end at it)"


def test_raw_unicode_line_separators_ask_for_an_escape(tmp_path: Path) -> None:
    path = _kit(tmp_path, 'apiVersion: sandkit/v1\nname: demo\ndescription: "a \u2028 b"\n')
    assert _error(path) == (
        ":3:17: error: raw U+2028 LINE SEPARATOR in the file: YAML readers disagree on whether "
        "it breaks the line; write it as the escape \\u2028 inside double quotes"
    )
    escaped = _kit(tmp_path, 'apiVersion: sandkit/v1\nname: demo\nagent: {command: [x]}\ndescription: "a \\u2028 b"\n')
    assert load_kit(escaped).kit.description == "a \u2028 b"


def test_bom_is_accepted(tmp_path: Path) -> None:
    path = _kit(tmp_path, "\ufeffapiVersion: sandkit/v1\nname: demo\nagent: {command: [x]}\n")
    assert load_kit(path).kit.name == "demo"


def test_half_of_a_utf16_pair_is_refused_not_a_traceback(tmp_path: Path) -> None:
    """JSON writers escape U+10000 as "\\ud800\\udc00"; YAML reads two lone halves no path can encode."""
    path = _kit(tmp_path, 'apiVersion: sandkit/v1\nname: demo\nimage: {ca_certificates: ["\\ud800\\udc00"]}\n')
    assert _error(path) == (
        ":3:27: error: the escape \\ud800 is half of a UTF-16 pair, not a character; "
        "write the character itself, or its \\U00XXXXXX escape"
    )
