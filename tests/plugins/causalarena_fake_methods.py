"""Methods with known behaviour for runner tests (registered through $CAUSALARENA_METHODS).

A top-level module (tests/plugins on sys.path) named so that no installed package shadows it:
autorank ships a top-level `tests` package.
"""

from __future__ import annotations

import time

import numpy as np

from causalarena.baselines.base import Method, MethodInfo, MethodResult
from causalarena.baselines.registry import all_method_infos, register


def _info(name: str, **kw) -> MethodInfo:
    base = dict(
        name=name,
        display_name=name,
        family="control",
        supports_interventions=False,
        requires_interventions=False,
        outputs_edge_scores=False,
        output_graph="dag",
        library=None,
        extra=None,
        defaults={},
        reference="test",
    )
    base.update(kw)
    return MethodInfo(**base)


def _empty(X, mask=None, *, seed=0):
    return MethodResult(np.zeros((X.shape[1],) * 2, np.int8), None, "dag", {})


def _boom(X, mask=None, *, seed=0):
    raise RuntimeError("deliberate failure")


def _sleepy(X, mask=None, *, seed=0):
    time.sleep(60)
    return _empty(X)


def _bad_shape(X, mask=None, *, seed=0):
    return MethodResult(np.zeros((2, 2), np.int8), None, "dag", {})


def _mask_user(X, mask=None, *, seed=0):
    A = np.zeros((X.shape[1],) * 2, np.int8)
    if mask is not None:
        A[0, 1] = 1
    return MethodResult(A, None, "dag", {"saw_mask": mask is not None})


def _stall_partial(X, mask=None, *, seed=0):
    """Write the first bytes of a 1 MB result message to the runner's pipe, then stall."""
    import os
    import struct

    from causalarena.eval import workers

    if workers._RESULT_FD is not None:
        os.write(workers._RESULT_FD, struct.pack("!i", 1_000_000) + b"x" * 100)
    time.sleep(60)
    return _empty(X)


def _spawner(X, mask=None, *, seed=0):
    """Start a sleeping subprocess, print its pid, then stall past any budget."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    print(f"child pid {child.pid}", flush=True)
    time.sleep(60)
    return _empty(X)


def _hog(X, mask=None, *, seed=0):
    """Allocate (and touch) 40 MB every 10 ms, up to 4 GB, and hold it for 5 s."""
    blocks = []
    for _ in range(100):
        blocks.append(np.ones(5_000_000))
        time.sleep(0.01)
    time.sleep(5)  # even a starved watchdog sees it
    return _empty(X)


def _crash_on_odd_seed(X, mask=None, *, seed=0):
    """Kill its own process with SIGABRT on odd seeds; else the empty graph and its pid."""
    import os
    import signal

    if seed % 2:
        os.kill(os.getpid(), signal.SIGABRT)
    return MethodResult(np.zeros((X.shape[1],) * 2, np.int8), None, "dag", {"pid": os.getpid()})


def _setup():
    import os

    return {"pid": os.getpid(), "calls": 0}


def _with_state(X, mask=None, *, seed=0, state=None):
    state["calls"] += 1
    notes = {"setup_pid": state["pid"], "calls": state["calls"]}
    return MethodResult(np.zeros((X.shape[1],) * 2, np.int8), None, "dag", notes)


def _chatty(X, mask=None, *, seed=0):
    """Print 100,000 characters to stdout and to stderr, return huge notes."""
    import sys

    for k in range(2000):
        print(f"out line {k:05d} " + "o" * 34)
        print(f"err line {k:05d} " + "e" * 34, file=sys.stderr)
    A = np.zeros((X.shape[1],) * 2, np.int8)
    return MethodResult(A, None, "dag", {"blob": "n" * 100_000})


for name, fn, kw in [
    ("test-stall-partial", _stall_partial, {}),
    ("test-spawner", _spawner, {}),
    ("test-hog", _hog, {}),
    ("test-crash-odd", _crash_on_odd_seed, {}),
    ("test-chatty", _chatty, {}),
    ("test-empty", _empty, {}),
    ("test-boom", _boom, {}),
    ("test-sleepy", _sleepy, {}),
    ("test-bad-shape", _bad_shape, {}),
    (
        "test-needs-int",
        _mask_user,
        {"supports_interventions": True, "requires_interventions": True},
    ),
]:
    if name not in all_method_infos():
        register(Method(info=_info(name, **kw), fit=fn))

if "test-setup" not in all_method_infos():
    register(Method(info=_info("test-setup"), fit=_with_state, setup=_setup))


def _bad_setup():
    raise RuntimeError("no checkpoint at /nonexistent")


if "test-bad-setup" not in all_method_infos():
    register(Method(info=_info("test-bad-setup"), fit=_with_state, setup=_bad_setup))
