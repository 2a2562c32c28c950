"""ImageNet-P summary: flip rate / mFR and top-5 distance ratio / mT5D against a measured baseline."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..grid import resolve_name
from ..perturbations import ALL_PERTURBATIONS, TEST_PERTURBATIONS, VALIDATION_PERTURBATIONS
from ..registry import canonical_name
from .checks import check_rate, mean_present

__all__ = ["PSummary", "summarize_p", "load_p_baseline", "TOP5_MAX"]

PathLike = str | os.PathLike[str]
TOP5_MAX = 15.0  # largest possible top-5 distance: 5 + 4 + 3 + 2 + 1


_NO_P_BASELINE_NOTE = (
    "mFR and mT5D not computed: AlexNet's ImageNet-P flip probabilities and top-5 distances were "
    "never published in machine-readable form (only a spreadsheet linked from hendrycks/robustness "
    "issue #49), so no baseline is built in. Give one you measured (an eval-p results file or a "
    "CSV of flip probabilities): --baseline FILE on the command line (eval-p, report), "
    "baseline=FILE or a mapping in Python (corruptbench.metrics.load_p_baseline reads both)."
)


@dataclass(frozen=True)
class PSummary:
    """ImageNet-P summary returned by :func:`summarize_p` (fractions; T5D in distance units).

    Attributes:
        fp: Perturbation -> flip probability.
        t5d: Perturbation -> top-5 distance (empty without T5D input).
        fr: Perturbation -> flip rate ``FP / FP_baseline`` (empty without a baseline).
        t5d_ratio: Perturbation -> ``T5D / T5D_baseline``.
        mfr: Mean ``fr`` over the 10 test perturbations present (``None`` without a baseline).
        mt5d: Mean ``t5d_ratio`` over the test perturbations present.
        mean_fp: Unnormalised mean FP over the test perturbations present.
        mean_t5d: Unnormalised mean T5D over the test perturbations present.
        validation_mfr: Mean ``fr`` over the 4 validation perturbations (never part of mFR).
        validation_mt5d: Mean ``t5d_ratio`` over the validation perturbations.
        baseline: Description of the baseline (``None`` when there is none).
        partial: ``True`` when mFR (or mean FP without baseline) misses test perturbations.
        missing: Test perturbations not covered by mFR / mean FP.
        notes: Plain-text remarks, ``""`` when there is nothing to say.
    """

    fp: dict[str, float]
    t5d: dict[str, float]
    fr: dict[str, float]
    t5d_ratio: dict[str, float]
    mfr: float | None
    mt5d: float | None
    mean_fp: float | None
    mean_t5d: float | None
    validation_mfr: float | None
    validation_mt5d: float | None
    baseline: str | None
    partial: bool
    missing: list[str] = field(default_factory=list)
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable plain-dict view."""
        return {
            "mfr": self.mfr,
            "mt5d": self.mt5d,
            "mean_fp": self.mean_fp,
            "mean_t5d": self.mean_t5d,
            "validation_mfr": self.validation_mfr,
            "validation_mt5d": self.validation_mt5d,
            "baseline": self.baseline,
            "partial": self.partial,
            "missing": list(self.missing),
            "notes": self.notes,
            "fp": dict(self.fp),
            "t5d": dict(self.t5d),
            "fr": dict(self.fr),
            "t5d_ratio": dict(self.t5d_ratio),
        }


def _parse_p_values(values: object, arg: str, *, t5d: bool) -> dict[str, float]:
    if not isinstance(values, Mapping):
        raise TypeError(
            f"{arg} must be a mapping perturbation name -> value, got {type(values).__name__}"
        )
    out: dict[str, float] = {}
    for raw_name, value in values.items():
        name = resolve_name("p", raw_name)
        if name in out:
            raise ValueError(f"{arg} names perturbation {name!r} twice (as {raw_name!r})")
        where = f"{arg}[{raw_name!r}]"
        if t5d:
            if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.number)
            ):
                raise TypeError(f"{where} must be a number, got {value!r}")
            v = float(value)
            if not 0.0 <= v <= TOP5_MAX:
                raise ValueError(f"{where} = {v!r}: a top-5 distance lies in [0, 15]")
        else:
            v = check_rate(value, where, allow_missing=False)  # type: ignore[assignment]
        out[name] = v
    return {name: out[name] for name in ALL_PERTURBATIONS if name in out}


