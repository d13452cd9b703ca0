"""Warm, isolated worker processes for running methods: one per (method, worker slot).

:class:`WorkerPool` runs jobs (one method on one dataset) in long-lived worker processes, so a
method's imports and its :attr:`~causalarena.baselines.base.Method.setup` (e.g. loading
pretrained weights) are paid once per worker, not once per instance.  Each worker:

* is forked from a fork server that has imported numpy, scipy, scikit-learn and the import-safe
  baseline libraries once, and starts its own session, so its process id is also the id of a
  process group holding every subprocess the method starts;
* runs BLAS, OpenMP and torch with one thread (``threadpoolctl`` and the usual environment
  variables, inherited by subprocesses);
* writes its stdout and stderr (file descriptors 1 and 2, so C libraries and subprocesses are
  captured too) to files that the pool reads back, size-capped, into the outcome;
* sends each result as one length-prefixed message that the pool reads without blocking, so a
  worker that stalls half-way through a message is still killed at the budget.

The pool kills a worker's whole process group (``SIGKILL``; descendants that left the group are
killed by pid) when a run exceeds the wall-time budget or the group's resident memory exceeds
the memory limit (polled every :data:`MEMORY_POLL_S` s), records the cause, exit code or signal
of any worker that dies, and replaces the worker for the next job.  ``pebble`` and ``loky``
were considered: pebble's workers share one result pipe behind a lock (a worker stalled in the
middle of a message blocks the pool's reader, and a timeout only signals the worker's own pid),
and loky's executor is declared broken for every job when one worker dies, so the pool is built
directly on :mod:`multiprocessing` (fork server, connections) and :mod:`psutil`.

Jobs that cannot run in a fresh process (a lambda defined in a notebook, say) are sent to the
worker with ``cloudpickle``; registered methods are looked up by name in the worker.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing as mp
import os
import pickle
import signal
import struct
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "CAPTURE_CHARS",
    "MEMORY_POLL_S",
    "Job",
    "Outcome",
    "WorkerPool",
    "default_memory_limit",
    "format_bytes",
    "parse_memory_limit",
]

#: Characters of a method's stdout and of its stderr kept per run (the last ones).
CAPTURE_CHARS = 8000
#: A capture file larger than this is emptied while the method runs (bytes; the cut is noted).
CAPTURE_FILE_MAX = 16 * 2**20
#: Seconds between two resident-memory checks of a running worker's process group.
MEMORY_POLL_S = 0.1
#: Default memory limit per worker: this fraction of the machine's memory divided by the number
#: of worker slots.
DEFAULT_MEMORY_FRACTION = 0.8
#: Environment of every worker (and of the subprocesses it starts): one thread per library.
THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "TORCH_NUM_THREADS": "1",
}
#: Modules the fork server imports once for every worker.  Only libraries that leave global
#: state alone at import: gcastle and dagma change torch's default dtype, so torch-based
#: libraries are imported inside each worker instead.
BASE_PRELOAD = (
    "numpy",
    "scipy",
    "scipy.linalg",
    "threadpoolctl",
    "sklearn.linear_model",
    "causalarena.baselines.registry",
    "causalarena.baselines.regress",
)
#: Extra fork-server imports for methods that require these (import-safe) libraries.
LIBRARY_PRELOAD = {
    "causallearn": ("causallearn.search.ConstraintBased.PC", "causallearn.search.ScoreBased.GES"),
    "lingam": ("lingam",),
}


# --------------------------------------------------------------------------- sizes


def default_memory_limit(slots: int = 1) -> int:
    """:data:`DEFAULT_MEMORY_FRACTION` of the machine's memory divided by ``slots`` (bytes)."""
    import psutil

    return int(psutil.virtual_memory().total * DEFAULT_MEMORY_FRACTION / max(1, slots))


