"""The ``dask.distributed`` executor: connecting to a scheduler and preparing its workers.

``--scheduler local`` (the default of ``causalarena build`` and ``causalarena run``) keeps
the process pools of this machine; any other value is the address of a running
``dask.distributed`` scheduler (``tcp://host:8786``, or a ``LocalCluster``'s
``scheduler_address``).  The same work units are then submitted to that scheduler:

* build units (:func:`causalarena.release.engine.run_units`) run on the workers, which
  *return* the unit's Parquet parts as bytes; the engine process (the one holding the build
  lock) writes them atomically, so workers need no shared filesystem and never write into the
  release folder, and a unit re-executed after a lost worker is written once;
* method runs (:class:`causalarena.eval.workers.DaskPool`) run inside a warm, isolated
  :class:`~causalarena.eval.workers.WorkerPool` on each dask worker (same wall-time budget,
  memory limit and process-group kill as the local runner).

Every worker gets :class:`PinThreads` (BLAS/OpenMP pinned to one thread, environment variables
inherited by subprocesses).  Requires the ``distributed`` extra
(``pip install 'causalarena[distributed]'``).
"""

from __future__ import annotations

import os
from typing import Any

from causalarena.errors import ReleaseError

#: ``--scheduler`` value of this machine's process pools.
LOCAL = "local"
#: Environment of every dask worker (and of the subprocesses it starts): one thread per library.
THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
}
#: Name under which :class:`PinThreads` is registered on a cluster.
PLUGIN_NAME = "causalarena-pin-threads"
#: Seconds to wait for the scheduler to answer.
CONNECT_TIMEOUT_S = 30


def is_local(scheduler: str | None) -> bool:
    """``True`` for ``None``, ``""`` and ``"local"`` (this machine's process pools)."""
    return scheduler is None or str(scheduler).strip() in ("", LOCAL)


def distributed_module():
    """``distributed`` or a one-line error naming the extra to install.

    Raises
    ------
    ImportError
        ``dask.distributed`` is not installed.
    """
    from causalarena._extras import require

    return require("distributed", "distributed", "--scheduler (a dask.distributed cluster)")


def pin_threads() -> None:
    """Pin BLAS/OpenMP to one thread in this process (and in subprocesses it starts)."""
    os.environ.update(THREAD_ENV)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


def _plugin_class():
    distributed = distributed_module()

    class PinThreads(distributed.WorkerPlugin):
        """Worker plugin: one BLAS/OpenMP thread per worker process (identical floating point
        whatever the cluster), set when the plugin is registered and on every restart."""

        def setup(self, worker: Any) -> None:
            from causalarena.release.cluster import pin_threads

            pin_threads()

    return PinThreads


def _probe(scheduler: str) -> None:
    """Ask ``scheduler`` who it is within :data:`CONNECT_TIMEOUT_S` seconds (one ``identity``
    message over ``distributed.comm``), so that a port that accepts connections but never
    answers, or answers something else, is an error instead of a silent hang inside
    ``Client``'s handshake (breaker finding).

    Raises
    ------
    ReleaseError
        No answer in time, a malformed address, or a peer that is not a dask scheduler.
    """
    import asyncio

    from distributed.comm import connect as comm_connect

    async def ask() -> Any:
        comm = await comm_connect(scheduler, timeout=CONNECT_TIMEOUT_S)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            await comm.close()

    hint = "start one (`dask scheduler`, a LocalCluster or dask-jobqueue) or use --scheduler local"
    try:
        who = asyncio.run(asyncio.wait_for(ask(), CONNECT_TIMEOUT_S))
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        why = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        raise ReleaseError(
            f"--scheduler {scheduler}: cannot reach a dask scheduler there ({why}); {hint}"
        ) from None
    except Exception as exc:  # a peer speaking another protocol: any decoding error
        raise ReleaseError(
            f"--scheduler {scheduler}: the peer is not a dask scheduler ({type(exc).__name__}); "
            f"{hint}"
        ) from None
    if not isinstance(who, dict) or who.get("type") != "Scheduler":
        raise ReleaseError(f"--scheduler {scheduler}: the peer is not a dask scheduler; {hint}")


def connect(scheduler: str):
    """A ``distributed.Client`` of ``scheduler`` with :class:`PinThreads` on every worker.

    Raises
    ------
    ImportError
        ``dask.distributed`` is not installed (names the extra).
    ReleaseError
        The scheduler does not answer within :data:`CONNECT_TIMEOUT_S` seconds, or has no
        worker (names the address).
    """
    distributed = distributed_module()
    _probe(scheduler)
    try:
        client = distributed.Client(
            scheduler, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False
        )
    except (OSError, TimeoutError, ValueError) as exc:
        raise ReleaseError(
            f"--scheduler {scheduler}: cannot reach a dask scheduler there ({exc}); start one "
            "(`dask scheduler`, a LocalCluster or dask-jobqueue) or use --scheduler local"
        ) from None
    try:
        client.register_plugin(_plugin_class()(), name=PLUGIN_NAME)
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        client.close()
        raise ReleaseError(
            f"--scheduler {scheduler}: the scheduler has no worker after {CONNECT_TIMEOUT_S} s "
            f"({exc}); start workers (`dask worker {scheduler} --nthreads 1`)"
        ) from None
    return client


def worker_slots(client) -> list[dict[str, Any]]:
    """``[{"address", "nthreads", "memory_limit"}]`` of the cluster's workers (bytes; 0 or
    ``None`` when a worker has no limit)."""
    try:
        info = client.scheduler_info(n_workers=-1)  # newer dask lists 5 workers by default
    except TypeError:
        info = client.scheduler_info()
    return [
        {
            "address": addr,
            "nthreads": int(w.get("nthreads", 1)),
            "memory_limit": w.get("memory_limit"),
        }
        for addr, w in sorted(info.get("workers", {}).items())
    ]


def killed_worker_error():
    """The exception class dask raises for a task that killed too many workers."""
    distributed = distributed_module()
    try:
        from distributed.scheduler import KilledWorker
    except ImportError:  # pragma: no cover - older layouts
        KilledWorker = getattr(distributed, "KilledWorker", RuntimeError)
    return KilledWorker


#: Test hook: with this variable naming a file path, the first unit or run started on any
#: dask worker creates the file and SIGKILLs its worker process (lost-worker tests).
KILL_WORKER_ONCE = "CAUSALARENA_TEST_KILL_DASK_WORKER_ONCE"


def test_kill_hook() -> None:
    """SIGKILL this worker process if :data:`KILL_WORKER_ONCE` names a file not yet created."""
    path = os.environ.get(KILL_WORKER_ONCE)
    if not path:
        return
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    import signal

    os.kill(os.getpid(), signal.SIGKILL)
