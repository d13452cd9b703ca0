"""The scenario file format: one human-readable YAML file per semantic or formula SCM.

A scenario file (CausalArena paper, appendix A.3 stage 3, A.4, A.5) declares

* scenario metadata: ``id``, ``family`` (``semantic`` | ``formula``), ``domain`` (one of
  :data:`DOMAINS`), ``title``, ``summary``, ``author``, optional ``references`` and ``review``;
* ``constants`` (formula family): name -> ``{value, unit, meaning}``;
* ``variables``: each with ``name``, ``meaning``, ``unit``, measurement ``scale``
  (continuous | binary | ordinal | categorical | count), numeric ``range``, ``levels``
  (ordinal/categorical labels), ``story`` (data source or sampling story), ``observation``
  (observation process), ``intervenable``, and either a root ``distribution`` or ``parents``
  (parent -> one-sentence edge rationale) with a ``mechanism`` (one structured operation of
  the vocabulary, see :mod:`causalarena.generator.scenario.operations`) and a ``noise``
  channel; optional ``justify`` (declared boundary, near-copy, dominant-category reasons);
* ``interventions``: handles with ``target``, ``meaning`` and ``resampler``.

Unknown fields are rejected everywhere.  Every problem raises :class:`ScenarioError`, which
names the file, the variable, the field and the value.  See ``AUTHORING.md`` beside the
scenario folders for the authors' guide.
"""

from __future__ import annotations

import math
import os
import re
import reprlib
import stat
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from causalarena.errors import CausalArenaError

SEMANTIC_DOMAINS = (
    "cybersecurity_it_operations",
    "education",
    "finance_credit",
    "government_services",
    "healthcare_delivery",
    "housing_real_estate",
    "manufacturing",
    "public_health",
    "urban_transportation",
    "water_sanitation",
)
FORMULA_DOMAINS = (
    "biology_ecology",
    "astronomy",
    "chemistry",
    "mechanics_fluids",
    "earth_systems",
    "electromagnetism",
    "energy_systems",
    "materials_structures",
    "optics_waves",
    "thermodynamics",
)
DOMAINS = {"semantic": SEMANTIC_DOMAINS, "formula": FORMULA_DOMAINS}
#: Review criteria every reviewer scores 1-5 (paper section 4.4, A.3 stage 3).
REVIEW_CRITERIA = (
    "causal_plausibility",
    "mechanism_grounding",
    "measurement_realism",
    "no_aliases_or_near_copies",
    "no_vague_latents",
)
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxdict, _SHORT.maxlist, _SHORT.maxtuple, _SHORT.maxset = 3, 20, 20, 20, 20
_SHORT.maxstring = _SHORT.maxother = 100


class ScenarioError(CausalArenaError, ValueError):
    """A scenario file is invalid: names the file, variable, field and value."""

    def __init__(self, file: str | None, variable: str | None, field: str, value: Any, reason: str):
        self.file, self.variable, self.field, self.value, self.reason = (
            file,
            variable,
            field,
            value,
            reason,
        )
        # a container is shown bounded (reprlib), never as a full repr of a huge value
        shown = _SHORT.repr(value) if isinstance(value, (dict, list, tuple, set)) else repr(value)
        if len(shown) > 100:
            shown = shown[:97] + "..."
        where = f"{file}: " if file else ""
        var = f"variable {variable!r}, " if variable else ""
        if field == "<file>":  # a problem with the file itself: no field, no value
            super().__init__(f"{where}{reason}")
        else:
            super().__init__(f"{where}{var}field {field!r} = {shown}: {reason}")


