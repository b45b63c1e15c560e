"""``sandkit import``: what comes over, what is reported, and what is refused (located, nothing written)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from sandkit.kits.loader import load_kit

DATA = Path(__file__).parent / "data"


def _import(source: Path, out: Path, *extra: str) -> tuple[int, list[str]]:
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["import", str(source), "-o", str(out), *extra])
    return code, err.getvalue().splitlines()


def _findings(lines: list[str]) -> set[tuple[str, str]]:
    """(setting, kind) of each reported finding line."""
    found = set()
    for line in lines:
        for kind in ("not imported", "imported with a difference"):
            marker = f": {kind}: "
            if marker in line:
                found.add((line.split(marker, 1)[1].split(": ", 1)[0], kind))
    return found


def test_a_full_sbx_spec(tmp_path: Path) -> None:
    code, lines = _import(DATA / "sbx-full" / "spec.yaml", tmp_path / "kit.yaml")
    assert code == 0
    kit = load_kit(tmp_path / "kit.yaml").kit
    assert kit.name == "full-agent" and kit.image.base == "registry.example.com/agents/full:1.2.0"
    assert kit.agent.command == ["full-agent", "--yes", "--task-mode"]
    assert kit.network.allow == ["api.example.com", "git.example.com:8443", "*.cdn.example.com"]
    assert kit.resources.memory == "4096Mi" and kit.resources.cpus == 1.5
    assert [s.name for s in kit.secrets] == ["EXAMPLE_API_KEY", "GIT_TOKEN"]
    assert kit.targets.sbx.image_from == "base"
    assert kit.targets.sbx.credentials["EXAMPLE_API_KEY"].inject[0].header == "x-api-key"
    assert kit.startup == ["mkdir -p ~/.full-agent", "full-agent --warm-cache &"]
    assert {f.path for f in kit.files} == {
        "/home/agent/.full-agent/config.json",
        "/home/agent/.config/tool/settings.json",
    }
    assert (tmp_path / "files/home/.config/tool/settings.json").read_bytes() == (
        DATA / "sbx-full/files/home/.config/tool/settings.json"
    ).read_bytes()
    dropped = {s for s, kind in _findings(lines) if kind == "not imported"}
    assert dropped == {
        "files/workspace/NOTES.md",
        "version",
        "displayName",
        "sourceURL",
        "licenses",
        "locked",
        "args",
        "sandbox.build",
        "sandbox.command.interactive",
        "sandbox.resources.gpu",
        "permissions.network.allow[3]",
        "permissions.network.allow[4]",
        "credentials[1].apiKey.inject[0]",
        "credentials[2]",
        "ports[0].name",
        "volumes",
        "setup.install[0].description",
        "setup.files[0].onlyIfMissing",
    }
    header = (tmp_path / "kit.yaml").read_text().split("\napiVersion:", 1)[0]
    assert all(line.startswith("#") for line in header.splitlines())
    assert header.count("not imported: ") == len(dropped), "the kit itself lists every finding"


def test_a_compose_dev_container(tmp_path: Path) -> None:
    source = DATA / "devcontainer-compose" / ".devcontainer" / "devcontainer.json"
    code, lines = _import(source, tmp_path / "kit.yaml", "--root", "/")
    assert code == 0
    text = (tmp_path / "kit.yaml").read_text()
    kit = load_kit(tmp_path / "kit.yaml", root=Path("/")).kit
    assert kit.kind == "Mixin", "a dev container names no agent"
    assert kit.image.base == "python:3.12-slim-bookworm" and kit.image.user == "dev"
    assert kit.env == {"LOG_LEVEL": "debug", "APP_ENV": "development", "EDITOR": "vim"}
    assert kit.workspace.mode == "mount" and kit.workspace.path == "/workspaces/app"
    assert Path(kit.workspace.source or "") == (DATA / "devcontainer-compose").resolve()
    assert kit.resources.memory == "2Gi" and kit.resources.cpus == 4.0 and kit.resources.disk == "32Gi"
    assert kit.install == ["pip install -r requirements.txt"]
    assert kit.startup == ["git config --global pull.rebase true"]
    assert [(p.container, p.host, p.host_ip) for p in kit.ports] == [
        (8080, 8080, "127.0.0.1"),
        (3000, None, "127.0.0.1"),
    ]
    findings = _findings(lines)
    for setting in (
        "someFutureProperty",
        "capAdd[0]",
        "services.app.cap_add[0]",
        "services.db",
        "features",
        "forwardPorts[1]",
    ):
        assert (setting, "not imported") in findings, setting
    for secret in ("hunter2", "ghp_notarealtoken"):
        assert secret not in text and all(secret not in line for line in lines), "a secret value is never copied"


def test_extends_gives_a_dev_container_its_agent(tmp_path: Path) -> None:
    source = DATA / "devcontainer-compose" / ".devcontainer" / "devcontainer.json"
    assert _import(source, tmp_path / "kit.yaml", "--extends", "claude-code", "--root", "/")[0] == 0
    kit = load_kit(tmp_path / "kit.yaml", allow_mixin=False, root=Path("/")).kit
    assert kit.kind == "Kit" and kit.agent.command[0] == "claude"
    assert main(["build", str(tmp_path / "kit.yaml"), "-o", str(tmp_path / "out"), "-q", "--root", "/"]) == 0


def test_a_workspace_outside_the_kits_repository_is_not_named(tmp_path: Path) -> None:
    """The written kit must load as `sandkit validate` loads it, confined to its repository: a project
    folder outside it is not written as workspace.source (tests/importer/test_devcontainer_shapes.py
    has the clone of its origin)."""
    source = DATA / "devcontainer-compose" / ".devcontainer" / "devcontainer.json"
    code, lines = _import(source, tmp_path / "kit.yaml")
    assert code == 0
    assert load_kit(tmp_path / "kit.yaml").kit.workspace.mode == "none"
    assert any(": not imported: workspace: " in line and "outside the kit's repository" in line for line in lines)


def test_an_image_dev_container_with_hostile_keys(tmp_path: Path) -> None:
    """A key holding a newline, a bidi control or a YAML marker stays inside the report's comment."""
    source = tmp_path / "project" / ".devcontainer.json"
    source.parent.mkdir()
    document = {
        "name": "Hostile\nname: x",
        "image": "debian:bookworm-slim",
        "bad\nkey: injected\u202e": 1,
        "also\r\n---\n- x": {"nested": True},
    }
    source.write_text(json.dumps(document))
    code, lines = _import(source, tmp_path / "kit.yaml")
    assert code == 0
    data = YAML(typ="safe").load(tmp_path / "kit.yaml")
    assert set(data) == {"apiVersion", "kind", "name", "description", "image", "workspace"}
    assert data["description"] == "Imported from the dev container Hostile\nname: x"
    assert sum("not imported" in line for line in lines) == 2


