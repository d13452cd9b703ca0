"""The executable SCM specification: the contract every suite family compiles to.

An :class:`SCMSpec` is a versioned, JSON-serialisable description of a structural causal model
(CausalArena paper, section 3.1, eq. 1: ``X_j := f_j(X_pa(j), eps_j)``): its variables, the DAG
given by each variable's parents, one mechanism per structural variable, one distribution per
root, one noise channel per variable, dependent root blocks, difficulty stressors and the
intervention definition (paper section 4 and appendix A.1).  Everything needed to sample the
SCM is stored in the spec; :func:`causalarena.generator.sample.sample` is a pure function of
``(spec, n_obs, n_int, seed)``.

Adjacency convention (used everywhere in the package): ``A[i, j] = 1`` iff ``i -> j``
(row = parent, column = child), with rows and columns in the order of ``spec.variables``.

Every invalid spec raises :class:`causalarena.errors.SpecError`, which names the variable,
the field and the offending value.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from causalarena.errors import SpecError

SCHEMA_VERSION = "1.0"
#: Largest magnitude accepted for any numeric parameter (keeps float64 sampling finite).
MAX_MAGNITUDE = 1e12

VariableKind = Literal["continuous", "binary", "ordinal", "categorical", "count"]
DependencyKind = Literal["common_factor", "random_covariance", "uniform_ball"]
StressorKind = Literal[
    "weak_signal",
    "high_noise",
    "feature_warping",
    "outliers",
    "missingness",
    "feature_corruption",
    "intervention_shift",
    "soft_intervention",
]
#: Stressor groups of the difficulty schedule (paper A.1, "Difficulty variants").
STRESSOR_GROUPS: dict[str, str] = {
    "weak_signal": "signal",
    "high_noise": "noise",
    "feature_warping": "observation",
    "outliers": "observation",
    "missingness": "observation",
    "feature_corruption": "observation",
    "intervention_shift": "intervention",
    "soft_intervention": "intervention",
}


def to_jsonable(value: Any, path: str = "params") -> Any:
    """Convert numpy scalars/arrays (recursively) to plain JSON types.

    Raises
    ------
    SpecError
        If a value is not finite or not representable in JSON.
    """
    if isinstance(value, dict):
        return {str(k): to_jsonable(v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist(), path)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        if abs(int(value)) > 2**63:
            raise SpecError(None, path, value, "integer parameters must fit in 64 bits")
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        if not math.isfinite(f):
            raise SpecError(None, path, f, "values must be finite numbers")
        if abs(f) > MAX_MAGNITUDE:
            raise SpecError(None, path, f, f"|value| must be <= {MAX_MAGNITUDE:g}")
        return f
    if value is None or isinstance(value, str):
        return value
    raise SpecError(None, path, value, f"type {type(value).__name__} is not JSON-serialisable")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class Component(_Strict):
    """A family tag with its parameters (a mechanism, root distribution or noise channel).

    Attributes
    ----------
    family : str
        Registered family name (see ``causalarena.generator.mechanisms.MECHANISMS``,
        ``causalarena.generator.distributions.ROOTS`` / ``NOISES``).
    params : dict
        JSON-serialisable parameters; their validity is checked by the family.
    """

    family: str
    params: dict[str, Any] = Field(default_factory=dict)

    @field_validator("params", mode="before")
    @classmethod
    def _jsonable(cls, v: Any) -> Any:
        return to_jsonable(v) if isinstance(v, dict) else v


class Variable(_Strict):
    """One variable of the SCM.

    Attributes
    ----------
    name : str
        Unique variable name (column name in every exported table).
    kind : {"continuous", "binary", "ordinal", "categorical", "count"}
        Data type kind of the released column (values are always stored as float32).
    role : {"root", "structural"}
        Roots have no parents and a ``root`` distribution; structural variables have at
        least one parent and a ``mechanism``.
    parents : list of str
        Names of the parents (the DAG is the union of these lists).
    mechanism : Component or None
        ``f_j`` for structural variables; evaluated on the parents in ``parents`` order.
    root : Component or None
        Marginal distribution of a root variable.
    noise : Component
        Noise channel applied to the standardised mechanism output (``family="none"`` for a
        deterministic equation).
    strength : float, default=1.0
        Multiplier of the standardised mechanism output (the weak-signal stressor sets 0.45).
    out_loc, out_scale : float
        Affine standardisation of the raw mechanism output, ``(f(pa) - out_loc) / out_scale``,
        calibrated once on a pilot sample when the spec is generated and then fixed, so sampling
        never uses batch statistics (paper A.3, stage 4).
    metadata : dict
        Free metadata (units, description, edge rationales, ...).
    """

    name: str = Field(min_length=1)
    kind: VariableKind = "continuous"
    role: Literal["root", "structural"]
    parents: list[str] = Field(default_factory=list)
    mechanism: Component | None = None
    root: Component | None = None
    noise: Component = Field(default_factory=lambda: Component(family="none"))
    strength: float = 1.0
    out_loc: float = 0.0
    out_scale: float = 1.0
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("metadata", mode="before")
    @classmethod
    def _jsonable_meta(cls, v: Any) -> Any:
        return to_jsonable(v, "metadata") if isinstance(v, dict) else v


class RootDependency(_Strict):
    """A block of dependent roots (paper A.1, "Root dependency").

    The block's joint latent sample is mapped to uniforms and pushed through each root's own
    quantile function (a copula), so the marginals stay those of the roots' families.
    """

    kind: DependencyKind
    roots: list[str] = Field(min_length=2)
    params: dict[str, Any] = Field(default_factory=dict)

    @field_validator("params", mode="before")
    @classmethod
    def _jsonable(cls, v: Any) -> Any:
        return to_jsonable(v) if isinstance(v, dict) else v


class Stressor(_Strict):
    """A difficulty stressor (paper A.1, "Difficulty variants")."""

    kind: StressorKind
    params: dict[str, Any] = Field(default_factory=dict)

    @field_validator("params", mode="before")
    @classmethod
    def _jsonable(cls, v: Any) -> Any:
        return to_jsonable(v) if isinstance(v, dict) else v


class ValueRule(_Strict):
    """How a do-intervention value is drawn (paper A.1, "Intervention value").

    ``kind="baseline_percentile_uniform"`` draws uniformly between the ``low_q`` and ``high_q``
    percentiles of the target's values in the observational rows of the same sample (for
    discrete kinds: uniformly among the observed levels in that range).
    ``kind="fixed"`` sets every targeted cell of variable ``v`` to ``values[v]`` (a classic
    ``do(X = x)``; every target in the pool needs a value).
    """

    kind: Literal["baseline_percentile_uniform", "fixed", "per_target"] = (
        "baseline_percentile_uniform"
    )
    low_q: float = Field(default=10.0, ge=0.0, le=100.0)
    high_q: float = Field(default=90.0, ge=0.0, le=100.0)
    values: dict[str, float] = Field(default_factory=dict)
    #: ``kind="per_target"`` (scenario intervention handles): one resampler per target, one of
    #: ``{"kind": "percentile", "low_q", "high_q"}`` (as above), ``{"kind": "uniform", "low",
    #: "high"}``, ``{"kind": "choice", "values": [...]}`` or ``{"kind": "fixed", "value"}``.
    #: Omitted from the JSON when empty, so synthetic specs serialise as before.
    resamplers: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _drop_empty(self, handler: Any) -> Any:
        out = handler(self)
        if isinstance(out, dict) and not out.get("resamplers"):
            out.pop("resamplers", None)
        return out


#: Intervention modes of a targeted cell (appendix A.2, protocol-sensitivity suites).
InterventionMode = Literal["resample", "setpoint", "parameter_shift"]


class SetpointRule(_Strict):
    """Fixed-setpoint do-values (appendix A.2, "Fixed setpoint").

    A cell in mode ``"setpoint"`` is set to one of the ``percentiles`` (chosen uniformly per
    cell) of the target's values in the observational rows of the same sample, plus a jitter
    drawn uniformly from ``[-jitter_iqr * IQR, +jitter_iqr * IQR]`` (IQR of the same baseline
    values).  Discrete kinds take the nearest observed level at that percentile, no jitter.
    Paper default: 20th/50th/80th percentiles, jitter 1% of the IQR.
    """

    percentiles: list[float] = Field(default_factory=lambda: [20.0, 50.0, 80.0], min_length=1)
    jitter_iqr: float = Field(default=0.01, ge=0.0, le=10.0)


class ParameterShift(_Strict):
    """A change of one target's mechanism (appendix A.2, "Parameter shift").

    In a cell in mode ``"parameter_shift"`` the target is *not* set to a value: its structural
    assignment is evaluated with a changed mechanism on the row's own parents and the row's
    own noise draw, and every descendant is recomputed.

    ``kind="parent_scale"``: parents enter the mechanism multiplied by ``factor``,
    ``f(factor * pa)`` (for a linear mechanism every parent effect is scaled by ``factor``).
    ``kind="strength_scale"``: the standardised mechanism output is multiplied by ``factor``
    (the node's ``strength`` times ``factor``).
    ``kind="bias_shift"``: ``shift_iqr`` times the IQR of the target's observational values
    in the same sample is added to the mechanism output before the noise is applied (a
    bias/threshold shift in units of the baseline IQR).
    """

    kind: Literal["parent_scale", "strength_scale", "bias_shift"]
    factor: float | None = None
    shift_iqr: float | None = None

    @model_serializer(mode="wrap")
    def _drop_unused(self, handler: Any) -> Any:
        out = handler(self)
        if isinstance(out, dict):
            for k in ("factor", "shift_iqr"):
                if out.get(k) is None:
                    out.pop(k, None)
        return out


class InterventionSpec(_Strict):
    """The intervention definition of an SCM (paper A.1, "Interventions").

    Attributes
    ----------
    targets : list of str
        The target pool; every interventional row targets variables from it.
    protocol : {"hard_resample", "shift"}
        ``"hard_resample"``: hard do-resampling, the target's structural assignment is replaced
        by the drawn value and every descendant is recomputed.  ``"shift"``: the shift-style
        laboratory intervention of CausaLab (section 3.2, after Rothenhaeusler et al. 2015):
        setting ``X`` to ``v`` makes ``X`` read ``v`` now and ``X`` keeps following its parents
        afterwards, ``X = v + sum_p (f_p(p) - f_p(p_at_intervention))``; descendants recompute.
        For one intervention per unit this equals hard do-resampling with the unit's exogenous
        terms kept, so :func:`causalarena.generator.sample.sample` stays valid; sequences of
        interventions on one unit are simulated by :mod:`causalarena.generator.lab.semantics`.
        It needs additive mechanisms (``linear`` or ``polynomial``) on every structural
        variable and one target per row.
    assignment : {"balanced"}
        Rows are assigned to targets in equal shares (remainder spread over the first targets
        of a seeded permutation).
    targets_per_row : int, default=1
    value_rule : ValueRule
    targets_per_row_max : int or None, default=None
        Random target counts per row (appendix A.2, "Multi-target per sample"): each
        interventional row draws its count uniformly from ``[targets_per_row,
        targets_per_row_max]`` and that many distinct targets uniformly from the pool.
    modes : list of {"resample", "setpoint", "parameter_shift"}, default ["resample"]
        How a targeted cell is intervened on.  ``"resample"``: hard do-intervention with a
        value from ``value_rule``; ``"setpoint"``: hard do-intervention with a value from
        ``setpoint``; ``"parameter_shift"``: the target's mechanism is changed as given in
        ``parameter_shifts`` (its value is computed, not set).  With several modes the
        targeted cells are split among them in equal shares (remainder to the first modes of
        a seeded permutation), e.g. the dense mixed protocol of appendix A.2.
    setpoint : SetpointRule
    parameter_shifts : dict of str to ParameterShift
        One mechanism change per target; required for every target (all structural) when
        ``"parameter_shift"`` is a mode.

    Mask semantics: ``mask[r, j]`` is True iff cell ``(r, j)`` was intervened on, in any mode:
    its value was set (``resample``, ``setpoint``) or its mechanism was changed
    (``parameter_shift``).  The four new fields are omitted from the JSON when they hold their
    defaults, so specs without them serialise exactly as before.
    """

    targets: list[str] = Field(min_length=1)
    protocol: Literal["hard_resample", "shift"] = "hard_resample"
    assignment: Literal["balanced"] = "balanced"
    targets_per_row: int = Field(default=1, ge=1)
    value_rule: ValueRule = Field(default_factory=ValueRule)
    targets_per_row_max: int | None = Field(default=None, ge=1)
    modes: list[InterventionMode] = Field(default_factory=lambda: ["resample"], min_length=1)
    setpoint: SetpointRule = Field(default_factory=SetpointRule)
    parameter_shifts: dict[str, ParameterShift] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _drop_defaults(self, handler: Any) -> Any:
        out = handler(self)
        if isinstance(out, dict):
            if out.get("targets_per_row_max") is None:
                out.pop("targets_per_row_max", None)
            if out.get("modes") == ["resample"]:
                out.pop("modes", None)
            if out.get("setpoint") == SetpointRule().model_dump():
                out.pop("setpoint", None)
            if not out.get("parameter_shifts"):
                out.pop("parameter_shifts", None)
        return out


class SCMSpec(_Strict):
    """An executable SCM (see module docstring).

    Raises
    ------
    SpecError
        On construction (``SCMSpec(...)``, :meth:`from_json`, :meth:`from_dict`) when the spec
        has a cycle, an unknown parent, an unknown family tag, a parameter out of range, a
        missing or unknown field.
    """

    schema_version: Literal["1.0"] = SCHEMA_VERSION
    scm_id: str = Field(min_length=1)
    family: str = "custom"
    variables: list[Variable] = Field(min_length=1)
    root_dependency: list[RootDependency] = Field(default_factory=list)
    stressors: list[Stressor] = Field(default_factory=list)
    intervention: InterventionSpec | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("metadata", mode="before")
    @classmethod
    def _jsonable_meta(cls, v: Any) -> Any:
        return to_jsonable(v, "metadata") if isinstance(v, dict) else v

    def __init__(self, **data: Any):
        from causalarena.safejson import JSONDepthError, check_object

        try:
            check_object(data)
        except JSONDepthError as exc:
            raise SpecError(
                None, exc.path, f"depth {exc.depth}", f"nested too deeply ({exc})"
            ) from None
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _spec_error_from_validation(exc, data) from None

    # ------------------------------------------------------------------ validation
    @model_validator(mode="after")
    def _check(self) -> SCMSpec:
        _validate_semantics(self)
        return self

    # ------------------------------------------------------------------ (de)serialisation
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SCMSpec:
        """Build and validate a spec from a plain dict.

        Raises
        ------
        SpecError
            Any schema or semantic problem.
        """
        if not isinstance(data, dict):
            raise SpecError(None, "<root>", type(data).__name__, "a spec must be a JSON object")
        return cls(**data)

    @classmethod
    def from_json(cls, text: str | bytes) -> SCMSpec:
        """Parse a spec from JSON text (inverse of :meth:`to_json`).

        Raises
        ------
        SpecError
            Invalid JSON or any schema or semantic problem.
        """
        import json

        from causalarena.safejson import JSONDepthError, loads

        if not isinstance(text, (str, bytes, bytearray)):
            raise SpecError(None, "<json>", type(text).__name__, "from_json needs str or bytes")
        try:
            data = loads(text)
        except JSONDepthError as exc:
            raise SpecError(None, "<json>", f"depth {exc.depth}", f"text {exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError) as exc:
            raise SpecError(None, "<json>", str(exc)[:200], "text is not valid JSON") from None
        return cls.from_dict(data)

    def to_json(self) -> str:
        """Canonical JSON text; ``SCMSpec.from_json(s.to_json()) == s`` exactly."""
        return self.model_dump_json()

    # ------------------------------------------------------------------ derived views
    @property
    def names(self) -> list[str]:
        """Variable names in column order."""
        return [v.name for v in self.variables]

    @property
    def d(self) -> int:
        """Number of variables."""
        return len(self.variables)

    def index(self) -> dict[str, int]:
        """Map variable name -> column index."""
        return {v.name: i for i, v in enumerate(self.variables)}

    def adjacency(self) -> np.ndarray:
        """Directed adjacency, ndarray of shape (d, d), dtype int8; ``A[i, j] = 1`` iff i -> j."""
        idx = self.index()
        a = np.zeros((self.d, self.d), dtype=np.int8)
        for j, v in enumerate(self.variables):
            for p in v.parents:
                a[idx[p], j] = 1
        return a

    def topological_order(self) -> list[int]:
        """Column indices in a topological order (parents before children).

        Ties are broken by column index, so the order is a pure function of the spec.
        """
        return _toposort(self)


def kahn_order(parents: list[list[int]]) -> list[int]:
    """Kahn's topological order of column indices given each column's parent indices, ties
    broken by the smallest index (a heap), so the order is a pure function of the graph.

    Returns fewer than ``len(parents)`` indices when the graph has a directed cycle (the
    columns on or after the cycle are left out); callers report it.
    """
    import heapq

    indeg = [len(ps) for ps in parents]
    children: list[list[int]] = [[] for _ in parents]
    for j, ps in enumerate(parents):
        for i in ps:
            children[i].append(j)
    heap = [i for i, k in enumerate(indeg) if k == 0]
    heapq.heapify(heap)
    order: list[int] = []
    while heap:
        i = heapq.heappop(heap)
        order.append(i)
        for c in children[i]:
            indeg[c] -= 1
            if indeg[c] == 0:
                heapq.heappush(heap, c)
    return order


def _toposort(spec: SCMSpec) -> list[int]:
    idx = {v.name: i for i, v in enumerate(spec.variables)}
    order = kahn_order([[idx[p] for p in v.parents] for v in spec.variables])
    if len(order) != len(spec.variables):
        done = set(order)
        left = [spec.variables[i].name for i in range(len(spec.variables)) if i not in done]
        raise SpecError(
            left[0],
            "parents",
            spec.variables[idx[left[0]]].parents,
            f"the parent lists contain a directed cycle through {left}",
        )
    return order


def _check_component(var: str | None, field: str, comp: Component, registry: dict, *args) -> None:
    fam = registry.get(comp.family)
    if fam is None:
        raise SpecError(
            var, f"{field}.family", comp.family, f"unknown family tag; known: {sorted(registry)}"
        )
    try:
        fam.validate(comp.params, *args)
    except SpecError:
        raise
    except (ValueError, TypeError, KeyError) as exc:
        raise SpecError(var, f"{field}.params", comp.params, str(exc)) from None


def _validate_semantics(spec: SCMSpec) -> None:
    from causalarena.generator.distributions import DEPENDENCIES
    from causalarena.generator.scenario.operations import ALL_MECHANISMS as MECHANISMS
    from causalarena.generator.scenario.operations import ALL_NOISES as NOISES
    from causalarena.generator.scenario.operations import ALL_ROOTS as ROOTS

    seen: set[str] = set()
    for v in spec.variables:
        if v.name in seen:
            raise SpecError(v.name, "name", v.name, "duplicate variable name")
        seen.add(v.name)
    for v in spec.variables:
        if len(set(v.parents)) != len(v.parents):
            raise SpecError(v.name, "parents", v.parents, "duplicate parent")
        for p in v.parents:
            if p == v.name:
                raise SpecError(
                    v.name, "parents", p, "self-loop: a variable cannot be its own parent"
                )
            if p not in seen:
                raise SpecError(v.name, "parents", p, "unknown parent (no variable of that name)")
        if v.role == "root":
            if v.parents:
                raise SpecError(v.name, "parents", v.parents, "a root variable has no parents")
            if v.root is None:
                raise SpecError(v.name, "root", None, "a root variable needs a root distribution")
            if v.mechanism is not None:
                raise SpecError(v.name, "mechanism", v.mechanism.family, "a root has no mechanism")
            _check_component(v.name, "root", v.root, ROOTS)
        else:
            if not v.parents:
                raise SpecError(
                    v.name, "parents", v.parents, "a structural variable needs at least one parent"
                )
            if v.mechanism is None:
                raise SpecError(
                    v.name, "mechanism", None, "a structural variable needs a mechanism"
                )
            if v.root is not None:
                raise SpecError(
                    v.name, "root", v.root.family, "only roots have a root distribution"
                )
            _check_component(v.name, "mechanism", v.mechanism, MECHANISMS, len(v.parents))
        _check_component(v.name, "noise", v.noise, NOISES)
        for fname in ("strength", "out_loc", "out_scale"):
            val = getattr(v, fname)
            if not math.isfinite(val):
                raise SpecError(v.name, fname, val, "must be finite")
        if v.out_scale <= 0:
            raise SpecError(v.name, "out_scale", v.out_scale, "must be > 0")
    _toposort(spec)
    for v in spec.variables:
        if v.role == "root":
            want = ROOTS[v.root.family].kind
        else:
            want = MECHANISMS[v.mechanism.family].output_kind
            want = want if want in ("ordinal", "any") else "continuous"
        if want != "any" and v.kind != want:  # "any": scenario families, kind declared
            raise SpecError(
                v.name,
                "kind",
                v.kind,
                f"family {(v.root or v.mechanism).family!r} produces {want!r} values",
            )
    roles = {v.name: v.role for v in spec.variables}
    in_block: set[str] = set()
    for b, block in enumerate(spec.root_dependency):
        for r in block.roots:
            if r not in roles:
                raise SpecError(r, f"root_dependency[{b}].roots", r, "unknown variable")
            if roles[r] != "root":
                raise SpecError(r, f"root_dependency[{b}].roots", r, "only roots can be in a block")
            if r in in_block:
                raise SpecError(r, f"root_dependency[{b}].roots", r, "root is in two blocks")
            in_block.add(r)
        _check_component(
            None,
            f"root_dependency[{b}]",
            Component(family=block.kind, params=block.params),
            DEPENDENCIES,
            len(block.roots),
        )
    _validate_stressors(spec)
    if spec.intervention is not None:
        iv = spec.intervention
        if len(set(iv.targets)) != len(iv.targets):
            raise SpecError(None, "intervention.targets", iv.targets, "duplicate target")
        for t in iv.targets:
            if t not in roles:
                raise SpecError(t, "intervention.targets", t, "unknown target variable")
        if iv.targets_per_row > len(iv.targets):
            raise SpecError(
                None,
                "intervention.targets_per_row",
                iv.targets_per_row,
                "cannot exceed the size of the target pool",
            )
        if iv.protocol == "shift":
            _validate_shift(spec)
        _validate_modes(spec)
        if iv.value_rule.kind == "fixed":
            missing = [t for t in iv.targets if t not in iv.value_rule.values]
            if missing:
                raise SpecError(
                    missing[0],
                    "intervention.value_rule.values",
                    iv.value_rule.values,
                    "a fixed value rule needs a value for every target",
                )
            for t, val in iv.value_rule.values.items():
                if t not in iv.targets:
                    raise SpecError(
                        t, "intervention.value_rule.values", t, "not in the target pool"
                    )
                if not math.isfinite(val):
                    raise SpecError(t, "intervention.value_rule.values", val, "must be finite")
        elif iv.value_rule.kind == "per_target":
            _validate_resamplers(iv.targets, iv.value_rule.resamplers)
        elif iv.value_rule.low_q >= iv.value_rule.high_q:
            raise SpecError(
                None,
                "intervention.value_rule",
                iv.value_rule.model_dump(),
                "low_q must be below high_q",
            )


#: Mechanism families whose output is a sum of per-parent terms (shift interventions need them).
SHIFT_MECHANISMS = ("linear", "polynomial")


def _validate_shift(spec: SCMSpec) -> None:
    """Shift interventions (CausaLab section 3.2) need additive mechanisms and one target."""
    iv = spec.intervention
    if iv.targets_per_row != 1:
        raise SpecError(
            None,
            "intervention.targets_per_row",
            iv.targets_per_row,
            "shift interventions set one property at a time",
        )
    for v in spec.variables:
        if v.mechanism is not None and v.mechanism.family not in SHIFT_MECHANISMS:
            raise SpecError(
                v.name,
                "mechanism.family",
                v.mechanism.family,
                f"shift interventions need additive mechanisms {list(SHIFT_MECHANISMS)}",
            )
    for st in spec.stressors:
        if st.kind in ("soft_intervention", "intervention_shift"):
            raise SpecError(
                None, "stressors", st.kind, "stressor does not apply to shift interventions"
            )


def _validate_modes(spec: SCMSpec) -> None:
    """Random target counts, intervention modes, setpoints and parameter shifts (A.2)."""
    iv = spec.intervention
    roles = {v.name: v.role for v in spec.variables}
    if iv.targets_per_row_max is not None:
        if iv.targets_per_row_max < iv.targets_per_row:
            raise SpecError(
                None,
                "intervention.targets_per_row_max",
                iv.targets_per_row_max,
                f"must be >= targets_per_row ({iv.targets_per_row})",
            )
        if iv.targets_per_row_max > len(iv.targets):
            raise SpecError(
                None,
                "intervention.targets_per_row_max",
                iv.targets_per_row_max,
                f"cannot exceed the size of the target pool ({len(iv.targets)})",
            )
    if len(set(iv.modes)) != len(iv.modes):
        raise SpecError(None, "intervention.modes", iv.modes, "mode listed twice")
    for k, q in enumerate(iv.setpoint.percentiles):
        if not 0.0 <= q <= 100.0:
            raise SpecError(
                None, f"intervention.setpoint.percentiles[{k}]", q, "must be in [0, 100]"
            )
    changed = iv.modes != ["resample"] or iv.targets_per_row_max is not None or iv.parameter_shifts
    if iv.protocol == "shift" and changed:
        raise SpecError(
            None,
            "intervention.protocol",
            iv.protocol,
            "shift interventions take one resampled target per row (no modes, "
            "targets_per_row_max or parameter_shifts)",
        )
    field = "intervention.parameter_shifts"
    for t, ps in iv.parameter_shifts.items():
        if t not in iv.targets:
            raise SpecError(t, field, t, "not in the target pool")
        if "parameter_shift" not in iv.modes:
            raise SpecError(
                t, field, t, "given, but 'parameter_shift' is not in intervention.modes"
            )
        if ps.kind == "bias_shift":
            if ps.factor is not None:
                raise SpecError(t, f"{field}.{t}.factor", ps.factor, "a bias_shift has no factor")
            if ps.shift_iqr is None or not math.isfinite(ps.shift_iqr) or ps.shift_iqr == 0:
                raise SpecError(
                    t, f"{field}.{t}.shift_iqr", ps.shift_iqr, "needs a finite non-zero shift_iqr"
                )
        else:
            if ps.shift_iqr is not None:
                raise SpecError(
                    t, f"{field}.{t}.shift_iqr", ps.shift_iqr, f"a {ps.kind} has no shift_iqr"
                )
            if ps.factor is None or not math.isfinite(ps.factor) or ps.factor <= 0:
                raise SpecError(t, f"{field}.{t}.factor", ps.factor, "needs a finite factor > 0")
    if "parameter_shift" in iv.modes:
        for t in iv.targets:
            if roles[t] != "structural":
                raise SpecError(
                    t,
                    "intervention.targets",
                    t,
                    "parameter-shift targets must be structural (a root has no mechanism)",
                )
            if t not in iv.parameter_shifts:
                raise SpecError(
                    t, field, None, "every target needs a parameter shift when it is a mode"
                )


_RESAMPLER_KEYS = {
    "percentile": ("low_q", "high_q"),
    "uniform": ("low", "high"),
    "choice": ("values",),
    "fixed": ("value",),
}


def _validate_resamplers(targets: list[str], res: dict[str, dict[str, Any]]) -> None:
    """Per-target intervention resamplers (scenario intervention handles, paper A.4/A.5)."""
    field = "intervention.value_rule.resamplers"
    for t in targets:
        if t not in res:
            raise SpecError(t, field, None, "a per_target value rule needs a resampler per target")
    for t, r in res.items():
        if t not in targets:
            raise SpecError(t, field, t, "not in the target pool")
        kind = r.get("kind") if isinstance(r, dict) else None
        if kind not in _RESAMPLER_KEYS:
            raise SpecError(t, f"{field}.kind", kind, f"must be one of {sorted(_RESAMPLER_KEYS)}")
        want = set(_RESAMPLER_KEYS[kind])
        if set(r) - {"kind"} != want:
            raise SpecError(
                t, field, r, f"a {kind!r} resampler has exactly the keys {sorted(want)}"
            )
        nums = list(r["values"]) if kind == "choice" else [r[k] for k in sorted(want)]
        if kind == "choice" and not nums:
            raise SpecError(t, f"{field}.values", r["values"], "needs at least one value")
        for x in nums:
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
                raise SpecError(t, field, x, "resampler values must be finite numbers")
        if kind == "percentile" and not 0 <= r["low_q"] < r["high_q"] <= 100:
            raise SpecError(t, field, r, "needs 0 <= low_q < high_q <= 100")
        if kind == "uniform" and not r["low"] < r["high"]:
            raise SpecError(t, field, r, "needs low < high")


_FRACTION = ("outliers", "missingness", "feature_corruption")
_WARPS = ("signed_log", "tanh", "signed_sqrt")


def _validate_stressors(spec: SCMSpec) -> None:
    """Parameters of each difficulty stressor (paper A.1, "Difficulty variants")."""
    seen: set[str] = set()
    names = set(spec.names)
    targets = spec.intervention.targets if spec.intervention else []
    for k, st in enumerate(spec.stressors):
        where = f"stressors[{k}].params"
        if st.kind in seen:
            raise SpecError(None, f"stressors[{k}].kind", st.kind, "stressor listed twice")
        seen.add(st.kind)
        p = st.params

        def num(key: str, lo: float, hi: float, lo_open: bool = False, p=p, where=where) -> None:
            val = p.get(key)
            if isinstance(val, bool) or not isinstance(val, (int, float)):
                raise SpecError(None, f"{where}.{key}", val, "must be a number")
            if val < lo or val > hi or (lo_open and val == lo):
                raise SpecError(
                    None,
                    f"{where}.{key}",
                    val,
                    f"must be in {'(' if lo_open else '['}{lo:g}, {hi:g}]",
                )

        def keys(allowed: tuple[str, ...], p=p, where=where) -> None:
            extra = sorted(set(p) - set(allowed))
            if extra:
                raise SpecError(
                    None,
                    f"{where}.{extra[0]}",
                    p[extra[0]],
                    f"unknown parameter; allowed: {list(allowed)}",
                )
            missing = [a for a in allowed if a not in p]
            if missing:
                raise SpecError(None, f"{where}.{missing[0]}", None, "required parameter missing")

        if st.kind == "weak_signal":
            keys(("factor",))
            num("factor", 0.0, 1.0, lo_open=True)
        elif st.kind == "high_noise":
            keys(("scale",))
            num("scale", 0.0, 1e3, lo_open=True)
        elif st.kind in _FRACTION:
            keys(("fraction",))
            num("fraction", 0.0, 0.5)
        elif st.kind == "soft_intervention":
            keys(("softness",))
            num("softness", 0.0, 1.0)
        elif st.kind == "feature_warping":
            keys(("columns", "transforms"))
            cols, tr = p["columns"], p["transforms"]
            if not isinstance(cols, list) or not isinstance(tr, list) or len(cols) != len(tr):
                raise SpecError(
                    None,
                    f"{where}.transforms",
                    tr,
                    "columns and transforms must be lists of equal length",
                )
            for c in cols:
                if c not in names:
                    raise SpecError(c, f"{where}.columns", c, "unknown variable")
            if len(set(cols)) != len(cols):
                raise SpecError(None, f"{where}.columns", cols, "duplicate column")
            for t in tr:
                if t not in _WARPS:
                    raise SpecError(
                        None, f"{where}.transforms", t, f"unknown transform; known: {list(_WARPS)}"
                    )
        elif st.kind == "intervention_shift":
            keys(("targets", "scales", "shifts"))
            tg, sc, sh = p["targets"], p["scales"], p["shifts"]
            if not all(isinstance(x, list) for x in (tg, sc, sh)) or not len(tg) == len(sc) == len(
                sh
            ):
                raise SpecError(
                    None,
                    f"{where}.targets",
                    tg,
                    "targets, scales and shifts must be lists of equal length",
                )
            for t in tg:
                if t not in targets:
                    raise SpecError(t, f"{where}.targets", t, "not in the intervention target pool")
            for key, arr in (("scales", sc), ("shifts", sh)):
                for x in arr:
                    if isinstance(x, bool) or not isinstance(x, (int, float)):
                        raise SpecError(None, f"{where}.{key}", x, "must be numbers")
            if any(x <= 0 for x in sc):
                raise SpecError(None, f"{where}.scales", sc, "scales must be > 0")


def _spec_error_from_validation(exc: ValidationError, data: dict[str, Any]) -> SpecError:
    err = exc.errors()[0]
    ctx_err = (err.get("ctx") or {}).get("error")
    loc = list(err.get("loc", ()))
    if isinstance(ctx_err, SpecError):
        if ctx_err.variable is not None or not loc:
            return ctx_err
        variable = None
        if len(loc) >= 2 and loc[0] == "variables" and isinstance(loc[1], int):
            try:
                variable = data["variables"][loc[1]].get("name")
            except (KeyError, IndexError, TypeError, AttributeError):
                variable = None
            loc = loc[2:]
        prefix = ".".join(str(p) for p in loc if p not in ("params", "metadata"))
        field = f"{prefix}.{ctx_err.field}" if prefix else ctx_err.field
        return SpecError(variable, field, ctx_err.value, ctx_err.reason)
    variable = None
    if len(loc) >= 2 and loc[0] == "variables" and isinstance(loc[1], int):
        try:
            variable = data["variables"][loc[1]].get("name")
        except (KeyError, IndexError, TypeError, AttributeError):
            variable = None
        if variable is None:
            variable = f"variables[{loc[1]}]"
        loc = loc[2:]
    field = ".".join(str(p) for p in loc) or "<root>"
    value = err.get("input")
    if err.get("type") == "missing":
        value = None
    return SpecError(variable, field, value, err.get("msg", "invalid"))
