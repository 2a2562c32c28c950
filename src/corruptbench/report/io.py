"""Load and validate results files (``corruptbench.results/1``, see RESULTS_SCHEMA in the docs).

A results file is what ``eval-c``, ``eval-p`` and ``demo`` write: one JSON object with ``schema``,
``kind`` (``"c"``, ``"p"`` or ``"demo"``), ``model``, ``dataset``, and the ImageNet-C part (``errors``,
``ce``, ``mce`` ...) at the top level and/or the ImageNet-P part (top level for ``kind="p"``, under
``"p"`` for a demo file). All rates are fractions.

Everything read here is checked: a malformed file (bad JSON, a missing key, a value of the wrong
type or outside its range) or one written for another major schema version raises ``ValueError``
whose message starts with the file name and says what is wrong.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS
from ..perturbations import ALL_PERTURBATIONS

__all__ = [
    "SCHEMA",
    "SCHEMA_PREFIX",
    "SCHEMA_MAJOR",
    "CResults",
    "PResults",
    "Results",
    "load_results",
    "parse_results",
    "apply_baseline",
    "unique_labels",
]

SCHEMA_PREFIX = "corruptbench.results"
SCHEMA_MAJOR = 1
SCHEMA = f"{SCHEMA_PREFIX}/{SCHEMA_MAJOR}"
KINDS = ("c", "p", "demo")
_T5D_MAX = 15.0


@dataclass(frozen=True)
class CResults:
    """The ImageNet-C part of a results file (validated; fractions; ``None`` = not available)."""

    errors: dict[str, list[float | None]]
    clean_error: float | None
    ce: dict[str, float | None]
    relative_ce: dict[str, float | None]
    mce: float | None
    relative_mce: float | None
    mean_error: float | None
    extra_mean_error: float | None
    baseline: str
    partial: bool
    missing: list[str]
    counts: dict[str, list[int | None]] = field(default_factory=dict)
    clean_count: int | None = None

    def mean_errors(self) -> dict[str, float | None]:
        """Corruption -> mean error over the five severities (``None`` if one is missing)."""
        out: dict[str, float | None] = {}
        for name, values in self.errors.items():
            present = [v for v in values if v is not None]
            out[name] = math.fsum(present) / len(present) if len(present) == len(values) else None
        return out


@dataclass(frozen=True)
class PResults:
    """The ImageNet-P part of a results file (validated)."""

    flip_probability: dict[str, float]
    top5_distance: dict[str, float]
    zipf_distance: dict[str, float]
    num_sequences: dict[str, int]
    difficulty: int
    baseline: str | None
    flip_rate: dict[str, float] | None
    t5d_ratio: dict[str, float] | None
    mfr: float | None
    mt5d: float | None
    notes: list[str]


@dataclass(frozen=True)
class Results:
    """One validated results file."""

    source: str  #: path (or description) the data came from
    data: dict[str, Any]  #: the raw JSON object
    kind: str
    model_id: str
    label: str  #: display name, unique among the results of one report
    c: CResults | None
    p: PResults | None

    @property
    def model(self) -> dict[str, Any]:
        return dict(self.data.get("model") or {})

    @property
    def dataset(self) -> dict[str, Any]:
        return dict(self.data.get("dataset") or {})


# ------------------------------------------------------------------------------------------------
# small typed readers; ``where`` is a human-readable location used in messages
# ------------------------------------------------------------------------------------------------
class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, message: str) -> ValueError:
        return ValueError(f"{self.source}: {message}")

    def obj(
        self, parent: Mapping[str, Any], key: str, where: str, *, required: bool = True
    ) -> dict[str, Any] | None:
        if key not in parent or parent[key] is None:
            if required:
                raise self.fail(f"missing key {where}{key!r} (an object)")
            return None
        value = parent[key]
        if not isinstance(value, dict):
            raise self.fail(f"{where}{key!r} must be an object, got {_tname(value)}")
        return value

    def string(
        self, parent: Mapping[str, Any], key: str, where: str, *, required: bool = True
    ) -> str | None:
        if key not in parent or parent[key] is None:
            if required:
                raise self.fail(f"missing key {where}{key!r} (a string)")
            return None
        value = parent[key]
        if not isinstance(value, str):
            raise self.fail(f"{where}{key!r} must be a string, got {_tname(value)}")
        return value

    def number(
        self, value: Any, where: str, *, lo: float = 0.0, hi: float = 1.0, allow_none: bool = True
    ) -> float | None:
        if value is None:
            if allow_none:
                return None
            raise self.fail(f"{where} is null; a number is required")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"{where} must be a number, got {_tname(value)} {_short(value)}")
        v = float(value)
        if math.isnan(v):
            return None if allow_none else _raise(self.fail(f"{where} is NaN"))
        if not lo <= v <= hi:
            hint = (
                " (fractions are expected, not percentages)"
                if hi == 1.0 and 1.0 < v <= 100.0
                else ""
            )
            raise self.fail(f"{where} = {v:g} is outside [{lo:g}, {hi:g}]{hint}")
        return v

    def integer(self, value: Any, where: str, *, allow_none: bool = True) -> int | None:
        if value is None and allow_none:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"{where} must be a non-negative integer, got {_short(value)}")
        return value

    def name(self, raw: Any, allowed: Sequence[str], what: str, where: str) -> str:
        if not isinstance(raw, str):
            raise self.fail(f"{where} has a non-string key {_short(raw)}")
        key = raw.strip().lower().replace("-", "_").replace(" ", "_")
        if key not in allowed:
            raise self.fail(f"{where} names an unknown {what} {raw!r}")
        return key

    def rate_map(
        self,
        parent: Mapping[str, Any],
        key: str,
        allowed: Sequence[str],
        what: str,
        *,
        lo: float = 0.0,
        hi: float = 1.0,
        required: bool = False,
        allow_none_values: bool = True,
    ) -> dict[str, Any] | None:
        raw = self.obj(parent, key, "", required=required)
        if raw is None:
            return None
        out: dict[str, Any] = {}
        for k, v in raw.items():
            name = self.name(k, allowed, what, f"{key!r}")
            out[name] = self.number(v, f"{key}[{k!r}]", lo=lo, hi=hi, allow_none=allow_none_values)
        return {n: out[n] for n in allowed if n in out}

    def str_list(self, parent: Mapping[str, Any], key: str) -> list[str]:
        value = parent.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{key!r} must be a list of strings, got {_short(value)}")
        return list(value)


def _raise(exc: Exception) -> Any:
    raise exc


def _tname(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------------------------------------
# parsing
# ------------------------------------------------------------------------------------------------
def _check_schema(r: _Reader, data: Mapping[str, Any]) -> None:
    schema = data.get("schema")
    if schema is None:
        raise r.fail(
            f"missing key 'schema' (expected {SCHEMA!r}); is this a corruptbench results file?"
        )
    if not isinstance(schema, str) or "/" not in schema:
        raise r.fail(f"'schema' must be a string like {SCHEMA!r}, got {_short(schema)}")
    prefix, _, version = schema.partition("/")
    if prefix != SCHEMA_PREFIX:
        raise r.fail(
            f"schema {schema!r} is not a corruptbench results schema (expected {SCHEMA!r})"
        )
    major_text = version.split(".")[0]
    if not major_text.isdigit():
        raise r.fail(f"schema {schema!r} has no version number (expected {SCHEMA!r})")
    if int(major_text) != SCHEMA_MAJOR:
        raise r.fail(
            f"results schema version {version} is incompatible: this corruptbench reads "
            f"{SCHEMA!r}. Re-create the file with this version, or use the corruptbench that wrote it."
        )


def _parse_c(r: _Reader, data: Mapping[str, Any]) -> CResults:
    raw_errors = r.obj(data, "errors", "")
    assert raw_errors is not None
    if not raw_errors:
        raise r.fail("'errors' is empty: no corruption was evaluated")
    errors: dict[str, list[float | None]] = {}
    for key, values in raw_errors.items():
        name = r.name(key, ALL_CORRUPTIONS, "corruption", "'errors'")
        if not isinstance(values, list) or len(values) != 5:
            raise r.fail(
                f"errors[{key!r}] must be a list of 5 per-severity errors (null where absent), got {_short(values)}"
            )
        errors[name] = [
            r.number(v, f"errors[{key!r}][severity {i}]") for i, v in enumerate(values, 1)
        ]
    errors = {n: errors[n] for n in ALL_CORRUPTIONS if n in errors}

    counts: dict[str, list[int | None]] = {}
    raw_counts = r.obj(data, "counts", "", required=False) or {}
    for key, values in raw_counts.items():
        name = r.name(key, ALL_CORRUPTIONS, "corruption", "'counts'")
        if values is None:
            continue
        if not isinstance(values, list) or len(values) != 5:
            raise r.fail(f"counts[{key!r}] must be a list of 5 image counts, got {_short(values)}")
        counts[name] = [
            r.integer(v, f"counts[{key!r}][severity {i}]") for i, v in enumerate(values, 1)
        ]

    clean_error = r.number(data.get("clean_error"), "'clean_error'")
    baseline = data.get("baseline", "alexnet")
    if baseline is None:
        baseline = "alexnet"
    if not isinstance(baseline, str):
        raise r.fail(f"'baseline' must be a string, got {_short(baseline)}")
    ce = r.rate_map(data, "ce", ALL_CORRUPTIONS, "corruption", hi=math.inf)
    # relative CE is negative when a corruption happens to help; any value is allowed
    rel = r.rate_map(data, "relative_ce", ALL_CORRUPTIONS, "corruption", lo=-math.inf, hi=math.inf)
    scalars: dict[str, float | None] = {}
    for key, lo, hi in (
        ("mce", 0.0, math.inf),
        ("relative_mce", -math.inf, math.inf),
        ("mean_error", 0.0, 1.0),
        ("extra_mean_error", 0.0, 1.0),
    ):
        scalars[key] = r.number(data.get(key), f"{key!r}", lo=lo, hi=hi)
    partial = data.get("partial")
    if partial is not None and not isinstance(partial, bool):
        raise r.fail(f"'partial' must be true or false, got {_short(partial)}")
    missing = r.str_list(data, "missing")

    if ce is None or scalars["mce"] is None and "mce" not in data:
        # derived numbers absent: compute them from the errors (the file's baseline if known)
        derived = _summarize(
            r, errors, clean_error, baseline if baseline in ("alexnet", "uniform") else "alexnet"
        )
        ce = derived.ce if ce is None else ce
        rel = derived.relative_ce if rel is None else rel
        for key in ("mce", "relative_mce", "mean_error", "extra_mean_error"):
            if key not in data:
                scalars[key] = getattr(derived, key)
        if partial is None:
            partial = derived.partial
        if "missing" not in data:
            missing = list(derived.missing)
    if partial is None:
        partial = any(ce.get(n) is None for n in BENCHMARK_CORRUPTIONS)
    return CResults(
        errors=errors,
        clean_error=clean_error,
        ce={n: ce.get(n) for n in errors} if ce is not None else {},
        relative_ce={n: (rel or {}).get(n) for n in errors},
        mce=scalars["mce"],
        relative_mce=scalars["relative_mce"],
        mean_error=scalars["mean_error"],
        extra_mean_error=scalars["extra_mean_error"],
        baseline=baseline,
        partial=bool(partial),
        missing=missing,
        counts=counts,
        clean_count=r.integer(data.get("clean_count"), "'clean_count'"),
    )


def _parse_p(r: _Reader, data: Mapping[str, Any], where: str) -> PResults:
    r2 = _Reader(f"{r.source}: {where}" if where else r.source)
    fp = r2.rate_map(
        data,
        "flip_probability",
        ALL_PERTURBATIONS,
        "perturbation",
        required=True,
        allow_none_values=False,
    )
    assert fp is not None
    if not fp:
        raise r2.fail("'flip_probability' is empty: no perturbation was evaluated")
    t5d = (
        r2.rate_map(
            data,
            "top5_distance",
            ALL_PERTURBATIONS,
            "perturbation",
            hi=_T5D_MAX,
            allow_none_values=False,
        )
        or {}
    )
    zipf = (
        r2.rate_map(
            data,
            "zipf_distance",
            ALL_PERTURBATIONS,
            "perturbation",
            hi=math.inf,
            allow_none_values=False,
        )
        or {}
    )
    nseq_raw = r2.obj(data, "num_sequences", "", required=False) or {}
    nseq = {
        r2.name(k, ALL_PERTURBATIONS, "perturbation", "'num_sequences'"): r2.integer(
            v, f"num_sequences[{k!r}]", allow_none=False
        )
        for k, v in nseq_raw.items()
    }
    difficulty = data.get("difficulty", 1)
    if isinstance(difficulty, bool) or not isinstance(difficulty, int) or difficulty < 1:
        raise r2.fail(f"'difficulty' must be a positive integer, got {_short(difficulty)}")
    baseline = data.get("baseline")
    if baseline is not None and not isinstance(baseline, str):
        raise r2.fail(f"'baseline' must be a string or null, got {_short(baseline)}")
    fr = r2.rate_map(
        data, "flip_rate", ALL_PERTURBATIONS, "perturbation", hi=math.inf, allow_none_values=False
    )
    t5r = r2.rate_map(
        data, "t5d_ratio", ALL_PERTURBATIONS, "perturbation", hi=math.inf, allow_none_values=False
    )
    return PResults(
        flip_probability=fp,
        top5_distance=t5d,
        zipf_distance=zipf,
        num_sequences={k: int(v or 0) for k, v in nseq.items()},
        difficulty=difficulty,
        baseline=baseline,
        flip_rate=fr,
        t5d_ratio=t5r,
        mfr=r2.number(data.get("mfr"), "'mfr'", hi=math.inf),
        mt5d=r2.number(data.get("mt5d"), "'mt5d'", hi=math.inf),
        notes=r2.str_list(data, "notes"),
    )


def parse_results(data: Any, source: str = "<results>") -> Results:
    """Validate a results object (already decoded from JSON) and return a :class:`Results`.

    Raises:
        ValueError: the message starts with ``source`` and names the problem.
    """
    r = _Reader(str(source))
    if not isinstance(data, dict):
        raise r.fail(f"a results file must hold a JSON object, got {_tname(data)}")
    _check_schema(r, data)
    kind = data.get("kind")
    if kind not in KINDS:
        raise r.fail(f"'kind' must be one of {', '.join(map(repr, KINDS))}, got {_short(kind)}")
    model = r.obj(data, "model", "")
    assert model is not None
    model_id = r.string(model, "id", "model.")
    assert model_id is not None
    if not model_id.strip():
        raise r.fail("model.id is empty")
    for key in ("source", "preprocessing"):
        r.string(model, key, "model.", required=False)
    dataset = r.obj(data, "dataset", "", required=False)
    if dataset is not None:
        for key in ("path", "layout", "profile", "fingerprint"):
            r.string(dataset, key, "dataset.", required=False)
        r.str_list(dataset, "notes")
    versions = r.obj(data, "versions", "", required=False)
    if versions is not None and not all(
        isinstance(v, (str, type(None))) for v in versions.values()
    ):
        raise r.fail("'versions' must map package names to version strings")
    r.number(data.get("time_s"), "'time_s'", hi=math.inf)
    r.string(data, "created", "", required=False)

    c = p = None
    if kind in ("c", "demo"):
        c = _parse_c(r, data)
    if kind == "p":
        p = _parse_p(r, data, "")
    elif kind == "demo" and data.get("p") is not None:
        p_data = r.obj(data, "p", "")
        assert p_data is not None
        p = _parse_p(r, p_data, "'p'")
    return Results(
        source=str(source), data=data, kind=kind, model_id=model_id, label=model_id, c=c, p=p
    )


def load_results(path: str | os.PathLike[str]) -> Results:
    """Read and validate one results JSON file.

    Raises:
        ValueError: unreadable file, bad JSON, missing keys, wrong types, incompatible schema.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{p}: no such results file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{p}: cannot read the results file ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    return parse_results(data, str(p))


