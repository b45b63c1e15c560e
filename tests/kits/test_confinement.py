"""A kit reaches only its own repository: every path it names resolves, after links, inside the git
top level (or the kit's folder outside git, or ``--root``), is the kind of file the field expects,
and is read with a bounded read that neither trusts ``stat`` nor hangs on a FIFO."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sandkit.cli import main
from sandkit.kits.reading import inside
from tests.compiler.helpers import in_folder
from tests.conftest import REPO

SECRET = "CI_SECRET=do-not-print-me\n"
HEAD = "apiVersion: sandkit/v1\nname: demo\nagent: {{command: [agent]}}\n"
FIELDS = {
    "files[0].source": HEAD + "workspace: {{mode: none}}\nfiles: [{{path: /etc/x, source: '{path}'}}]\n",
    "image.ca_certificates[0]": HEAD + "workspace: {{mode: none}}\nimage: {{ca_certificates: ['{path}']}}\n",
    "workspace.source": HEAD + "workspace: {{mode: mount, source: '{path}'}}\n",
    "extends": "apiVersion: sandkit/v1\nname: demo\nworkspace: {{mode: none}}\nextends: ['{path}']\n",
}


def _repository(base: Path) -> Path:
    """base/repo (a git top level) with kits/, a file and a folder inside; base/outside beside it."""
    repo = base / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "kits" / "files").mkdir(parents=True)
    (repo / "kits" / "files" / "ok.txt").write_text("inside\n")
    (repo / "kits" / "mixin.yaml").write_text("apiVersion: sandkit/v1\nkind: Mixin\nagent: {command: [agent]}\n")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text(SECRET)
    (base / "outside" / "mixin.yaml").write_text("apiVersion: sandkit/v1\nkind: Mixin\nagent: {command: [x]}\n")
    (repo / "kits" / "link").symlink_to(base / "outside")
    (repo / "kits" / "secret-link.txt").symlink_to(base / "outside" / "secret.txt")
    (repo / "kits" / "mixin-link.yaml").symlink_to(base / "outside" / "mixin.yaml")
    return repo


def _validate(kit: Path, *extra: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "validate", *extra, str(kit)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        cwd=REPO,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("field", sorted(FIELDS))
@pytest.mark.parametrize(
    "path", ["../../outside/secret.txt", "link/secret.txt", "secret-link.txt", "../../../../../../etc/hostname"]
)
def test_a_path_out_of_the_repository_is_a_located_error_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, path: str
) -> None:
    repo = _repository(tmp_path)
    if field == "workspace.source":
        path = path.rsplit("/", 1)[0] if "/" in path else "link"
    if field == "extends":
        path = path.replace("secret-link.txt", "mixin-link.yaml").replace("secret.txt", "mixin.yaml")
        path = path if "mixin" in path else "link/mixin.yaml"
    kit = repo / "kits" / "kit.yaml"
    kit.write_text(FIELDS[field].format(path=path))
    assert main(["validate", str(kit)]) == 1
    err = capsys.readouterr().err
    assert f"{kit}:" in err and "leads outside the kit's repository" in err, err
    assert err.split(": error: ")[1].startswith(field.split("[")[0]), err
    assert "do-not-print-me" not in err


SEGMENTS = st.lists(st.sampled_from(["..", ".", "files", "link", "kits", "ok.txt", "secret.txt"]), max_size=7)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=SEGMENTS.filter(bool))
@example(parts=["..", "..", "outside", "secret.txt"])
@example(parts=["link", "secret.txt"])
@example(parts=["files", "ok.txt"])
def test_a_source_is_read_exactly_when_it_resolves_inside(parts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        repo = _repository(Path(folder))
        relative = "/".join(parts)
        kit = repo / "kits" / "kit.yaml"
        kit.write_text(FIELDS["files[0].source"].format(path=relative))
        resolved = (kit.parent / relative).resolve()
        code, output = _load(kit)
        if not inside(resolved, repo.resolve()):
            assert code == 1 and "leads outside the kit's repository" in output, (relative, output)
        elif resolved.is_file():
            assert code == 0, (relative, output)
        else:
            assert code == 1 and "leads outside" not in output, (relative, output)
        assert "do-not-print-me" not in output


def _load(kit: Path) -> tuple[int, str]:
    from sandkit.errors import KitError
    from sandkit.kits.loader import load_kit

    try:
        load_kit(kit)
    except KitError as exc:
        return 1, str(exc)
    return 0, ""


def test_root_option_widens_the_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repository(tmp_path)
    kit = repo / "kits" / "kit.yaml"
    kit.write_text(FIELDS["files[0].source"].format(path="../../outside/secret.txt"))
    assert main(["validate", str(kit)]) == 1
    assert main(["validate", "--root", str(tmp_path), str(kit)]) == 0
    assert main(["validate", "--root", str(tmp_path / "nope"), str(kit)]) == 2
    assert "--root" in capsys.readouterr().err


def test_outside_git_the_kit_folder_is_the_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kits").mkdir()
    (tmp_path / "secret.txt").write_text(SECRET)
    kit = tmp_path / "kits" / "kit.yaml"
    kit.write_text(FIELDS["files[0].source"].format(path="../secret.txt"))
    assert main(["validate", str(kit)]) == 1
    assert "leads outside the kit's repository (" + (tmp_path / "kits").resolve().as_posix() in capsys.readouterr().err


def test_a_kit_file_linked_from_outside_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repository(tmp_path)
    (tmp_path / "outside" / "kit.yaml").write_text(FIELDS["files[0].source"].format(path="secret.txt"))
    (repo / "kits" / "linked.yaml").symlink_to(tmp_path / "outside" / "kit.yaml")
    assert main(["validate", str(repo / "kits" / "linked.yaml")]) == 1
    assert "the kit file leads outside the kit's repository" in capsys.readouterr().err


def test_build_check_never_prints_a_file_from_outside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repository(tmp_path)
    kit = repo / "kits" / "kit.yaml"
    kit.write_text(FIELDS["files[0].source"].format(path="link/secret.txt"))
    with in_folder(repo):
        assert main(["build", "--check", "kits/kit.yaml", "-o", "sandbox"]) == 1
    out = capsys.readouterr()
    assert "do-not-print-me" not in out.out + out.err
    assert "files[0].source: link/secret.txt leads outside" in out.err


def test_workspace_mount_of_the_host_root_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repository(tmp_path)
    kit = repo / "kits" / "kit.yaml"
    kit.write_text(FIELDS["workspace.source"].format(path="../../.."))
    assert main(["validate", str(kit)]) == 1
    assert "workspace.source: ../../.. leads outside the kit's repository" in capsys.readouterr().err


def test_a_file_where_a_folder_belongs_and_a_folder_where_a_file_belongs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repository(tmp_path)
    kit = repo / "kits" / "kit.yaml"
    kit.write_text(FIELDS["workspace.source"].format(path="files/ok.txt"))
    assert main(["validate", str(kit)]) == 1
    assert "workspace.source: " in (err := capsys.readouterr().err) and "ok.txt is not a folder" in err
    kit.write_text(FIELDS["files[0].source"].format(path="files"))
    assert main(["validate", str(kit)]) == 1
    assert "files[0].source: " in (err := capsys.readouterr().err) and "is not a regular file (a folder)" in err


def test_dev_zero_is_not_a_regular_file_and_costs_nothing(tmp_path: Path) -> None:
    """Even with the whole machine as the root, a device is refused without reading it."""
    (tmp_path / "kits").mkdir()
    kit = tmp_path / "kits" / "kit.yaml"
    depth = "../" * len(tmp_path.resolve().parts)
    kit.write_text(FIELDS["files[0].source"].format(path=depth + "dev/zero"))
    code, output = _validate(kit, "--root", "/")
    assert code == 1 and "files[0].source: /dev/zero is not a regular file (a character device)" in output, output


@pytest.mark.parametrize("field", ["files[0].source", "image.ca_certificates[0]"])
def test_a_fifo_does_not_hang(tmp_path: Path, field: str) -> None:
    repo = _repository(tmp_path)
    os.mkfifo(repo / "kits" / "pipe")
    kit = repo / "kits" / "kit.yaml"
    kit.write_text(FIELDS[field].format(path="pipe"))
    code, output = _validate(kit)
    assert code == 1 and f"{field}: " in output and "pipe is not a regular file (a named pipe)" in output, output


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_the_kit_file_itself_is_read_bounded(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "kit.yaml" if kind == "fifo" else Path("/dev/zero")
    if kind == "fifo":
        os.mkfifo(target)
    code, output = _validate(target, "--root", "/")
    assert code == 1 and "is not a regular file" in output, output


def test_a_large_source_is_refused_after_reading_at_most_one_byte_more(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    with open(repo / "kits" / "big.bin", "wb") as handle:
        handle.truncate(64 * 1024 * 1024)  # sparse: 64 MiB that cost nothing on disk
    kit = repo / "kits" / "kit.yaml"
    kit.write_text(FIELDS["files[0].source"].format(path="big.bin"))
    code, output = _validate(kit)
    assert code == 1 and "big.bin is larger than 8 MiB" in output, output


@pytest.mark.parametrize("field", ["kit", "files[0].source", "extends"])
def test_a_link_loop_is_a_located_error_not_a_traceback(tmp_path: Path, field: str) -> None:
    repo = _repository(tmp_path)
    (repo / "kits" / "loop.yaml").symlink_to("loop.yaml")
    kit = repo / "kits" / "kit.yaml"
    if field == "kit":
        kit = repo / "kits" / "loop.yaml"
    elif field == "extends":
        kit.write_text(FIELDS["extends"].format(path="./loop.yaml"))
    else:
        kit.write_text(FIELDS[field].format(path="loop.yaml"))
    code, output = _validate(kit)
    assert code == 1 and "Traceback" not in output and "loop.yaml" in output, output
    assert "Too many levels of symbolic links" in output or "not found" in output, output
