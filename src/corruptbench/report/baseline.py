"""Display labels and re-normalisation (``report --baseline``) of the results in one report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..protocols import DEFAULT_PROTOCOL
from ..results import Baseline, Results, resolve_baseline

__all__ = ["unique_labels", "apply_baseline", "dataset_mismatches", "protocol_mismatches"]


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


def dataset_mismatches(results: Sequence[Results]) -> list[str]:
    """Warnings for results that compare models on different data.

    ImageNet-C style errors (eval-c, demo) are compared among themselves, ImageNet-P ones and task
    scores likewise; each group whose dataset fingerprints differ gets one line naming which
    results were measured on which data (display labels, so repeated model ids are told apart).
    Task scores of different metrics (box AP and mIoU) get one line too, and ImageNet-C results
    of different evaluation protocols another (:func:`protocol_mismatches`).
    """
    out: list[str] = []
    groups = (
        ("ImageNet-C", [r for r in results if r.c is not None]),
        ("ImageNet-P", [r for r in results if r.p is not None]),
        ("task-score", [r for r in results if r.score is not None]),
    )
    for what, rows in groups:
        by_data: dict[str, list[Results]] = {}
        for res in rows:
            by_data.setdefault(str(res.dataset.fingerprint), []).append(res)
        if len(by_data) < 2:
            continue
        parts = []
        for members in by_data.values():
            ds = members[0].dataset
            where = ", ".join(
                str(x) for x in (ds.layout, ds.profile and f"profile {ds.profile}", ds.path) if x
            )
            parts.append(
                f"{', '.join(repr(r.label) for r in members)} on {where or 'unknown data'}"
            )
        out.append(
            f"the {what} results come from {len(by_data)} different datasets, so their errors are "
            "not directly comparable: " + "; ".join(parts)
        )
    out += protocol_mismatches(results)
    metrics: dict[str, list[str]] = {}
    for res in results:
        if res.score is not None:
            metrics.setdefault(res.score.metric, []).append(repr(res.label))
    if len(metrics) > 1:
        out.append(
            "the task-score results measure different things, so their scores are not comparable: "
            + "; ".join(f"{', '.join(labels)}: {m}" for m, labels in metrics.items())
        )
    return out


def protocol_mismatches(results: Sequence[Results]) -> list[str]:
    """One warning when ImageNet-C results follow different evaluation protocols
    (:mod:`corruptbench.protocols`; a result naming none counts as ``full``): their images,
    corruptions or preprocessing differ, so their numbers are not comparable even on the same
    data."""
    by: dict[str, list[str]] = {}
    for res in results:
        if res.c is not None:
            by.setdefault(res.dataset.protocol or DEFAULT_PROTOCOL, []).append(repr(res.label))
    if len(by) < 2:
        return []
    return [
        f"the ImageNet-C results follow {len(by)} different protocols, so their numbers are not "
        "comparable: "
        + "; ".join(f"{', '.join(labels)}: protocol {name}" for name, labels in by.items())
    ]


def apply_baseline(results: Sequence[Results], baseline: str | None) -> list[Results]:
    """Re-normalise CE / mCE (and FR / mFR) of every result by ``baseline``.

    ``baseline`` is ``None`` (keep the numbers stored in the files), ``"alexnet"`` (the published
    AlexNet errors), ``"uniform"`` (no normalisation: CE = mean error), the display label or model id
    of one of ``results``, or the path of another results file. A model baseline divides CE by that
    model's per-severity errors (and FP by its flip probabilities, giving FR / mFR).
    """
    if baseline is None:
        return list(results)
    need_c = any(res.c is not None for res in results)
    ref = resolve_baseline(baseline, need="c" if need_c else "p", candidates=results)
    return [_renormalised(res, ref) for res in results]


def _renormalised(res: Results, ref: Baseline) -> Results:
    """``res`` with its CE / mCE (and, for a measured baseline, FR / mFR) against ``ref``."""
    c = res.c
    if c is not None:
        s = ref.summarize_c(c.errors, c.clean_error, res.source)
        c = replace(
            c,
            ce=dict(s.ce),
            relative_ce=dict(s.relative_ce),
            mce=s.mce,
            relative_mce=s.relative_mce,
            mean_error=s.mean_error,
            extra_mean_error=s.extra_mean_error,
            baseline=ref.name,
            partial=s.partial,
            missing=list(s.missing),
        )
    p = res.p
    if p is not None and ref.p is not None:
        sp = ref.summarize_p(p.flip_probability, p.top5_distance)
        p = replace(
            p,
            baseline=ref.name,
            flip_rate=dict(sp.fr),
            t5d_ratio=dict(sp.t5d_ratio) or None,
            mfr=sp.mfr,
            mt5d=sp.mt5d,
            notes=[sp.notes] if sp.notes else [],
        )
    return replace(res, c=c, p=p)