def unique_labels(results: Sequence[Results]) -> list[Results]:
    """Give every result a distinct display label (the model id, plus the file name if needed)."""
    counts: dict[str, int] = {}
    for res in results:
        counts[res.model_id] = counts.get(res.model_id, 0) + 1
    out: list[Results] = []
    seen: set[str] = set()
    for res in results:
        label = res.model_id
        if counts[label] > 1:
            label = f"{label} ({Path(res.source).name})"
        base, n = label, 2
        while label in seen:
            label = f"{base} #{n}"
            n += 1
        seen.add(label)
        out.append(replace(res, label=label))
    return out


# ------------------------------------------------------------------------------------------------
# re-normalisation (--baseline)
# ------------------------------------------------------------------------------------------------
def _summarize(
    r: _Reader,
    errors: Mapping[str, Sequence[float | None]],
    clean: float | None,
    baseline: Any,
    baseline_clean: float | None = None,
) -> Any:
    from ..metrics import summarize_c

    try:
        return summarize_c(
            errors, clean_error=clean, baseline=baseline, baseline_clean_error=baseline_clean
        )
    except (TypeError, ValueError) as exc:
        raise r.fail(f"cannot compute CE: {exc}") from None


def apply_baseline(results: Sequence[Results], baseline: str | None) -> list[Results]:
    """Re-normalise CE / mCE (and FR / mFR) of every result by ``baseline``.

    ``baseline`` is ``None`` (keep the numbers stored in the files), ``"alexnet"`` (the published
    AlexNet errors), ``"uniform"`` (no normalisation: CE = mean error), the display label or model id
    of one of ``results``, or the path of another results file. A model baseline divides CE by that
    model's per-severity errors (and FP by its flip probabilities, giving FR / mFR).
    """
    if baseline is None:
        return list(results)
    key = baseline.strip()
    ref: Results | None = None
    if key.lower() not in ("alexnet", "uniform"):
        matches = [res for res in results if key in (res.label, res.model_id)]
        if matches:
            ref = matches[0]
        elif Path(key).is_file():
            ref = load_results(key)
        else:
            labels = ", ".join(repr(res.label) for res in results)
            raise ValueError(
                f"--baseline {baseline!r}: not 'alexnet', 'uniform', a model in the report ({labels}) "
                "or an existing results file"
            )
    out: list[Results] = []
    for res in results:
        r = _Reader(res.source)
        c = res.c
        if c is not None:
            if ref is None:
                s = _summarize(r, c.errors, c.clean_error, key.lower())
                desc = "alexnet" if key.lower() == "alexnet" else "uniform"
            else:
                if ref.c is None:
                    raise ValueError(f"--baseline {baseline!r} has no ImageNet-C errors")
                base_errors = {
                    n: v for n, v in ref.c.errors.items() if all(x is not None for x in v)
                }
                if not base_errors:
                    raise ValueError(f"--baseline {baseline!r} has no complete corruption")
                s = _summarize(r, c.errors, c.clean_error, base_errors, ref.c.clean_error)
                desc = ref.label
            c = replace(
                c,
                ce=dict(s.ce),
                relative_ce=dict(s.relative_ce),
                mce=s.mce,
                relative_mce=s.relative_mce,
                mean_error=s.mean_error,
                extra_mean_error=s.extra_mean_error,
                baseline=desc,
                partial=s.partial,
                missing=list(s.missing),
            )
        p = res.p
        if p is not None and ref is not None and ref.p is not None:
            from ..metrics import summarize_p

            base = {
                "flip_probability": ref.p.flip_probability,
                "top5_distance": ref.p.top5_distance,
            }
            sp = summarize_p(p.flip_probability, p.top5_distance or None, baseline=base)
            p = replace(
                p,
                baseline=ref.label,
                flip_rate=dict(sp.fr),
                t5d_ratio=dict(sp.t5d_ratio) or None,
                mfr=sp.mfr,
                mt5d=sp.mt5d,
                notes=[sp.notes] if sp.notes else [],
            )
        out.append(replace(res, c=c, p=p))
    return out