_UNITS = {"": 2**20, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def parse_memory_limit(value: str | int | float | None, slots: int = 1) -> int | None:
    """Bytes from ``"auto"``, ``"none"``, ``"40%"`` (of the machine), ``"512M"``, ``"4G"`` or a number.

    A plain number is MiB (``"2048"`` is 2 GiB); units are binary (K, M, G, T, optionally
    followed by ``i``/``B``).  ``"auto"`` is :func:`default_memory_limit`; ``"none"`` (or
    ``None``) disables the limit.

    Raises
    ------
    ValueError
        If the text is not a size, or the size is not positive (names the value).
    """
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not np.isfinite(value) or value <= 0:
            raise ValueError(f"memory limit must be a positive number of bytes, got {value}")
        return int(value)
    text = str(value).strip().lower()
    if text == "auto":
        return default_memory_limit(slots)
    if text in ("none", "off"):
        return None
    try:
        if text.endswith("%"):
            import psutil

            frac = float(text[:-1]) / 100
            if not 0 < frac <= 1:
                raise ValueError
            return int(psutil.virtual_memory().total * frac)
        num = text.rstrip("ib").rstrip()
        unit = num[-1] if num and num[-1] in "kmgt" else ""
        size = float(num[: len(num) - len(unit)]) * _UNITS[unit]
    except (ValueError, IndexError):
        size = float("nan")
    if not np.isfinite(size) or size <= 0:
        raise ValueError(
            f"memory limit {value} is not a size; use e.g. 512M, 4G, 40% or none"
        ) from None
    return int(size)


def format_bytes(n: int | None) -> str:
    """``"512 MiB"``-style text (``"none"`` for ``None``)."""
    if n is None:
        return "none"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.4g} {unit}"
    return f"{n} B"


# --------------------------------------------------------------------------- jobs and outcomes


@dataclass(frozen=True)
class Job:
    """One run: ``method`` on ``X`` (``(n, d)`` float64) with ``mask`` (``(n, d)`` bool or None).

    ``method`` is a registry name or a :class:`~causalarena.baselines.base.Method`; ``key`` is
    returned unchanged with the outcome.
    """

    key: Any
    method: Any
    X: np.ndarray
    mask: np.ndarray | None
    seed: int


@dataclass
class Outcome:
    """What one run produced.

    ``status`` is ``"ok"`` (the method returned; its output is not validated here),
    ``"failed"`` (it raised, its worker died or was killed at the memory limit) or
    ``"timeout"``.  ``runtime_s`` is the method's own time (measured around ``fit`` inside the
    worker) for ``ok`` and ``failed`` runs that returned, else the wall time until the kill.
    ``stdout``/``stderr`` are the last :data:`CAPTURE_CHARS` characters the run printed
    (``None`` if nothing).
    """

    status: str
    adjacency: np.ndarray | None = None
    edge_scores: np.ndarray | None = None
    graph_type: str | None = None
    notes: dict = field(default_factory=dict)
    runtime_s: float | None = None
    error: str | None = None
    stdout: str | None = None
    stderr: str | None = None


def describe_exit(exitcode: int | None) -> str:
    """``"exited with code 3"`` or ``"was killed by signal SIGSEGV (exit code -11)"``."""
    if exitcode is None:
        return "is still running"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"was killed by signal {name} (exit code {exitcode})"
    return f"exited with code {exitcode}"


def _as_result(out: Any, graph_type: str):
    """Normalise what a fit returned: a MethodResult, an adjacency, or (adjacency, scores)."""
    from causalarena.baselines.base import MethodResult

    if isinstance(out, MethodResult):
        return out
    if isinstance(out, tuple) and len(out) == 2:
        return MethodResult(out[0], out[1], graph_type, {})
    return MethodResult(out, None, graph_type, {})


def _limit_threads() -> None:
    os.environ.update(THREAD_ENV)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    torch = sys.modules.get("torch")
    if torch is not None:
        with contextlib.suppress(Exception):
            torch.set_num_threads(1)


