"""Report figures: what each one draws (bars, lines, values, labels), and the PNG encoding.

The results are built so that every plotted value is known in advance: a model whose errors are
AlexNet's scaled by ``k`` has CE ``k`` on every corruption (CE = sum_s k E_A / sum_s E_A), so its
bars stand at ``100 k``.
"""

from __future__ import annotations

import io
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

from corruptbench.corruptions import EXTRA_CORRUPTIONS
from corruptbench.metrics import summarize_c
from corruptbench.results import Results
from corruptbench.results.plots import (
    ce_bars,
    ce_bars_figure,
    flip_bars,
    flip_bars_figure,
    headline_scatter,
    headline_scatter_figure,
    png_data_uri,
    severity_curves,
    severity_curves_figure,
)
from corruptbench.tables.alexnet import ALEXNET_C_ERRORS
from results.support import make_results

NAMES = tuple(ALEXNET_C_ERRORS)  # the 19, benchmark first


def scaled(
    model_id: str,
    k: float,
    clean: float,
    *,
    names: tuple[str, ...] = NAMES,
    flips: dict[str, float] | None = None,
) -> Results:
    """A result whose errors are AlexNet's times ``k`` (CE = ``k``), optionally with ImageNet-P
    flip probabilities ``flips``."""
    data = make_results(model_id, 1.0, clean, p=flips is not None)
    errors = {n: [k * v for v in ALEXNET_C_ERRORS[n]] for n in names}
    s = summarize_c(errors, clean_error=clean)
    data.update(
        errors=errors,
        counts={},  # errors that are exact multiples of AlexNet's: no whole image counts
        ce=s.ce,
        relative_ce=s.relative_ce,
        mce=s.mce,
        relative_mce=s.relative_mce,
        mean_error=s.mean_error,
        extra_mean_error=s.extra_mean_error,
        partial=s.partial,
        missing=s.missing,
        extra_ce={n: s.ce[n] for n in EXTRA_CORRUPTIONS if n in errors},
    )
    if flips is not None:
        data["p"].update(
            flip_probability=flips,
            top5_distance={n: 1.0 for n in flips},
            zipf_distance={n: 0.1 for n in flips},
            num_sequences={n: 10 for n in flips},
        )
    return Results.from_dict(data, f"{model_id}.json")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _bar_heights(ax) -> list[list[float]]:
    return [[bar.get_height() for bar in container] for container in ax.containers]


def _tick_labels(ax) -> list[str]:
    return [t.get_text() for t in ax.get_xticklabels()]


def test_ce_bars_one_bar_per_model_and_corruption_at_100_ce() -> None:
    a, b = scaled("a", 0.5, 0.2), scaled("b", 0.8, 0.3)
    fig = ce_bars_figure([a, b])
    (ax,) = fig.axes
    heights = _bar_heights(ax)
    assert len(heights) == 2 and all(len(h) == 19 for h in heights)
    np.testing.assert_allclose(heights[0], 50.0)
    np.testing.assert_allclose(heights[1], 80.0)
    labels = _tick_labels(ax)
    assert labels[:3] == ["Gaussian noise", "Shot noise", "Impulse noise"]
    assert labels[12:15] == ["Elastic", "Pixelate", "JPEG"]
    assert labels[15:] == ["Speckle noise", "Gaussian blur", "Spatter", "Saturate"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]
    assert ax.get_ylabel() == "Corruption error CE (%)"
    # the AlexNet line at 100 % and the separator before the 4 extra corruptions
    lines = {(tuple(line.get_xdata()), tuple(line.get_ydata())) for line in ax.lines}
    assert ((0, 1), (100, 100)) in lines
    assert ((14.5, 14.5), (0, 1)) in lines
    assert any(t.get_text() == "extra (not in mCE)" for t in ax.texts)


def test_ce_bars_leave_gaps_for_missing_corruptions() -> None:
    full, part = scaled("full", 0.6, 0.2), scaled("part", 0.9, 0.2, names=("fog", "snow"))
    (ax,) = ce_bars_figure([full, part]).axes
    heights = _bar_heights(ax)
    names = [n for n in NAMES]
    drawn = {n: h for n, h in zip(names, heights[1]) if not math.isnan(h)}
    assert drawn == pytest.approx({"fog": 90.0, "snow": 90.0})
    np.testing.assert_allclose(heights[0], 60.0)


