"""Figures of results (matplotlib, Agg backend), returned as PNG bytes ready to embed as data URIs.

The report's page and a result's notebook view (card.py) embed them. Each figure is drawn by a
``*_figure`` function that returns the matplotlib ``Figure`` (what the PNG shows, for a notebook
or a test to inspect; the caller closes it with ``plt.close(fig)``), and encoded by the function of
the same name without the suffix."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..grid import SEVERITIES, reference_order
from ..perturbations import ALL_PERTURBATIONS
from .format import ALL_CORRUPTIONS, EXTRA_CORRUPTIONS, FAMILIES, family_of, pretty  # noqa: E402
from .parts import CALIBRATION_GROUPS, ResultsLike  # noqa: E402

__all__ = [
    "png_data_uri",
    "ce_bars",
    "ce_bars_figure",
    "severity_curves",
    "severity_curves_figure",
    "headline_scatter",
    "headline_scatter_figure",
    "flip_bars",
    "flip_bars_figure",
    "score_curves",
    "score_curves_figure",
    "rpc_bars",
    "rpc_bars_figure",
    "calibration_curves",
    "calibration_curves_figure",
    "cbar_curves",
    "cbar_curves_figure",
    "reliability_diagram",
    "reliability_diagram_figure",
]

_STYLE: Any = {
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.axisbelow": True,
}
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def png_data_uri(png: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(png).decode("ascii")


def _png(fig: plt.Figure | None) -> bytes | None:
    """``fig`` as PNG bytes (110 dpi, tight box), then closed; ``None`` for no figure. Called in
    the figures' style: ticks are made while drawing and read it."""
    if fig is None:
        return None
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _text(label: str, limit: int = 40) -> str:
    """A label safe for matplotlib text (no mathtext from ``$``), shortened to ``limit`` chars."""
    if len(label) > limit:
        label = label[: limit - 1] + "\u2026"
    return label.replace("$", r"\$")


def distinct_short_labels(labels: Sequence[str], limit: int) -> list[str]:
    """``labels`` (distinct) shortened to ``limit`` characters and still distinct, matplotlib-safe.

    A long label keeps its start and its end (``efficientnet…(run-2.json)``): labels made unique
    by :func:`~corruptbench.report.baseline.unique_labels` differ at the end. Labels that would
    still collide are numbered (``1: …``, ``2: …``).
    """

    def middle(label: str, n: int) -> str:
        if len(label) <= n:
            return label
        head = (n - 1) // 2
        return label[:head] + "\u2026" + label[len(label) - (n - 1 - head) :]

    short = [middle(label, limit) for label in labels]
    if len(set(short)) < len(short):
        short = [f"{i + 1}: {middle(label, limit - 4)}" for i, label in enumerate(labels)]
    return [s.replace("$", r"\$") for s in short]


def _model_colors(n: int) -> list:
    cmap = plt.get_cmap("tab10")
    return [cmap(i % 10) for i in range(n)]


def ce_bars(results: Sequence[ResultsLike]) -> bytes | None:
    """Corruption error per corruption (:func:`ce_bars_figure`) as PNG bytes; ``None`` without CE."""
    with plt.rc_context(_STYLE):
        return _png(ce_bars_figure(results))


