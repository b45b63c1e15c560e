"""A pull request's revision is hostile input: bounded reads, paths confined to its tree, no crash,
and nothing a kit holds can format, hide or mention anything in the Markdown comment."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from sandkit.errors import KitError
from sandkit.review.gitfiles import Blobs, GitFiles, tree_entries
from sandkit.review.quote import md_code
from tests.review.helpers import sandkit
from tests.review.repo import commit, run_git

KIT = "apiVersion: sandkit/v1\nname: {name}\nagent: {{command: [agent]}}\nworkspace: {{mode: none}}\n"


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    commit(root, {"kits/ok.yaml": KIT.format(name="ok")}, "base", "2026-01-01T00:00:00+00:00")
    return root


def _head_kit(root: Path, capsys: pytest.CaptureFixture[str], path: str) -> dict:
    code, out, err = sandkit(root, capsys, "diff", "HEAD~1", "HEAD", path, "--format", "json")
    assert code == 0, err
    return next(k for k in json.loads(out)["kits"] if k["path"] == path)


def test_a_kit_larger_than_the_limit_is_invalid_and_never_held(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repo(tmp_path)
    big = KIT.format(name="big") + "# " + "x" * (3 * 1024 * 1024) + "\n"
    commit(root, {"kits/big.yaml": big}, "big", "2026-01-02T00:00:00+00:00")
    kit = _head_kit(root, capsys, "kits/big.yaml")
    assert kit["status"] == "invalid"
    assert f"kits/big.yaml: error: file is {len(big)} bytes; a kit may be at most 1048576 bytes" in kit["problems"][0]


def test_a_large_source_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _repo(tmp_path)
    kit = KIT.format(name="src") + "files: [{path: /etc/big, source: ./big.bin}]\n"
    commit(root, {"kits/src.yaml": kit, "kits/big.bin": "0" * (9 * 1024 * 1024)}, "src", "2026-01-02T00:00:00+00:00")
    problems = _head_kit(root, capsys, "kits/src.yaml")["problems"]
    assert problems and "files[0].source" in problems[0] and "is larger than 8 MiB" in problems[0]


def test_links_in_a_revision_are_never_followed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "parent.yaml").write_text("apiVersion: sandkit/v1\nkind: Mixin\nname: p\nnetwork: {egress: open}\n")
    (outside / "secret.txt").write_text("host secret\n")
    (root / "kits").mkdir(exist_ok=True)
    os.symlink(outside, root / "kits/linked")
    os.symlink(outside / "secret.txt", root / "kits/secret.txt")
    os.symlink(outside / "parent.yaml", root / "kits/alias.yaml")
    files = {
        "kits/via-folder.yaml": KIT.format(name="via-folder") + "extends: [./linked/parent.yaml]\n",
        "kits/via-file.yaml": KIT.format(name="via-file") + "files: [{path: /etc/s, source: ./secret.txt}]\n",
    }
    commit(root, files, "links", "2026-01-02T00:00:00+00:00")
    folder = _head_kit(root, capsys, "kits/via-folder.yaml")["problems"][0]
    assert "kits/linked is a symbolic link; links are not followed in a revision" in folder
    source = _head_kit(root, capsys, "kits/via-file.yaml")["problems"][0]
    assert "kits/secret.txt is a symbolic link; links are not followed" in source
    out = sandkit(root, capsys, "diff", "HEAD~1", "HEAD", "--format", "json")[1]
    assert "kits/alias.yaml" not in [k["path"] for k in json.loads(out)["kits"]]  # a linked kit is no kit
    assert "host secret" not in out


def test_broken_bytes_in_base_are_a_change_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    bad = {
        "kits/latin1.yaml": None,
        "kits/bomb.yaml": None,
    }
    (root / "kits").mkdir()
    (root / "kits/latin1.yaml").write_bytes(b"apiVersion: sandkit/v1\nname: caf\xe9\n")
    (root / "kits/bomb.yaml").write_text(
        "apiVersion: sandkit/v1\nname: bomb\n"
        + "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
            for p, c in zip("abcdefg", "bcdefgh", strict=True)
        )
    )
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", "bad")
    for name in bad:
        (root / name).write_text(KIT.format(name=Path(name).stem.replace("latin1", "latin")))
    commit(root, {}, "fixed", "2026-01-02T00:00:00+00:00")
    code, out, err = sandkit(root, capsys, "diff", "HEAD~1", "HEAD", "--format", "json")
    assert code == 0 and "Traceback" not in err
    kits = {k["path"]: k for k in json.loads(out)["kits"]}
    assert "file is not valid UTF-8" in kits["kits/latin1.yaml"]["problems"][0]
    assert "an alias bomb" in kits["kits/bomb.yaml"]["problems"][0]
    assert {c["kind"] for k in kits.values() for c in k["changes"]} >= {"kit-invalid-in-base"}


def test_a_merge_conflict_in_the_index_is_invalid_not_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repo(tmp_path)
    run_git(root, "checkout", "-q", "-b", "other")
    commit(
        root, {"kits/ok.yaml": KIT.format(name="ok") + "network: {egress: open}\n"}, "open", "2026-01-02T00:00:00+00:00"
    )
    run_git(root, "checkout", "-q", "main")
    commit(
        root, {"kits/ok.yaml": KIT.format(name="ok") + "network: {egress: none}\n"}, "none", "2026-01-03T00:00:00+00:00"
    )
    with pytest.raises(subprocess.CalledProcessError):
        run_git(root, "merge", "-q", "other")
    code, out, _ = sandkit(root, capsys, "diff", "--staged", "--format", "json", "--fail-on", "high")
    kit = json.loads(out)["kits"][0]
    assert code == 1 and kit["status"] == "invalid" and "has a merge conflict in the index" in kit["problems"][0]


def test_reads_are_bounded_and_drain_what_they_do_not_keep(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    commit(root, {"big.txt": "y" * 5_000_000, "small.txt": "z\n"}, "blobs", "2026-01-02T00:00:00+00:00")
    entries, folders = tree_entries(root, run_git(root, "rev-parse", "HEAD"))
    blobs = Blobs(root)
    try:
        files = GitFiles(root, "HEAD", entries, folders, blobs)
        assert files.read_bytes(root / "big.txt", 10) == b"y" * 11  # limit + 1 says "too large"
        assert files.read_bytes(root / "small.txt", 10) == b"z\n"  # the stream is still in step
        assert files.head(root / "big.txt", 4) == b"yyyy"
        with pytest.raises(KitError, match="not found in HEAD"):
            files.load_nodes(root / "missing.yaml", "HEAD:missing.yaml")
    finally:
        blobs.close()


def _outside_code(markdown: str) -> str:
    """The Markdown with every code span and fenced block removed: what GitHub would interpret."""
    without_blocks = re.sub(r"(?ms)^(`{3,})text\n.*?^\1$", "", markdown)
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", without_blocks)


def test_markdown_cannot_be_steered_by_kit_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _repo(tmp_path)
    hostile = "Hi @acme/security <!-- sandkit-diff --> | ``` </details> ${{ secrets.X }} \u202e\nline"
    kit = (
        "apiVersion: sandkit/v1\nname: ok\nworkspace: {mode: none}\n"
        + f"agent: {{command: [agent, {json.dumps(hostile)}], instructions: {json.dumps(hostile)}}}\n"
        + f"env: {{NOTE: {json.dumps(hostile)}}}\n"
        + "startup: [\"echo '`|<b>@here'\"]\n"
    )
    weird_path = "kits/we`ird|<b>@x.yaml"
    commit(root, {"kits/ok.yaml": kit, weird_path: KIT.format(name="weird")}, "hostile", "2026-01-02T00:00:00+00:00")
    code, out, err = sandkit(root, capsys, "diff", "HEAD~1", "HEAD", "--format", "markdown")
    assert code == 0, err
    outside = _outside_code(out)
    assert outside.count("<!-- sandkit-diff -->") == 1 and out.startswith("<!-- sandkit-diff -->\n")
    for needle in ("@acme", "@here", "@x", "${{", "<b>", "\u202e", "</details>\n\n</details>"):
        assert needle not in outside, needle
    assert "\\u202e" in out  # the bidi override is shown, escaped
    table_rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert all(re.sub(r"\\\|", "", row).count("|") == 5 for row in table_rows)  # no cell was split


def test_a_code_span_outlasts_every_backtick_run() -> None:
    assert md_code("a`b") == "``a`b``"
    assert md_code("``x``") == "``` ``x`` ```"
    assert md_code("a|b") == "`a\\|b`"
    assert md_code("a|b", table=False) == "`a|b`"


def test_the_comment_stays_under_githubs_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _repo(tmp_path)
    many = {
        f"kits/k{i:03d}.yaml": KIT.format(name=f"k{i:03d}")
        + "network: {allow: ["
        + ", ".join(f"h{j}.k{i:03d}.example.com" for j in range(20))
        + "]}\n"
        for i in range(120)
    }
    commit(root, many, "many", "2026-01-02T00:00:00+00:00")
    code, out, _ = sandkit(root, capsys, "diff", "HEAD~1", "HEAD", "--format", "markdown")
    assert code == 0 and len(out) < 65536
    assert re.search(r"\*\d+ more kit\(s\) with \d+ change\(s\) are not shown here", out)
    assert "Why these levels" in out