def test_ce_bars_other_baseline_in_the_axis_label_and_no_100_line() -> None:
    data = make_results("u", 0.5, 0.2)
    data["baseline"] = "uniform"
    for key in ("ce", "relative_ce", "mce", "relative_mce", "mean_error", "extra_ce"):
        del data[key]  # computed against the uniform baseline when read
    (ax,) = ce_bars_figure([Results.from_dict(data, "u.json")]).axes
    assert ax.get_ylabel() == "CE (%, baseline: uniform)"
    assert not any(tuple(line.get_ydata()) == (100, 100) for line in ax.lines)
    assert ax.get_legend() is None  # one model: no legend


def test_severity_curves_one_panel_per_family_one_line_per_corruption() -> None:
    a = scaled("a", 0.5, 0.2)
    fig = severity_curves_figure([a])
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == ["Noise", "Blur", "Weather", "Digital", "Extra"]
    members = [[line.get_label() for line in ax.lines] for ax in axes]
    assert members == [
        ["Gaussian noise", "Shot noise", "Impulse noise"],
        ["Defocus blur", "Glass blur", "Motion blur", "Zoom blur"],
        ["Snow", "Frost", "Fog", "Brightness"],  # brightness is weather (the paper's Figure 1)
        ["Contrast", "Elastic", "Pixelate", "JPEG"],
        ["Speckle noise", "Gaussian blur", "Spatter", "Saturate"],
    ]
    fog = next(line for line in axes[2].lines if line.get_label() == "Fog")
    assert list(fog.get_xdata()) == [0, 1, 2, 3, 4, 5]
    want = [20.0] + [50.0 * e for e in ALEXNET_C_ERRORS["fog"]]  # clean, then severities 1..5
    np.testing.assert_allclose(fog.get_ydata(), want)
    assert {line.get_linestyle() for line in axes[4].lines} == {"--"}  # the extra ones dashed
    assert {line.get_linestyle() for line in axes[0].lines} == {"-"}
    assert _tick_labels(axes[0]) == ["clean", "1", "2", "3", "4", "5"]
    assert axes[0].get_ylim() == (0, 100) and axes[0].get_ylabel() == "Top-1 error (%)"


def test_severity_curves_one_row_per_model_up_to_the_limit() -> None:
    rows = [scaled(f"m{i}", 0.5 + 0.05 * i, 0.2) for i in range(3)]
    fig = severity_curves_figure(rows, max_models=2)
    assert len(fig.axes) == 2 * 5
    assert fig.axes[0].get_title() == "Noise: m0" and fig.axes[5].get_title() == "Noise: m1"


def test_headline_scatter_points_sorted_by_clean_error() -> None:
    worse, better = scaled("worse", 0.9, 0.4), scaled("better", 0.6, 0.25)
    fig = headline_scatter_figure([worse, better])
    (ax,) = fig.axes
    mce, rel = ax.lines
    assert mce.get_label() == "mCE" and rel.get_label() == "Relative mCE"
    np.testing.assert_allclose(mce.get_xdata(), [25.0, 40.0])
    np.testing.assert_allclose(mce.get_ydata(), [60.0, 90.0])
    np.testing.assert_allclose(
        rel.get_ydata(), [100 * better.c.relative_mce, 100 * worse.c.relative_mce]
    )  # type: ignore[union-attr]
    assert ax.xaxis_inverted()  # better models to the right
    assert [t.get_text() for t in ax.texts] == ["better", "worse"]
    assert headline_scatter_figure([worse]) is None  # a trend needs two models


def test_flip_bars_one_bar_per_perturbation() -> None:
    a = scaled("a", 0.5, 0.2, flips={"gaussian_noise": 0.05, "rotate": 0.02})
    b = scaled("b", 0.5, 0.2, flips={"gaussian_noise": 0.1, "brightness": 0.04})
    (ax,) = flip_bars_figure([a, b]).axes
    assert _tick_labels(ax) == ["Gaussian noise", "Brightness", "Rotate"]  # reference order
    heights = _bar_heights(ax)
    np.testing.assert_allclose(heights[0], [5.0, np.nan, 2.0])
    np.testing.assert_allclose(heights[1], [10.0, 4.0, np.nan])
    assert ax.get_ylabel() == "Flip probability (%)"
    assert flip_bars_figure([scaled("c", 0.5, 0.2)]) is None  # no ImageNet-P numbers


