"""Display labels, one row per model, and re-normalisation (``report --baseline``) of the results
in one report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..protocols import DEFAULT_PROTOCOL
from ..results import Baseline, MeasuredOn, Results, model_key, resolve_baseline

__all__ = [
    "unique_labels",
    "merge_models",
    "apply_baseline",
    "dataset_mismatches",
    "protocol_mismatches",
]


def _c_only(res: Results) -> bool:
    return res.c is not None and res.p is None and res.score is None


def _p_only(res: Results) -> bool:
    return res.p is not None and res.c is None and res.score is None


def _pairs(results: Sequence[Results]) -> list[list[int]]:
    """The report's rows as indices of ``results``: an ImageNet-C result and an ImageNet-P result
    of the same model (:func:`~corruptbench.results.model_key`: id, preprocessing, weights hash)
    form one row, in the order of the first; every other result is a row of its own."""
    rows: list[list[int]] = []
    taken: set[int] = set()
    for i, res in enumerate(results):
        if i in taken:
            continue
        taken.add(i)
        row = [i]
        if _c_only(res) or _p_only(res):
            other = _p_only if _c_only(res) else _c_only
            key = model_key(res.model)
            j = next(
                (
                    j
                    for j in range(i + 1, len(results))
                    if j not in taken and other(results[j]) and model_key(results[j].model) == key
                ),
                None,
            )
            if j is not None:
                taken.add(j)
                row.append(j)
        rows.append(row)
    return rows


def unique_labels(results: Sequence[Results]) -> list[Results]:
    """Give every result a distinct display label (the model id, plus the file names if needed),
    except that the ImageNet-C and ImageNet-P results of one model share theirs: they are one
    row of the report (:func:`merge_models`)."""
    rows = _pairs(results)
    counts: dict[str, int] = {}
    for row in rows:
        mid = results[row[0]].model_id
        counts[mid] = counts.get(mid, 0) + 1
    labels: dict[int, str] = {}
    seen: set[str] = set()
    for row in rows:
        label = results[row[0]].model_id
        if counts[label] > 1:
            label += f" ({' + '.join(Path(results[i].source).name for i in row)})"
        base, n = label, 2
        while label in seen:
            label = f"{base} #{n}"
            n += 1
        seen.add(label)
        labels.update({i: label for i in row})
    return [replace(res, label=labels[i]) for i, res in enumerate(results)]


def merge_models(results: Sequence[Results]) -> list[Results]:
    """One result per row of the report: the ImageNet-C and ImageNet-P results of the same model
    (same label, from :func:`unique_labels`) become one, with both parts, the C result's dataset
    and a note naming the P data; the others are kept as they are."""
    out: list[Results] = []
    for row in _pairs(results):
        first = results[row[0]]
        if len(row) == 1 or first.label != results[row[1]].label:
            out.extend(results[i] for i in row)
            continue
        c_res, p_res = sorted((first, results[row[1]]), key=lambda r: r.c is None)
        out.append(_merged(c_res, p_res))
    return out


def _merged(c_res: Results, p_res: Results) -> Results:
    ds = p_res.dataset
    where = ", ".join(
        str(x) for x in (ds.layout, ds.profile and f"profile {ds.profile}", ds.path) if x
    )
    note = f"ImageNet-P numbers from {Path(p_res.source).name or 'a second result'}" + (
        f" (on {where})" if where else ""
    )
    dataset = replace(c_res.dataset, notes=[*c_res.dataset.notes, note, *ds.notes])
    return replace(
        c_res, p=p_res.p, dataset=dataset, source=" + ".join((c_res.source, p_res.source))
    )


def dataset_mismatches(results: Sequence[Results]) -> list[str]:
    """Warnings for results that compare models on different data.

    ImageNet-C style errors (eval-c, demo) are compared among themselves, C-bar ones, ImageNet-P
    ones and task scores likewise; each group whose data differ gets one line naming which results were
    measured on which data (display labels, so repeated model ids are told apart). The data are
    compared by their content fingerprints when every result of the group has one (the same
    images in a folder or in WebDataset shards are the same data), else by fingerprint.
    Task scores of different metrics (box AP and mIoU) get one line too, and ImageNet-C results
    of different evaluation protocols another (:func:`protocol_mismatches`).
    """
    out: list[str] = []
    groups = (
        ("ImageNet-C", [r for r in results if r.c is not None]),
        ("C-bar", [r for r in results if r.cbar is not None]),
        ("ImageNet-P", [r for r in results if r.p is not None]),
        ("task-score", [r for r in results if r.score is not None]),
    )
    for what, rows in groups:
        by_data: dict[str, list[Results]] = {}
        # the images, whatever holds them (a folder and its shards are one dataset), when every
        # result knows them; else the container's fingerprint (older files, arrays)
        content = all(r.dataset.content_fingerprint for r in rows)
        for res in rows:
            key = res.dataset.content_fingerprint if content else res.dataset.fingerprint
            by_data.setdefault(str(key), []).append(res)
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
    # C-bar parts are never normalised (test_c_bar.py's errors), but are eval-c results
    need_c = any(res.c is not None or res.cbar is not None for res in results)
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
            partial_mce=None,  # recomputed from mce when partial (CResults.__post_init__)
            partial_relative_mce=None,
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
    # a baseline of another profile is refused, one of other images or protocol noted
    notes = ref.compare(MeasuredOn.of(res))
    dataset = replace(res.dataset, notes=[*res.dataset.notes, *notes]) if notes else res.dataset
    return replace(res, c=c, p=p, dataset=dataset)
