"""scripts/refresh-action-pins.py: release choice from real `git ls-remote` output, and the rewrite."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

from sandkit.compiler.targets import action_pins
from tests.conftest import REPO


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("refresh_action_pins", REPO / "scripts/refresh-action-pins.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env
    ).stdout.strip()


def test_the_highest_release_tag_wins_and_annotated_tags_are_peeled(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    for tag, annotated in (
        ("v1.9.0", False),
        ("v1.10.0", True),
        ("v2.0.0-beta.1", False),
        ("latest", False),
        ("v1.2.3", True),
    ):
        _git(tmp_path, "commit", "-q", "--allow-empty", "-m", tag)
        _git(tmp_path, "tag", *(["-a", "-m", tag] if annotated else []), tag)
    script = _script()
    sha, version = script.latest_release(script.ls_remote(str(tmp_path)))
    assert version == "v1.10.0"
    assert sha == _git(tmp_path, "rev-parse", "v1.10.0^{commit}") != _git(tmp_path, "rev-parse", "v1.10.0")


def test_the_rewrite_changes_only_the_named_pins() -> None:
    script = _script()
    text = Path(action_pins.__file__).read_text(encoding="utf-8")
    pinned = script.current(text)
    assert pinned == {a: (p.sha, p.version) for a, p in action_pins.PINS.items()}, "the table's lines are parsed"
    moved = {"actions/checkout": ("a" * 40, "v99.0.0")}
    rewritten = script.rewrite(text, moved)
    assert script.current(rewritten) == {**pinned, **moved}
    assert rewritten.replace(f'Pin("{"a" * 40}", "v99.0.0")', "X") == text.replace(
        f'Pin("{action_pins.PINS["actions/checkout"].sha}", "{action_pins.PINS["actions/checkout"].version}")', "X"
    )