def test_png_bytes_of_the_figures() -> None:
    a, b = scaled("a", 0.5, 0.2, flips={"rotate": 0.02}), scaled("b$x", 0.8, 0.3)
    for png in (ce_bars([a, b]), severity_curves([a, b]), headline_scatter([a, b]), flip_bars([a])):
        assert png is not None
        with Image.open(io.BytesIO(png)) as im:
            assert im.format == "PNG" and im.width > 300 and im.height > 200
    assert flip_bars([b]) is None and headline_scatter([a]) is None
    assert png_data_uri(b"\x89PNG") == "data:image/png;base64,iVBORw=="
    assert plt.get_fignums() == []  # the encoders close their figures


def test_task_score_figures() -> None:
    from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
    from corruptbench.results import make_score_part
    from corruptbench.results.plots import (
        rpc_bars,
        rpc_bars_figure,
        score_curves,
        score_curves_figure,
    )
    from results.support import make_score_results

    a = Results.from_dict(make_score_results("frcnn", 0.36, seed=1), "a.json")
    b = Results.from_dict(make_score_results("retina$", 36.0, seed=2, metric="AP %"), "b.json")
    fig = score_curves_figure([a, b])
    assert fig is not None
    axes = np.asarray(fig.axes).reshape(2, -1)  # one row of family panels per model
    noise = axes[0][0]
    assert noise.get_title().startswith("Noise")
    line = noise.get_lines()[0]  # gaussian noise: the clean score P, then severities 1..5
    assert a.score is not None
    expected = [a.score.clean, *a.score.scores["gaussian_noise"]]
    assert list(line.get_ydata()) == pytest.approx(expected)
    plt.close(fig)
    bars = rpc_bars_figure([a, b])
    assert bars is not None
    ax = bars.axes[0]
    heights = [p.get_height() for p in ax.patches][: len(a.score.scores)]
    assert a.score.summary is not None
    want = [100 * a.score.summary.relative[n] for n in a.score.scores]
    assert heights == pytest.approx(want)
    dashed = [ln.get_ydata()[0] for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert dashed[0] == pytest.approx(100 * a.score.summary.rpc)
    plt.close(bars)
    c = Results.from_dict(make_results("c", 0.9, 0.3), "c.json")
    assert score_curves([c]) is None and rpc_bars([c]) is None
    assert score_curves([a])[:8] == b"\x89PNG\r\n\x1a\n"  # type: ignore[index]
    # an incomplete grid (an evaluation between two cells): curves yes, rPC bars no
    data = make_score_results("run", 0.3)
    grid = {n: [0.2, None, None, None, None] for n in BENCHMARK_CORRUPTIONS}
    data["score"] = make_score_part(grid, 0.3).to_dict()
    running = Results.from_dict(data, "run.json")
    assert score_curves_figure([running]) is not None and rpc_bars([running]) is None


def test_calibration_curves_ece_and_nll_against_severity() -> None:
    from corruptbench.results.plots import calibration_curves, calibration_curves_figure
    from results.support import make_calibrated

    a = Results.from_dict(make_calibrated("a", seed=1), "a.json")
    b = Results.from_dict(make_calibrated("b$", seed=2), "b.json")
    fig = calibration_curves_figure([a, b])
    assert fig is not None
    ece_ax, nll_ax = fig.axes
    assert [t.get_text() for t in ece_ax.get_xticklabels()] == ["clean", "1", "2", "3", "4", "5"]
    cal = a.calibration
    assert cal is not None and cal.clean is not None
    ece = [100 * cal.clean["ece"]] + [
        np.nan if v is None else 100 * v for v in cal.ece_by_severity()
    ]
    nll = [cal.clean["nll"]] + [np.nan if v is None else v for v in cal.nll_by_severity()]
    assert np.allclose(ece_ax.get_lines()[0].get_ydata(), ece, equal_nan=True)
    assert np.allclose(nll_ax.get_lines()[0].get_ydata(), nll, equal_nan=True)
    assert len(ece_ax.get_lines()) == 2  # one line per model
    legend = [t.get_text() for t in ece_ax.get_legend().get_texts()]
    assert legend == ["a (mean of 2 of 15)", r"b\$ (mean of 2 of 15)"]
    assert ece_ax.get_ylabel() == "ECE (%, 15 bins)"
    plt.close(fig)
    plain = Results.from_dict(make_results("old", 0.9, 0.3), "old.json")
    assert calibration_curves([plain]) is None and calibration_curves_figure([]) is None


def test_reliability_diagram_clean_vs_the_worst_severity() -> None:
    from corruptbench.results.plots import reliability_diagram, reliability_diagram_figure
    from results.support import make_calibrated

    res = Results.from_dict(make_calibrated("m"), "m.json")
    cal = res.calibration
    assert cal is not None
    fig = reliability_diagram_figure([res])
    assert fig is not None
    ax = fig.axes[0]
    diagonal, clean, worst = ax.get_lines()
    assert list(diagonal.get_xdata()) == [0, 100] == list(diagonal.get_ydata())
    for line, stats in ((clean, cal.stats["clean"]), (worst, cal.pooled(5, "benchmark"))):
        assert stats is not None
        rows = [b for b in stats.reliability(15) if b["count"]]
        assert list(line.get_xdata()) == pytest.approx([100 * b["confidence"] for b in rows])
        assert list(line.get_ydata()) == pytest.approx([100 * b["accuracy"] for b in rows])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == f"clean: ECE {100 * cal.stats['clean'].ece(15):.1f}%, n=60"
    assert labels[1].startswith("severity 5 (2 corruptions pooled): ECE ")
    assert labels[1].endswith("n=120")  # the 2 benchmark corruptions of the severity means
    plt.close(fig)
    png = reliability_diagram([res])
    assert png is not None and png[:8] == b"\x89PNG\r\n\x1a\n"
    assert plt.get_fignums() == []


def test_cbar_curves_draw_each_corruptions_errors_per_level() -> None:
    """One panel per C-bar corruption (the registry's order), one line per model at 100 x its
    errors, the clean error at 0, ticks naming the level values; dashed outside the benchmark."""
    from corruptbench.results.plots import cbar_curves, cbar_curves_figure
    from results.support import make_cbar

    a = Results.from_dict(make_cbar("a", n=3), "a.json")
    data = make_cbar("b", 0.8, n=2, seed=1)
    data["cbar"]["errors"]["ripple"] = [0.5] * 5  # CIFAR-10-C-bar's, outside ImageNet-C-bar
    data["cbar"]["counts"]["ripple"] = [400] * 5
    for key in ("levels", "corruption_errors", "mean_error", "extra_mean_error"):
        del data["cbar"][key]
    b = Results.from_dict(data, "b.json")
    fig = cbar_curves_figure([a, b])
    assert fig is not None
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == [
        "Single frequency greyscale",
        "Cocentric sine waves",
        "Plasma noise",
        "Ripple",
    ]
    for ax, name in zip(axes, ("single_frequency_greyscale", "cocentric_sine_waves")):
        lines = {ln.get_label(): ln for ln in ax.get_lines()}
        for res in (a, b):
            assert res.cbar is not None
            ys = lines[res.label].get_ydata()
            want = [res.cbar.clean_error, *res.cbar.errors[name]]
            assert np.allclose(ys, [100 * v for v in want])  # type: ignore[operator]
    ticks = [t.get_text() for t in axes[0].get_xticklabels()]
    assert ticks == ["clean", "1\n1", "2\n1.5", "3\n2", "4\n4.5", "5\n5"]
    (ripple,) = axes[3].get_lines()
    assert ripple.get_linestyle() == "--" and len(axes[2].get_lines()) == 1
    plt.close(fig)
    png = cbar_curves([a])
    assert png is not None and Image.open(io.BytesIO(png)).format == "PNG"
    assert cbar_curves_figure([Results.from_dict(make_results("c", 1.0, 0.2), "c.json")]) is None


def test_one_severity_ece_in_every_view() -> None:
    """Issue 33 item 7: the reliability diagram's legend gave the pooled cells' ECE (18.9 %)
    where the headline, the tables and the curves give the mean over the cells (31.5 %): every
    view now gives the mean, and the legend says its curve pools the cells."""
    from corruptbench.report import render_report
    from corruptbench.results.plots import reliability_diagram_figure
    from corruptbench.results.text import headline_rows
    from results.support import make_calibrated

    res = Results.from_dict(make_calibrated("m"), "m.json")
    cal = res.calibration
    assert cal is not None
    mean = cal.ece_by_severity()[4]
    pooled = cal.pooled(5, "benchmark")
    assert mean is not None and pooled is not None
    assert f"{100 * mean:.1f}" != f"{100 * pooled.ece(15):.1f}"  # the two definitions differ here
    shown = f"{100 * mean:.1f}%"
    fig = reliability_diagram_figure([res])
    assert fig is not None
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    plt.close(fig)
    assert f"ECE {shown}," in legend[1] and "pooled" in legend[1]
    assert dict(headline_rows(res))["ECE / NLL at severity 5 [partial: 2/15]"].startswith(shown)
    md = render_report([res], "md")
    row = next(ln for ln in md.splitlines() if ln.startswith("| severity 5 |"))
    assert row.split(" | ")[4] == shown
