"""Compare detection on the labelled lint corpus: sandkit against Checkov, detect-secrets and zizmor.

Each case in tests/lint/corpus is a small repository whose expect.toml lists the categories
that must (``must``) and must not (``must_not``) be reported. A case with a non-empty ``must``
is a positive; one with an empty ``must`` is a look-alike (negative). Every tool runs on the
same folder, side by side:

- sandkit: detected when every ``must`` category is reported; a false alarm when a
  ``must_not`` category is reported.
- Checkov (all frameworks, secrets included), detect-secrets (``scan --all-files``) and zizmor
  (``--offline``, workflows only): detected when the tool reports anything; a false alarm
  when it reports anything on a look-alike case. These tools have no notion of the corpus
  categories, so "anything" is the most generous reading for them.

    python bench/lint_compare.py [--checkov PATH] [--detect-secrets PATH] [--zizmor PATH]

The comparison tools are not project dependencies; missing ones show as "-".
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "lint" / "corpus"


def _run(argv: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    return done.stdout


def sandkit(case: Path, config: Path) -> set[str]:
    # An empty config: the repository's own .sandkit.toml (found upwards) excludes folders
    # such as build/ that some cases use.
    out = _run(
        [
            sys.executable,
            "-m",
            "sandkit",
            "lint",
            str(case),
            "--format",
            "json",
            "--fail-on",
            "critical",
            "--config",
            str(config),
        ],
        cwd=REPO,
    )
    return {f["category"] for f in json.loads(out)["findings"]}


def checkov(tool: str, case: Path) -> int:
    out = _run([tool, "-d", str(case), "--quiet", "--compact", "-o", "json", "--skip-download"])
    try:
        data = json.loads(out or "[]")
    except json.JSONDecodeError:
        return 0
    reports = data if isinstance(data, list) else [data]
    return sum(len(r.get("results", {}).get("failed_checks", [])) for r in reports if isinstance(r, dict))


def detect_secrets(tool: str, case: Path) -> int:
    out = _run([tool, "scan", "--all-files", "."], cwd=case)
    return sum(len(v) for v in json.loads(out or "{}").get("results", {}).values())


def zizmor(tool: str, case: Path) -> int | None:
    if not any(case.glob(".github/workflows/*.y*ml")):
        return None  # zizmor reads workflows only
    out = _run([tool, "--offline", "--format", "json", str(case)])
    try:
        return len(json.loads(out or "[]"))
    except json.JSONDecodeError:
        return 0


def cell(count: int | None, positive: bool) -> str:
    if count is None:
        return "n/a"
    if positive:
        return f"yes ({count})" if count else "**no**"
    return f"**{count} FP**" if count else "clean"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkov", default=shutil.which("checkov"))
    parser.add_argument("--detect-secrets", default=shutil.which("detect-secrets"))
    parser.add_argument("--zizmor", default=shutil.which("zizmor"))
    args = parser.parse_args()
    tools = {"checkov": args.checkov, "detect-secrets": args.detect_secrets, "zizmor": args.zizmor}
    print("| case | must | sandkit | checkov | detect-secrets | zizmor |")
    print("| --- | --- | --- | --- | --- | --- |")
    totals = {name: [0, 0, 0, 0] for name in ("sandkit", *tools)}  # hit, pos, fp, neg
    config = Path(tempfile.mkdtemp(prefix="sandkit-compare-")) / "empty.toml"
    config.write_text("")
    for case in sorted(p for p in CORPUS.iterdir() if (p / "expect.toml").is_file()):
        expect = tomllib.loads((case / "expect.toml").read_text())
        must, must_not = set(expect.get("must", [])), set(expect.get("must_not", []))
        positive = bool(must)
        found = sandkit(case, config)
        ok = must <= found if positive else not (found & must_not)
        row = [
            "yes"
            if ok and positive
            else "clean"
            if ok
            else ("**no**" if positive else f"**FP: {', '.join(sorted(found & must_not))}**")
        ]
        _tally(totals["sandkit"], positive, ok)
        for name, tool in tools.items():
            if not tool:
                row.append("-")
                continue
            count = {"checkov": checkov, "detect-secrets": detect_secrets, "zizmor": zizmor}[name](tool, case)
            row.append(cell(count, positive))
            if count is not None:
                _tally(totals[name], positive, bool(count) if positive else not count)
        print(f"| {case.name} | {', '.join(sorted(must)) or '(look-alikes)'} | " + " | ".join(row) + " |")
    print()
    print("| tool | positives detected | look-alike cases with false alarms |")
    print("| --- | --- | --- |")
    for name, (hit, pos, fp, neg) in totals.items():
        print(f"| {name} | {hit}/{pos} | {fp}/{neg} |")
    return 0


def _tally(total: list[int], positive: bool, ok: bool) -> None:
    if positive:
        total[0] += ok
        total[1] += 1
    else:
        total[2] += not ok
        total[3] += 1


if __name__ == "__main__":
    sys.exit(main())
