"""Start-up and build benchmarks: what `sandkit --version`, `validate` and `build` cost.

Start-up is reported against the interpreter's own start (`python -c pass`), as a difference and a
ratio, so the figure means the same on a slower machine. The build benchmark compiles N generated
kits (every target) in one process.

    python bench/startup_build.py [--runs 15] [--kits 100]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KIT = """\
apiVersion: sandkit/v1
name: bench-{index:03d}
extends: [claude-code]
env: {{INDEX: "{index}"}}
startup: ["echo start {index}"]
network: {{allow: [github.com, "*.githubusercontent.com"], deny: [gist.github.com]}}
workspace: {{repo: "https://github.com/acme/app-{index}.git", ref: main}}
agent: {{instructions: "Task {index}: review the change."}}
"""


def _median_seconds(argv: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, cwd=REPO, check=True, capture_output=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def startup(runs: int) -> None:
    python = [sys.executable]
    base = _median_seconds([*python, "-c", "pass"], runs)
    cases = {
        "sandkit --version": [*python, "-m", "sandkit", "--version"],
        "sandkit validate (1 kit)": [*python, "-m", "sandkit", "validate", "-q", "examples/pr-reviewer/kit.yaml"],
    }
    print(f"interpreter start (python -c pass): {base * 1000:.1f} ms (median of {runs})")
    print(f"{'command':<28} {'median ms':>10} {'beyond start':>13} {'ratio':>6}")
    for name, argv in cases.items():
        took = _median_seconds(argv, runs)
        print(f"{name:<28} {took * 1000:>10.1f} {(took - base) * 1000:>13.1f} {took / base:>6.2f}")


def build(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        kits = Path(folder) / "kits"
        kits.mkdir()
        for index in range(count):
            (kits / f"k{index:03d}.yaml").write_text(KIT.format(index=index))
        argv = [sys.executable, "-m", "sandkit", "build", str(kits), "-o", str(Path(folder) / "out"), "-q"]
        started = time.perf_counter()
        subprocess.run(argv, check=True)
        took = time.perf_counter() - started
        files = sum(1 for p in (Path(folder) / "out").rglob("*") if p.is_file())
    print(
        f"build: {count} kits -> {files} files in {took:.2f} s ({took / count * 1000:.1f} ms per kit, "
        "one process, every target)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--kits", type=int, default=100)
    args = parser.parse_args()
    startup(args.runs)
    build(args.kits)


if __name__ == "__main__":
    main()