def _ratios(
    values: Mapping[str, float], base: Mapping[str, float], label: str, notes: list[str]
) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, v in values.items():
        b = base.get(name)
        if b is None:
            notes.append(f"{name}: no baseline {label}.")
        elif b <= 0.0:
            notes.append(f"{name}: baseline {label} is 0, ratio undefined.")
        else:
            out[name] = v / b
    return out


def summarize_p(
    fp: Mapping[str, float],
    t5d: Mapping[str, float] | None = None,
    baseline: Mapping[str, Mapping[str, float]] | PathLike | None = None,
) -> PSummary:
    """Summarise ImageNet-P flip probabilities / top-5 distances into mFR and mT5D.

    ::

        FR[p]  = FP[p] / FP_baseline[p]        mFR  = mean of FR[p] over the 10 test perturbations
        T5R[p] = T5D[p] / T5D_baseline[p]      mT5D = mean of T5R[p] over the 10 test perturbations

    The 4 validation perturbations (speckle_noise, gaussian_blur, spatter, shear) are reported
    separately (``validation_mfr``). No AlexNet ImageNet-P baseline is built in (it was never
    published machine-readably); without ``baseline`` only raw FP/T5D and their means are
    returned, ``mfr``/``mt5d`` are ``None`` and ``notes`` says why.

    Args:
        fp: Perturbation -> flip probability (fraction).
        t5d: Perturbation -> top-5 distance, optional.
        baseline: ``{"flip_probability": {...}, "top5_distance": {...}}`` as returned by
            :func:`load_p_baseline`, or a path to a JSON/CSV file it can read.

    Returns:
        A :class:`PSummary`.

    Examples:
        >>> base = {"flip_probability": {"rotate": 0.2}, "top5_distance": {"rotate": 4.0}}
        >>> s = summarize_p({"rotate": 0.1}, {"rotate": 3.0}, baseline=base)
        >>> s.fr["rotate"], s.t5d_ratio["rotate"], s.partial
        (0.5, 0.75, True)
    """
    fps = _parse_p_values(fp, "fp", t5d=False)
    if not fps:
        raise ValueError("fp is empty; give at least one perturbation")
    t5ds = {} if t5d is None else _parse_p_values(t5d, "t5d", t5d=True)
    base, base_desc = _resolve_p_baseline(baseline)
    notes: list[str] = []
    fr: dict[str, float] = {}
    t5r: dict[str, float] = {}
    if base is None:
        notes.append(_NO_P_BASELINE_NOTE)
    else:
        fr = _ratios(fps, base["flip_probability"], "flip probability", notes)
        if t5ds:
            if base["top5_distance"]:
                t5r = _ratios(t5ds, base["top5_distance"], "top-5 distance", notes)
            else:
                notes.append("The baseline has no top-5 distances: mT5D not computed.")

    def over(group: Sequence[str], table: Mapping[str, float]) -> float | None:
        return mean_present(table.get(n) for n in group)

    covered = fr if base is not None else fps
    missing = [p for p in TEST_PERTURBATIONS if p not in covered]
    if missing and len(missing) < len(TEST_PERTURBATIONS):
        notes.append(f"Test-perturbation means are partial: missing {', '.join(missing)}.")
    return PSummary(
        fp=fps,
        t5d=t5ds,
        fr=fr,
        t5d_ratio=t5r,
        mfr=over(TEST_PERTURBATIONS, fr) if base is not None else None,
        mt5d=over(TEST_PERTURBATIONS, t5r) if t5r else None,
        mean_fp=over(TEST_PERTURBATIONS, fps),
        mean_t5d=over(TEST_PERTURBATIONS, t5ds),
        validation_mfr=over(VALIDATION_PERTURBATIONS, fr),
        validation_mt5d=over(VALIDATION_PERTURBATIONS, t5r),
        baseline=base_desc,
        partial=bool(missing),
        missing=missing,
        notes=" ".join(notes),
    )


def _resolve_p_baseline(
    baseline: Mapping[str, Mapping[str, float]] | PathLike | None,
) -> tuple[dict[str, dict[str, float]] | None, str | None]:
    """``summarize_p``'s ``baseline`` read and checked: (its tables, their description), or
    ``(None, None)`` without one."""
    if baseline is None:
        return None, None
    if isinstance(baseline, (str, os.PathLike)):
        return load_p_baseline(baseline), f"measured baseline from {os.fspath(baseline)}"
    if isinstance(baseline, Mapping):
        return _parse_p_baseline_mapping(baseline, "baseline"), "user-supplied baseline mapping"
    raise TypeError(f"baseline must be None, a path or a mapping, got {type(baseline).__name__}")


