"""``sandkit validate`` and ``sandkit init``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sandkit.errors import KitError, Problem, UsageError
from sandkit.kits.discover import find_kits
from sandkit.kits.files import KitFiles, repository_root
from sandkit.kits.loader import LoadedKit, load_kit, name_clashes
from sandkit.kits.reading import root_folder
from sandkit.kits.yamlnodes import Node

STDIN = "-"


class _StdinKit(KitFiles):
    """The file system, confined as usual, except that the kit itself is text from standard input.

    The kit is placed at ``path`` (from --stdin-filename), so its relative ``extends`` and files
    resolve from that folder.
    """

    def __init__(self, root: Path, path: Path, data: bytes) -> None:
        super().__init__(root)
        self.path = path
        self.data = data

    def is_file(self, path: Path) -> bool:
        return path == self.path or super().is_file(path)

    def read_bytes(self, path: Path, limit: int) -> bytes:
        return self.data[: limit + 1] if path == self.path else super().read_bytes(path, limit)

    def load_nodes(self, path: Path, display: str) -> Node:
        from sandkit.kits.yamlnodes import nodes_from_bytes

        return nodes_from_bytes(self.data, display) if path == self.path else super().load_nodes(path, display)


def _loaded(
    arguments: list[str], stdin_filename: str | None, root: Path | None
) -> Iterator[tuple[str, LoadedKit | list[Problem]]]:
    """(display name, the kit or its problems) for each kit the arguments name."""
    if STDIN in arguments:
        if arguments != [STDIN]:
            raise UsageError("sandkit validate: error: - reads one kit from standard input; give no other path with it")
        from sandkit.kits.yamlnodes import MAX_BYTES

        display = stdin_filename or "<stdin>"
        path = Path(stdin_filename or "stdin.yaml").absolute()
        files = _StdinKit(root or repository_root(path), path, sys.stdin.buffer.read(MAX_BYTES + 1))
        yield display, _load(path, files=files, display=display)
        return
    if stdin_filename:
        raise UsageError("sandkit validate: error: --stdin-filename goes with - (a kit read from standard input)")
    for source in find_kits(arguments):
        yield source.path.as_posix(), _load(source.path, root=root)


def _load(path: Path, **how: Any) -> LoadedKit | list[Problem]:
    try:
        return load_kit(path, **how)
    except KitError as exc:
        return exc.problems


def _problem_json(problem: Problem) -> dict[str, object]:
    where = problem.location
    return {
        "path": where.path,
        "line": where.line,
        "column": where.column,
        "message": problem.message,
        "hint": problem.hint,
    }


def validate(
    arguments: list[str],
    *,
    quiet: bool = False,
    root: str | None = None,
    fmt: str = "text",
    stdin_filename: str | None = None,
) -> int:
    """Validate every kit; report each problem located; exit 1 if any kit is invalid.

    Text goes to standard output (kits that are fine) and standard error (problems); JSON is
    one document on standard output: ``{"version": 1, "kits": [...], "summary": {...}}``.
    """
    results = _with_name_clashes(list(_loaded(arguments, stdin_filename, root_folder(root))))
    failed = sum(1 for _, result in results if isinstance(result, list))
    if fmt == "json":
        kits = []
        for display, result in results:
            entry: dict[str, object] = {"path": display, "valid": not isinstance(result, list)}
            if isinstance(result, list):
                entry["problems"] = [_problem_json(p) for p in result]
            else:
                entry.update(kind=result.kit.kind, name=result.kit.name, problems=[])
            kits.append(entry)
        summary = {"kits": len(results), "valid": len(results) - failed, "invalid": failed}
        sys.stdout.write(json.dumps({"version": 1, "kits": kits, "summary": summary}, indent=2) + "\n")
        return 1 if failed else 0
    for display, result in results:
        if isinstance(result, list):
            for problem in result:
                print(problem, file=sys.stderr)
        elif not quiet:
            print(f"{display}: ok ({result.kit.kind} {result.kit.name})")
    if failed or not quiet:
        print(count_line(results), file=sys.stderr if failed else sys.stdout)
    return 1 if failed else 0


def count_line(results: list[tuple[str, LoadedKit | list[Problem]]]) -> str:
    """The closing line: how many kits were read, how many are invalid, and with how many problems."""
    kits = f"{len(results)} kit{'' if len(results) == 1 else 's'}"
    problems = sum(len(result) for _, result in results if isinstance(result, list))
    invalid = sum(1 for _, result in results if isinstance(result, list))
    if not invalid:
        return f"sandkit validate: {kits}, " + ("valid" if len(results) == 1 else "all valid")
    return f"sandkit validate: {kits}, {invalid} invalid: {problems} problem{'' if problems == 1 else 's'} (above)"


def _with_name_clashes(
    results: list[tuple[str, LoadedKit | list[Problem]]],
) -> list[tuple[str, LoadedKit | list[Problem]]]:
    """Each Kit that shares its name with another becomes a problem naming every such file."""
    clashes = name_clashes([result for _, result in results if isinstance(result, LoadedKit)])
    by_file = {problem.location.path: [problem] for problem in clashes}
    return [
        (display, by_file[result.display] if isinstance(result, LoadedKit) and result.display in by_file else result)
        for display, result in results
    ]
