"""Comments, docstrings and docs point at files of this repository, and those files exist.

A reader who follows a reference must land on something: a path rooted at one of the repository's
folders (``docs/lint.md``, ``tests/conftest.py``) exists, a Markdown link resolves, and nothing
points outside the checkout (the maintainers' design notes, a developer's machine). The recipes in
CONTRIBUTING.md name the files to change, a test to copy and commands that exist.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

#: Folders and files whose prose is checked; test data (the lint corpus, golden output) is not prose.
PROSE_ROOTS = ("sandkit", "tests", "docs", "bench", "scripts", ".ci")
SKIPPED = ("tests/lint/corpus", "tests/golden")
#: Markdown about this repository itself (the rest of docs/ speaks of a user's repository).
OWN_PATHS_DOCS = ("CONTRIBUTING.md",)
TOP_FILES = ("README.md", "CHANGELOG.md", "CONTRIBUTING.md", "pyproject.toml", ".pre-commit-config.yaml")
#: Top-level entries a rooted reference starts with.
ROOTS = ("sandkit", "tests", "docs", "bench", "scripts", "schemas", "kits", "examples", "sandbox", ".ci")
#: A file (it has an extension) or a folder (a trailing slash) under one of ROOTS; `sandkit/v1` is not one.
ROOTED = re.compile(
    r"(?<![\w./~$-])((?:"
    + "|".join(map(re.escape, ROOTS))
    + r")/(?:[\w.<>*-]+/)*(?:[\w<>*.-]+\.\w+\b|(?=[\s`'\"),]|$)))"
)
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
#: The design notes and machine paths live outside the repository; docs/ holds what users read.
OUTSIDE = re.compile(r"/work/|shared/design|(?<![\w/.-])(?:kit|targets|lint|environment)\.md\b")
PLACEHOLDER = re.compile(r"<[^>/]+>|\b[A-Z][A-Z0-9_]*[A-Z0-9]\b")


def _prose_files() -> Iterator[Path]:
    for name in TOP_FILES:
        if (REPO / name).is_file():
            yield REPO / name
    for root in PROSE_ROOTS:
        for folder, dirs, files in os.walk(REPO / root):
            rel = Path(folder).relative_to(REPO).as_posix()
            dirs[:] = sorted(d for d in dirs if f"{rel}/{d}" not in SKIPPED and d != "__pycache__")
            yield from (Path(folder) / f for f in sorted(files) if f.endswith((".py", ".md", ".toml", ".yaml", "run")))


def _prose(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of what a reader reads as prose: Python comments and docstrings, Markdown
    whole, and ``#`` comments of other files."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        yield from enumerate(text.splitlines(), 1)
    elif path.suffix == ".py":
        yield from _python_prose(text)
    else:
        for number, line in enumerate(text.splitlines(), 1):
            if "#" in line:
                yield number, line[line.index("#") :]


def _python_prose(text: str) -> Iterator[tuple[int, str]]:
    statement_start = True
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT or (token.type == tokenize.STRING and statement_start):
            for offset, line in enumerate(token.string.splitlines()):
                yield token.start[0] + offset, line
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            statement_start = token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)


def _exists(reference: str) -> bool:
    """A rooted reference names a file or folder; NAME, <name> and * stand for any one part."""
    reference = reference.rstrip(".")
    if (REPO / reference).exists():
        return True
    pattern = PLACEHOLDER.sub("*", reference)
    return pattern != reference and any(REPO.glob(pattern))


def line_problems(line: str, rooted: bool = True) -> list[str]:
    """What is wrong with one line of prose; ``rooted``: its paths name this repository's files
    (user docs also show paths in a user's repository, which need not exist here)."""
    problems = [f"{match.group()!r} is outside this repository" for match in OUTSIDE.finditer(line)]
    if rooted:
        problems += [f"{m.group(1)} does not exist" for m in ROOTED.finditer(line) if not _exists(m.group(1))]
    return problems


def broken_references() -> list[str]:
    problems = []
    for path in _prose_files():
        rel = path.relative_to(REPO).as_posix()
        for number, line in _prose(path):
            problems += [
                f"{rel}:{number}: {problem}"
                for problem in line_problems(line, rel in OWN_PATHS_DOCS or path.suffix == ".py")
            ]
            if path.suffix == ".md":
                for match in LINK.finditer(line):
                    target = match.group(1)
                    if "://" not in target and not (path.parent / target).exists():
                        problems.append(f"{rel}:{number}: link {target} does not exist")
    return problems


def test_every_reference_lands_in_this_repository() -> None:
    assert broken_references() == []


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("# see ../shared/design/kit.md", "outside"),
        ('"""The shape lint.md fixes."""', "outside"),
        ("# copied from tests/lint/test_nothing_here.py", "does not exist"),
        ("# one module per family: sandkit/lint/rules/<family>.py", None),
        ("# one golden folder per example: tests/golden/NAME/", None),
        ("# the user guide, docs/lint.md", None),
    ],
)
def test_the_checker_sees_what_it_should(line: str, problem: str | None) -> None:
    found = line_problems(line)
    if problem is None:
        assert found == []
    else:
        assert len(found) == 1 and problem in found[0], found


CONTRIBUTING = REPO / "CONTRIBUTING.md"
RECIPES = ("Add a target", "Add a lint rule", "Add an agent")
CODE = re.compile(r"```sh\n(.*?)```|`([^`\n]+)`", re.DOTALL)


def _section(title: str) -> str:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def _subcommands() -> set[str]:
    from sandkit.cli import build_parser

    actions = build_parser()._actions
    return {name for action in actions if isinstance(action, argparse._SubParsersAction) for name in action.choices}


@pytest.mark.parametrize("title", RECIPES)
def test_each_recipe_names_files_a_test_to_copy_and_commands(title: str) -> None:
    section = _section(title)
    named = [match.group(1) for match in ROOTED.finditer(section)]
    assert [path for path in named if path.startswith("sandkit/") and _exists(path)], "the files to change"
    assert [path for path in named if re.fullmatch(r"tests/.*test_\w+\.py", path) and _exists(path)], "a test to copy"
    assert "```sh\n" in section, "the commands to run"


def test_contributing_names_real_files_and_commands() -> None:
    """Top-level files it names exist, and every `sandkit X` it shows is a sub-command."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    code = [block or span for block, span in CODE.findall(text)]
    top_level = {span for span in code if re.fullmatch(r"\.?[\w-]+\.(md|toml|ya?ml)", span)}
    assert top_level and all((REPO / name).is_file() for name in top_level), top_level
    used = {word for snippet in code for word in re.findall(r"(?<![\w/.-])sandkit ([a-z]+)", snippet)}
    assert used and used <= _subcommands(), used - _subcommands()


def test_contributing_says_how_to_regenerate_every_generated_file() -> None:
    """Each test that rewrites what it checks under SANDKIT_UPDATE_GOLDEN=1 is run by a command in
    CONTRIBUTING.md's table of generated files."""
    commands = re.findall(
        r"SANDKIT_UPDATE_GOLDEN=1 python3 -m pytest ([\w/.]+)", CONTRIBUTING.read_text(encoding="utf-8")
    )
    regenerating = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "tests").rglob("*.py"))
        if path.name not in ("generated.py", Path(__file__).name)
        and re.search(r"SANDKIT_UPDATE_GOLDEN|check_generated_section\(", path.read_text())
    ]
    assert regenerating and commands
    missing = [test for test in regenerating if not any(test.startswith(command) for command in commands)]
    assert missing == [], f"add a row to the table of generated files in CONTRIBUTING.md for {missing}"
