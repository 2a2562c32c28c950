"""imagecorruptions 1.1.2's size rules in compat (away from 224 x 224), each against its
definition written out here with SciPy / Pillow / OpenCV, and the rule at 224 x 224 (imagenet-c
0.0.3's pixels). The comparisons with imagecorruptions itself are in test_reference.py."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from PIL import Image
from scipy import ndimage

import corruptbench
from corruptbench import compat
from corruptbench.compat import variants
from corruptbench.corruptions.weather import frost_texture
from corruptbench.ops.magick import magick_motion_blur
from support import load_photo


def _photo(h: int, w: int) -> np.ndarray:
    return np.asarray(load_photo("n01530575_brambling.JPEG").resize((w, h), Image.BILINEAR))


def test_snow_layer_is_cut_at_the_top_left_after_the_blur() -> None:
    """The zoomed layer (here up to 4 px larger than the image) is blurred whole and then cut
    ``[:H, :W]``; imagenet-c trims it at the centre before the blur (the same at 224 px)."""
    for (h, w), sev in (((97, 131), 4), ((60, 200), 3), ((224, 224), 5)):
        loc, scale, zoom, thr, radius, sigma, _ = corruptbench.tables.corruptions.get_params(
            "snow", sev, "imagenet"
        )
        rs = np.random.RandomState(sev)
        layer = rs.normal(size=(h, w), loc=loc, scale=scale)[:, :, None]
        zoomed = compat.clipped_zoom(layer, zoom)[:, :, 0]  # imagecorruptions' helper (SciPy)
        zoomed[zoomed < thr] = 0
        layer8 = (np.clip(zoomed, 0, 1) * 255).astype(np.uint8)
        want = magick_motion_blur(layer8, radius, sigma, rs.uniform(-135, -45))[:h, :w]
        got = variants.snow_flakes((h, w), sev, np.random.RandomState(sev))
        assert zoomed.shape[0] >= h and zoomed.shape[1] >= w
        # the native zoom equals SciPy's to ~1 ulp: allow the rare flip of the uint8 truncation
        assert np.abs(got.astype(int) - want).max() <= 1
        assert np.mean(got != want) < 1e-3, (h, w)
    x = _photo(224, 224)
    np.testing.assert_array_equal(  # 224 x 224: the library's (imagenet-c's) snow
        compat.corrupt(x, 5, "snow", rng=3),
        corruptbench.corrupt(x, "snow", 5, profile="imagenet", rng=3),
    )


@pytest.mark.parametrize("shape", [(224, 224), (300, 200), (700, 500), (200, 1000), (1000, 1000)])
def test_frost_texture_scale(shape: tuple[int, int]) -> None:
    h, w = shape
    for idx in range(5):
        th, tw = frost_texture(idx).shape[:2]
        s = 1.0
        if th < h and tw >= w:
            s = h / th
        elif th >= h and tw < w:
            s = w / tw
        elif th < h and tw < w:
            s = max(h / th, w / tw)
        s *= 1.1  # before the product, as imagecorruptions (ceil can tell the difference)
        size = (math.ceil(th * s), math.ceil(tw * s))
        assert variants.frost_texture_size(idx, h, w) == size
        tex = variants.frost_texture(idx, h, w)
        assert tex.shape == (*size, 3) and tex.shape[0] > h and tex.shape[1] > w
    want = cv2.resize(frost_texture(4), size[::-1], interpolation=cv2.INTER_CUBIC)
    np.testing.assert_array_equal(variants.frost_texture(4, h, w), want)


def test_frost_away_from_224_blends_that_texture() -> None:
    x = _photo(150, 260)
    rs = np.random.RandomState(5)
    idx = rs.randint(5)
    tex = variants.frost_texture(int(idx), 150, 260)
    x0, y0 = rs.randint(0, tex.shape[0] - 150), rs.randint(0, tex.shape[1] - 260)
    want = np.uint8(np.clip(0.7 * x + 0.7 * tex[x0 : x0 + 150, y0 : y0 + 260], 0, 255))
    np.testing.assert_array_equal(compat.corrupt(x, 3, "frost", rng=5), want)


def test_elastic_away_from_224_is_imagecorruptions_algorithm() -> None:
    """``map_coordinates(x, (y + dy, x + dx, z), order=1, mode='reflect')`` with displacements
    ``gaussian(U(-0.005 H, 0.005 H), 0.01 (H, W), reflect, truncate 3) * alpha`` (float32)."""
    h, w = 90, 130
    x = _photo(h, w)
    rs = np.random.RandomState(8)
    alpha = 250 * 0.085
    fields = []
    for _ in range(2):
        raw = rs.uniform(-0.005 * h, 0.005 * h, size=(h, w))
        smooth = ndimage.gaussian_filter(raw, (0.01 * h, 0.01 * w), mode="reflect", truncate=3)
        fields.append((smooth * alpha).astype(np.float32))
    dx, dy = fields[0][..., None], fields[1][..., None]
    img = np.array(x, dtype=np.float32) / 255.0
    xx, yy, zz = np.meshgrid(np.arange(w), np.arange(h), np.arange(3))
    idx = (np.reshape(yy + dy, (-1, 1)), np.reshape(xx + dx, (-1, 1)), np.reshape(zz, (-1, 1)))
    sampled = ndimage.map_coordinates(img, idx, order=1, mode="reflect").reshape(x.shape)
    want = np.uint8(np.clip(sampled, 0, 1) * 255)
    np.testing.assert_array_equal(compat.corrupt(x, 3, "elastic_transform", rng=8), want)


def test_pixelate_is_imagecorruptions_pillow_calls() -> None:
    """BOX down to ``(int(W c), int(H c))``, NEAREST back up, by Pillow; at 224 x 224 the same
    pixels as imagenet-c's BOX upsampling (the library's pixelate)."""
    for h, w in ((224, 224), (200, 300), (97, 61)):
        x = _photo(h, w)
        for sev, c in enumerate((0.6, 0.5, 0.4, 0.3, 0.25), start=1):
            small = Image.fromarray(x).resize((int(w * c), int(h * c)), Image.BOX)
            want = np.asarray(small.resize((w, h), Image.NEAREST))
            got = compat.corrupt(x, sev, "pixelate")
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(
                np.asarray(compat.pixelate(Image.fromarray(x), sev)), want
            )  # type: ignore[attr-defined]
            if (h, w) == (224, 224):
                lib = corruptbench.corrupt(x, "pixelate", sev, profile="imagenet")
                np.testing.assert_array_equal(got, lib)
