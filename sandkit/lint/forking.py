"""Worker processes made with ``os.fork``, each fed one job at a time through a pair of pipes.

A large scan's pool. ``multiprocessing`` and ``concurrent.futures`` (with the ``logging``,
``socket`` and ``threading`` they import) cost a run about 30 ms before its first file is read,
a tenth of a real tree's scan, and a manager thread besides. A forked child already holds the
parent's modules and state; it needs only a pipe each way and pickle for the messages.

Each worker holds at most one job, so no write can wait on a reader that is itself writing:
the parent sends a job only to a worker that has returned its last one (or has had none).
A worker that dies (killed, out of memory, a crash in a C extension) loses only its job, which
``lost`` turns into a result; the others go on, and when none is left the rest are lost too.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import selectors
import signal
import struct
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import BinaryIO, Generic, TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")

_HEADER = struct.Struct("<Q")
_NO_JOB = object()
_ENDED = object()  # what reading a pipe whose writer is gone gives


class _Failed:
    """What a worker sends back when ``work`` raised: the job is reported lost, with why."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


class _Worker(Generic[Job]):
    __slots__ = ("job", "pid", "results", "tasks")

    def __init__(self, pid: int, tasks: BinaryIO, results: BinaryIO) -> None:
        self.pid = pid
        self.tasks = tasks
        self.results = results
        self.job: Job | None = None


def run_forked(
    jobs: Iterable[Job],
    work: Callable[[Job], Result],
    lost: Callable[[Job, str], Result],
    workers: int,
) -> Generator[Result, None, None]:
    """``work(job)`` for every job, computed in ``workers`` forked processes, in the order they
    finish. A job whose worker ended before returning it yields ``lost(job, why)``."""
    pool = _start(work, workers)
    try:
        yield from _feed(iter(jobs), pool, lost)
    except BaseException:
        for worker in pool:
            _kill(worker.pid)
        raise
    finally:
        for worker in pool:
            _close(worker)


def _start(work: Callable[[Job], Result], workers: int) -> list[_Worker[Job]]:
    pool: list[_Worker[Job]] = []
    # the children's collections then leave the parent's objects (and their memory pages) alone;
    # a process that froze objects itself (a pre-forking server using sandkit) keeps its own say
    freezing = gc.get_freeze_count() == 0
    if freezing:
        gc.freeze()
    try:
        for _ in range(workers):
            tasks_read, tasks_write = os.pipe()
            results_read, results_write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: only its own two ends stay open
                os.close(tasks_write)
                os.close(results_read)
                for other in pool:
                    other.tasks.close()
                    other.results.close()
                _serve(tasks_read, results_write, work)
            os.close(tasks_read)
            os.close(results_write)
            pool.append(_Worker(pid, os.fdopen(tasks_write, "wb"), os.fdopen(results_read, "rb")))
    except BaseException:
        for worker in pool:
            _kill(worker.pid)
            _close(worker)
        raise
    finally:
        if freezing:
            gc.unfreeze()
    return pool


def _serve(tasks: int, results: int, work: Callable[[Job], Result]) -> None:
    """A worker's life: a job in, its result out, until the parent closes the pipe. Never returns."""
    code = 0
    try:
        with os.fdopen(tasks, "rb") as reader, os.fdopen(results, "wb") as writer:
            while (job := _receive(reader)) is not _ENDED:
                try:
                    result: object = work(job)  # type: ignore[arg-type]
                except Exception as exc:  # a bug in ``work``: this job is lost, not the worker
                    result = _Failed(f"checking it failed: {type(exc).__name__}: {exc}")
                _send(writer, result)
    except BaseException:  # an interrupted or broken run: the parent reports the lost job
        code = 1
    os._exit(code)  # not the parent's exit handlers, buffers or atexit functions


def _feed(jobs: Iterator[Job], pool: list[_Worker[Job]], lost: Callable[[Job, str], Result]) -> Iterator[Result]:
    with selectors.DefaultSelector() as selector:
        for worker in pool:
            if _give(worker, jobs):
                selector.register(worker.results, selectors.EVENT_READ, worker)
        while selector.get_map():
            for key, _ in selector.select():
                worker = key.data
                result = _receive(worker.results)
                job, worker.job = worker.job, None
                assert job is not None
                if result is _ENDED:  # the worker ended without answering
                    selector.unregister(worker.results)
                    yield lost(job, _ending(worker))
                    continue
                yield lost(job, result.why) if isinstance(result, _Failed) else result  # type: ignore[misc]
                if not _give(worker, jobs):
                    selector.unregister(worker.results)
        for job in jobs:  # every worker has died
            yield lost(job, "no worker process was left to check it")


def _give(worker: _Worker[Job], jobs: Iterator[Job]) -> bool:
    """Send ``worker`` the next job; False when there is none (or the worker cannot take it)."""
    job = next(jobs, _NO_JOB)
    if job is _NO_JOB:
        return False
    worker.job = job  # type: ignore[assignment]
    with contextlib.suppress(BrokenPipeError):  # it died: its results pipe reads as ended, the job is lost
        _send(worker.tasks, job)
    return True


def _send(writer: BinaryIO, message: object) -> None:
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    writer.write(_HEADER.pack(len(data)))
    writer.write(data)
    writer.flush()


def _receive(reader: BinaryIO) -> object:
    """The next message, or ``_ENDED`` at the end of the pipe (a partial message is an end too)."""
    header = reader.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return _ENDED
    (size,) = _HEADER.unpack(header)
    data = reader.read(size)
    return pickle.loads(data) if len(data) == size else _ENDED


def _ending(worker: _Worker[Job]) -> str:
    """How a worker that stopped answering ended (it is reaped here)."""
    status = _close(worker)
    if status is None:
        return "its worker process ended"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"its worker process was killed by {name}"
    return f"its worker process exited with status {os.WEXITSTATUS(status)}"


def _close(worker: _Worker[Job]) -> int | None:
    """Close the parent's ends (a worker reading its next job then sees the end), reap the
    worker and return its wait status (None once reaped before)."""
    for stream in (worker.tasks, worker.results):
        with contextlib.suppress(OSError):
            stream.close()
    pid, worker.pid = worker.pid, 0
    if not pid:
        return None
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


def _kill(pid: int) -> None:
    if pid:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