def resolve_method(method: Any, plugins: list[str] | None = None):
    """A :class:`Method` from a registry name (after importing ``plugins``) or a Method."""
    from causalarena.baselines.base import Method

    if isinstance(method, Method):
        return method
    from causalarena.baselines.registry import get_method, load_plugins

    load_plugins(plugins)
    return get_method(method)


def method_key(method: Any) -> str:
    """Name used to keep one warm worker per method (the registry name)."""
    return method if isinstance(method, str) else method.info.name


# --------------------------------------------------------------------------- the worker process

#: In a worker: the file descriptor of its result pipe (``None`` elsewhere).
_RESULT_FD: int | None = None


def _worker_main(tasks, results, method_ref, plugins, sys_path, capture) -> None:
    """Body of a worker process: set up once, then run jobs until the task pipe closes."""
    os.setsid()  # own session and process group: the pool kills the group on a timeout
    out_fd = os.open(capture[0], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
    err_fd = os.open(capture[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
    for std in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            std.flush()
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    sys.path[:0] = [p for p in sys_path if p not in sys.path]
    global _RESULT_FD
    _RESULT_FD = results.fileno()  # for tests that write a partial message, then stall

    def send(msg: tuple) -> None:
        for std in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                std.flush()
        try:
            payload = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # e.g. notes holding an unpicklable object
            payload = pickle.dumps(
                (
                    "result",
                    "failed",
                    None,
                    None,
                    None,
                    {},
                    msg[6] if len(msg) > 6 else None,
                    f"the method's result cannot be sent back: {type(exc).__name__}: {exc}",
                )
            )
        results.send_bytes(payload)

    try:
        _limit_threads()
        if isinstance(method_ref, bytes):
            import cloudpickle

            method_ref = cloudpickle.loads(method_ref)
        method = resolve_method(method_ref, plugins)
        t0 = time.perf_counter()
        state = method.setup() if method.setup is not None else None
        _limit_threads()  # setup may have imported torch
        send(("ready", time.perf_counter() - t0))
    except BaseException:
        send(("setup-failed", traceback.format_exc(limit=8)[-4000:]))
        return
    n_modules = len(sys.modules)
    while True:
        try:
            job = tasks.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        X, mask, seed = job
        os.ftruncate(1, 0)
        os.ftruncate(2, 0)
        t0 = time.perf_counter()
        try:
            res = _as_result(method.run(X, mask, seed=seed, state=state), method.info.output_graph)
            rt = time.perf_counter() - t0
            if len(sys.modules) != n_modules:  # the run imported libraries (torch, OpenMP)
                _limit_threads()
                n_modules = len(sys.modules)
            msg = (
                "result",
                "ok",
                res.adjacency,
                res.edge_scores,
                res.graph_type,
                res.notes,
                rt,
                None,
            )
        except BaseException:  # everything, including SystemExit from a library
            rt = time.perf_counter() - t0
            msg = (
                "result",
                "failed",
                None,
                None,
                None,
                {},
                rt,
                traceback.format_exc(limit=8)[-4000:],
            )
        send(msg)


# --------------------------------------------------------------------------- the pool side


class _Frames:
    """Reads ``multiprocessing`` length-prefixed messages from a pipe without ever blocking."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.fd = conn.fileno()
        os.set_blocking(self.fd, False)
        self.buf = bytearray()
        self.eof = False

    def pump(self) -> None:
        while not self.eof:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                return
            except OSError:
                self.eof = True
                return
            if not chunk:
                self.eof = True
                return
            self.buf += chunk

    def message(self) -> Any | None:
        """The next complete message, or ``None`` if none is complete yet."""
        self.pump()
        if len(self.buf) < 4:
            return None
        (n,) = struct.unpack("!i", self.buf[:4])
        start = 4
        if n == -1:
            if len(self.buf) < 12:
                return None
            (n,) = struct.unpack("!Q", self.buf[4:12])
            start = 12
        if len(self.buf) < start + n:
            return None
        payload = bytes(self.buf[start : start + n])
        del self.buf[: start + n]
        return pickle.loads(payload)


def _read_tail(path: Path, cut: int) -> str | None:
    """The last :data:`CAPTURE_CHARS` characters of a capture file, noting what was cut."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            fh.seek(max(0, size - CAPTURE_CHARS * 4))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    dropped = cut + max(0, size - CAPTURE_CHARS * 4)
    if len(text) > CAPTURE_CHARS:
        dropped += len(text[:-CAPTURE_CHARS].encode())
        text = text[-CAPTURE_CHARS:]
    if not text and not cut:
        return None
    return (f"[... {dropped} bytes cut ...]\n" if dropped else "") + text


class _Worker:
    """One warm worker process for one method (its pid is its process-group id)."""

    def __init__(self, ctx, method: Any, plugins: list[str], scratch: Path, name: str) -> None:
        ref = method
        if not isinstance(method, str):
            import cloudpickle

            ref = cloudpickle.dumps(method)
        self.capture = (scratch / f"{name}.stdout", scratch / f"{name}.stderr")
        self.cut = [0, 0]
        task_r, self.tasks = ctx.Pipe(duplex=False)
        result_r, result_w = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(
            target=_worker_main,
            args=(task_r, result_w, ref, plugins, list(sys.path), tuple(map(str, self.capture))),
            name=f"causalarena-{name}",
        )
        with _thread_env():
            self.proc.start()
        task_r.close()
        result_w.close()
        self.results = _Frames(result_r)
        self.ready = False
        self.setup_s: float | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, job: Job) -> None:
        self.cut = [0, 0]
        self.tasks.send((job.X, job.mask, job.seed))

    def captured(self) -> tuple[str | None, str | None]:
        return _read_tail(self.capture[0], self.cut[0]), _read_tail(self.capture[1], self.cut[1])

    def trim_captures(self) -> None:
        for k, path in enumerate(self.capture):
            with contextlib.suppress(OSError):
                size = path.stat().st_size
                if size > CAPTURE_FILE_MAX:
                    os.truncate(path, 0)
                    self.cut[k] += size

    def rss(self) -> int:
        """Resident memory of the worker and all its descendants (bytes)."""
        import psutil

        try:
            me = psutil.Process(self.pid)
            procs = [me, *me.children(recursive=True)]
        except psutil.Error:
            return 0
        total = 0
        for p in procs:
            with contextlib.suppress(psutil.Error):
                total += p.memory_info().rss
        return total

    def kill(self) -> None:
        """SIGKILL the worker's process group and any descendant that left it; reap the worker."""
        import psutil

        try:
            stray = psutil.Process(self.pid).children(recursive=True)
        except psutil.Error:
            stray = []
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            self.proc.kill()  # before its setsid the worker is still in our group
        for p in stray:
            with contextlib.suppress(psutil.Error):
                p.kill()
        self.proc.join(10)
        self.close()

    def stop(self) -> None:
        """Ask an idle worker to exit; kill it if it does not within a second."""
        with contextlib.suppress(OSError, ValueError):
            self.tasks.send(None)
        self.proc.join(1)
        if self.proc.is_alive():
            self.kill()
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)  # subprocesses it left behind
            self.close()

    def close(self) -> None:
        for conn in (self.tasks, self.results.conn):
            with contextlib.suppress(OSError):
                conn.close()


@contextlib.contextmanager
def _thread_env() -> Iterator[None]:
    """One-thread environment while a process (and possibly the fork server) starts."""
    saved = {k: os.environ.get(k) for k in THREAD_ENV}
    os.environ.update(THREAD_ENV)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def preload_modules(methods: Iterable[Any]) -> list[str]:
    """Fork-server imports for ``methods``: :data:`BASE_PRELOAD` plus import-safe libraries."""
    from causalarena.baselines.registry import registered

    mods = list(BASE_PRELOAD)
    for m in methods:
        try:
            requires = registered(m).requires if isinstance(m, str) else m.requires
        except KeyError:
            continue
        for lib in requires:
            mods += [x for x in LIBRARY_PRELOAD.get(lib, ()) if x not in mods]
    return mods


def start_fork_server(preload: Iterable[str] | None = None):
    """Start the fork server now (it imports ``preload`` while the caller goes on).

    Only the first call in a process chooses the preload (default :data:`BASE_PRELOAD`);
    returns the ``forkserver`` multiprocessing context.
    """
    from multiprocessing import forkserver

    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(list(preload or BASE_PRELOAD))
    with _thread_env():  # the server and every worker run one BLAS/OpenMP thread
        forkserver.ensure_running()
    return ctx


@dataclass
class _Busy:
    job: Job
    worker: _Worker
    phase: str  # "setup" (waiting for the worker to be ready) or "run"
    t0: float
    next_memory_check: float = 0.0


class WorkerPool:
    """Run :class:`Job` s in warm worker processes, at most ``slots`` at a time.

    Parameters
    ----------
    slots : int, default 1
        Runs executed at once.  Each slot keeps one warm worker per method it has run.
    timeout : float, default 3600
        Wall-time budget of one run in seconds (paper B.3); a method's ``setup`` gets the same
        budget separately.
    memory_limit : int or None
        Bytes of resident memory allowed to a worker and its subprocesses (``None``: no limit).
    plugins : list of str, optional
        Plugin modules imported by every worker (default: ``$CAUSALARENA_METHODS``).
    preload : list of str, optional
        Modules the fork server imports (default: :func:`preload_modules` of no method).

    Use as a context manager (workers are killed on exit) and call :meth:`map`.
    """

    def __init__(
        self,
        *,
        slots: int = 1,
        timeout: float = 3600.0,
        memory_limit: int | None = None,
        plugins: list[str] | None = None,
        preload: list[str] | None = None,
    ) -> None:
        from causalarena.baselines.registry import plugin_modules

        if slots < 1:
            raise ValueError(f"slots must be >= 1, got {slots}")
        if not (np.isfinite(timeout) and timeout > 0):
            raise ValueError(f"timeout must be a finite number of seconds > 0, got {timeout}")
        self.slots = slots
        self.timeout = float(timeout)
        self.memory_limit = memory_limit
        self.plugins = plugin_modules() if plugins is None else list(plugins)
        self.ctx = start_fork_server(preload)
        self._tmp = tempfile.TemporaryDirectory(prefix="causalarena-workers-")
        self.scratch = Path(self._tmp.name)
        self.workers: dict[tuple[int, str], _Worker] = {}
        self.broken: dict[str, str] = {}  # method -> why its setup failed
        self.started = 0  # worker processes started (replacements included)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker (their process groups included) and remove the scratch folder."""
        for w in self.workers.values():
            w.stop()
        self.workers.clear()
        self._tmp.cleanup()

    def _worker(self, slot: int, method: Any) -> _Worker:
        key = (slot, method_key(method))
        w = self.workers.get(key)
        if w is None or not w.proc.is_alive():
            if w is not None:
                w.kill()
            self.started += 1
            w = _Worker(self.ctx, method, self.plugins, self.scratch, f"{slot}-{self.started}")
            self.workers[key] = w
        return w

    def _retire(self, slot: int, busy: _Busy) -> None:
        busy.worker.kill()
        key = (slot, method_key(busy.job.method))
        if self.workers.get(key) is busy.worker:
            del self.workers[key]

    def run(self, job: Job) -> Outcome:
        """Run one job and return its outcome."""
        return next(iter(self.map([job])))[1]

    def map(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, Outcome]]:
        """Run ``jobs`` (consumed lazily) and yield ``(job, outcome)`` as each one finishes."""
        pending = iter(jobs)
        exhausted = False
        busy: dict[int, _Busy] = {}
        finished: list[tuple[Job, Outcome]] = []
        while True:
            # refill the free slots first and hand the finished outcomes over afterwards, so
            # the workers run the next jobs while the caller journals the last results
            while not exhausted and len(busy) < self.slots:
                job = next(pending, None)
                if job is None:
                    exhausted = True
                    break
                mkey = method_key(job.method)
                if mkey in self.broken:
                    finished.append((job, Outcome("failed", error=self.broken[mkey])))
                    continue
                slot = min(set(range(self.slots)) - set(busy))
                worker = self._worker(slot, job.method)
                busy[slot] = _Busy(job, worker, "run" if worker.ready else "setup", 0.0)
                if worker.ready:
                    finished.extend(self._dispatch(slot, busy))
                else:
                    busy[slot].t0 = time.perf_counter()
            yield from finished
            finished = []
            if not busy:  # the refill stops early only when the jobs are exhausted
                return
            now = time.perf_counter()
            wake = min(b.t0 + self.timeout for b in busy.values()) - now
            if self.memory_limit is not None:
                wake = min(wake, MEMORY_POLL_S)
            handles = [b.worker.results.conn for b in busy.values()]
            handles += [b.worker.proc.sentinel for b in busy.values()]
            wait(handles, timeout=max(0.0, wake))
            for slot in sorted(busy):
                finished.extend(self._check(slot, busy))

    def _dispatch(self, slot: int, busy: dict[int, _Busy]) -> Iterator[tuple[Job, Outcome]]:
        b = busy[slot]
        b.phase = "run"
        try:
            b.t0 = time.perf_counter()
            b.worker.send(b.job)
        except (OSError, ValueError):  # the worker died while idle
            code = b.worker.proc.exitcode
            self._retire(slot, b)
            del busy[slot]
            err = f"worker process {b.worker.pid} {describe_exit(code)} before the run started"
            yield b.job, Outcome("failed", error=err, runtime_s=0.0)

    def _check(self, slot: int, busy: dict[int, _Busy]) -> Iterator[tuple[Job, Outcome]]:
        b = busy[slot]
        w = b.worker
        try:
            msg = w.results.message()
        except Exception as exc:  # a garbled message: the worker cannot be trusted any more
            msg = (
                "result",
                "failed",
                None,
                None,
                None,
                {},
                None,
                f"unreadable message from worker: {type(exc).__name__}: {exc}",
            )
            w.results.eof = True
        now = time.perf_counter()
        elapsed = now - b.t0
        if msg is not None and msg[0] == "ready":
            w.ready, w.setup_s = True, float(msg[1])
            yield from self._dispatch(slot, busy)
            return
        if msg is not None and msg[0] == "setup-failed":
            err = f"setup of {method_key(b.job.method)} failed in its worker: {msg[1]}"
            self.broken[method_key(b.job.method)] = err
            out, errs = w.captured()
            self._retire(slot, b)
            del busy[slot]
            yield b.job, Outcome("failed", error=err, stdout=out, stderr=errs)
            return
        if msg is not None:
            _, status, A, S, gtype, notes, rt, err = msg
            out, errs = w.captured()
            if w.results.eof:
                self._retire(slot, b)
            del busy[slot]
            yield b.job, Outcome(status, A, S, gtype, notes or {}, rt, err, out, errs)
            return
        what = "setup" if b.phase == "setup" else "run"
        reason = None
        status = "failed"
        if w.results.eof or not w.proc.is_alive():
            w.proc.join(1)
            reason = (
                f"worker process {w.pid} {describe_exit(w.proc.exitcode)} during the {what} "
                "without a result"
            )
        elif elapsed > self.timeout:
            status = "timeout"
            reason = (
                f"exceeded the {self.timeout:g} s wall-time budget during the {what}; "
                f"worker process group {w.pid} killed (SIGKILL)"
            )
        elif self.memory_limit is not None and now >= b.next_memory_check:
            b.next_memory_check = now + MEMORY_POLL_S
            w.trim_captures()
            rss = w.rss()
            if rss > self.memory_limit:
                reason = (
                    f"resident memory of worker process group {w.pid} reached "
                    f"{format_bytes(rss)} during the {what}, above the memory limit of "
                    f"{format_bytes(self.memory_limit)}; killed (SIGKILL)"
                )
        if reason is None:
            return
        if b.phase == "setup":
            self.broken[method_key(b.job.method)] = f"setup failed: {reason}"
        self._retire(slot, b)
        out, errs = w.captured()
        del busy[slot]
        yield b.job, Outcome(status, runtime_s=elapsed, error=reason, stdout=out, stderr=errs)


