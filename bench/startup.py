"""Sandbox start-up: `docker compose up` to the agent's first command, against `docker run --rm`.

Two kits on the Debian base with no workspace, so nothing but the sandbox itself is timed:
``minimal`` (one allowed host) and ``inject`` (the same plus a secret the egress proxy injects
into HTTPS requests, so the proxy makes or loads its certificate authority and the agent trusts
it: the helpers pr-reviewer starts). Their images are built once; then each case starts
``--runs`` times from nothing (no container, network or volume left from the run before), the
agent's command printing the container's clock, which the benchmark subtracts from the moment
it started `up`. In the same run, `docker run --rm` of the same agent image through the same
entrypoint is timed the same way, so the ratio means the same on a loaded machine. At the end
one session per kit stays idle for a while and `docker stats` gives each helper's memory and
CPU; then a request load (the agent asking the proxy for refused and allowed hosts in a loop)
gives the proxy's figures under load.

    python bench/startup.py [--runs 5] [--idle 10] [--keep-images] [--sessions N]

``--cases devcontainer`` starts the minimal kit as an editor opens its dev container: Compose with
the dev container's override, then the editor's first `docker exec` into the agent's container.

With ``--sessions N``, N sessions of the first case then run at once, each one's agent asked
whether its proxy still refuses a host off the allowlist (the proxy's 403), and the machine's
memory (MemAvailable before and after) and CPU (/proc/stat, all cores) are read while they idle.

Everything is named ``skbench-<token>-...`` and removed at the end (images too, unless
--keep-images), so it runs beside other users of the engine.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MARKER = "SKBENCH-FIRST"
#: The agent's command: its first act prints the container's clock (the host's), then it idles.
AGENT = f'echo "{MARKER} $(date +%s.%N)"; exec sleep 600'
#: Requests through the proxy for the load figures: a refused host and an allowed one (which does
#: not resolve here, so squid answers it itself after asking its resolver).
LOAD = (
    "end=$(( $(date +%s) + {seconds} )); n=0; while [ $(date +%s) -lt $end ]; do "
    "exec 3<>/dev/tcp/egress/3128 && printf 'GET http://refused.example/ HTTP/1.0\\r\\n\\r\\n' >&3 "
    "&& cat <&3 >/dev/null; exec 3<&-; "
    "exec 3<>/dev/tcp/egress/3128 && printf 'GET http://allowed.example/ HTTP/1.0\\r\\n\\r\\n' >&3 "
    "&& cat <&3 >/dev/null; exec 3<&-; n=$(( n + 2 )); done; echo requests=$n"
)

KITS = {
    "minimal": """\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, '{agent}']}}
network: {{allow: [allowed.example]}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 256Mi, timeout: 30m}}
""",
    "inject": """\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, '{agent}']}}
secrets:
  - name: BENCH_KEY
    required: false
    placeholder: bench-placeholder
    inject:
      - {{host: "api.allowed.example", header: x-api-key}}
