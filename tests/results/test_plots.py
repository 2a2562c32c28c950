"""Report figures: PNG bytes for what the results hold, nothing for what they do not."""

from __future__ import annotations

import io

from PIL import Image

from corruptbench.results import Results
from corruptbench.results.plots import (
    ce_bars,
    flip_bars,
    headline_scatter,
    png_data_uri,
    severity_curves,
)
from results.support import make_results


def _png_size(data: bytes | None) -> tuple[int, int]:
    assert data is not None
    with Image.open(io.BytesIO(data)) as im:
        assert im.format == "PNG"
        return im.size


def test_figures() -> None:
    a = Results.from_dict(make_results("a", 0.9, 0.3, p=True), "a.json")
    b = Results.from_dict(make_results("b$x", 1.0, 0.4), "b.json")
    w, h = _png_size(ce_bars([a, b]))
    assert w > 300 and h > 100
    _png_size(severity_curves([a, b]))
    _png_size(headline_scatter([a, b]))
    _png_size(flip_bars([a]))
    assert flip_bars([b]) is None  # no ImageNet-P numbers
    assert png_data_uri(b"\x89PNG").startswith("data:image/png;base64,")


def test_task_score_figures() -> None:
    from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
    from corruptbench.results import make_score_part
    from corruptbench.results.plots import rpc_bars, score_curves
    from results.support import make_score_results

    a = Results.from_dict(make_score_results("frcnn", 0.36, seed=1), "a.json")
    b = Results.from_dict(make_score_results("retina$", 36.0, seed=2, metric="AP %"), "b.json")
    w, h = _png_size(score_curves([a, b]))
    assert w > 300 and h > 300  # two rows of panels
    _png_size(rpc_bars([a, b]))
    c = Results.from_dict(make_results("c", 0.9, 0.3), "c.json")
    assert score_curves([c]) is None and rpc_bars([c]) is None and ce_bars([a]) is None
    # an incomplete grid (an evaluation between two cells): curves yes, rPC bars no
    data = make_score_results("run", 0.3)
    grid = {n: [0.2, None, None, None, None] for n in BENCHMARK_CORRUPTIONS}
    data["score"] = make_score_part(grid, 0.3).to_dict()
    running = Results.from_dict(data, "run.json")
    _png_size(score_curves([running]))
    assert rpc_bars([running]) is None
