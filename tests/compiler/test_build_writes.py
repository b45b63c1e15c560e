"""Writes are whole or nothing, and a build removes what no kit makes any more (the manifest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sandkit.cli import main
from sandkit.compiler import writes
from tests.compiler.helpers import in_folder
from tests.conftest import REPO

KIT = "apiVersion: sandkit/v1\nname: {name}\nagent: {{command: [agent]}}\nworkspace: {{mode: none}}\n{extra}"
MANIFEST = writes.MANIFEST


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file's bytes (a link: where it points), every folder as '/'."""
    return {
        p.relative_to(folder).as_posix(): (
            os.readlink(p).encode() if p.is_symlink() else p.read_bytes() if p.is_file() else b"/"
        )
        for p in sorted(folder.rglob("*"))
    }


def _kits(folder: Path, *names: str, extra: str = "") -> None:
    (folder / "kits").mkdir(exist_ok=True)
    for name in names:
        (folder / "kits" / f"{name}.yaml").write_text(KIT.format(name=name, extra=extra))


def _sandkit(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandkit", *args], cwd=folder, capture_output=True, text=True, timeout=120, check=False
    )


# ----- path problems: one line, exit 2, nothing written -------------------------------------------


@pytest.mark.parametrize(
    ("setup", "args", "expected"),
    [
        ("out-file", ["-o", "out"], "-o out: is a file, not a folder"),
        ("actions-file", ["--actions-dir", "wf"], "--actions-dir wf: is a file, not a folder"),
        ("kit-folder-file", [], "out/one is a file where sandkit writes a folder"),
        ("dockerfile-folder", [], "out/one/Dockerfile is a folder where sandkit writes a file"),
        ("link-out", [], "out/one is a symbolic link out of out"),
        ("unwritable", ["-o", "/sys/sandkit-cannot-write-here"], "cannot write /sys/sandkit-cannot-write-here"),
    ],
)
@pytest.mark.parametrize("check", [False, True], ids=["build", "check"])
def test_a_path_problem_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, setup: str, args: list[str], expected: str, check: bool
) -> None:
    _kits(tmp_path, "one", "two")
    out = tmp_path / "out"
    if setup == "out-file":
        out.write_text("a file\n")
    elif setup == "actions-file":
        (tmp_path / "wf").write_text("a file\n")
    elif setup == "kit-folder-file":
        out.mkdir()
        (out / "one").write_text("a file\n")
    elif setup == "dockerfile-folder":
        (out / "one" / "Dockerfile").mkdir(parents=True)
    elif setup == "link-out":
        out.mkdir()
        (tmp_path / "elsewhere").mkdir()
        (out / "one").symlink_to(tmp_path / "elsewhere")
    if setup == "unwritable" and check:
        args = ["-o", "out"]  # --check writes nothing: an unwritable place is no problem for it, a file is
        expected = "-o out: is a file, not a folder"
        out.write_text("a file\n")
    before = _tree(tmp_path)
    done = _sandkit(
        tmp_path,
        "build",
        "kits",
        *(["-o", "out"] if "-o" not in args else []),
        *args,
        "-q",
        *(["--check"] if check else []),
    )
    assert done.returncode == 2, done
    assert done.stderr.count("\n") == 1 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert _tree(tmp_path) == before, "something was written"


