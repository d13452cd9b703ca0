"""A reference interventional prior-fitted network (PFN) for the temporal effect track.

DoTime's headline experiment (Thumm et al., 2026, section 6; issue 14 section 5): a small
transformer trained on interventional pairs from a temporal SCM prior answers ``do()`` queries
from an episode's observed prefix, and is compared with an observational network of identical
capacity (same architecture, same training episodes, same steps) that can only forecast.

Prior and training data
-----------------------
Training episodes are the package's own temporal stream (:func:`causalarena.stream` with
``family="temporal"``): episode ``k`` of stream seed ``s`` for suite ``X`` is
``generate_suite_episodes(X, [k], ss=SeedSequence(stream_seed(s, "temporal/X", 0)))``, which
:func:`training_episodes` generates in batches (identical episodes, one simulation per batch
instead of one per episode).  Stream seeds have bit 63 set, so no training episode is a
released one.

What the network sees (both arms)
---------------------------------
Per query, ``CONTEXT + HORIZON`` tokens:

* ``CONTEXT`` context tokens: the last ``CONTEXT`` rows before onset (left-padded), each with
  ``CHANNELS`` values, their observed flags and channel-present flags, plus a padding flag
  (``3 * CHANNELS + 1`` features).  Channel 0 is the treatment (intervention target), channel 1
  the query variable, then the other observed variables in release order (the first
  ``CHANNELS - 2``; padded with zeros).  Each channel is standardised by its own context mean
  and SD (SD floored at :data:`SD_FLOOR`); values are clipped to ``+-CLIP``.
* ``HORIZON`` future tokens for rows ``onset + k``, ``k = 0 .. HORIZON - 1``: the imposed
  treatment value at that row (hard and time-varying: ``(v(t) - mean_A) / sd_A``; soft: the
  shift ``delta / sd_A``), whether the intervention is active, one-hot type (hard, soft,
  time-varying), whether the query variable is the treatment, and whether the row exists
  (``< T``).  7 features.
* Output: per future token, the query variable at row ``onset + k`` in its standardised units;
  a query at row ``r`` reads token ``min(r - onset, HORIZON - 1)``.

Interventions with ``extra_targets`` (several targets): only ``target`` is encoded (channel 0
and the future tokens); the other targets are ordinary channels.  Continuous-time suites are
featurised by row (the observation times are not encoded).

The **interventional arm** is trained on pairs: the target of token ``k`` is the intervened
arm ``x_int[onset + k, query]``.  The **observational arm** sees exactly the same context
tokens, but every intervention feature of the future tokens is zero (only the row-exists flag
and the positional embedding remain), in training and at prediction; its target is the factual
continuation ``x_obs[onset + k, query]``.  Its ``do()`` answer is therefore its forecast of the
factual path.  Neither arm ever sees the graph, the structure label, the SCM or any row at or
after onset.

Architecture: linear token embeddings, a learned positional embedding over the
``CONTEXT + HORIZON`` positions, a pre-norm ``torch.nn.TransformerEncoder`` (default 3 layers,
``d_model`` 64, 4 heads, feed-forward 128, no dropout), a final LayerNorm and a linear head.
Loss: Huber (delta 1) on the standardised targets (clipped to ``+-CLIP``), over valid tokens.
Optimiser: AdamW, cosine learning-rate decay, gradient-norm clip 1.

Checkpoints
-----------
:func:`save_checkpoint` writes a folder with ``checkpoint.pt`` (tensors and plain config,
loaded with ``torch.load(weights_only=True)``: no pickled code), ``model_card.json`` /
``model_card.md`` (provenance: arm, prior suite and version, stream seed, training seed, steps,
batch size, package and torch versions, parameter count, training loss, checksum) and
``model.py`` (a two-line wrapper, so the sealed harness can load the checkpoint with the import
spec ``"<folder>/model.py:Model"``; the sandbox may read the module's folder, i.e. the
checkpoint).  Checkpoints are written under a user path, never into the package.

Extra: ``pip install 'causalarena[pfn]'`` (``torch==2.13.0``, CPU wheel).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from causalarena._extras import require

torch = require("torch", "pfn", "causalarena.baselines.pfn")
nn = torch.nn

__all__ = [
    "ARMS",
    "PFNBaseline",
    "PFNConfig",
    "TrainData",
    "build_model",
    "featurize",
    "load_checkpoint",
    "param_count",
    "save_checkpoint",
    "train_arm",
    "training_data",
    "training_episodes",
]

ARMS = ("interventional", "observational")
CONTEXT = 32
HORIZON = 12
CHANNELS = 6
SD_FLOOR = 1e-2
CLIP = 20.0
CTX_FEATURES = 3 * CHANNELS + 1
FUT_FEATURES = 7
#: Grid gap of the continuous suites (``generator.temporal.suites``): horizon = T * gap.
_CONT_GAP = 0.1
CHECKPOINT = "checkpoint.pt"
CARD_JSON = "model_card.json"
CARD_MD = "model_card.md"
MODEL_PY = "model.py"


@dataclass(frozen=True)
class PFNConfig:
    """Architecture of the network (identical for both arms)."""

    d_model: int = 64
    layers: int = 3
    heads: int = 4
    ff: int = 128
    context: int = CONTEXT
    horizon: int = HORIZON
    channels: int = CHANNELS


# ----------------------------------------------------------------------------------- features
class _RowView:
    """The fields of a harness view (:class:`causalarena.eval.temporal.ModelInput`) that the
    featuriser reads, built from a stream or release row (no answers are read)."""

    def __init__(self, row: dict[str, Any]):
        t0 = int(row["onset"])
        self.variables = tuple(row["variables"])
        self.x_context = np.asarray(row["x_obs"], dtype=np.float64)[:t0]
        self.onset = t0
        self.window_end = int(row["window_end"])
        iv = row["intervention"]
        self.intervention = json.loads(iv) if isinstance(iv, str) else dict(iv)
        self.query_column = int(row["query_column"])
        self.query_times = np.asarray(row["query_times"], dtype=np.intp)
        self.T = int(row["T"])
        times = row.get("times")
        self.times = None if times is None else np.asarray(times, dtype=np.float64)
        self.horizon = None if times is None else float(self.T * _CONT_GAP)

    def intervention_path(self, rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Same rule as ``ModelInput.intervention_path``."""
        from causalarena.generator.temporal.simulate import intervention_path

        return intervention_path(
            self.intervention, rows, self.onset, self.window_end, self.times, self.horizon
        )


