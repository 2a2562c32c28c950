"""The ``score`` object of a results file (``kind="score"``): making it, and reading it back checked.

Written by :func:`corruptbench.evaluate_grid` and ``corruptbench score``::

    "score": {"metric": "box AP", "clean": P, "scores": {"fog": [s1, .., s5], ...},
              "complete": true, "partial": false, "mpc": .., "rpc": .., "corruption_means": {..},
              "relative": {..}, "severity_means": [5], "mpc_corruptions": [..], "missing": [..]}

``clean`` and the scores are the measured numbers (``null``: not scored yet, in the file of an
evaluation between two cells); the rest is derived from them
(:func:`~corruptbench.metrics.summarize_scores`). Reading recomputes the derived numbers and refuses
a file whose stored ones disagree (naming the key), a NaN or infinite score, a complete grid that
:func:`~corruptbench.metrics.summarize_scores` refuses (a clean score of 0, missing benchmark
corruptions without ``partial``), and derived numbers in an incomplete file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..corruptions import ALL_CORRUPTIONS
from ..metrics import ScoreSummary, summarize_scores
from .parts import ScoreResults
from .reader import Reader, agrees, short_repr, type_name

__all__ = ["make_score_part", "parse_score"]

#: derived keys of the ``score`` object, in file order
_DERIVED = (
    "mpc",
    "rpc",
    "corruption_means",
    "relative",
    "severity_means",
    "mpc_corruptions",
)


def make_score_part(
    scores: Mapping[str, list[float | None]],
    clean: float | None,
    *,
    metric: str = "score",
    partial: bool = False,
) -> ScoreResults:
    """A :class:`ScoreResults` with its summary when every cell is there (``partial`` then says
    whether mPC leaves benchmark corruptions out, whatever was allowed).

    Raises:
        ValueError: a complete grid that :func:`~corruptbench.metrics.summarize_scores` refuses.
    """
    grid = {n: list(scores[n]) for n in ALL_CORRUPTIONS if n in scores}
    complete = clean is not None and all(v is not None for vals in grid.values() for v in vals)
    summary = summarize_scores(grid, clean, partial=partial) if complete else None
    if summary is not None:
        partial = summary.partial  # asked for, and true: some benchmark corruption is absent
    return ScoreResults(metric=metric, scores=grid, clean=clean, partial=partial, summary=summary)


def _score(r: Reader, value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise r.fail(
            f"{where} must be a number or null, got {type_name(value)} {short_repr(value)}"
        )
    v = float(value)
    if not math.isfinite(v):
        raise r.fail(f"{where} is {v} (a score must be finite)")
    return v


def _check_derived(r: Reader, obj: Mapping[str, Any], summary: ScoreSummary | None) -> None:
    """Stored derived numbers must be those of the grid (absent ones are simply recomputed)."""
    if summary is None:
        given = [k for k in _DERIVED if obj.get(k) not in (None, [], {})]
        if given:
            raise r.fail(
                f"'score.{given[0]}' is given but the grid is incomplete (a cell has no score)"
            )
        return
    derived = summary.to_dict()
    for key in _DERIVED:
        if key in obj and not agrees(obj[key], derived[key]):
            raise r.fail(
                f"'score.{key}' = {short_repr(obj[key])} disagrees with the scores, which give "
                f"{short_repr(derived[key])}"
            )


def _grid(r: Reader, obj: Mapping[str, Any]) -> dict[str, list[float | None]]:
    raw = r.obj(obj, "scores", "score.")
    assert raw is not None
    grid: dict[str, list[float | None]] = {}
    for key, values in raw.items():
        name = r.name(key, ALL_CORRUPTIONS, "corruption", "'score.scores'")
        if name in grid:
            raise r.fail(f"'score.scores' names {name!r} twice")
        if not isinstance(values, list) or len(values) != 5:
            raise r.fail(
                f"score.scores[{key!r}] must be a list of 5 per-severity scores (null where not "
                f"scored yet), got {short_repr(values)}"
            )
        grid[name] = [
            _score(r, v, f"score.scores[{key!r}][severity {s}]") for s, v in enumerate(values, 1)
        ]
    if not grid:
        raise r.fail("'score.scores' is empty: no corruption was scored")
    return grid


def parse_score(r: Reader, data: Mapping[str, Any]) -> ScoreResults:
    """The checked ``score`` object of a results file (see the module docstring).

    Raises:
        ValueError: ``"<file>: ..."`` naming the key.
    """
    obj = r.obj(data, "score", "")
    assert obj is not None
    metric = r.string(obj, "metric", "score.", required=False) or "score"
    grid = _grid(r, obj)
    clean = _score(r, obj.get("clean"), "'score.clean'")
    partial = obj.get("partial", False)
    if not isinstance(partial, bool):
        raise r.fail(f"'score.partial' must be true or false, got {short_repr(partial)}")
    try:
        part = make_score_part(grid, clean, metric=metric, partial=partial)
    except (TypeError, ValueError) as exc:
        raise r.fail(f"score: {exc}") from None
    if "complete" in obj and obj["complete"] is not part.complete:
        raise r.fail(
            f"'score.complete' = {short_repr(obj['complete'])} disagrees with the scores "
            f"({'every' if part.complete else 'not every'} cell has a score)"
        )
    if part.partial != partial:
        raise r.fail("'score.partial' is true but all 15 benchmark corruptions have scores")
    if "missing" in obj and obj["missing"] != part.missing:
        raise r.fail(
            f"'score.missing' = {short_repr(obj['missing'])} disagrees with the scores "
            f"({short_repr(part.missing)})"
        )
    _check_derived(r, obj, part.summary)
    return part
