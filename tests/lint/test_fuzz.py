"""Random and malformed bytes in any kind of file never crash the scan."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.lint.helpers import lint_tree

NAMES = [
    "compose.yaml",
    "k8s.yaml",
    "kits/kit.yaml",
    ".github/workflows/ci.yml",
    "action.yml",
    ".devcontainer/devcontainer.json",
    "Dockerfile",
    "run.sh",
    "Makefile",
    "justfile",
    ".env",
    ".mcp.json",
    ".claude/settings.json",
    ".codex/config.toml",
    "CLAUDE.md",
    "data.json",
    "conf.toml",
    "notes.txt",
    "script",
]
PREFIXES = [
    "",
    "apiVersion: sandkit/v1\n",
    "apiVersion: v1\nkind: Pod\n",
    "services:\n",
    "on: push\njobs:\n",
    "#!/bin/sh\n",
    "{",
    "FROM x\n",
]
FRAGMENTS = [
    "docker run -v ",
    "/var/run/docker.sock",
    ":",
    "\\\n",
    "'",
    '"',
    "${HOME",
    "[",
    "]",
    "{",
    "}",
    "- ",
    "  ",
    "\t",
    "\n",
    "<<EOF",
    "privileged: true",
    "&a",
    "*a",
    "<<: *a",
    "\x00",
    "\ufeff",
    "\u202e",
    "hostPath:",
    "volumes:",
    "--mount=",
    "=",
    "cap_add: [",
    "//",
    "/*",
    "#",
    "!!binary",
    "%YAML 1.2\n---\n",
]

text_strategy = st.builds(
    lambda prefix, parts: prefix + "".join(parts),
    st.sampled_from(PREFIXES),
    st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=40),
)


def scan_one(name: str, content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        lint_tree(Path(tmp))  # asserts that no rule crashed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.binary(max_size=300))
def test_random_bytes_never_crash(name: str, content: bytes) -> None:
    scan_one(name, content)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), text_strategy)
def test_malformed_text_never_crashes(name: str, text: str) -> None:
    scan_one(name, text.encode("utf-8", errors="surrogatepass"))


def test_deep_nesting_and_alias_bombs_are_bounded() -> None:
    scan_one("compose.yaml", b"services: " + b"[" * 5000 + b"]" * 5000)
    scan_one(".devcontainer/devcontainer.json", b"[" * 5000 + b"]" * 5000)
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(12)
    )
    for name, head in (
        ("compose.yaml", "services: {}\n"),
        ("k8s.yaml", "kind: List\n"),
        (".github/workflows/ci.yml", "on: push\njobs: {}\n"),
        (".continue/config.yaml", ""),
    ):
        scan_one(name, (head + "apiVersion: v1\n" + bomb).encode())