def _parse_p_baseline_mapping(data: Mapping[str, Any], source: str) -> dict[str, dict[str, float]]:
    if "flip_probability" not in data:
        raise ValueError(
            f"{source} needs a 'flip_probability' mapping perturbation -> FP "
            f"(optional 'top5_distance'); found keys {sorted(map(str, data))}"
        )
    t5d = data.get("top5_distance")
    return {
        "flip_probability": _parse_p_values(
            data["flip_probability"], f"{source}['flip_probability']", t5d=False
        ),
        "top5_distance": {}
        if t5d is None
        else _parse_p_values(t5d, f"{source}['top5_distance']", t5d=True),
    }


_FP_COLUMNS = ("fp", "flip_probability")
_T5D_COLUMNS = ("t5d", "top5_distance")


def load_p_baseline(path: PathLike) -> dict[str, dict[str, float]]:
    """Read a measured ImageNet-P baseline (e.g. AlexNet evaluated with ``corruptbench eval-p``).

    Two formats are accepted:

    - JSON (an eval-p results file): an object with ``"flip_probability"`` (perturbation -> FP) and
      optionally ``"top5_distance"`` (perturbation -> T5D); other keys are ignored.
    - CSV with a header row ``perturbation,fp,t5d`` (``flip_probability``/``top5_distance`` are
      accepted as column names; the t5d column and its cells may be absent/empty).
    - The results CSV of one model (``eval-p --csv``: ``model,file,metric,name,severity,value``,
      :mod:`corruptbench.results.export`): its ``flip_probability`` and ``top5_distance`` rows.

    The format is chosen by the suffix (``.json`` / ``.csv``), otherwise by whether the file starts
    with ``{``.

    Args:
        path: File to read.

    Returns:
        ``{"flip_probability": {name: fp}, "top5_distance": {name: t5d}}`` (validated names and
        values, reference order; ``top5_distance`` may be empty).

    Raises:
        ValueError: Malformed file, unknown perturbation name or out-of-range value.
    """
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    suffix = p.suffix.lower()
    is_json = suffix == ".json" or (suffix != ".csv" and text.lstrip().startswith("{"))
    if is_json:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{p}: not valid JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{p}: expected a JSON object with 'flip_probability'")
        return _parse_p_baseline_mapping(data, str(p))

    reader = csv.DictReader(text.splitlines())
    if {"model", "metric", "name", "value"} <= set(reader.fieldnames or []):
        return _parse_p_baseline_mapping(_long_csv(reader, p), str(p))
    header = {(canonical_name(h) if h else ""): h for h in (reader.fieldnames or [])}
    if "perturbation" not in header:
        raise ValueError(
            f"{p}: CSV needs a header row 'perturbation,fp,t5d'; got {reader.fieldnames}"
        )
    fp_col = next((header[c] for c in _FP_COLUMNS if c in header), None)
    if fp_col is None:
        raise ValueError(
            f"{p}: CSV needs an 'fp' (flip probability) column; got {reader.fieldnames}"
        )
    t5d_col = next((header[c] for c in _T5D_COLUMNS if c in header), None)
    fps: dict[str, float] = {}
    t5ds: dict[str, float] = {}
    for line, row in enumerate(reader, start=2):
        name = (row.get(header["perturbation"]) or "").strip()
        if not name:
            continue
        for col, table in ((fp_col, fps), (t5d_col, t5ds)):
            cell = (row.get(col) or "").strip() if col else ""
            if not cell:
                continue
            try:
                table[name] = float(cell)
            except ValueError:
                raise ValueError(f"{p}:{line}: {col} value {cell!r} is not a number") from None
    return _parse_p_baseline_mapping({"flip_probability": fps, "top5_distance": t5ds}, str(p))


def _long_csv(reader: csv.DictReader[str], p: Path) -> dict[str, dict[str, float]]:
    """The ImageNet-P numbers of a results CSV (one number per row) of one model."""
    tables: dict[str, dict[str, float]] = {"flip_probability": {}, "top5_distance": {}}
    models = set()
    for line, row in enumerate(reader, start=2):
        table = tables.get(row.get("metric") or "")
        if table is None or not (row.get("value") or "").strip():
            continue
        models.add(row.get("model"))
        try:
            table[row.get("name") or ""] = float(row["value"])
        except ValueError:
            raise ValueError(f"{p}:{line}: value {row['value']!r} is not a number") from None
    if len(models) > 1:
        raise ValueError(f"{p}: holds the numbers of {len(models)} models; give one model's")
    return tables