network: {{allow: [allowed.example, api.allowed.example]}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 256Mi, timeout: 30m}}
""",
}


#: The dev container case starts the minimal kit as an editor does: Compose with the dev container's
#: override (the agent's container after the helpers' health checks, its command `sleep infinity`),
#: then the editor's first `docker exec` into it.
KIT_OF = {"devcontainer": "minimal"}
DEVCONTAINER_OVERRIDE = ".devcontainer/compose.devcontainer.yaml"


def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]


class Sandbox:
    """One compiled kit: its Compose project files and agent image."""

    def __init__(self, case: str, token: str, folder: Path) -> None:
        self.case = case
        self.name = f"skbench-{token}-{case}"
        kit = folder / f"{case}.yaml"
        kit.write_text(KITS[KIT_OF.get(case, case)].format(name=self.name, agent=AGENT), encoding="utf-8")
        out = folder / f"{case}-out"
        done = run(
            [
                sys.executable,
                "-m",
                "sandkit",
                "build",
                str(kit),
                "-o",
                str(out),
                "-q",
                "--target",
                "compose,devcontainer",
            ]
        )
        if done.returncode != 0:
            sys.exit(f"sandkit build failed:\n{done.stdout}{done.stderr}")
        self.folder = next(p for p in out.iterdir() if p.is_dir())
        self.secret = folder / f"{case}.secret"
        self.secret.write_text("bench-secret-value\n", encoding="utf-8")
        self.env = {**os.environ, "BENCH_KEY_FILE": str(self.secret)}
        self.sessions = 0

    def compose(self, project: str, *args: str) -> list[str]:
        return ["docker", "compose", "-f", str(self.folder / "compose.yaml"), "-p", project, *args]

    def images(self) -> list[str]:
        return sorted(set(run(self.compose(self.name, "config", "--images"), env=self.env).stdout.split()))

    def build(self) -> float:
        started = time.perf_counter()
        done = run(self.compose(self.name, "build"), env=self.env)
        if done.returncode != 0:
            sys.exit(f"build of {self.case} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        return time.perf_counter() - started

    def up(self) -> tuple[float, str, subprocess.Popen[str]]:
        """Seconds from `up` to the agent's first command, the project and its `up` (left running)."""
        self.sessions += 1
        project = f"{self.name}-{self.sessions}"
        if self.case == "devcontainer":
            return self.editor_up(project)
        argv = self.compose(project, "up", "--no-build", "--abort-on-container-exit", "--no-color")
        took, process = first_command(argv, self.env)
        return took, project, process

    def editor_up(self, project: str) -> tuple[float, str, subprocess.Popen[str]]:
        """As an editor opens the dev container: `up -d` of the services with the override, which
        returns once the agent's container runs, then the first `docker exec` into it."""
        override = ["-f", str(self.folder / DEVCONTAINER_OVERRIDE)]
        argv = [*self.compose(project, "up"), "-d", "--no-build"]
        argv[4:4] = override  # after the first -f compose.yaml
        started = time.time()
        done = run(argv, env=self.env)
        if done.returncode != 0:
            sys.exit(f"dev container up failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        exec_argv = [*self.compose(project, "exec", "-T", "agent", "date", "+%s.%N")]
        exec_argv[4:4] = override
        stamp = float(run(exec_argv, env=self.env).stdout.split()[0])
        idle = subprocess.Popen(["true"], text=True)  # nothing attached: `down` waits for it as for `up`
        return stamp - started, project, idle

    def down(self, project: str, process: subprocess.Popen[str] | None = None) -> None:
        run(self.compose(project, "down", "-v", "--remove-orphans", "--timeout", "1"), env=self.env)
        if process is not None:
            finish(process)

    def docker_run(self) -> float:
        image = next(i for i in self.images() if not i.split(":")[0].endswith("egress"))  # the shared proxy's
        name = f"{self.name}-run"
        took, process = first_command(["docker", "run", "--rm", "--init", "--name", name, image], self.env)
        run(["docker", "rm", "-f", name])
        finish(process)
        return took


def first_command(argv: list[str], env: dict[str, str]) -> tuple[float, subprocess.Popen[str]]:
    """Start ``argv``; once its output shows the marker, the marker's clock minus the start (and the
    process, still running: its output is drained in the background)."""
    started = time.time()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    lines = []
    timer = threading.Timer(180, process.kill)
    timer.start()
    try:
        for line in process.stdout:
            lines.append(line)
            if MARKER in line:
                stamp = float(line.split(MARKER, 1)[1].split()[0])
                threading.Thread(target=process.communicate, daemon=True).start()
                return stamp - started, process
    finally:
        timer.cancel()
    sys.exit("no first command:\n" + "".join(lines[-40:]))


def finish(process: subprocess.Popen[str]) -> None:
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


def stats(project: str) -> dict[str, tuple[float, float]]:
    """Each container's memory (MiB) and CPU (%) now, by service."""
    ids = run(["docker", "ps", "-q", "--filter", f"label=com.docker.compose.project={project}"]).stdout.split()
    fmt = "{{.Name}}\t{{.MemUsage}}\t{{.CPUPerc}}"
    out = run(["docker", "stats", "--no-stream", "--format", fmt, *ids]).stdout
    result = {}
    for line in out.splitlines():
        name, usage, cpu = line.split("\t")
        service = name[len(project) + 1 :].rsplit("-", 1)[0]
        result[service] = (mebibytes(usage.split("/")[0].strip()), float(cpu.rstrip("%") or 0))
    return result


def shims(project: str) -> tuple[int, float]:
    """The containerd shims of the project's containers: how many, and their proportional memory (MiB).

    docker stats counts a container's cgroup alone; each container also costs a shim process on the
    host, outside it (PSS: shared pages split between the processes that map them)."""
    ids = run(["docker", "ps", "-q", "--no-trunc", "--filter", f"label=com.docker.compose.project={project}"]).stdout
    wanted, count, pss = set(ids.split()), 0, 0.0
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
            if b"containerd-shim" not in args[0] or b"-id" not in args:
                continue
            if args[args.index(b"-id") + 1].decode() not in wanted:
                continue
            rollup = (proc / "smaps_rollup").read_text()
        except (OSError, IndexError):
            continue
        count += 1
        pss += next(int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")) / 1024
    return count, pss


def mebibytes(text: str) -> float:
    units = {"KiB": 1 / 1024, "MiB": 1, "GiB": 1024, "B": 1 / 1024 / 1024, "kB": 1 / 1.048576 / 1024}
    for unit, factor in units.items():
        if text.endswith(unit):
            return float(text[: -len(unit)]) * factor
    return float("nan")


def show_stats(title: str, figures: dict[str, tuple[float, float]]) -> None:
    helpers = {k: v for k, v in figures.items() if k != "agent"}
    parts = ", ".join(f"{k} {m:.1f} MiB {c:.1f}%" for k, (m, c) in sorted(helpers.items()))
    total = sum(m for m, _ in helpers.values())
    print(f"  {title}: helpers {total:.1f} MiB in all ({parts})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="starts per case (default 5)")
    parser.add_argument("--idle", type=float, default=10, help="seconds a session idles before docker stats")
    parser.add_argument("--load", type=float, default=10, help="seconds of request load for the load figures")
    parser.add_argument("--cases", default="minimal,inject")
    parser.add_argument("--keep-images", action="store_true")
    parser.add_argument("--sessions", type=int, default=0, help="then run this many sessions at once")
    args = parser.parse_args()
    token = secrets.token_hex(3)
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="skbench-") as folder:
        sandboxes = [Sandbox(case, token, Path(folder)) for case in args.cases.split(",")]
        try:
            for sandbox in sandboxes:
                print(f"{sandbox.case}: images built in {sandbox.build():.1f} s")
            for sandbox in sandboxes:
                measure(sandbox, args)
            if args.sessions:
                at_once(sandboxes[0], args.sessions, args.idle)
        finally:
            for sandbox in sandboxes:
                for index in range(1, sandbox.sessions + 1):
                    sandbox.down(f"{sandbox.name}-{index}")
                run(["docker", "rm", "-f", f"{sandbox.name}-run"])
                if not args.keep_images:
                    run(["docker", "rmi", *sandbox.images()])
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


#: The agent asks its proxy for a host off the allowlist and prints the status line's code.
REFUSED = (
    "exec 3<>/dev/tcp/egress/3128 && printf 'GET http://refused.example/ HTTP/1.0\\r\\n\\r\\n' >&3 "
    "&& read -r _ code _ <&3 && echo $code"
)


def meminfo_available() -> float:
    """MiB the kernel says could be given out now (free memory plus what it can reclaim)."""
    line = next(x for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemAvailable:"))
    return int(line.split()[1]) / 1024


def busy_share(seconds: float) -> float:
    """The share of all cores' time spent busy over ``seconds`` (from /proc/stat)."""

    def sample() -> tuple[int, int]:
        values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        return sum(values), values[3] + values[4]  # all, idle + iowait

    total0, idle0 = sample()
    time.sleep(seconds)
    total1, idle1 = sample()
    return 1 - (idle1 - idle0) / max(total1 - total0, 1)


def at_once(sandbox: Sandbox, count: int, idle: float) -> None:
    """``count`` sessions running together: each still enforcing, and what they cost the machine."""
    available, started = meminfo_available(), time.perf_counter()
    processes = []
    for _ in range(count):
        _, project, process = sandbox.up()
        processes.append((project, process))
    took = time.perf_counter() - started
    time.sleep(idle)
    codes = [
        run(sandbox.compose(project, "exec", "-T", "agent", "bash", "-c", REFUSED), env=sandbox.env).stdout.strip()
        for project, _ in processes
    ]
    containers = sum(cpu for project, _ in processes for _, cpu in stats(project).values())
    cpu = busy_share(max(idle, 10))
    used = available - meminfo_available()
    enforcing = sum(code == "403" for code in codes)
    print(
        f"{sandbox.case} x{count} at once: all started in {took:.1f} s; {enforcing} of {count} refused "
        f"a host off the allowlist (403); {used:.0f} MiB of memory in all ({used / count:.1f} MiB a session, "
        f"agents included); idle, the sessions' containers {containers:.1f}% of a core in all (docker stats), "
        f"the whole machine {100 * cpu:.1f}% of {os.cpu_count()} cores busy (engine, shims and any other "
        f"work included); load {os.getloadavg()[0]:.2f}"
    )
    for project, process in processes:
        sandbox.down(project, process)


def measure(sandbox: Sandbox, args: argparse.Namespace) -> None:
    ups, plain = [], []
    for _ in range(args.runs):
        plain.append(sandbox.docker_run())
        took, project, process = sandbox.up()
        sandbox.down(project, process)
        ups.append(took)
    up, base = statistics.median(ups), statistics.median(plain)
    print(
        f"{sandbox.case}: compose up {up:.2f} s (median of {args.runs}: {' '.join(f'{t:.2f}' for t in ups)}); "
        f"docker run {base:.2f} s ({' '.join(f'{t:.2f}' for t in plain)}); "
        f"ratio {up / base:.1f}x, {up - base:+.2f} s; goal {3 * base + 2:.2f} s"
    )
    _, project, process = sandbox.up()
    try:
        time.sleep(args.idle)
        show_stats(f"idle {args.idle:.0f} s", stats(project))
        count, pss = shims(project)
        print(f"  containerd shims (on the host, outside the containers): {count}, {pss:.1f} MiB PSS in all")
        loader = subprocess.Popen(
            sandbox.compose(project, "exec", "-T", "agent", "bash", "-c", LOAD.format(seconds=int(args.load))),
            stdout=subprocess.PIPE,
            text=True,
            env=sandbox.env,
        )
        time.sleep(args.load / 2)
        show_stats("under load", stats(project))
        out, _ = loader.communicate(timeout=args.load + 60)
        print(f"  load: {out.strip()} in {args.load:.0f} s")
    finally:
        sandbox.down(project, process)


if __name__ == "__main__":
    main()