class _S(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _finite(v: float) -> float:
    if not math.isfinite(v):
        raise ValueError("must be a finite number")
    return v


Num = Annotated[float, Field(allow_inf_nan=False)]


class Lin(_S):
    """A linear predictor ``intercept + sum(coef * parent)`` over named parents."""

    intercept: Num = 0.0
    terms: dict[str, Num] = Field(default_factory=dict)


LinOrNum = Lin | Num


def _lin(x: LinOrNum) -> Lin:
    return x if isinstance(x, Lin) else Lin(intercept=float(x))


class _Op(_S):
    describe: str | None = None  # optional plain-language mechanism description


class OpLinear(_Op):
    op: Literal["linear"]
    intercept: Num = 0.0
    terms: dict[str, Num]


class IndexTerm(_S):
    weight: Num
    lo: Num
    hi: Num


class OpAdditiveIndex(_Op):
    op: Literal["additive_index"]
    scale: Num = 1.0
    terms: dict[str, IndexTerm]


class OpSigmoid(_Op):
    op: Literal["sigmoid"]
    intercept: Num = 0.0
    terms: dict[str, Num]
    lower: Num = 0.0
    upper: Num = 1.0


class OpSaturating(_Op):
    op: Literal["saturating"]
    intercept: Num = 0.0
    terms: dict[str, Num]
    vmax: Num
    half: Num
    shape: Literal["hyperbolic", "exponential"] = "hyperbolic"
    offset: Num = 0.0


class OpThreshold(_Op):
    op: Literal["threshold"]
    intercept: Num = 0.0
    terms: dict[str, Num]
    cutoff: Num
    below: LinOrNum
    above: LinOrNum


class OpPiecewise(_Op):
    op: Literal["piecewise"]
    input: str
    knots: list[tuple[Num, Num]] = Field(min_length=2)
    intercept: Num = 0.0
    terms: dict[str, Num] = Field(default_factory=dict)


class OpOrdinal(_Op):
    op: Literal["ordinal"]
    intercept: Num = 0.0
    terms: dict[str, Num]
    cutpoints: list[Num] = Field(min_length=1)


class OpCategorical(_Op):
    op: Literal["categorical"]
    scores: dict[int | str, LinOrNum] = Field(min_length=2)


class OpRegimeSwitch(_Op):
    op: Literal["regime_switch"]
    by: str
    cutoff: Num | None = None
    regimes: dict[int | str, LinOrNum] = Field(min_length=2)


class OpStockFlow(_Op):
    op: Literal["stock_flow"]
    initial: LinOrNum = 0.0
    inflow: LinOrNum = 0.0
    outflow: LinOrNum = 0.0
    duration: LinOrNum = 1.0
    decay: Num = 0.0
    floor: Num | None = None


class OpEventRate(_Op):
    op: Literal["event_rate"]
    intercept: Num = 0.0
    terms: dict[str, Num] = Field(default_factory=dict)
    exposure: list[str] = Field(default_factory=list)


class OpProduct(_Op):
    op: Literal["product"]
    factors: list[str] = Field(min_length=1)
    coef: Num = 1.0
    offset: Num = 0.0


class OpPowerLaw(_Op):
    op: Literal["power_law"]
    coef: Num = 1.0
    exponents: dict[str, Num] = Field(min_length=1)


class OpRatio(_Op):
    op: Literal["ratio"]
    numerator: LinOrNum
    denominator: LinOrNum
    scale: Num = 1.0


class OpExpLog(_Op):
    op: Literal["exp_log"]
    fn: Literal["exp", "log", "log10", "log1p"]
    intercept: Num = 0.0
    terms: dict[str, Num]
    scale: Num = 1.0
    offset: Num = 0.0


class OpPeriodic(_Op):
    op: Literal["periodic"]
    input: str
    period: Num
    amplitude: Num
    phase: Num = 0.0
    offset: Num = 0.0
    terms: dict[str, Num] = Field(default_factory=dict)


class OpClamp(_Op):
    op: Literal["clamp"]
    intercept: Num = 0.0
    terms: dict[str, Num]
    lower: Num
    upper: Num


class OpMinMax(_Op):
    op: Literal["minmax"]
    fn: Literal["min", "max"]
    branches: list[LinOrNum] = Field(min_length=2)


class OpMeasurement(_Op):
    op: Literal["measurement"]
    of: str
    gain: Num = 1.0
    offset: Num = 0.0
    terms: dict[str, Num] = Field(default_factory=dict)


class OpCalibration(_Op):
    op: Literal["calibration"]
    reading: str
    gain: Num = 1.0
    offset: Num = 0.0
    terms: dict[str, Num] = Field(default_factory=dict)


FORMULA_TAGS = (
    "physical_law",
    "deterministic_formula",
    "power_law",
    "exp_log",
    "ratio_normalisation",
    "product",
    "trig_periodic",
    "linear_affine",
    "saturating_response",
    "stock_flow",
)


class OpFormula(_Op):
    op: Literal["formula"]
    law: str = Field(min_length=3)
    equation: str
    symbols: dict[str, str] = Field(default_factory=dict)
    solve_for: str | None = None
    branch: int = Field(default=0, ge=0)
    tag: Literal[FORMULA_TAGS] = "physical_law"  # type: ignore[valid-type]
    reverse_orientation: str | None = None  # why the reverse direction is not causal


Mechanism = Annotated[
    OpLinear
    | OpAdditiveIndex
    | OpSigmoid
    | OpSaturating
    | OpThreshold
    | OpPiecewise
    | OpOrdinal
    | OpCategorical
    | OpRegimeSwitch
    | OpStockFlow
    | OpEventRate
    | OpProduct
    | OpPowerLaw
    | OpRatio
    | OpExpLog
    | OpPeriodic
    | OpClamp
    | OpMinMax
    | OpMeasurement
    | OpCalibration
    | OpFormula,
    Field(discriminator="op"),
]

#: YAML distribution family -> its parameter names (the variable's range supplies low/high).
ROOT_PARAMS: dict[str, tuple[str, ...]] = {
    "normal": ("mean", "sd"),
    "lognormal": ("median", "sigma"),
    "uniform": (),
    "beta": ("a", "b"),
    "gamma": ("shape", "scale"),
    "triangular": ("mode",),
    "bernoulli": ("p",),
    "categorical": ("probs",),
    "poisson": ("mean",),
    "negative_binomial": ("mean", "dispersion"),
    "binomial": ("trials", "p"),
    "integer_uniform": (),
}
#: YAML noise family -> its parameter names (paper A.4/A.5 noise families).
NOISE_PARAMS: dict[str, tuple[str, ...]] = {
    "none": (),
    "normal": ("sd",),
    "lognormal": ("sigma",),
    "bernoulli": (),
    "poisson": (),
    "negative_binomial": ("dispersion",),
    "binomial": ("trials",),
    "beta": ("precision",),
    "gamma": ("shape",),
    "mixture_normal": ("weights", "means", "sds"),
    "student_t": ("df", "scale"),
    "laplace": ("scale",),
}


class _Family(BaseModel):
    model_config = ConfigDict(extra="allow")
    family: str
    _table: dict[str, tuple[str, ...]] = {}

    @model_validator(mode="after")
    def _params(self):
        table = self._table
        if self.family not in table:
            raise ValueError(f"unknown family {self.family!r}; known: {', '.join(table)}")
        got = set(self.model_extra or {})
        want = set(table[self.family])
        if got - want:
            bad = sorted(got - want)[0]
            raise ValueError(
                f"unknown parameter {bad!r} for {self.family} (allowed: {sorted(want) or 'none'})"
            )
        if want - got:
            raise ValueError(f"{self.family} needs parameter {sorted(want - got)[0]!r}")
        return self

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class Distribution(_Family):
    _table = ROOT_PARAMS


class Noise(_Family):
    _table = NOISE_PARAMS


class Justify(_S):
    boundary: str | None = None
    near_copy: dict[str, str] = Field(default_factory=dict)
    dominant_category: str | None = None


class Variable(_S):
    name: str
    meaning: str = Field(min_length=8)
    unit: str = Field(min_length=1)
    scale: Literal["continuous", "binary", "ordinal", "categorical", "count"]
    range: tuple[Num, Num]
    levels: list[str] | None = None
    story: str = Field(min_length=8)
    observation: str = Field(min_length=8)
    intervenable: bool = False
    distribution: Distribution | None = None
    parents: dict[str, str] = Field(default_factory=dict)
    mechanism: Mechanism | None = None
    noise: Noise = Field(default_factory=lambda: Noise(family="none"))
    justify: Justify = Field(default_factory=Justify)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not NAME_RE.match(v):
            raise ValueError("names are lower_snake_case identifiers (a-z, 0-9, _; max 64)")
        return v

    @model_validator(mode="after")
    def _shape(self):
        lo, hi = self.range
        if not lo < hi:
            raise ValueError(f"range [{lo}, {hi}] needs low < high")
        if self.distribution is None and self.mechanism is None:
            raise ValueError("a variable needs a root 'distribution' or 'parents' + 'mechanism'")
        if self.distribution is not None and (self.mechanism is not None or self.parents):
            raise ValueError("a root has a 'distribution' only (no parents, no mechanism)")
        if self.mechanism is not None and not self.parents:
            raise ValueError("a 'mechanism' needs 'parents' (parent: one-sentence rationale)")
        for p, why in self.parents.items():
            if len(why.strip()) < 10:
                raise ValueError(f"edge {p} -> {self.name} needs a one-sentence rationale")
        if self.scale in ("ordinal", "categorical"):
            if not self.levels or len(self.levels) < 2:
                raise ValueError(f"a {self.scale} variable needs 'levels' (>= 2 labels)")
            if (lo, hi) != (0, len(self.levels) - 1):
                raise ValueError(f"{self.scale} codes are 0..{len(self.levels) - 1}: set range")
        elif self.levels is not None:
            raise ValueError(f"'levels' only apply to ordinal/categorical, not {self.scale}")
        if self.scale == "binary" and (lo, hi) != (0, 1):
            raise ValueError("a binary variable has range [0, 1]")
        return self


class Resampler(_S):
    kind: Literal["percentile", "uniform", "choice", "fixed"]
    low_q: Num | None = None
    high_q: Num | None = None
    low: Num | None = None
    high: Num | None = None
    values: list[Num] | None = None
    value: Num | None = None

    @model_validator(mode="after")
    def _keys(self):
        want = {
            "percentile": {"low_q", "high_q"},
            "uniform": {"low", "high"},
            "choice": {"values"},
            "fixed": {"value"},
        }[self.kind]
        got = {
            k
            for k in ("low_q", "high_q", "low", "high", "values", "value")
            if getattr(self, k) is not None
        }
        if got != want:
            raise ValueError(
                f"a {self.kind} resampler has exactly {sorted(want)}, got {sorted(got)}"
            )
        return self

    def as_spec(self) -> dict[str, Any]:
        d = {"kind": self.kind}
        for k in ("low_q", "high_q", "low", "high", "value"):
            if getattr(self, k) is not None:
                d[k] = float(getattr(self, k))
        if self.values is not None:
            d["values"] = [float(x) for x in self.values]
        return d


class Intervention(_S):
    target: str
    meaning: str = Field(min_length=8)
    resampler: Resampler = Field(
        default_factory=lambda: Resampler(kind="percentile", low_q=10.0, high_q=90.0)
    )


class Constant(_S):
    value: Num
    unit: str = "dimensionless"
    meaning: str = Field(min_length=3)


class Review(_S):
    reviewer: str = Field(min_length=2)
    scores: dict[str, int]
    notes: str | None = None

    @field_validator("scores")
    @classmethod
    def _scores(cls, v: dict[str, int]) -> dict[str, int]:
        for k, s in v.items():
            if not 1 <= s <= 5:
                raise ValueError(f"score {k} = {s} must be 1-5")
        missing = [c for c in REVIEW_CRITERIA if c not in v]
        if missing:
            raise ValueError(f"missing review scores: {missing}")
        return v


class Scenario(_S):
    id: str
    family: Literal["semantic", "formula"]
    domain: str
    title: str = Field(min_length=5)
    summary: str = Field(min_length=20)
    author: str = Field(min_length=2)
    references: list[str] = Field(default_factory=list)
    constants: dict[str, Constant] = Field(default_factory=dict)
    variables: list[Variable] = Field(min_length=2)
    interventions: list[Intervention] = Field(min_length=1)
    review: Review | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not NAME_RE.match(v):
            raise ValueError("scenario ids are lower_snake_case (a-z, 0-9, _)")
        return v

    @model_validator(mode="after")
    def _domain(self):
        if self.domain not in DOMAINS[self.family]:
            raise ValueError(
                f"domain {self.domain!r} is not a {self.family} domain; known: "
                f"{', '.join(DOMAINS[self.family])}"
            )
        return self

    def variable(self, name: str) -> Variable | None:
        for v in self.variables:
            if v.name == name:
                return v
        return None


# ------------------------------------------------------------------------------ loading


#: libyaml's safe loader when PyYAML has it (about 10x faster; same documents), else the
#: pure-Python one.
_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeBase):
    """Safe YAML loader that refuses duplicate mapping keys (a silent override otherwise)."""


