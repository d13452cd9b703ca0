"""Methods with known behaviour for runner tests (registered through $CAUSALARENA_METHODS)."""

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


for name, fn, kw in [
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
