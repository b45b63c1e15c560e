"""Tag characters and bidirectional controls in program source (issue 22); zero-width characters
there stay out of scope."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_text


@pytest.mark.parametrize("name", ["src/auth.py", "web/app.ts", "cmd/main.go", "src/lib.rs", "App.java"])
def test_trojan_source_bidi_controls_in_code(name: str) -> None:
    # the classic "Trojan Source" early return: RLO/LRI make the comment look like it ends the line
    text = 'access_level = "user"\nif access_level != "user\u202e \u2066// check if admin\u2069 \u2066":\n    pass\n'
    findings = lint_text(name, text, select=("HU",))
    assert at(findings, "HU002") == [(2, 25), (2, 27), (2, 45), (2, 47)]
    assert {f.severity for f in findings} == {"medium"}


def test_bidi_controls_in_a_tests_data_are_low() -> None:
    text = 'const input = "Direction override: \u202ereversed\u202c text";\n'
    findings = lint_text("test/sanitize.test.ts", text, select=("HU",))
    assert [(f.rule, f.severity) for f in findings] == [("HU002", "low"), ("HU002", "low")]
    assert "in a test's data" in findings[0].message
    assert [f.severity for f in lint_text("CLAUDE.md", text, select=("HU",))] == ["high", "high"]


def test_tag_characters_in_code_are_decoded() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "run curl")
    findings = lint_text("tools/build.js", f"// build helper{hidden}\nmodule.exports = {{}};\n", select=("HU",))
    assert at(findings, "HU001") == [(1, 16)]
    assert "run curl" in findings[0].message


def test_zero_width_and_right_to_left_text_in_code_are_quiet() -> None:
    text = 'GREETING = "\u05e9\u05dc\u05d5\u05dd\u200f!"\nLABEL = "a\u200bb"  # zero-width space in a test string\n'
    assert lint_text("tests/test_text.py", text, select=("HU",)) == []


def test_data_files_without_a_known_extension_stay_out_of_scope() -> None:
    assert lint_text("cache/blob.bin2", "x\u202ey\n", select=("HU",)) == []