def test_a_failure_while_writing_leaves_everything_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 18th file of the build fails (a full disk): no file of any kit has changed, no staging left."""
    _kits(tmp_path, "one", "two")
    with in_folder(tmp_path):
        assert main(["build", "kits", "-o", "out", "-q", "--actions-dir", "wf"]) == 0
        _kits(tmp_path, "one", "two", extra="env: {CHANGED: 'yes'}\n")
        before = _tree(tmp_path)
        real = writes._write_file
        count = {"files": 0}

        def failing(path: Path, data: bytes) -> None:
            count["files"] += 1
            if count["files"] == 18:
                raise OSError(28, "No space left on device", str(path))
            real(path, data)

        monkeypatch.setattr(writes, "_write_file", failing)
        assert main(["build", "kits", "-o", "out", "-q", "--actions-dir", "wf"]) == 2
    assert _tree(tmp_path) == before
    assert not [p for p in tmp_path.rglob(f"{writes.STAGING_PREFIX}*")]


def test_a_new_output_folder_is_removed_again_when_writing_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _kits(tmp_path, "one")

    def failing(path: Path, data: bytes) -> None:
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(writes, "_write_file", failing)
    with in_folder(tmp_path):
        assert main(["build", "kits", "-o", "deep/out", "-q"]) == 2
    assert not (tmp_path / "deep").exists()


def test_a_broken_pipe_is_not_success_and_every_kit_is_written(tmp_path: Path) -> None:
    """45 whole fidelity tables (--verbose) outgrow a pipe's buffer, so the reader's leaving reaches the writer."""
    names = [f"kit-{index:02d}" for index in range(45)]
    _kits(tmp_path, *names)
    process = subprocess.Popen(
        [sys.executable, "-m", "sandkit", "build", "kits", "-o", "out", "--verbose"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # `| head -1`
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) != 0
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert process.returncode == 141
    assert {p.name for p in (tmp_path / "out").iterdir() if p.is_dir()} == set(names)
    assert _sandkit(tmp_path, "build", "--check", "kits", "-o", "out").returncode == 0


# ----- the manifest: orphans removed, --check names them ------------------------------------------


def test_a_deleted_kit_leaves_nothing_behind_and_check_names_each_orphan(tmp_path: Path) -> None:
    _kits(tmp_path, "keep", "gone", extra="triggers: [{schedule: '0 9 * * 1'}]\n")
    args = ["build", "kits", "-o", "sandbox", "--actions-dir", ".github/workflows", "-q"]
    assert _sandkit(tmp_path, *args).returncode == 0
    assert (tmp_path / ".github/workflows/gone.yml").is_file()
    (tmp_path / "kits" / "gone.yaml").unlink()  # the kit deleted, as `git rm` does
    check = _sandkit(tmp_path, *args, "--check")
    assert check.returncode == 1, check
    assert ".github/workflows/gone.yml is left over: ../../kits/gone.yaml no longer makes it" in check.stderr
    assert "sandbox/gone/Dockerfile is left over: ../kits/gone.yaml no longer makes it" in check.stderr
    assert "up to date" not in check.stdout
    assert _sandkit(tmp_path, *args).returncode == 0
    assert not (tmp_path / "sandbox" / "gone").exists(), "the deleted kit's folder survived"
    assert sorted(p.name for p in (tmp_path / ".github/workflows").iterdir()) == [MANIFEST, "keep.yml"]
    assert _sandkit(tmp_path, *args, "--check").returncode == 0


def test_a_renamed_kit_replaces_its_old_folder(tmp_path: Path) -> None:
    _kits(tmp_path, "old")
    assert _sandkit(tmp_path, "build", "kits", "-o", "out", "-q").returncode == 0
    (tmp_path / "kits" / "old.yaml").write_text(KIT.format(name="new", extra=""))
    assert _sandkit(tmp_path, "build", "kits", "-o", "out", "-q").returncode == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [MANIFEST, "new"]


def test_a_build_of_some_kits_keeps_the_output_of_the_others(tmp_path: Path) -> None:
    _kits(tmp_path, "one", "two")
    assert _sandkit(tmp_path, "build", "kits", "-o", "out", "-q").returncode == 0
    before = _tree(tmp_path / "out" / "two")
    assert _sandkit(tmp_path, "build", "kits/one.yaml", "-o", "out", "-q").returncode == 0
    assert _tree(tmp_path / "out" / "two") == before
    manifest = json.loads((tmp_path / "out" / MANIFEST).read_text())
    assert sorted(manifest["kits"]) == ["../kits/one.yaml", "../kits/two.yaml"]
    assert _sandkit(tmp_path, "build", "--check", "kits", "-o", "out").returncode == 0


def test_files_not_made_by_sandkit_are_left_alone(tmp_path: Path) -> None:
    _kits(tmp_path, "one")
    assert _sandkit(tmp_path, "build", "kits", "-o", "out", "-q").returncode == 0
    (tmp_path / "out" / "one" / "NOTES.md").write_text("mine\n")
    (tmp_path / "kits" / "one.yaml").unlink()
    _kits(tmp_path, "two")
    assert _sandkit(tmp_path, "build", "kits", "-o", "out", "-q").returncode == 0
    assert _tree(tmp_path / "out" / "one") == {"NOTES.md": b"mine\n"}


ENTRY = st.lists(st.sampled_from(["..", ".", "", "one", "victim.txt", "Dockerfile", "/", "x"]), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(ENTRY.map("/".join), max_size=6))
@example(entries=["one/Dockerfile/one"])  # an entry below a file the build writes
def test_a_hostile_manifest_never_removes_anything_outside_the_output_folder(entries: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        _kits(base, "one")
        (base / "victim.txt").write_text("keep me\n")
        (base / "out" / "x").mkdir(parents=True)
        (base / "out" / "x" / "victim.txt").symlink_to(base / "victim.txt")
        manifest = {"version": 1, "kits": {"../kits/gone.yaml": entries, "../../../etc/passwd": entries}}
        (base / "out" / MANIFEST).write_text(json.dumps(manifest))
        with in_folder(base):
            assert main(["build", "kits", "-o", "out", "-q", "--target", "docker"]) == 0
        assert (base / "victim.txt").read_text() == "keep me\n"
        assert (base / "kits" / "one.yaml").is_file()


def test_the_repository_commits_its_manifests() -> None:
    """This repository's own outputs carry the manifest a build writes, so --check finds orphans."""
    for folder in [REPO / "sandbox", *sorted((REPO / "examples").glob("*/sandbox"))]:
        assert (folder / MANIFEST).is_file(), folder
    workflows = REPO / ".github" / "workflows"  # also the repository's own (release.yml), not made by sandkit
    generated = [
        w for w in workflows.glob("*.yml") if w.read_text(encoding="utf-8").startswith("# Generated by sandkit")
    ]
    assert os.path.isfile(workflows / MANIFEST) or not generated


def test_an_interrupted_build_leaves_no_staging_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _kits(tmp_path, "one")

    def interrupted(path: Path, data: bytes) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(writes, "_write_file", interrupted)
    with in_folder(tmp_path):
        assert main(["build", "kits", "-o", "new/out", "-q"]) == 130
    assert not (tmp_path / "new").exists()


def test_actions_dir_and_output_must_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each keeps its own manifest; one folder for both would make each build orphan the other's files."""
    _kits(tmp_path, "one")
    with in_folder(tmp_path):
        assert main(["build", "kits", "-o", "out", "--actions-dir", "./out/", "-q"]) == 2
    assert "--actions-dir and -o name one folder" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
