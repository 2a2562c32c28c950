"""Pillow's BOX resampling, compiled (corruptbench.ops.pillow_resize)."""

from __future__ import annotations

import numpy as np
from PIL import Image

from corruptbench.ops import pillow_resize


def _pil_box(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Pillow BOX resize, horizontal pass first as Pillow <= 12 (the reference env's 10.4) does:
    as two single-axis resizes, which every Pillow version computes the same way."""
    h = img.shape[0]
    wide = Image.fromarray(img).resize((size[0], h), Image.BOX)
    return np.asarray(wide.resize(size, Image.BOX))


def test_pil_box_resize_matches_pillow():
    rs = np.random.RandomState(4)
    for _ in range(60):
        h, w = rs.randint(1, 80, size=2)
        out_w, out_h = (int(v) for v in rs.randint(1, 120, size=2))
        img = rs.randint(0, 256, size=(h, w, 3)).astype(np.uint8)
        got = pillow_resize.pil_box_resize(img, (out_w, out_h))
        assert np.array_equal(got, _pil_box(img, (out_w, out_h))), (h, w, out_h, out_w)
        # single-axis resizes and square-to-square ones: the installed Pillow itself
        for size in ((out_w, h), (w, out_h)):
            want = np.asarray(Image.fromarray(img).resize(size, Image.BOX))
            assert np.array_equal(pillow_resize.pil_box_resize(img, size), want)
    for side in (32, 64, 224, 299):
        img = rs.randint(0, 256, size=(side, side, 3)).astype(np.uint8)
        for c in (0.95, 0.6, 0.25, 0.2):
            small = np.asarray(Image.fromarray(img).resize((int(side * c),) * 2, Image.BOX))
            assert np.array_equal(pillow_resize.pil_box_resize(img, (int(side * c),) * 2), small)
    gray = rs.randint(0, 256, size=(30, 20)).astype(np.uint8)
    want = np.asarray(Image.fromarray(gray).resize((7, 9), Image.BOX))
    assert np.array_equal(pillow_resize.pil_box_resize(gray, (7, 9)), want)
    same = pillow_resize.pil_box_resize(img, (side, side))
    assert np.array_equal(same, img) and same is not img


def test_box_upscale_copies_equal_pillow():
    rs = np.random.RandomState(8)
    cases = [
        (s, max(1, int(s * c))) for s in (32, 64, 224, 299) for c in (0.6, 0.5, 0.4, 0.3, 0.25)
    ]
    cases += [(7, 3), (200, 57), (300, 111), (5, 1)]
    for big, small in cases:
        assert (
            pillow_resize._pil_box_single_taps(small, big) is not None
        )  # upscaling: the copy path
        img = rs.randint(0, 256, size=(small, small + 1, 3)).astype(np.uint8)
        for size in ((big, big + 3), (small + 1, big), (big, small)):
            want = np.asarray(Image.fromarray(img).resize(size, Image.BOX))
            assert np.array_equal(pillow_resize.pil_box_resize(img, size), want), (img.shape, size)
        gray = img[..., 1].copy()
        want = np.asarray(Image.fromarray(gray).resize((big, big), Image.BOX))
        assert np.array_equal(pillow_resize.pil_box_resize(gray, (big, big)), want)
    assert pillow_resize._pil_box_single_taps(224, 134) is None  # downscaling: weighted sums
