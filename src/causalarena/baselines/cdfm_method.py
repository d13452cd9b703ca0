"""CDFM (Causal Discovery Foundation Model) adapter through ``cdfm-base`` (pretrained, a DAG).

The adapter loads a released checkpoint (a folder with ``config.json`` and
``model.safetensors``) from, in order: the ``checkpoint`` parameter, the
``$CAUSALARENA_CDFM_CHECKPOINT`` folder, or the user's Hugging Face cache copy of
``DMIRLAB/CDFM`` (looked up with ``local_files_only=True``).  It never downloads weights; with
no checkpoint the run fails with a message saying how to get one
(``huggingface-cli download DMIRLAB/CDFM``).  The loaded model is kept per worker process
and checkpoint: the method's ``setup`` hook loads the default checkpoint when the worker
starts, so its load cost is paid once per worker (the ``T_fixed`` of the paper's runtime
model) however many instances follow.

Output rule (paper B.4, "the released CDFM checkpoint and its official output logic"):
``CDFM.predict`` with the checkpoint's calibrated threshold; a checkpoint without a
calibration uses probability threshold 0.5 (recorded in ``notes["threshold_rule"]``).
``cdfm``'s ``adjacency[i, j] = 1`` means ``i -> j`` (its ``adjacency_to_edge_list`` reads row
= source, column = target), the package convention, so no transpose.  Cycles in the
thresholded graph are removed weakest-probability-first
(:func:`causalarena.baselines.acyclic.make_acyclic`); edge scores are the probabilities.

Extra: ``pip install 'causalarena[cdfm]'`` (torch 2.13.0 CPU wheel and ``cdfm-base``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ._isolation import keeps_torch_dtype
from .acyclic import make_acyclic
from .base import Method, MethodInfo, make_fit
from .registry import register

__all__ = ["CDFM_METHOD", "CHECKPOINT_ENV", "HUB_REPO", "resolve_checkpoint"]

#: Environment variable naming a local checkpoint folder.
CHECKPOINT_ENV = "CAUSALARENA_CDFM_CHECKPOINT"
#: Hub repository of the released checkpoint (only ever read from the local cache).
HUB_REPO = "DMIRLAB/CDFM"
_FILES = ("config.json", "model.safetensors")
_LOADED: dict[str, Any] = {}


def resolve_checkpoint(path: str | os.PathLike | None = None) -> Path:
    """Folder of the CDFM checkpoint to use, without any download.

    Parameters
    ----------
    path : str or Path, optional
        Explicit checkpoint folder; default ``$CAUSALARENA_CDFM_CHECKPOINT``, then the local
        Hugging Face cache copy of :data:`HUB_REPO`.

    Returns
    -------
    Path

    Raises
    ------
    FileNotFoundError
        The folder lacks ``config.json`` or ``model.safetensors``, or no checkpoint is on
        this machine (the message says how to get one).
    """
    cand = path if path is not None else os.environ.get(CHECKPOINT_ENV)
    if cand:
        folder = Path(cand).expanduser()
        missing = [f for f in _FILES if not (folder / f).is_file()]
        if missing:
            raise FileNotFoundError(f"CDFM checkpoint {folder}: missing {', '.join(missing)}")
        return folder
    try:
        from huggingface_hub import snapshot_download

        folder = Path(
            snapshot_download(HUB_REPO, local_files_only=True, allow_patterns=list(_FILES))
        )
    except Exception:  # LocalEntryNotFoundError, offline mode, hub not installed
        folder = None
    if folder is None or any(not (folder / f).is_file() for f in _FILES):
        raise FileNotFoundError(
            f"no CDFM checkpoint on this machine: set {CHECKPOINT_ENV} to a folder with "
            f"config.json and model.safetensors, or fetch the release once with "
            f"`huggingface-cli download {HUB_REPO}` (causalarena never downloads weights)"
        )
    return folder


def _model(folder: Path):
    key = str(folder.resolve())
    if key not in _LOADED:
        from cdfm import CDFM

        m = CDFM(checkpoint=key, device="cpu")
        _ = m.info  # load now, so the cost is paid once per worker
        _LOADED[key] = m
    return _LOADED[key]


def _setup() -> str | None:
    """Per-worker setup hook: load the default checkpoint once (``None`` when there is none).

    The run then fails in ``fit`` with the message of :func:`resolve_checkpoint`.
    """
    try:
        folder = resolve_checkpoint(None)
    except FileNotFoundError:
        return None
    _model(folder)
    return str(folder.resolve())


@keeps_torch_dtype
def _core(X, mask, seed, params, state=None):
    import torch

    folder = resolve_checkpoint(params["checkpoint"])
    model = _model(folder)
    threshold, rule = params["threshold"], "fixed"
    if threshold is None:
        if model.calibration_coefficients_ is None:
            threshold, rule = 0.5, "0.5 (checkpoint has no calibration)"
        else:
            rule = "checkpoint calibration"
    torch.manual_seed(int(seed))  # inference is deterministic; kept for any stochastic layer
    res = model.predict(np.asarray(X, dtype=np.float64), threshold=threshold)
    probs = np.asarray(res.probabilities, dtype=np.float64)
    np.fill_diagonal(probs, 0.0)
    A, notes = make_acyclic(np.asarray(res.adjacency) != 0, probs)
    notes.update(checkpoint=str(folder), threshold=float(res.threshold), threshold_rule=rule)
    return A, probs.astype(np.float32), notes


_INFO = MethodInfo(
    name="cdfm",
    display_name="CDFM",
    family="pretrained",
    supports_interventions=False,
    requires_interventions=False,
    outputs_edge_scores=True,
    output_graph="dag",
    library="cdfm-base",
    extra="cdfm",
    defaults={"checkpoint": None, "threshold": None},
    reference="DMIRLAB, 'CDFM: Towards a General-Purpose Causal Discovery Foundation Model', "
    "arXiv 2607.11508 (cdfm-base 0.1.0)",
    pretraining_disclosure="declared prior: causalarena/eval/data/pretraining_priors.json#cdfm",
)

CDFM_METHOD = register(
    Method(
        info=_INFO,
        fit=make_fit(_INFO, _core),
        requires=("torch", "cdfm", "safetensors"),
        setup=_setup,
    )
)
