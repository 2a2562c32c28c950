"""The test-time-adaptation stream part of a results file (``kind="stream"``, written by
``eval-stream --out`` / :func:`corruptbench.evaluate_stream`), and reading it back checked.

The part, under ``"stream"``: ``adapt`` (the method), ``adapt_options`` (the options it ran
with: tent's ``method`` / ``lr`` / ``steps``, norm's ``eps`` / ``momentum``, none for ``source``
or an adapter of the user's; absent from files written before they were recorded), ``settings``
(the stream's settings: dataset, setting, order, severities, seed, batch size, data),
``sequence_sha256``, ``ece_bins``,
the counts ``blocks`` / ``domains`` / ``cells`` (each ``{name, n, errors, severity,
calibration}``), ``batches`` (``[start, n, errors]`` of each batch in stream order), then the
derived numbers ``samples``, ``mean``, ``mean_at_5``, ``domain_mean``, ``overall``. Numbers, as
mariodoebler/test-time-adaptation commit 8b2ed63 ``test_time.py`` and ``utils/eval_utils.py``
print them:

* ``mean``: the mean of the blocks' errors (``np.mean(errs)``: per domain in continual
  settings; per domain and severity in gradual ones; the one mixed block in mixed settings);
* ``mean_at_5``: the mean over blocks at severity 5 (printed when a block has severity 5);
* ``domain_mean``: the average of the per-domain errors (``eval_domain_dict``'s "Average error
  across all domains", which splits mixed blocks by domain);
* ``overall``: errors over all samples ("Error over all samples").

:func:`parse_stream` checks every count (non-negative integers, errors no more than samples),
that blocks, domains, cells and batches count the same samples and errors, that each domain's
calibration is finite and agrees with its error, and recomputes the derived numbers and compares
them with the stored ones. :func:`legacy_document` turns a file of the first eval-stream format
(``"format": "corruptbench-stream-results"``) into this schema's object, read with the same checks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .reader import Reader, short_repr, type_name

__all__ = [
    "Counts",
    "StreamPart",
    "STREAM_KEY",
    "LEGACY_FORMAT",
    "DERIVED",
    "parse_stream",
    "legacy_document",
]

#: the results file's key of the part
STREAM_KEY = "stream"
#: the ``format`` of the first eval-stream files (before the part joined the results schema)
LEGACY_FORMAT = "corruptbench-stream-results"
#: the numbers derived from the counts, written after them and recomputed on reading
DERIVED = ("samples", "mean", "mean_at_5", "domain_mean", "overall")
_TOLERANCE = 1e-12
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass
class Counts:
    """Errors among samples of a part of the stream (a block, a domain, a cell); mutable, as the
    harness counts into it batch by batch."""

    name: str
    n: int = 0
    errors: int = 0
    severity: int | str | None = None  #: 1..5, or a CCC walk step's ``"s1+s2"``
    calibration: dict[str, Any] | None = None  #: CalibrationStats.summary() of the part

    @property
    def error(self) -> float:
        return self.errors / self.n if self.n else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n": self.n,
            "errors": self.errors,
            "severity": self.severity,
            "calibration": self.calibration,
        }


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True)
class StreamPart:
    """An online evaluation's numbers (module docstring). Everything but the counts is derived."""

    adapt: str
    settings: dict[str, Any]
    sequence_sha256: str
    blocks: list[Counts] = field(default_factory=list)
    domains: list[Counts] = field(default_factory=list)
    cells: list[Counts] = field(default_factory=list)
    batches: list[list[int]] = field(default_factory=list)
    ece_bins: int = 15
    adapt_options: dict[str, Any] | None = None  #: None: not recorded (an older file)

    @property
    def samples(self) -> int:
        return sum(b.n for b in self.blocks)

    @property
    def mean(self) -> float:
        """The mean of the blocks' errors (the reference's "mean error"); NaN without blocks."""
        m = _mean([b.error for b in self.blocks if b.n])
        return float("nan") if m is None else m

    @property
    def mean_at_5(self) -> float | None:
        """The mean of the errors of the blocks at severity 5; ``None`` without such a block."""
        return _mean([b.error for b in self.blocks if b.severity == 5 and b.n])

    @property
    def domain_mean(self) -> float:
        """The average of the per-domain errors ("Average error across all domains")."""
        m = _mean([d.error for d in self.domains if d.n])
        return float("nan") if m is None else m

    @property
    def overall(self) -> float:
        """Errors over all samples ("Error over all samples")."""
        n = self.samples
        return sum(b.errors for b in self.blocks) / n if n else float("nan")

    @property
    def order(self) -> list[str]:
        """The domains in stream order (the settings' order; else as the domains were counted)."""
        order = self.settings.get("order")
        if isinstance(order, list) and order:
            return [str(d) for d in order]
        return [d.name for d in self.domains]

    def domain_errors(self) -> dict[str, float]:
        """Domain -> its error, in stream order (domains without samples left out)."""
        err = {d.name: d.error for d in self.domains if d.n}
        return {d: err[d] for d in self.order if d in err}

    def to_dict(self) -> dict[str, Any]:
        """The file's ``stream`` object, keys in file order (NaN written as null)."""
        out: dict[str, Any] = {"adapt": self.adapt}
        if self.adapt_options is not None:
            out["adapt_options"] = dict(self.adapt_options)
        out |= {
            "settings": self.settings,
            "sequence_sha256": self.sequence_sha256,
            "ece_bins": self.ece_bins,
            "blocks": [c.to_dict() for c in self.blocks],
            "domains": [c.to_dict() for c in self.domains],
            "cells": [c.to_dict() for c in self.cells],
            "batches": [list(b) for b in self.batches],
        }
        for name in DERIVED:
            value = getattr(self, name)
            out[name] = None if isinstance(value, float) and math.isnan(value) else value
        return out


