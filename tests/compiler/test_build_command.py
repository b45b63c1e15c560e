"""`sandkit build`: writing, --check, all-or-nothing, --strict, targets and folders of kits."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.cli import main
from tests.compiler.helpers import in_folder
from tests.conftest import cpu_seconds

KIT = """\
apiVersion: sandkit/v1
name: {name}
agent: {{command: [agent]}}
workspace: {{mode: none}}
network: {{allow: [api.example.com]}}
{extra}"""


def _kit(folder: Path, name: str, extra: str = "") -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(KIT.format(name=name, extra=extra), encoding="utf-8")
    return path


def test_build_then_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with in_folder(tmp_path):
        _kit(tmp_path, "one")
        assert main(["build", "one.yaml", "-o", "out"]) == 0
        assert "fidelity: " in capsys.readouterr().out  # the fidelity report's summary line
        assert main(["build", "--check", "one.yaml", "-o", "out"]) == 0
        (tmp_path / "out/one/egress/squid.conf").write_text("edited\n")
        assert main(["build", "--check", "one.yaml", "-o", "out"]) == 1
        out = capsys.readouterr()
        assert "--- a/out/one/egress/squid.conf" in out.out and "-edited" in out.out
        assert "stale" in out.err
        assert (tmp_path / "out/one/egress/squid.conf").read_text() == "edited\n", "--check wrote a file"


def test_one_bad_kit_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with in_folder(tmp_path):
        _kit(tmp_path, "good")
        _kit(tmp_path, "bad", "image: {user: root}\n")
        assert main(["build", ".", "-o", "out"]) == 1
        assert not (tmp_path / "out").exists()
        err = capsys.readouterr().err
        assert "bad.yaml:6:15: error: image.user" in err and "nothing written" in err


def test_folder_of_kits_builds_each_and_skips_mixins(tmp_path: Path) -> None:
    with in_folder(tmp_path):
        _kit(tmp_path, "first")
        _kit(tmp_path, "second")
        (tmp_path / "mixin.yaml").write_text("apiVersion: sandkit/v1\nkind: Mixin\nname: m\n")
        assert main(["build", ".", "-o", "out", "-q"]) == 0
        assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir()) == ["first", "second"]


def test_strict_fails_on_unsupported_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with in_folder(tmp_path):
        _kit(tmp_path, "dind", "isolation: {docker: rootless}\n")
        assert main(["build", "dind.yaml", "-o", "out", "-q"]) == 0
        assert main(["build", "dind.yaml", "-o", "out2", "--strict"]) == 1
        assert "isolation.docker is unsupported by compose" in capsys.readouterr().err
        assert not (tmp_path / "out2").exists()


def test_target_selection_and_requirements(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with in_folder(tmp_path):
        _kit(tmp_path, "one")
        assert main(["build", "one.yaml", "-o", "d", "--target", "docker", "-q"]) == 0
        assert not (tmp_path / "d/one/compose.yaml").exists() and (tmp_path / "d/one/Dockerfile").exists()
        assert main(["build", "one.yaml", "-o", "c", "--target", "compose", "-q"]) == 0
        assert (tmp_path / "c/one/Dockerfile").exists(), "compose builds on the docker target's files"
        assert main(["build", "one.yaml", "--target", "helm"]) == 2
        assert "unknown target(s) helm" in capsys.readouterr().err


def test_stale_files_of_an_earlier_build_are_removed(tmp_path: Path) -> None:
    with in_folder(tmp_path):
        _kit(tmp_path, "one")
        assert main(["build", "one.yaml", "-o", "out", "-q"]) == 0
        assert (tmp_path / "out/one/egress/squid.conf").exists()
        _kit(tmp_path, "one", "").write_text(
            KIT.format(name="one", extra="").replace("network: {allow: [api.example.com]}", "network: {egress: none}")
        )
        assert main(["build", "one.yaml", "-o", "out", "-q"]) == 0
        assert not (tmp_path / "out/one/egress/squid.conf").exists()


def test_two_kits_with_one_name_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with in_folder(tmp_path):
        _kit(tmp_path, "same")
        (tmp_path / "copy.yaml").write_text((tmp_path / "same.yaml").read_text())
        assert main(["build", ".", "-o", "out"]) == 1
        err = capsys.readouterr().err
        assert "copy.yaml:2:7: error: 2 kits are named same: copy.yaml, same.yaml" in err
        assert "same.yaml:2:7: error: 2 kits are named same" in err


def test_hundred_kits_compile_cheaply(tmp_path: Path) -> None:
    """A bound on the CPU time (not the wall clock, which load stretches); bench/startup_build.py times builds."""
    with in_folder(tmp_path):
        for index in range(100):
            _kit(tmp_path, f"kit-{index:03d}")
        started = cpu_seconds()
        assert main(["build", ".", "-o", "out", "-q"]) == 0
        assert cpu_seconds() - started < 10


def test_check_shows_only_the_lines_a_shorter_file_lost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A kit that drops one host: --check prints the lines that went, not the whole new file after a
    '(... is larger than the generated file)' line."""
    with in_folder(tmp_path):
        kit = _kit(tmp_path, "one", "targets: {build: [srt]}\n")
        kit.write_text(kit.read_text().replace("[api.example.com]", "[api.example.com, docs.example.com]"))
        assert main(["build", "one.yaml", "-o", "out", "-q"]) == 0
        kit.write_text(kit.read_text().replace(", docs.example.com", ""))
        capsys.readouterr()
        assert main(["build", "--check", "one.yaml", "-o", "out"]) == 1
        out = capsys.readouterr().out
    assert "larger than" not in out
    changed = [line for line in out.splitlines() if line[:1] in "+-" and line[:3] not in ("---", "+++")]
    without_hashes = [line for line in changed if "sha256" not in line]
    assert without_hashes == [
        '-      "api.example.com:443",',
        '-      "docs.example.com:443"',
        '+      "api.example.com:443"',
    ]
    assert len(out.splitlines()) < 40, out