def _construct_mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _error_from_validation(exc: ValidationError, data: Any, file: str | None) -> ScenarioError:
    err = exc.errors()[0]
    loc = list(err.get("loc", ()))
    variable = None
    if len(loc) >= 2 and loc[0] == "variables" and isinstance(loc[1], int):
        try:
            variable = data["variables"][loc[1]].get("name") or f"variables[{loc[1]}]"
        except (KeyError, IndexError, TypeError, AttributeError):
            variable = f"variables[{loc[1]}]"
        loc = loc[2:]
    # drop pydantic's union-branch labels (e.g. "saturating", "Lin", "float")
    field = ".".join(
        str(p)
        for p in loc
        if not (isinstance(p, str) and (p in _OP_LABELS or p[:1].isupper() or p == "float"))
    )
    value = None if err.get("type") == "missing" else err.get("input")
    msg = err.get("msg", "invalid").removeprefix("Value error, ")
    if err.get("type") == "extra_forbidden":
        msg = "unknown field (not part of the scenario format)"
    return ScenarioError(file, variable, field or "<root>", value, msg)


_OP_LABELS = {
    "linear",
    "additive_index",
    "sigmoid",
    "saturating",
    "threshold",
    "piecewise",
    "ordinal",
    "categorical",
    "regime_switch",
    "stock_flow",
    "event_rate",
    "product",
    "power_law",
    "ratio",
    "exp_log",
    "periodic",
    "clamp",
    "minmax",
    "measurement",
    "calibration",
    "formula",
}


