"""A new user's first hour, command by command, as they would type it (issue 38): what each prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.cli import main
from tests.compiler.helpers import in_folder


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], list[str]]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def test_init_validate_build_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with in_folder(tmp_path):
        assert _run(capsys, "init", "kits/agent.yaml")[0] == 0
        assert _run(capsys, "validate", "kits/") == (
            0,
            ["kits/agent.yaml: ok (Kit agent)", "sandkit validate: 1 kit, valid"],
            [],
        )
        code, out, _ = _run(capsys, "build", "kits/", "-o", "sandbox")
        assert code == 0 and out[0] == "kits/agent.yaml -> sandbox/agent/ (13 files)"
        assert out[1].startswith("fidelity: ") and out[1].endswith(" settings enforced by compose")
        assert out[2] == "every reason in sandbox/agent/fidelity.json; --verbose prints every setting and target"
        assert max(len(line) for line in _run(capsys, "build", "kits/", "-o", "sandbox", "-v")[1]) <= 100
        assert _run(capsys, "build", "--check", "kits/", "-o", "sandbox")[1] == [
            "sandkit build --check: 1 kit(s) up to date"
        ]
        kit = tmp_path / "kits/agent.yaml"
        text = kit.read_text()
        kit.write_text(text.replace("    - github.com\n", "    - github.com\n    - api.example.com\n"))
        assert _run(capsys, "build", "-q", "kits/", "-o", "sandbox")[0] == 0
        kit.write_text(text)  # the one-line change back: the generated files get shorter
        code, out, err = _run(capsys, "build", "--check", "kits/", "-o", "sandbox")
    assert code == 1 and err == ["sandkit build --check: generated files are stale; run `sandkit build`"]
    assert not any("larger than" in line for line in out)
    squid = out[out.index("--- a/sandbox/agent/egress/squid.conf") :]
    assert [line for line in squid if line.startswith("-") and "example" in line] == [
        "-acl allow_1_host dstdomain -n api.example.com",
    ]
    assert len(out) < 200  # the headers' digests, the image tags, and the lines that went