def test_check_of_a_one_line_kit_change_names_the_files_whose_header_alone_moved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every header names the kit's digest (and image tags its config digest), so a one-host change
    touches every file: the files whose only change is a digest are listed by name, and the diff is
    the lines that really changed."""
    with in_folder(tmp_path):
        kit = _kit(tmp_path, "one", "targets: {build: [compose]}\n")
        kit.write_text(kit.read_text().replace("[api.example.com]", "[api.example.com, docs.example.com]"))
        assert main(["build", "one.yaml", "-o", "out", "-q"]) == 0
        kit.write_text(kit.read_text().replace(", docs.example.com", ""))
        capsys.readouterr()
        assert main(["build", "--check", "one.yaml", "-o", "out"]) == 1
        out = capsys.readouterr().out
    listed = out.split("differ only in digests of the kit (headers, image tags):\n")[1].split()
    assert {"out/one/entrypoint.sh", "out/one/Dockerfile", "out/one/compose.yaml"} <= set(listed)
    diffed = [line[6:] for line in out.splitlines() if line.startswith("+++ b/")]
    assert diffed and not set(diffed) & set(listed)
    assert any("docs.example.com" in line for line in out.splitlines() if line.startswith("-"))
    # squid.conf's hunks (a host is its ACLs, its allow line and a name in the record's any-of lines) and the list
    assert len(out.splitlines()) < 48, out


def test_check_does_not_read_a_huge_file_on_disk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The file on disk is read only up to the generated length plus a margin: a committed 6 MiB
    file is named, not printed."""
    with in_folder(tmp_path):
        _kit(tmp_path, "one", "targets: {build: [srt]}\n")
        assert main(["build", "one.yaml", "-o", "out", "-q"]) == 0
        (tmp_path / "out/one/srt/env.sh").write_bytes(b"x" * (6 * 1024 * 1024))
        capsys.readouterr()
        assert main(["build", "--check", "one.yaml", "-o", "out"]) == 1
        out = capsys.readouterr().out
    assert "-(env.sh is over " in out and "far larger than the generated file: not shown)" in out
    assert len(out) < 4096