# ------------------------------------------------------------------------------------------------
# reading
# ------------------------------------------------------------------------------------------------
def _counts(r: Reader, raw: Any, where: str) -> Counts:
    if not isinstance(raw, dict):
        raise r.fail(f"{where} must be an object, got {type_name(raw)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise r.fail(f"{where}.name must be a non-empty string, got {short_repr(name)}")
    where = f"{where} ({name})"
    n = r.integer(raw.get("n"), f"{where}.n", allow_none=False)
    errors = r.integer(raw.get("errors"), f"{where}.errors", allow_none=False)
    assert n is not None and errors is not None
    if errors > n:
        raise r.fail(f"{where} has {errors} errors among {n} samples")
    severity = raw.get("severity")
    if severity is not None and not (_level(severity) or _pair(severity)):
        raise r.fail(
            f'{where}.severity must be 1..5, a CCC step\'s "s1+s2" (each in [0, 5]) or null, '
            f"got {short_repr(severity)}"
        )
    cal = raw.get("calibration")
    if cal is not None:
        cal = _calibration(r, cal, where, n, errors)
    return Counts(name, n, errors, severity, cal)


def _calibration(r: Reader, cal: Any, where: str, n: int, errors: int) -> dict[str, Any]:
    if not isinstance(cal, dict):
        raise r.fail(f"{where}.calibration must be an object, got {type_name(cal)}")
    for key, value in cal.items():
        r.number(value, f"{where}.calibration.{key}", hi=math.inf)
    if "n" in cal and cal["n"] != n:
        raise r.fail(f"{where}.calibration counts {cal['n']} samples, the part {n}")
    top1 = cal.get("top1_error")
    if n and top1 is not None and abs(top1 - errors / n) > 1e-9:
        raise r.fail(f"{where}.calibration.top1_error {top1} is not the part's error {errors / n}")
    return dict(cal)


def _count_list(r: Reader, part: Mapping[str, Any], key: str) -> list[Counts]:
    raw = part.get(key, [])
    if not isinstance(raw, list):
        raise r.fail(f"stream.{key} must be a list, got {type_name(raw)}")
    return [_counts(r, c, f"stream.{key}[{i}]") for i, c in enumerate(raw)]


def _batches(r: Reader, raw: Any) -> list[list[int]]:
    if not isinstance(raw, list):
        raise r.fail(f"stream.batches must be a list, got {type_name(raw)}")
    out, next_start = [], 0
    for i, b in enumerate(raw):
        where = f"stream.batches[{i}]"
        if not isinstance(b, list) or len(b) != 3:
            raise r.fail(f"{where} must be [start, n, errors], got {short_repr(b)}")
        start, n, errors = (r.integer(v, where, allow_none=False) for v in b)
        assert start is not None and n is not None and errors is not None
        if errors > n or start != next_start:
            raise r.fail(f"{where} = {b}: expected start {next_start} and errors <= n")
        next_start = start + n
        out.append([start, n, errors])
    return out


def _same_totals(r: Reader, parts: dict[str, list[tuple[int, int]]]) -> None:
    """Blocks, domains, cells and batches count the same samples and errors."""
    totals = {k: (sum(n for n, _ in v), sum(e for _, e in v)) for k, v in parts.items() if v}
    if len(set(totals.values())) > 1:
        shown = "; ".join(f"{k}: {n} samples, {e} errors" for k, (n, e) in totals.items())
        raise r.fail(f"the stream's counts disagree ({shown})")


def _check_derived(r: Reader, part: Mapping[str, Any], out: StreamPart) -> None:
    for name in DERIVED:
        stored = part.get(name)
        if stored is None:
            continue
        r.number(stored, f"stream.{name}", hi=math.inf)
        computed = getattr(out, name)
        if computed is None or math.isnan(computed) or abs(stored - computed) > _TOLERANCE:
            raise r.fail(f"stored stream.{name} {stored} is not the counts' {computed}")


def parse_stream(r: Reader, data: Mapping[str, Any]) -> StreamPart:
    """The ``stream`` part of ``data``, checked (module docstring).

    Raises:
        ValueError: the message starts with the file's name and says what is wrong.
    """
    part = r.obj(data, STREAM_KEY, "")
    assert part is not None
    adapt = r.string(part, "adapt", "stream.")
    if not adapt:
        raise r.fail("stream.adapt is empty")
    settings = r.obj(part, "settings", "stream.")
    assert settings is not None
    digest = part.get("sequence_sha256")
    if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
        raise r.fail(f"stream.sequence_sha256 must be 64 hex digits, got {short_repr(digest)}")
    bins = part.get("ece_bins", 15)
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise r.fail(f"stream.ece_bins must be a positive integer, got {short_repr(bins)}")
    blocks, domains, cells = (_count_list(r, part, k) for k in ("blocks", "domains", "cells"))
    batches = _batches(r, part.get("batches", []))
    _same_totals(
        r,
        {
            "blocks": [(c.n, c.errors) for c in blocks],
            "domains": [(c.n, c.errors) for c in domains],
            "cells": [(c.n, c.errors) for c in cells],
            "batches": [(b[1], b[2]) for b in batches],
        },
    )
    out = StreamPart(
        adapt, dict(settings), digest, blocks, domains, cells, batches, bins, _options(r, part)
    )
    _check_derived(r, part, out)
    return out


def _options(r: Reader, part: Mapping[str, Any]) -> dict[str, Any] | None:
    """``stream.adapt_options``: plain values by name, or None where the file has none."""
    options = r.obj(part, "adapt_options", "stream.", required=False)
    for key, value in (options or {}).items():
        if not isinstance(value, (str, int, float)):  # bool is an int
            raise r.fail(
                f"stream.adapt_options.{key} must be a number or a string, got {short_repr(value)}"
            )
    return None if options is None else dict(options)


def legacy_document(doc: Mapping[str, Any], schema: str) -> dict[str, Any]:
    """A first-format eval-stream file (``"format": "corruptbench-stream-results"``) as this
    schema's object (``schema``), to be read with the same checks; NaN means became null."""
    part = {k: v for k, v in doc.items() if k not in ("format", "model", "version")}
    for name in DERIVED:
        value = part.get(name)
        if isinstance(value, float) and math.isnan(value):
            part[name] = None
    return {
        "schema": schema,
        "kind": "stream",
        "model": doc.get("model"),
        "versions": {"corruptbench": doc.get("version")},
        STREAM_KEY: part,
    }


def _level(severity: Any) -> bool:
    return isinstance(severity, int) and not isinstance(severity, bool) and 1 <= severity <= 5


def _pair(severity: Any) -> bool:
    """A CCC walk step's severities ``"s1+s2"``: two plain numbers in [0, 5]."""
    if not isinstance(severity, str) or severity.count("+") != 1:
        return False
    try:
        values = [float(v) for v in severity.split("+") if v.strip() == v and v]
    except ValueError:
        return False
    return len(values) == 2 and all(0.0 <= v <= 5.0 for v in values)