def _channels(v: Any, C: int) -> list[int]:
    a = (
        v.variables.index(v.intervention["target"])
        if v.intervention["target"] in v.variables
        else -1
    )
    q = int(v.query_column)
    rest = [j for j in range(len(v.variables)) if j not in (a, q)]
    return ([a, q] + rest)[:C] if a >= 0 else ([-1, q] + rest)[:C]


def featurize(
    v: Any, arm: str, cfg: PFNConfig = PFNConfig()
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Tokens of one view (see the module docstring).

    Parameters
    ----------
    v : ModelInput or row view
        Reads ``variables``, ``x_context`` (onset, N) float64 with NaN where missing,
        ``intervention``, ``onset``, ``window_end``, ``query_column``, ``T`` and
        ``intervention_path``.
    arm : {"interventional", "observational"}
        ``"observational"`` zeroes every intervention feature.

    Returns
    -------
    ctx : ndarray, shape (context, 3 * channels + 1), float32
    fut : ndarray, shape (horizon, 7), float32
    mu, sd : float
        Context mean and SD of the query variable (outputs are in these standardised units).
    """
    if arm not in ARMS:
        raise ValueError(f"arm must be one of {list(ARMS)}, got {arm!r}")
    L, H, C = cfg.context, cfg.horizon, cfg.channels
    x = np.asarray(v.x_context, dtype=np.float64)
    cols = _channels(v, C)
    n = x.shape[0]
    mus = np.zeros(C)
    sds = np.ones(C)
    ctx = np.zeros((L, 3 * C + 1), dtype=np.float32)
    take = min(n, L)
    ctx[: L - take, -1] = 1.0  # padding rows
    for c, j in enumerate(cols):
        if j < 0:
            continue
        col = x[:, j]
        ok = np.isfinite(col)
        if ok.any():
            mus[c] = float(col[ok].mean())
            sds[c] = max(float(col[ok].std()), SD_FLOOR)
        seg = col[n - take :]
        okseg = np.isfinite(seg)
        z = np.where(okseg, (np.where(okseg, seg, 0.0) - mus[c]) / sds[c], 0.0)
        ctx[L - take :, c] = np.clip(z, -CLIP, CLIP)
        ctx[L - take :, C + c] = okseg
        ctx[L - take :, 2 * C + c] = 1.0
    fut = np.zeros((H, FUT_FEATURES), dtype=np.float32)
    rows = v.onset + np.arange(H)
    fut[:, 6] = rows < int(v.T)
    if arm == "interventional" and cols[0] >= 0:
        iv = v.intervention
        vals, active = v.intervention_path(rows)
        soft = iv["type"] == "soft"
        z = vals / sds[0] if soft else (vals - mus[0]) / sds[0]
        fut[:, 0] = np.clip(np.where(active, z, 0.0), -CLIP, CLIP)
        fut[:, 1] = active
        fut[:, 2 + ("hard", "soft", "time_varying").index(iv["type"])] = 1.0
        fut[:, 5] = float(cols[0] == int(v.query_column))
    return ctx, fut, float(mus[1]), float(sds[1])


def query_tokens(v: Any, cfg: PFNConfig = PFNConfig()) -> np.ndarray:
    """Future-token index of each query row, ``min(row - onset, horizon - 1)`` (intp)."""
    k = np.asarray(v.query_times, dtype=np.intp) - int(v.onset)
    return np.clip(k, 0, cfg.horizon - 1)


# ---------------------------------------------------------------------------------- training data
def training_episodes(suite: str, stream_seed: int, n: int, start: int = 0, batch: int = 500):
    """Episodes ``start .. start + n - 1`` of the temporal stream of ``suite`` with seed
    ``stream_seed`` (the episodes :func:`causalarena.stream` yields; generated in batches)."""
    from causalarena.generator.synthetic.fresh import stream_seed as _seed
    from causalarena.generator.temporal.suites import generate_suite_episodes, get_temporal_suite

    s = get_temporal_suite(suite)
    ss = np.random.SeedSequence(_seed(stream_seed, f"temporal/{s.name}", 0))
    for b in range(start, start + n, batch):
        yield from generate_suite_episodes(s, range(b, min(b + batch, start + n)), ss=ss)


@dataclass
class TrainData:
    """Featurised training episodes: ``ctx`` (E, L, F) and ``fut`` (E, H, 7) float32 per arm,
    targets ``y`` (E, H) float32 per arm (standardised, NaN where invalid)."""

    ctx: np.ndarray
    fut: dict[str, np.ndarray]
    y: dict[str, np.ndarray]
    suite: str
    stream_seed: int
    n: int

    def __len__(self) -> int:
        return self.ctx.shape[0]


def training_data(
    suite: str, stream_seed: int, n: int, cfg: PFNConfig = PFNConfig(), progress: bool = False
) -> TrainData:
    """Featurise ``n`` stream episodes for both arms (same episodes, same context tokens).

    Interventional targets: ``x_int[onset + k, query]``; observational targets:
    ``x_obs[onset + k, query]`` (NaN where missing or past ``T``).
    """
    from causalarena.generator.temporal.storage import episode_columns

    H = cfg.horizon
    ctx = np.zeros((n, cfg.context, 3 * cfg.channels + 1), np.float32)
    fut = {a: np.zeros((n, H, FUT_FEATURES), np.float32) for a in ARMS}
    y = {a: np.full((n, H), np.nan, np.float32) for a in ARMS}
    t = time.time()
    for i, ep in enumerate(training_episodes(suite, stream_seed, n)):
        row = episode_columns(ep)
        v = _RowView(row)
        c, f_int, mu, sd = featurize(v, "interventional", cfg)
        _, f_obs, _, _ = featurize(v, "observational", cfg)
        ctx[i], fut["interventional"][i], fut["observational"][i] = c, f_int, f_obs
        rows = v.onset + np.arange(H)
        ok = rows < v.T
        q = v.query_column
        for a, arr in (("interventional", ep.x_int), ("observational", ep.x_obs)):
            vals = np.full(H, np.nan)
            vals[ok] = arr[rows[ok], q]
            y[a][i] = np.clip((vals - mu) / sd, -CLIP, CLIP)
        if progress and (i + 1) % 2000 == 0:
            import sys

            print(f"  featurised {i + 1}/{n} episodes ({time.time() - t:.0f} s)", file=sys.stderr)
    return TrainData(ctx, fut, y, suite, int(stream_seed), int(n))


# ------------------------------------------------------------------------------------- network
class DoPFN(nn.Module):
    """Transformer encoder over context and future tokens; one output per future token."""

    def __init__(self, cfg: PFNConfig):
        super().__init__()
        self.cfg = cfg
        d = cfg.d_model
        self.ctx_in = nn.Linear(3 * cfg.channels + 1, d)
        self.fut_in = nn.Linear(FUT_FEATURES, d)
        self.pos = nn.Parameter(torch.randn(cfg.context + cfg.horizon, d) * 0.02)
        layer = nn.TransformerEncoderLayer(
            d, cfg.heads, cfg.ff, dropout=0.0, batch_first=True, norm_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, 1)

    def forward(self, ctx: torch.Tensor, fut: torch.Tensor) -> torch.Tensor:
        """``ctx`` (B, L, F), ``fut`` (B, H, 7) float32 -> (B, H) standardised predictions."""
        h = torch.cat([self.ctx_in(ctx), self.fut_in(fut)], dim=1) + self.pos
        h = self.encoder(h)
        return self.head(self.norm(h[:, self.cfg.context :])).squeeze(-1)


def build_model(cfg: PFNConfig = PFNConfig(), seed: int = 0) -> DoPFN:
    """A freshly initialised network (initialisation seeded by ``seed``)."""
    torch.manual_seed(int(seed))
    return DoPFN(cfg)


def param_count(model: nn.Module) -> int:
    return int(sum(p.numel() for p in model.parameters()))


def _loss(model: DoPFN, ctx, fut, y) -> torch.Tensor:
    pred = model(ctx, fut)
    ok = torch.isfinite(y)
    return nn.functional.huber_loss(pred[ok], y[ok], delta=1.0)


def train_arm(
    data: TrainData,
    arm: str,
    *,
    steps: int,
    seed: int = 0,
    batch_size: int = 64,
    lr: float = 1e-3,
    cfg: PFNConfig = PFNConfig(),
    log_every: int = 0,
    log: Callable[[str], None] | None = None,
) -> tuple[DoPFN, dict[str, Any]]:
    """Train one arm for ``steps`` optimiser steps on minibatches drawn from ``data``.

    Minibatch indices come from ``numpy.random.default_rng(seed)``, so both arms of one seed
    visit the same episodes in the same order; initialisation is seeded by ``seed`` too.

    Returns
    -------
    model : DoPFN (eval mode)
    history : dict
        ``loss`` (mean training loss per logging window), ``final_loss``, ``seconds``,
        ``cpu_seconds``, ``steps``, ``batch_size``, ``lr``, ``seed``, ``arm``.
    """
    if arm not in ARMS:
        raise ValueError(f"arm must be one of {list(ARMS)}, got {arm!r}")
    if steps < 1 or batch_size < 1:
        raise ValueError(f"steps and batch_size must be >= 1, got {steps}, {batch_size}")
    model = build_model(cfg, seed)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps))
    )
    rng = np.random.default_rng(seed)
    ctx_all = torch.from_numpy(data.ctx)
    fut_all = torch.from_numpy(data.fut[arm])
    y_all = torch.from_numpy(data.y[arm])
    losses, window = [], []
    t0, c0 = time.time(), time.process_time()
    for step in range(steps):
        idx = torch.from_numpy(rng.integers(0, len(data), size=batch_size))
        loss = _loss(model, ctx_all[idx], fut_all[idx], y_all[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        window.append(loss.item())
        if log_every and (step + 1) % log_every == 0:
            losses.append(float(np.mean(window)))
            window = []
            if log is not None:
                log(f"  {arm} seed {seed}: step {step + 1}/{steps} loss {losses[-1]:.4f}")
    if window:
        losses.append(float(np.mean(window)))
    model.eval()
    hist = {
        "arm": arm,
        "seed": int(seed),
        "steps": int(steps),
        "batch_size": int(batch_size),
        "lr": float(lr),
        "loss": losses,
        "final_loss": losses[-1],
        "seconds": time.time() - t0,
        "cpu_seconds": time.process_time() - c0,
    }
    return model, hist


# ---------------------------------------------------------------------------------- checkpoints
_WRAPPER = '''"""Harness wrapper of this PFN checkpoint (written by causalarena.baselines.pfn).

Evaluate it sealed with the import spec "<this folder>/model.py:Model".
"""

from pathlib import Path

from causalarena.baselines.pfn import PFNBaseline


class Model(PFNBaseline):
    def __init__(self):
        super().__init__(Path(__file__).resolve().parent)
'''


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_checkpoint(
    model: DoPFN, arm: str, folder: str | os.PathLike, provenance: dict[str, Any]
) -> Path:
    """Write ``checkpoint.pt``, ``model_card.json``, ``model_card.md`` and ``model.py`` into
    ``folder`` (created; files written atomically).  ``provenance`` should hold at least
    ``prior`` (suite), ``stream_seed``, ``seed`` and ``steps``; the card adds the arm, the
    architecture, the parameter count, package/torch versions and the checkpoint's SHA-256."""
    import causalarena

    if arm not in ARMS:
        raise ValueError(f"arm must be one of {list(ARMS)}, got {arm!r}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    blob = {
        "format": "causalarena-pfn/1",
        "arm": arm,
        "config": asdict(model.cfg),
        "state_dict": model.state_dict(),
    }
    tmp = folder / (CHECKPOINT + ".tmp")
    torch.save(blob, tmp)
    os.replace(tmp, folder / CHECKPOINT)
    card = {
        "model": "causalarena reference interventional PFN (issue 14 section 5)",
        "arm": arm,
        "what_it_sees": (
            "context tokens of the observed prefix; future tokens with the intervention "
            "(target value/profile, active window, type)"
            if arm == "interventional"
            else "context tokens of the observed prefix; future tokens with every "
            "intervention feature zeroed (a forecaster of the factual path)"
        ),
        "architecture": asdict(model.cfg),
        "parameters": param_count(model),
        **provenance,
        "package_version": causalarena.__version__,
        "torch_version": torch.__version__,
        "checkpoint_sha256": _sha256(folder / CHECKPOINT),
    }
    for name, text in (
        (CARD_JSON, json.dumps(card, indent=2, sort_keys=True, default=str) + "\n"),
        (CARD_MD, _card_md(card)),
        (MODEL_PY, _WRAPPER),
    ):
        t = folder / (name + ".tmp")
        t.write_text(text)
        os.replace(t, folder / name)
    return folder


def _card_md(card: dict[str, Any]) -> str:
    lines = [f"# PFN checkpoint ({card['arm']} arm)", "", card["model"], "", "| field | value |"]
    lines.append("| --- | --- |")
    for k in sorted(card):
        if k in ("model", "loss_curve"):
            continue
        lines.append(f"| {k} | {json.dumps(card[k], default=str)} |")
    return "\n".join(lines) + "\n"


def _read_card(path: Path) -> dict[str, Any]:
    """The model card of a checkpoint folder, depth-checked (a deep or broken card is a
    ``ValueError`` naming the file, never a RecursionError)."""
    from causalarena import safejson

    try:
        card = safejson.loads(path.read_bytes())
    except ValueError as exc:  # invalid or undecodable text, or too deep (JSONDepthError)
        raise ValueError(f"{path}: not a readable model card ({exc})") from None
    if not isinstance(card, dict):
        raise ValueError(f"{path}: the model card must be a JSON object")
    return card


def load_checkpoint(folder: str | os.PathLike) -> tuple[DoPFN, str, dict[str, Any]]:
    """The network, its arm and its model card from a :func:`save_checkpoint` folder.

    Raises
    ------
    FileNotFoundError
        ``folder`` has no ``checkpoint.pt``.
    ValueError
        The file is not a causalarena PFN checkpoint, or its checksum disagrees with the card.
    """
    folder = Path(folder)
    path = folder / CHECKPOINT
    if not path.is_file():
        raise FileNotFoundError(f"PFN checkpoint {folder}: no {CHECKPOINT}")
    card: dict[str, Any] = {}
    if (folder / CARD_JSON).is_file():
        card = _read_card(folder / CARD_JSON)
        want = card.get("checkpoint_sha256")
        if want and want != _sha256(path):
            raise ValueError(f"PFN checkpoint {path}: SHA-256 differs from {CARD_JSON}")
    blob = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(blob, dict) or blob.get("format") != "causalarena-pfn/1":
        raise ValueError(f"{path}: not a causalarena PFN checkpoint (format causalarena-pfn/1)")
    cfg = PFNConfig(**blob["config"])
    model = DoPFN(cfg)
    model.load_state_dict(blob["state_dict"])
    model.eval()
    return model, str(blob["arm"]), card


# ------------------------------------------------------------------------------------ baseline
class PFNBaseline:
    """Temporal effect baseline answering each view with a trained PFN checkpoint.

    Parameters
    ----------
    checkpoint : path
        A :func:`save_checkpoint` folder; default ``$CAUSALARENA_PFN_CHECKPOINT``.

    ``predict(view)`` returns ``{"mean": ...}``, one value per query row (the query variable's
    predicted post-intervention value; the observational arm returns its forecast).  The
    harness derives the effect as ``mean - y_factual``.
    """

    name = "pfn"

    def __init__(self, checkpoint: str | os.PathLike | None = None):
        cand = checkpoint if checkpoint is not None else os.environ.get(CHECKPOINT_ENV)
        if not cand:
            raise FileNotFoundError(
                f"PFNBaseline needs a checkpoint folder (argument or ${CHECKPOINT_ENV}); "
                "train one with bench/pfn_experiment.py"
            )
        self.model, self.arm, self.card = load_checkpoint(cand)
        self.name = f"pfn_{self.arm[:3]}"
        torch.set_num_threads(1)

    def predict_many(self, views: Sequence[Any]) -> list[np.ndarray]:
        """Predictions of several views in one forward pass (same values as ``predict``)."""
        cfg = self.model.cfg
        feats = [featurize(v, self.arm, cfg) for v in views]
        ctx = torch.from_numpy(np.stack([f[0] for f in feats]))
        fut = torch.from_numpy(np.stack([f[1] for f in feats]))
        with torch.no_grad():
            out = self.model(ctx, fut).numpy().astype(np.float64)
        res = []
        for i, (v, f) in enumerate(zip(views, feats, strict=True)):
            res.append(f[2] + f[3] * out[i, query_tokens(v, cfg)])
        return res

    def predict(self, view: Any) -> dict[str, np.ndarray]:
        return {"mean": self.predict_many([view])[0]}


CHECKPOINT_ENV = "CAUSALARENA_PFN_CHECKPOINT"