def parse_scenario(data: Any, file: str | None = None) -> Scenario:
    """Validate a parsed YAML document into a :class:`Scenario`.

    Raises
    ------
    ScenarioError
        Unknown or missing fields, wrong types, bad values (names file/variable/field/value).
    """
    if not isinstance(data, dict):
        raise ScenarioError(file, None, "<root>", type(data).__name__, "a scenario is a mapping")
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise _error_from_validation(exc, data, file) from None


#: Largest scenario file read (bytes): a scenario is a few kB of YAML; anything above 1 MiB
#: is refused before it is read into memory.
MAX_FILE_BYTES = 1 << 20

_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _file_kind(mode: int) -> str:
    return next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")


def read_scenario_text(path: str | Path) -> str:
    """The UTF-8 text of a scenario file: regular files of at most :data:`MAX_FILE_BYTES` only.

    The file is opened without blocking and checked on the open descriptor, so a FIFO,
    socket or device is refused instead of read (reading a FIFO waits forever for a writer).

    Raises
    ------
    ScenarioError
        Field ``<file>``: unreadable, not a regular file, larger than the cap, or not UTF-8.
    """
    path = Path(path)

    def refuse(reason: str) -> ScenarioError:
        return ScenarioError(str(path), None, "<file>", None, reason)

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise refuse(f"cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno())
        if not stat.S_ISREG(mode.st_mode):
            raise refuse(
                f"is {_file_kind(mode.st_mode)}, not a regular file; only regular files are read"
            )
        if mode.st_size > MAX_FILE_BYTES:
            raise refuse(_too_big(mode.st_size))
        try:
            data = fh.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise refuse(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:  # grew after the check
        raise refuse(_too_big(len(data)))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise refuse(f"is not UTF-8 text (byte {exc.start})") from None


def _too_big(size: int) -> str:
    return (
        f"is {size:,} bytes, above the {MAX_FILE_BYTES:,}-byte (1 MiB) cap on a scenario file; "
        "a scenario is a few kB of YAML"
    )


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate one scenario YAML file (read with :func:`read_scenario_text`).

    Raises
    ------
    ScenarioError
        Unreadable file, not a regular file, above :data:`MAX_FILE_BYTES`, YAML syntax
        error, duplicate keys or any schema problem.
    """
    path = Path(path)
    text = read_scenario_text(path)
    try:
        # scenario files are flat hand-written specs: an alias (*name) is refused before any
        # object is built, so an alias bomb cannot expand (seconds, gigabytes) first
        for event in yaml.parse(text, Loader=_SafeBase):
            if isinstance(event, yaml.AliasEvent):
                line = event.start_mark.line + 1 if event.start_mark else "?"
                raise ScenarioError(
                    str(path),
                    None,
                    "<file>",
                    None,
                    f"line {line}: YAML aliases (*name) are not allowed in scenario files",
                )
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}" if mark else "<yaml>"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScenarioError(str(path), None, where, None, f"YAML error: {problem}") from None
    return parse_scenario(data, str(path))


def dump_scenario(sc: Scenario) -> str:
    """YAML text of a scenario (round-trips through :func:`parse_scenario`)."""
    data = sc.model_dump(mode="json", exclude_defaults=True, by_alias=True)
    # keep discriminators and families even when they equal a default
    for v, vd in zip(sc.variables, data["variables"], strict=True):
        if v.mechanism is not None:
            vd["mechanism"] = {"op": v.mechanism.op, **vd.get("mechanism", {})}
        vd["noise"] = {"family": v.noise.family, **v.noise.params}
        if v.distribution is not None:
            vd["distribution"] = {"family": v.distribution.family, **v.distribution.params}
        vd.setdefault("scale", v.scale)
    for iv, ivd in zip(sc.interventions, data["interventions"], strict=True):
        ivd["resampler"] = iv.resampler.as_spec()
    data.setdefault("family", sc.family)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