class InProcessPool:
    """Same interface as :class:`WorkerPool`, running every job in this process.

    For debugging and for methods that cannot leave the process.  No isolation: a crash takes
    the caller down, the memory limit is not enforced, and the budget is checked only after the
    run returns (a run that took longer is recorded as ``timeout`` and its output dropped, as
    the process pool would have killed it).  ``setup`` runs once per method; Python-level
    stdout/stderr are captured.
    """

    def __init__(self, *, timeout: float = 3600.0, plugins: list[str] | None = None, **_) -> None:
        from causalarena.baselines.registry import plugin_modules

        if not (np.isfinite(timeout) and timeout > 0):
            raise ValueError(f"timeout must be a finite number of seconds > 0, got {timeout}")
        self.timeout = float(timeout)
        self.plugins = plugin_modules() if plugins is None else list(plugins)
        self.memory_limit = None
        self.state: dict[str, Any] = {}
        self.broken: dict[str, str] = {}

    def __enter__(self) -> InProcessPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.state.clear()

    def run(self, job: Job) -> Outcome:
        return next(iter(self.map([job])))[1]

    def _one(self, job: Job, mkey: str) -> Outcome:
        from threadpoolctl import threadpool_limits

        try:
            method = resolve_method(job.method, self.plugins)
            if mkey not in self.state:
                self.state[mkey] = method.setup() if method.setup is not None else None
        except (Exception, SystemExit):  # a library calling sys.exit is a failure too
            self.broken[mkey] = f"setup of {mkey} failed: " + traceback.format_exc(limit=8)[-4000:]
            return Outcome("failed", error=self.broken[mkey])
        t0 = time.perf_counter()
        try:
            with threadpool_limits(1):
                res = _as_result(
                    method.run(job.X, job.mask, seed=job.seed, state=self.state[mkey]),
                    method.info.output_graph,
                )
        except (Exception, SystemExit):
            rt = time.perf_counter() - t0
            return Outcome("failed", runtime_s=rt, error=traceback.format_exc(limit=8)[-4000:])
        rt = time.perf_counter() - t0
        return Outcome("ok", res.adjacency, res.edge_scores, res.graph_type, res.notes, rt)

    def map(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, Outcome]]:
        for job in jobs:
            mkey = method_key(job.method)
            out, err = io.StringIO(), io.StringIO()
            if mkey in self.broken:
                yield job, Outcome("failed", error=self.broken[mkey])
                continue
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                outcome = self._one(job, mkey)
            if outcome.status == "ok" and outcome.runtime_s > self.timeout:
                outcome = Outcome(
                    "timeout",
                    runtime_s=outcome.runtime_s,
                    error=f"took {outcome.runtime_s:.3g} s, beyond the {self.timeout:g} s "
                    "wall-time budget (isolation='none' cannot stop a run; its output is dropped)",
                )
            outcome.stdout = _cap(out.getvalue())
            outcome.stderr = _cap(err.getvalue())
            yield job, outcome


def _cap(text: str) -> str | None:
    if not text:
        return None
    if len(text) <= CAPTURE_CHARS:
        return text
    cut = len(text[:-CAPTURE_CHARS].encode())
    return f"[... {cut} bytes cut ...]\n" + text[-CAPTURE_CHARS:]
