"""The forked worker pool: every job answered once, a dead worker loses only its job, no child is left."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from sandkit.lint import engine
from sandkit.lint.discovery import Candidate
from sandkit.lint.forking import run_forked
from tests.lint.helpers import lint_tree, write_tree

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the forked pool needs os.fork")


def _square(job: int) -> tuple[int, int, int]:
    return job, job * job, os.getpid()


def _lost(job: int, why: str) -> tuple[int, str, int]:
    return job, why, 0


def _reaped(pids: set[int]) -> bool:
    """True when none of ``pids`` exists any more, not even as a zombie waiting to be reaped."""
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        return False
    return True


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0


def test_every_job_is_answered_once_by_the_workers() -> None:
    before = _open_descriptors()
    results = list(run_forked(range(200), _square, _lost, 2))
    assert _open_descriptors() == before
    assert sorted(r[:2] for r in results) == [(n, n * n) for n in range(200)]
    workers = {r[2] for r in results}
    assert len(workers) == 2 and os.getpid() not in workers
    assert _reaped(workers)


def test_the_collector_is_left_as_it_was() -> None:
    """Objects are frozen only while the workers fork; a caller's own frozen objects stay frozen."""
    import gc

    before = gc.get_freeze_count()
    list(run_forked(range(4), _square, _lost, 2))
    assert gc.get_freeze_count() == before
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        list(run_forked(range(4), _square, _lost, 2))
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_messages_larger_than_a_pipe_buffer_go_both_ways() -> None:
    jobs = ["x" * 300_000 + str(n) for n in range(6)]
    results = list(run_forked(jobs, lambda job: job * 3, lambda job, why: why, 2))
    assert sorted(results) == sorted(job * 3 for job in jobs)


def test_a_killed_worker_loses_its_job_and_the_others_go_on() -> None:
    def work(job: int) -> tuple[int, int, int]:
        if job == 7:
            os.kill(os.getpid(), signal.SIGKILL)
        return _square(job)

    results = list(run_forked(range(40), work, _lost, 2))
    assert sorted(r[0] for r in results) == list(range(40))
    assert [r[1] for r in results if r[0] == 7] == ["its worker process was killed by SIGKILL"]
    assert all(r[1] == r[0] * r[0] for r in results if r[0] != 7)


def test_when_every_worker_is_dead_the_remaining_jobs_are_lost() -> None:
    def work(job: int) -> tuple[int, int, int]:
        os._exit(3)

    results = list(run_forked(range(5), work, _lost, 2))
    assert sorted(r[0] for r in results) == list(range(5))
    whys = sorted(str(r[1]) for r in results)
    assert whys == ["its worker process exited with status 3"] * 2 + ["no worker process was left to check it"] * 3


def test_an_exception_in_the_work_loses_that_job_only() -> None:
    def work(job: int) -> tuple[int, int, int]:
        if job % 5 == 0:
            raise ValueError(f"bad {job}")
        return _square(job)

    results = list(run_forked(range(20), work, _lost, 2))
    failed = sorted((r[0], r[1]) for r in results if isinstance(r[1], str))
    assert failed == [(n, f"checking it failed: ValueError: bad {n}") for n in (0, 5, 10, 15)]
    workers = {r[2] for r in results if not isinstance(r[1], str)}
    assert len(workers) <= 2  # the workers that raised went on with other jobs
    assert len([r for r in results if not isinstance(r[1], str)]) == 16


def test_stopping_early_ends_and_reaps_every_worker() -> None:
    results = run_forked(range(100_000), _square, _lost, 2)
    workers: set[int] = set()
    for _, _, pid in results:
        workers.add(pid)
        if len(workers) == 2:
            break
    results.close()
    assert len(workers) == 2
    assert _reaped(workers)  # neither is left, running or waiting to be reaped


def test_a_worker_killed_during_a_scan_makes_its_files_internal_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash in a C extension (or the kernel's out-of-memory killer) must not drop files
    silently: each file of the lost chunk is reported, the rest of the tree still is."""
    files = {f"s{i}/compose.yaml": "services:\n  a:\n    volumes: ['/var/run/docker.sock:/s']\n" for i in range(450)}
    write_tree(tmp_path, files)
    real_check = engine._Checker.check

    def check(self: engine._Checker, candidate: Candidate) -> engine.FileResult:
        if candidate.path == "s7/compose.yaml":
            os.kill(os.getpid(), signal.SIGKILL)
        return real_check(self, candidate)

    monkeypatch.setattr(engine._Checker, "check", check)
    result = engine.scan([str(tmp_path)], str(tmp_path), engine.ScanOptions(("RS001",)), jobs=2)
    lost = [c for c in result.crashes if c.endswith("not checked: its worker process was killed by SIGKILL")]
    assert "s7/compose.yaml: not checked: its worker process was killed by SIGKILL" in lost
    assert len(lost) == engine.CHUNK
    assert len(result.findings) == 450 - len(lost)
    assert result.files == 450 - len(lost)


def test_the_pool_finds_what_one_process_finds(tmp_path: Path) -> None:
    files = {f"s{i}/compose.yaml": "services:\n  a:\n    privileged: true\n" for i in range(430)}
    files |= {
        f"k{i}/.env": f"GITHUB_TOKEN=ghp_{'Z8k2Lq9Wm4Rt7Yp1Xv3Bn6Hc5Jd0Fs2Ga8K' + str(i % 10)}\n" for i in range(30)
    }
    write_tree(tmp_path, files)
    assert lint_tree(tmp_path, jobs=2) == lint_tree(tmp_path, jobs=1)


def test_without_fork_a_spawned_pool_finds_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where os.fork does not exist (Windows), a spawned multiprocessing pool checks the chunks."""
    files = {f"s{i}/compose.yaml": "services:\n  a:\n    privileged: true\n" for i in range(420)}
    write_tree(tmp_path, files)
    serial = lint_tree(tmp_path, jobs=1)
    spawned: list[int] = []
    real = engine._spawned

    def recording(*args: object) -> object:
        spawned.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_spawned", recording)
    monkeypatch.delattr(os, "fork")
    assert lint_tree(tmp_path, jobs=2) == serial
    assert spawned == [1] and len(serial) == 420