def test_an_sbx_v1_spec_is_refused_where_it_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "spec.yaml"
    source.write_text('schemaVersion: "1"\nkind: agent\nname: old\n')
    assert main(["import", str(source), "-o", str(tmp_path / "kit.yaml")]) == 1
    assert f"{source}:1:1: error: schemaVersion '1': sandkit imports schemaVersion \"2\"" in capsys.readouterr().err
    assert not (tmp_path / "kit.yaml").exists()


def test_an_invalid_v2_spec_is_refused_with_every_problem_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "spec.yaml"
    source.write_text(
        'schemaVersion: "2"\nkind: sandbox\nname: x\nsandbox:\n  image: a\n  entrypiont: [x]\n'
        "ports:\n  - container: 70000\n"
    )
    assert main(["import", str(source), "-o", str(tmp_path / "kit.yaml")]) == 1
    err = capsys.readouterr().err
    assert f"{source}:6:3: error: not a valid sbx spec: unknown key 'entrypiont'" in err
    assert f"{source}:8:5: error: not a valid sbx spec (schemaVersion 2): 70000 is greater than" in err
    assert "Traceback" not in err and not (tmp_path / "kit.yaml").exists()


def test_nothing_is_overwritten_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kit.yaml").write_text("mine\n")
    assert main(["import", str(DATA / "sbx-roundtrip" / "spec.yaml"), "-o", str(tmp_path / "kit.yaml")]) == 2
    assert (tmp_path / "kit.yaml").read_text() == "mine\n"
    assert "pass --force" in capsys.readouterr().err
    assert main(["import", str(DATA / "sbx-roundtrip"), "-o", str(tmp_path / "kit.yaml"), "--force"]) == 0


def test_a_symlink_in_files_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kit = tmp_path / "kit"
    shutil.copytree(DATA / "sbx-roundtrip", kit)
    (kit / "files" / "home" / "leak").symlink_to("/etc/passwd")
    assert main(["import", str(kit / "spec.yaml"), "-o", str(tmp_path / "out.yaml")]) == 1
    assert "not a regular file" in capsys.readouterr().err
    assert not (tmp_path / "out.yaml").exists()


def test_a_compose_file_outside_the_project_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    (project / ".devcontainer").mkdir(parents=True)
    (tmp_path / "compose.yml").write_text("services:\n  app:\n    image: debian:bookworm-slim\n")
    (project / ".devcontainer" / "devcontainer.json").write_text(
        '{"dockerComposeFile": "../../compose.yml", "service": "app"}'
    )
    assert main(["import", str(project), "-o", str(tmp_path / "kit.yaml")]) == 1
    assert "outside the project folder" in capsys.readouterr().err
    assert not (tmp_path / "kit.yaml").exists()


def test_bad_input_is_a_located_error_never_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {
        "devcontainer.json": '{"name": "x",, }',
        "spec.yaml": "schemaVersion: [\n",
        "other.txt": "hello",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        assert main(["import", str(path), "-o", str(tmp_path / "kit.yaml")]) in (1, 2), name
        err = capsys.readouterr().err
        assert "Traceback" not in err and str(path) in err, (name, err)
