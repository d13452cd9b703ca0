"""Method runs on a ``dask.distributed`` cluster, isolated exactly like the local runner.

:class:`DaskPool` has the interface of :class:`~causalarena.eval.workers.WorkerPool`
(``map(jobs)`` yields ``(job, outcome)``) and is what ``causalarena run --scheduler ADDRESS``
uses.  Each job is one dask task; on the dask worker it runs inside that worker's own warm
:class:`~causalarena.eval.workers.WorkerPool` (one per worker thread, kept between tasks), so
the guarantees of the local runner hold on every node:

* the wall-time budget counts from the start of the run on the node (time queued on the
  scheduler is not charged), and a run past it is killed with its process group;
* the memory limit covers the run's process group on the node; ``memory_limit="auto"`` is
  :data:`~causalarena.eval.workers.DEFAULT_MEMORY_FRACTION` of the smallest dask worker's memory
  limit per thread (:func:`auto_memory_limit`);
* BLAS/OpenMP run one thread; stdout/stderr are captured; a method that crashes kills only its
  own sandbox process, never the dask worker.

What differs: a run whose *dask worker* is lost (node preempted, worker killed) is re-executed
by dask on another worker with the same seed, up to ``distributed.scheduler.allowed-failures``
times, after which it is recorded as ``failed``; and the run record (``run.json``) says
``executor: dask`` with the scheduler address.  Jobs are submitted a few per worker thread at
a time, so the runner still holds about one shard of data in memory.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from causalarena.eval.workers import (
    DEFAULT_MEMORY_FRACTION,
    Job,
    Outcome,
    WorkerPool,
    method_key,
)

__all__ = ["DaskPool", "auto_memory_limit"]

#: Jobs in flight per dask worker thread.
IN_FLIGHT_PER_THREAD = 2

# on a dask worker: warm pools by (thread, settings)
_POOLS: dict[tuple, WorkerPool] = {}
_POOLS_LOCK = threading.Lock()


def _close_pools() -> None:
    with _POOLS_LOCK:
        for pool in _POOLS.values():
            with contextlib.suppress(Exception):
                pool.close()
        _POOLS.clear()


def _run_on_worker(
    method: Any,
    X,
    mask,
    seed: int,
    timeout: float,
    memory_limit: int | None,
    plugins: list[str],
    preload: list[str] | None,
) -> Outcome:
    """Task body on a dask worker: run one job in this thread's warm isolated pool."""
    import atexit
    import multiprocessing as mp

    from causalarena.release.cluster import pin_threads, test_kill_hook

    test_kill_hook()
    key = (threading.get_ident(), timeout, memory_limit, tuple(plugins), tuple(preload or ()))
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pin_threads()
            # a nanny starts dask workers as daemonic processes, which multiprocessing forbids
            # to have children; the pool kills its own sandbox processes (their groups) on close
            mp.current_process().daemon = False
            if not _POOLS:
                atexit.register(_close_pools)
            pool = _POOLS[key] = WorkerPool(
                slots=1,
                timeout=timeout,
                memory_limit=memory_limit,
                plugins=plugins,
                preload=preload,
            )
    return pool.run(Job(None, method, X, mask, seed))


def auto_memory_limit(slots: list[dict[str, Any]]) -> int | None:
    """:data:`DEFAULT_MEMORY_FRACTION` of the smallest ``memory_limit / nthreads`` among dask
    workers ``slots`` (:func:`causalarena.release.cluster.worker_slots`); ``None`` if no
    worker declares a memory limit."""
    per = [
        int(w["memory_limit"]) // max(1, int(w["nthreads"])) for w in slots if w.get("memory_limit")
    ]
    return int(min(per) * DEFAULT_MEMORY_FRACTION) if per else None


class DaskPool:
    """Run :class:`~causalarena.eval.workers.Job` s on the dask scheduler at ``scheduler``.

    Parameters
    ----------
    scheduler : str
        Address of a running ``dask.distributed`` scheduler, e.g. ``tcp://host:8786``.
    timeout : float, default 3600
        Wall-time budget of one run in seconds, enforced on the node.
    memory_limit : int or None
        Bytes of resident memory allowed to a run's process group on the node.
    plugins, preload : list of str, optional
        As in :class:`~causalarena.eval.workers.WorkerPool` (imported on each dask worker).

    Raises
    ------
    ImportError
        ``dask.distributed`` is not installed (names the extra).
    ReleaseError
        The scheduler cannot be reached or has no worker.
    """

    executor = "dask"

    def __init__(
        self,
        scheduler: str,
        *,
        timeout: float = 3600.0,
        memory_limit: int | None = None,
        plugins: list[str] | None = None,
        preload: list[str] | None = None,
    ) -> None:
        from causalarena.baselines.registry import plugin_modules
        from causalarena.release.cluster import connect, worker_slots

        self.scheduler = scheduler
        self.timeout = float(timeout)
        self.memory_limit = memory_limit
        self.plugins = plugin_modules() if plugins is None else list(plugins)
        self.preload = preload
        self.client = connect(scheduler)
        self.workers = worker_slots(self.client)
        self.slots = max(1, sum(w["nthreads"] for w in self.workers))
        self.broken: dict[str, str] = {}

    def __enter__(self) -> DaskPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect from the scheduler (the cluster keeps running)."""
        with contextlib.suppress(Exception):
            self.client.close()

    def run(self, job: Job) -> Outcome:
        """Run one job and return its outcome."""
        return next(iter(self.map([job])))[1]

    def _submit(self, job: Job):
        return self.client.submit(
            _run_on_worker,
            job.method,
            job.X,
            job.mask,
            int(job.seed),
            self.timeout,
            self.memory_limit,
            self.plugins,
            self.preload,
            key=f"causalarena-run-{method_key(job.method)}-{uuid.uuid4().hex}",
            pure=False,
        )

    def map(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, Outcome]]:
        """Run ``jobs`` (consumed lazily, a few per worker thread in flight) and yield
        ``(job, outcome)`` as each one finishes."""
        from causalarena.release.cluster import distributed_module, killed_worker_error

        distributed = distributed_module()
        killed = killed_worker_error()
        pending = iter(jobs)
        inflight: dict[Any, Job] = {}
        done = distributed.as_completed(loop=self.client.loop)

        def top_up() -> None:
            while len(inflight) < self.slots * IN_FLIGHT_PER_THREAD:
                job = next(pending, None)
                if job is None:
                    return
                fut = self._submit(job)
                inflight[fut] = job
                done.add(fut)

        top_up()
        try:
            for fut in done:
                job = inflight.pop(fut)
                try:
                    outcome = fut.result()
                except killed as exc:
                    outcome = Outcome(
                        "failed",
                        error=f"lost with every dask worker it ran on ({exc}); the run was "
                        "retried by the scheduler and never finished",
                    )
                except Exception as exc:  # the task itself failed outside the sandbox
                    outcome = Outcome(
                        "failed", error=f"dask task failed: {type(exc).__name__}: {exc}"
                    )
                fut.release()
                top_up()
                yield job, outcome
        finally:
            if inflight:
                self.client.cancel(list(inflight))
