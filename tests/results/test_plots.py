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