def ce_bars_figure(results: Sequence[ResultsLike]) -> plt.Figure | None:
    """Corruption error per corruption, one bar per model (grouped); AlexNet = 100 % line."""
    rows = [r for r in results if r.c is not None]
    if not rows:
        return None
    names = [n for n in ALL_CORRUPTIONS if any(r.c and r.c.ce.get(n) is not None for r in rows)]
    if not names:
        return None
    with plt.rc_context(_STYLE):
        fig, ax = plt.subplots(figsize=(12, 4.2))
        width = 0.8 / len(rows)
        x = np.arange(len(names))
        for i, (res, color) in enumerate(zip(rows, _model_colors(len(rows)))):
            assert res.c is not None
            ces = [res.c.ce.get(n) for n in names]
            vals = [np.nan if v is None else 100 * v for v in ces]
            ax.bar(x - 0.4 + width * (i + 0.5), vals, width, label=_text(res.label), color=color)
        baselines = {r.c.baseline for r in rows if r.c}
        if baselines == {"alexnet"}:
            ax.axhline(100, color="0.3", lw=1, ls="--")
            ax.text(-0.5, 101, "AlexNet = 100%", ha="left", va="bottom", fontsize=8, color="0.3")
            ax.set_ylabel("Corruption error CE (%)")
        else:
            ax.set_ylabel(_text("CE (%, baseline: " + ", ".join(sorted(baselines)) + ")", 60))
        n_bench = sum(1 for n in names if n not in EXTRA_CORRUPTIONS)
        if n_bench < len(names):
            ax.axvline(n_bench - 0.5, color="0.5", lw=0.8)
            top = ax.get_ylim()[1]
            ax.set_ylim(0, top * 1.08)
            ax.text(
                n_bench - 0.4, top * 1.07, "extra (not in mCE)", va="top", fontsize=8, color="0.4"
            )
        ax.set_xticks(x, [pretty(n) for n in names], rotation=35, ha="right")
        ax.set_xlim(-0.6, len(names) - 0.4)
        if len(rows) > 1:
            ax.legend(
                fontsize=8,
                ncol=min(5, len(rows)),
                loc="lower center",
                bbox_to_anchor=(0.5, 1.0),
                frameon=False,
            )
            ax.set_title("Corruption error per corruption", pad=12 + 14 * ((len(rows) + 4) // 5))
        else:
            ax.set_title("Corruption error per corruption")
        return fig


def severity_curves(results: Sequence[ResultsLike], max_models: int = 6) -> bytes | None:
    """Top-1 error vs severity (:func:`severity_curves_figure`) as PNG bytes; ``None`` without ImageNet-C results."""
    with plt.rc_context(_STYLE):
        return _png(severity_curves_figure(results, max_models))


def severity_curves_figure(
    results: Sequence[ResultsLike], max_models: int = 6
) -> plt.Figure | None:
    """Top-1 error vs severity (0 = clean) per corruption: one panel per family (the paper's
    Figure 1) and one for the 4 extra corruptions, which belong to no family; one row per model."""
    rows = [r for r in results if r.c is not None][:max_models]
    if not rows:
        return None
    panels: list[tuple[str, list[str]]] = [
        (fam.capitalize(), [n for n in ALL_CORRUPTIONS if family_of(n) == fam]) for fam in FAMILIES
    ]
    panels.append(("Extra", list(EXTRA_CORRUPTIONS)))
    with plt.rc_context(_STYLE):
        fig, axes = plt.subplots(
            len(rows),
            len(panels),
            figsize=(3.25 * len(panels), 3.3 * len(rows)),
            sharey=True,
            squeeze=False,
        )
        cmap = plt.get_cmap("tab10")
        row_labels = distinct_short_labels([r.label for r in rows], 28)
        for i, res in enumerate(rows):
            assert res.c is not None
            for k, (ax, (title, names)) in enumerate(zip(axes[i], panels)):
                for j, name in enumerate(names):
                    values = res.c.errors.get(name)
                    if values is None or all(v is None for v in values):
                        continue
                    ys = [res.c.clean_error, *values]
                    ax.plot(
                        range(6),
                        [np.nan if v is None else 100 * v for v in ys],
                        color=cmap(j % 10),
                        ls="--" if name in EXTRA_CORRUPTIONS else "-",
                        marker=_MARKERS[j % len(_MARKERS)],
                        ms=3.5,
                        lw=1.4,
                        label=pretty(name),
                    )
                ax.set_title(
                    title if len(rows) == 1 else f"{title}: {row_labels[i]}",
                    fontsize=9,
                )
                ax.set_xticks(range(6), ["clean", "1", "2", "3", "4", "5"])
                ax.set_ylim(0, 100)
                if i == len(rows) - 1:
                    ax.set_xlabel("severity")
                if i == len(rows) - 1 and ax.get_legend_handles_labels()[0]:
                    ax.legend(
                        fontsize=7.5,
                        frameon=False,
                        loc="upper center",
                        bbox_to_anchor=(0.5, -0.2),
                        ncol=2,
                    )
                if k == 0:
                    ax.set_ylabel("Top-1 error (%)")
        fig.tight_layout()
        return fig


def headline_scatter(results: Sequence[ResultsLike]) -> bytes | None:
    """mCE and relative mCE against clean error (:func:`headline_scatter_figure`) as PNG bytes; ``None`` for fewer than two models."""
    with plt.rc_context(_STYLE):
        return _png(headline_scatter_figure(results))


def headline_scatter_figure(results: Sequence[ResultsLike]) -> plt.Figure | None:
    """mCE and relative mCE against clean error across models (the paper's headline figure)."""
    rows = [
        r
        for r in results
        if r.c is not None and r.c.clean_error is not None and r.c.mce is not None
    ]
    if len(rows) < 2:  # a trend needs at least two models
        return None
    rows.sort(key=lambda r: r.c.clean_error if r.c and r.c.clean_error is not None else 0.0)
    x = np.array([100 * float(r.c.clean_error or 0.0) for r in rows if r.c])
    mce = np.array([100 * float(r.c.mce or 0.0) for r in rows if r.c])
    rel = np.array([np.nan if r.c.relative_mce is None else 100 * r.c.relative_mce for r in rows])  # type: ignore[union-attr]
    with plt.rc_context(_STYLE):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        ax.plot(x, mce, "o-", color="tab:blue", label="mCE")
        if not np.all(np.isnan(rel)):
            ax.plot(x, rel, "s--", color="tab:orange", label="Relative mCE")
        for xi, yi, res in zip(x, mce, rows):
            ax.annotate(
                _text(res.label), (xi, yi), textcoords="offset points", xytext=(4, 5), fontsize=7
            )
        ax.set_xlabel("Clean top-1 error (%)")
        ax.set_ylabel("%")
        ax.invert_xaxis()  # better models to the right, as in the paper
        ax.legend(frameon=False)
        ax.set_title("Robustness vs clean accuracy (better models to the right)")
        return fig


def flip_bars(results: Sequence[ResultsLike]) -> bytes | None:
    """Flip probability per perturbation (:func:`flip_bars_figure`) as PNG bytes; ``None`` without ImageNet-P results."""
    with plt.rc_context(_STYLE):
        return _png(flip_bars_figure(results))


def flip_bars_figure(results: Sequence[ResultsLike]) -> plt.Figure | None:
    """Flip probability per perturbation, grouped bars across models."""
    rows = [r for r in results if r.p is not None]
    if not rows:
        return None
    names = [n for n in ALL_PERTURBATIONS if any(r.p and n in r.p.flip_probability for r in rows)]
    with plt.rc_context(_STYLE):
        fig, ax = plt.subplots(figsize=(max(5.0, 0.8 * len(names) + 2), 3.6))
        width = 0.8 / len(rows)
        x = np.arange(len(names))
        for i, (res, color) in enumerate(zip(rows, _model_colors(len(rows)))):
            assert res.p is not None
            vals = [100 * res.p.flip_probability.get(n, np.nan) for n in names]
            ax.bar(x - 0.4 + width * (i + 0.5), vals, width, label=_text(res.label), color=color)
        ax.set_xticks(
            x,
            [pretty(n) for n in names],
            rotation=30 if len(names) > 5 else 0,
            ha="right" if len(names) > 5 else "center",
        )
        ax.set_ylabel("Flip probability (%)")
        ax.set_title("ImageNet-P: flip probability per perturbation")
        if len(rows) > 1:
            ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return fig


def cbar_curves(results: Sequence[ResultsLike], max_models: int = 8) -> bytes | None:
    """C-bar top-1 error against level, a panel per corruption (:func:`cbar_curves_figure`), as
    PNG bytes; ``None`` without C-bar results."""
    with plt.rc_context(_STYLE):
        return _png(cbar_curves_figure(results, max_models))


def cbar_curves_figure(results: Sequence[ResultsLike], max_models: int = 8) -> plt.Figure | None:
    """ImageNet-C-bar / CIFAR-10-C-bar: top-1 error (%) against severity 1..5, one panel per
    corruption (the registry's order; ticks: the severity and its level value in the first
    result's table; 0 = the clean error where measured), one line per model, dashed for a
    corruption outside the result's benchmark."""
    rows = [r for r in results if r.cbar is not None][:max_models]
    if not rows:
        return None
    parts = [r.cbar for r in rows if r.cbar is not None]
    names = list(reference_order([n for part in parts for n in part.errors]))
    has_clean = any(part.clean_error is not None for part in parts)
    ncols = min(5, len(names))
    nrows = -(-len(names) // ncols)
    labels = distinct_short_labels([r.label for r in rows], 32)
    colors = _model_colors(len(rows))
    with plt.rc_context(_STYLE):
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(2.9 * ncols, 2.6 * nrows), sharey=True, squeeze=False
        )
        for k, (ax, name) in enumerate(zip(axes.flat, names)):
            levels = next(part.levels[name] for part in parts if name in part.errors)
            for part, label, color, marker in zip(parts, labels, colors, _MARKERS * 2):
                values = part.errors.get(name)
                if values is None:
                    continue
                ys = [part.clean_error, *values] if has_clean else list(values)
                ax.plot(
                    range(0 if has_clean else 1, 6),
                    [np.nan if v is None else 100 * v for v in ys],
                    color=color,
                    marker=marker,
                    ms=3.5,
                    lw=1.4,
                    ls="-" if name in part.corruptions else "--",
                    label=label,
                )
            ticks = [f"{s}\n{v:g}" for s, v in zip(SEVERITIES, levels)]
            ax.set_xticks(range(0 if has_clean else 1, 6), (["clean"] if has_clean else []) + ticks)
            ax.set_title(pretty(name), fontsize=9)
            ax.set_ylim(0, 100)
            if k % ncols == 0:
                ax.set_ylabel("Top-1 error (%)")
        for ax in list(axes.flat)[len(names) :]:
            ax.set_visible(False)
        if len(rows) > 1:
            fig.legend(
                *axes.flat[0].get_legend_handles_labels(),
                fontsize=8,
                frameon=False,
                loc="lower center",
                ncol=min(4, len(rows)),
                bbox_to_anchor=(0.5, 1.0),
            )
        fig.suptitle("C-bar: top-1 error against level (severity; level value)", y=1.0, fontsize=10)
        fig.tight_layout()
        return fig


def _family_panels() -> list[tuple[str, list[str]]]:
    """(title, corruptions) of the paper's Figure 1 families, then the 4 extra corruptions."""
    panels = [
        (fam.capitalize(), [n for n in ALL_CORRUPTIONS if family_of(n) == fam]) for fam in FAMILIES
    ]
    return [*panels, ("Extra", list(EXTRA_CORRUPTIONS))]


def score_curves(results: Sequence[ResultsLike], max_models: int = 6) -> bytes | None:
    """Task score against severity per corruption family (:func:`score_curves_figure`) as PNG bytes; ``None`` without task scores."""
    with plt.rc_context(_STYLE):
        return _png(score_curves_figure(results, max_models))


def score_curves_figure(results: Sequence[ResultsLike], max_models: int = 6) -> plt.Figure | None:
    """Task score against severity (0 = the clean score P) per corruption: one panel per family
    and one for the extra corruptions, one row per model (task-score grids)."""
    rows = [r for r in results if r.score is not None][:max_models]
    if not rows:
        return None
    panels = [
        (t, names)
        for t, names in _family_panels()
        if any(n in r.score.scores for r in rows if r.score is not None for n in names)
    ]
    with plt.rc_context(_STYLE):
        fig, axes = plt.subplots(
            len(rows),
            len(panels),
            figsize=(3.25 * len(panels), 3.3 * len(rows)),
            sharey=True,
            squeeze=False,
        )
        cmap = plt.get_cmap("tab10")
        row_labels = distinct_short_labels([r.label for r in rows], 28)
        for i, res in enumerate(rows):
            s = res.score
            assert s is not None
            for k, (ax, (title, names)) in enumerate(zip(axes[i], panels)):
                for j, name in enumerate(names):
                    values = s.scores.get(name)
                    if values is None:
                        continue
                    ax.plot(
                        range(6),
                        [np.nan if v is None else v for v in (s.clean, *values)],
                        color=cmap(j % 10),
                        ls="--" if name in EXTRA_CORRUPTIONS else "-",
                        marker=_MARKERS[j % len(_MARKERS)],
                        ms=3.5,
                        lw=1.4,
                        label=pretty(name),
                    )
                ax.set_title(title if len(rows) == 1 else f"{title}: {row_labels[i]}", fontsize=9)
                ax.set_xticks(range(6), ["clean", "1", "2", "3", "4", "5"])
                ax.set_ylim(bottom=0)
                if i == len(rows) - 1:
                    ax.set_xlabel("severity")
                    if ax.get_legend_handles_labels()[0]:
                        ax.legend(
                            fontsize=7.5,
                            frameon=False,
                            loc="upper center",
                            bbox_to_anchor=(0.5, -0.2),
                            ncol=2,
                        )
                if k == 0:
                    ax.set_ylabel(_text(s.metric, 30))
        fig.tight_layout()
        return fig


def rpc_bars(results: Sequence[ResultsLike]) -> bytes | None:
    """Relative performance per corruption (:func:`rpc_bars_figure`) as PNG bytes; ``None`` without task scores."""
    with plt.rc_context(_STYLE):
        return _png(rpc_bars_figure(results))


def rpc_bars_figure(results: Sequence[ResultsLike]) -> plt.Figure | None:
    """Relative performance per corruption (mean score over the severities / P, %), one bar per
    model, with each model's rPC as a dashed line (complete task-score grids only)."""
    rows = [r for r in results if r.score is not None and r.score.summary is not None]
    if not rows:
        return None
    names = [n for n in ALL_CORRUPTIONS if any(r.score and n in r.score.scores for r in rows)]
    colors = _model_colors(len(rows))
    with plt.rc_context(_STYLE):
        fig, ax = plt.subplots(figsize=(12, 4.2))
        width = 0.8 / len(rows)
        x = np.arange(len(names))
        for i, (res, color) in enumerate(zip(rows, colors)):
            summary = res.score.summary if res.score is not None else None
            assert summary is not None
            vals = [100 * summary.relative.get(n, np.nan) for n in names]
            ax.bar(x - 0.4 + width * (i + 0.5), vals, width, label=_text(res.label), color=color)
            ax.axhline(100 * summary.rpc, color=color, lw=1, ls="--")
        n_bench = sum(1 for n in names if n not in EXTRA_CORRUPTIONS)
        if n_bench < len(names):
            ax.axvline(n_bench - 0.5, color="0.5", lw=0.8)
        ax.set_xticks(x, [pretty(n) for n in names], rotation=35, ha="right")
        ax.set_xlim(-0.6, len(names) - 0.4)
        ax.set_ylabel("mean score / P (%)")
        ax.set_title("Relative performance per corruption (dashed: rPC of each model)")
        if len(rows) > 1:
            ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return fig


def calibration_curves(results: Sequence[ResultsLike], max_models: int = 8) -> bytes | None:
    """ECE and NLL against severity (:func:`calibration_curves_figure`) as PNG bytes; ``None``
    without calibrated ImageNet-C results."""
    with plt.rc_context(_STYLE):
        return _png(calibration_curves_figure(results, max_models))


def calibration_curves_figure(
    results: Sequence[ResultsLike], max_models: int = 8
) -> plt.Figure | None:
    """ECE (%) and NLL against severity (0 = clean), one line per model: the mean over the 15
    benchmark corruptions measured at each severity (over all 19 for a model measured on extra
    ones only); the legend says how many corruptions the means cover."""
    rows = [r for r in results if r.calibration is not None and r.calibration.has_severities][
        :max_models
    ]
    if not rows:
        return None
    labels = distinct_short_labels([r.label for r in rows], 32)
    with plt.rc_context(_STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        for res, label, color, marker in zip(rows, labels, _model_colors(len(rows)), _MARKERS * 2):
            cal = res.calibration
            assert cal is not None
            group = cal.main_group()
            means = cal.severity_means(group)
            clean = cal.clean or {}
            counts = sorted({n for n in means["corruptions"] if n})
            size = len(CALIBRATION_GROUPS[group])
            of = "C-bar" if group == "cbar" else f"of {size}"
            cover = f"{'/'.join(map(str, counts))} {of}"
            for ax, metric, scale in ((axes[0], "ece", 100.0), (axes[1], "nll", 1.0)):
                ys = [clean.get(metric), *means[metric]]
                ax.plot(
                    range(6),
                    [np.nan if v is None else scale * v for v in ys],
                    color=color,
                    marker=marker,
                    ms=4,
                    lw=1.5,
                    label=f"{label} (mean of {cover})",
                )
        bins = "/".join(
            str(b) for b in sorted({r.calibration.ece_bins for r in rows if r.calibration})
        )
        for ax, title, ylabel in (
            (axes[0], "Expected calibration error", f"ECE (%, {bins} bins)"),
            (axes[1], "Negative log-likelihood", "NLL (nats)"),
        ):
            ax.set_xticks(range(6), ["clean", "1", "2", "3", "4", "5"])
            ax.set_xlabel("severity")
            ax.set_ylabel(ylabel)
            ax.set_title(title)
            ax.set_ylim(bottom=0)
        axes[0].legend(fontsize=7.5, frameon=False, loc="upper left")
        fig.tight_layout()
        return fig


def reliability_diagram(results: Sequence[ResultsLike], max_models: int = 4) -> bytes | None:
    """Reliability diagrams, clean vs the worst severity (:func:`reliability_diagram_figure`), as
    PNG bytes; ``None`` without calibrated results."""
    with plt.rc_context(_STYLE):
        return _png(reliability_diagram_figure(results, max_models))


def _reliability_line(
    ax: Any, stats: Any, bins: int, label: str, ece: float | None = None, **style: Any
) -> None:
    """Accuracy against mean confidence of each non-empty bin of ``stats``, with the ECE in the
    label: ``ece`` when given (a severity's: the mean over its cells, as every view gives it),
    else the ECE of ``stats``."""
    rows = [b for b in stats.reliability(bins) if b["count"]]
    value = stats.ece(bins) if ece is None else ece
    ax.plot(
        [100 * b["confidence"] for b in rows],
        [100 * b["accuracy"] for b in rows],
        label=f"{label}: ECE {100 * value:.1f}%, n={stats.n}",
        **style,
    )


def reliability_diagram_figure(
    results: Sequence[ResultsLike], max_models: int = 4
) -> plt.Figure | None:
    """One panel per model: the reliability diagram (accuracy against mean confidence per
    confidence bin; the diagonal is perfect calibration) of the clean images and of the worst
    severity measured, its corrupted cells pooled. eval-p results show their clean frames."""
    rows = [r for r in results if r.calibration is not None][:max_models]
    if not rows:
        return None
    labels = distinct_short_labels([r.label for r in rows], 32)
    with plt.rc_context(_STYLE):
        fig, axes = plt.subplots(1, len(rows), figsize=(4.2 * len(rows), 4.2), squeeze=False)
        for ax, res, label in zip(axes[0], rows, labels):
            cal = res.calibration
            assert cal is not None
            bins = cal.ece_bins
            ax.plot([0, 100], [0, 100], color="0.6", lw=1, ls="--")
            clean = cal.cell_stats("clean")
            if clean is not None and clean.n:
                _reliability_line(ax, clean, bins, "clean", color="tab:blue", marker="o", ms=4)
            worst = cal.worst_severity
            # the corruptions of the severity means (the 15 when any was measured): the curve
            # pools their cells, the ECE in the legend is their mean, the one severity ECE
            group = cal.main_group()
            pooled = cal.pooled(worst, group) if worst is not None else None
            if pooled is not None and worst is not None:
                means = cal.severity_means(group)
                i = SEVERITIES.index(worst)
                _reliability_line(
                    ax,
                    pooled,
                    bins,
                    f"severity {worst} ({means['corruptions'][i]} corruptions pooled)",
                    ece=means["ece"][i],
                    color="tab:red",
                    marker="s",
                    ms=4,
                )
            ax.set_xlim(0, 100)
            ax.set_ylim(0, 100)
            ax.set_aspect("equal")
            ax.set_xlabel("confidence (%)")
            ax.set_ylabel("accuracy (%)")
            ax.set_title(label, fontsize=9)
            ax.legend(fontsize=7, frameon=False, loc="upper left")
        fig.tight_layout()
        return fig
