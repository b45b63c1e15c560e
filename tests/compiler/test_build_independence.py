"""Output depends on the kit, not on where the build runs nor on the kit's comments and layout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandkit.compiler.command import KitOutput, compile_kit
from sandkit.compiler.targets import NAMES

BLOCKS = [
    "apiVersion: sandkit/v1\n",
    "name: steady\n",
    "description: a kit whose comments come and go\n",
    "image:\n  packages:\n    apt: [git, curl]\n  ca_certificates: [certs/corp.pem]\n",
    "env:\n  CI: 'true'\n",
    "network:\n  allow: [api.example.com, '*.example.org']\n",
    "agent:\n  command: [agent, --run]\n  instructions: |\n    Review the pull request.\n    # not a comment: text\n",
    "files:\n  - path: /etc/tool.conf\n    source: files/tool.conf\n",
    "workspace:\n  mode: clone\n  repo: https://git.example.org/app.git\n",
    "triggers:\n  - schedule: '0 9 * * 1'\n",
]


def _repository(base: Path, text: str) -> Path:
    (base / ".git").mkdir(parents=True, exist_ok=True)
    for folder in ("kits/certs", "kits/files"):
        (base / folder).mkdir(parents=True, exist_ok=True)
    (base / "kits/certs/corp.pem").write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    (base / "kits/files/tool.conf").write_text("telemetry = false\n")
    (base / "kits/steady.yaml").write_text(text)
    return base


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _build(cwd: Path, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "build", "-q", *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("git", [True, False], ids=["in-git", "outside-git"])
def test_building_from_any_folder_gives_the_same_bytes(tmp_path: Path, git: bool) -> None:
    repo = _repository(tmp_path / "repo", "".join(BLOCKS))
    if not git:
        (repo / ".git").rmdir()
    kits = repo / "kits"
    top = repo if git else kits  # outside git the kit's folder is its top folder
    runs = [
        (top, os.path.relpath(kits, top), os.path.relpath(top / "out", top)),
        (kits, ".", os.path.relpath(top / "out", kits)),
        (Path("/"), str(kits), str(top / "out")),
    ]
    trees = []
    for cwd, kit_folder, out in runs:
        _build(cwd, kit_folder, "-o", out, "--actions-dir", os.path.join(out, "..", "wf"))
        trees.append((_tree(top / "out"), _tree(top / "wf")))
        shutil.rmtree(top / "out")
        shutil.rmtree(top / "wf")
    assert trees[0] == trees[1] == trees[2]
    header = b"from kits/steady.yaml\n" if git else b"from steady.yaml\n"
    assert header in trees[0][0]["steady/Dockerfile"]


def _compile(text: str) -> KitOutput:
    with tempfile.TemporaryDirectory() as folder:
        repo = _repository(Path(folder), text)
        return compile_kit(repo / "kits/steady.yaml", repo / "sandbox", list(NAMES))


BASELINE = _compile("".join(BLOCKS))
comment = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=30)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    comments=st.lists(comment, min_size=len(BLOCKS) + 1, max_size=len(BLOCKS) + 1),
    order=st.permutations(range(1, len(BLOCKS))),
)
def test_comments_and_key_order_change_nothing_but_the_kit_hash_line(comments: list[str], order: list[int]) -> None:
    blocks = [BLOCKS[0], *(BLOCKS[i] for i in order)]
    text = "".join(f"# {note}\n{block}" for note, block in zip(comments, blocks, strict=False)) + f"# {comments[-1]}\n"
    changed = _compile(text)
    assert changed.plan.image_tag == BASELINE.plan.image_tag
    assert changed.plan.config_sha256 == BASELINE.plan.config_sha256
    assert set(changed.files) == set(BASELINE.files)
    hashes = (BASELINE.plan.kit_sha256, changed.plan.kit_sha256)
    for name, data in changed.files.items():
        before = BASELINE.files[name].decode().splitlines()
        after = data.decode().splitlines()
        assert len(before) == len(after), name
        for old, new in zip(before, after, strict=True):
            if old != new:
                assert hashes[0][:12] in old and hashes[1][:12] in new, (name, old, new)


def test_what_the_image_holds_changes_the_tag(tmp_path: Path) -> None:
    source = "".join(BLOCKS)
    tags = {_compile(source).plan.image_tag}
    tags.add(_compile(source.replace("apt: [git, curl]", "apt: [git]")).plan.image_tag)
    repo = _repository(tmp_path, source)
    (repo / "kits/files/tool.conf").write_text("telemetry = true\n")
    tags.add(compile_kit(repo / "kits/steady.yaml", repo / "sandbox", list(NAMES)).plan.image_tag)
    assert len(tags) == 3


def test_the_repository_location_does_not_change_the_tag(tmp_path: Path) -> None:
    first = _repository(tmp_path / "a", "".join(BLOCKS))
    second = _repository(tmp_path / "b" / "deeper", "".join(BLOCKS))
    tags = {compile_kit(r / "kits/steady.yaml", r / "sandbox", ["docker"]).plan.image_tag for r in (first, second)}
    assert len(tags) == 1
