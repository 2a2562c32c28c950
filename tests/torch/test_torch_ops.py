"""The torch backend's batched building blocks (corruptbench.torch.ops) against the CPU library."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from corruptbench.torch.ops import glass, hsv, kernels, magick, pillow_resize, zoom  # noqa: E402
from corruptbench.torch.ops import poisson as poisson_ops  # noqa: E402


def _rand_images(n: int, h: int, w: int, seed: int = 0) -> np.ndarray:
    """Smooth-ish random colour images (N, H, W, 3) uint8: gradients plus noise."""
    rs = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    out = []
    for _ in range(n):
        a, b, c = rs.uniform(0.2, 1.0, 3)
        base = np.stack([xx * a / w, yy * b / h, (xx + yy) * c / (h + w)], axis=2) * 255
        out.append(np.clip(base + rs.normal(0, 20, base.shape), 0, 255).astype(np.uint8))
    return np.stack(out)


def _to_tensor(images: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(np.ascontiguousarray(images)).permute(0, 3, 1, 2).contiguous()


def _to_numpy(x: torch.Tensor) -> np.ndarray:
    return x.permute(0, 2, 3, 1).cpu().numpy()


def _glass_loop(x: np.ndarray, d: int, offsets_desc: np.ndarray) -> np.ndarray:
    # the reference's loop literally (x: H x W x C), offsets in loop order
    x = x.copy()
    h, w = x.shape[:2]
    k = 0
    for hh in range(h - d, d, -1):
        for ww in range(w - d, d, -1):
            dx, dy = offsets_desc[k]
            k += 1
            hp, wp = hh + dy, ww + dx
            x[hh, ww], x[hp, wp] = x[hp, wp], x[hh, ww]
    return x


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_glass_shuffle_equals_sequential_loop(d):
    rs = np.random.RandomState(d)
    h, w = 23, 19
    img = rs.randint(0, 256, (h, w, 3)).astype(np.uint8)
    offs = rs.randint(-d, d, size=((h - 2 * d) * (w - 2 * d), 2))
    expect = _glass_loop(img, d, offs)
    asc = offs.reshape(h - 2 * d, w - 2 * d, 2)[::-1, ::-1].copy()
    got = glass.glass_shuffle(_to_tensor(img[None]), d, torch.as_tensor(asc)[None])
    np.testing.assert_array_equal(_to_numpy(got)[0], expect)
    # the pointer-jumping form (used off the CPU) gives the same result
    jump = glass._glass_shuffle_jump(_to_tensor(img[None]), d, torch.as_tensor(asc)[None])
    np.testing.assert_array_equal(_to_numpy(jump)[0], expect)


@pytest.mark.parametrize("radius, sigma", [(10, 3), (15, 8), (20, 15), (3, 1)])
def test_motion_taps_batched_equal_per_sample(radius, sigma):
    """The batched tap sum (non-CPU devices) is the per-sample slice sum, bit for bit."""
    from corruptbench.ops.magick import motion_kernel

    x = torch.rand(5, 3, 40, 52, generator=torch.Generator().manual_seed(radius))
    angles = np.random.RandomState(radius).uniform(-135, 45, 5)
    kernels = [motion_kernel(radius, sigma, float(a)) for a in angles]
    loop = magick.motion_blur_taps(x, kernels, batched=False)
    batched = magick.motion_blur_taps(x, kernels, batched=True)
    assert torch.equal(loop, batched)


def test_glass_shuffle_passes_equal_repeated_passes():
    rs = np.random.RandomState(5)
    x = torch.as_tensor(rs.randint(0, 256, (2, 3, 21, 17)).astype(np.uint8))
    for d in (1, 2, 3):
        offs = torch.as_tensor(rs.randint(-d, d, (2, 3, 21 - 2 * d, 17 - 2 * d, 2)))
        expect = x
        for it in range(3):
            expect = glass.glass_shuffle(expect, d, offs[:, it])
        for dtype in (torch.int8, torch.int64):
            got = glass.glass_shuffle_passes(x, d, offs.to(dtype))
            assert got.dtype == torch.uint8
            np.testing.assert_array_equal(got.numpy(), expect.numpy())
            jump = x  # the pass-by-pass pointer jumping used off the CPU
            for it in range(3):
                jump = glass._glass_shuffle_jump(jump, d, offs.to(dtype)[:, it])
            np.testing.assert_array_equal(jump.numpy(), expect.numpy())


def test_poisson_u8_tables_and_samples():
    from scipy.stats import poisson

    for c in (500.0, 60.0, 12.0, 3.0):
        threshold, alias = poisson_ops._poisson_alias(c)
        cells = threshold.shape[1]
        bits = cells.bit_length() - 1
        prob = threshold / 2.0 ** (63 - bits)
        implied = np.zeros((256, cells))
        for v in range(256):
            np.add.at(implied[v], np.arange(cells), prob[v] / cells)
            np.add.at(implied[v], alias[v], (1 - prob[v]) / cells)
        lam = np.arange(256)[:, None] / 255.0 * c
        np.testing.assert_allclose(implied, poisson.pmf(np.arange(cells)[None], lam), atol=1e-13)
    g = torch.Generator().manual_seed(0)
    v = torch.tensor([0, 40, 128, 255], dtype=torch.uint8).repeat_interleave(50_000)
    words = torch.empty(v.shape, dtype=torch.int64).random_(generator=g)
    counts = poisson_ops.poisson_u8(v, 12.0, words).double()
    for val in (0, 40, 128, 255):
        sel = counts[v == val]
        lam = val / 255.0 * 12.0
        assert abs(float(sel.mean()) - lam) < 6 * (lam / sel.numel()) ** 0.5 + 1e-12
        assert abs(float(sel.var()) - lam) < 0.05 * lam + 1e-12
    # the extreme words stay in range
    edge = torch.tensor([0, 2**63 - 1, 2**62, 12345], dtype=torch.int64)
    out = poisson_ops.poisson_u8(torch.tensor([0, 255, 255, 128], dtype=torch.uint8), 60.0, edge)
    assert int(out[0]) == 0 and int(out.max()) < 166


@pytest.mark.parametrize(
    "size,z", [((224, 224), 1.27), ((37, 53), 1.13), ((26, 29), 1.74), ((5, 7), 1.5), ((1, 4), 1.3)]
)
def test_clipped_zoom_matches_cpu(size, z):
    from corruptbench.ops.zoom import clipped_zoom

    img = np.random.RandomState(2).rand(*size, 3).astype(np.float32)
    expect = clipped_zoom(img, z)
    got = zoom.clipped_zoom(_to_tensor(img[None]), z)
    np.testing.assert_allclose(_to_numpy(got)[0], expect, atol=5e-5)


@pytest.mark.parametrize(
    "size,new",
    [
        ((224, 224), (134, 134)),
        ((37, 53), (22, 31)),
        ((32, 32), (30, 30)),
        ((13, 9), (40, 27)),
        ((32, 48), (16, 12)),  # regular windows (2 and 4 pixels)
    ],
)
def test_pil_box_resize_is_exact(size, new):
    from PIL import Image

    img = _rand_images(1, *size, seed=9)[0]
    expect = np.asarray(Image.fromarray(img).resize((new[1], new[0]), Image.Resampling.BOX))
    for dtype in (torch.int32, torch.float64, torch.uint8):
        got = pillow_resize.pil_box_resize(_to_tensor(img[None]).to(dtype), new)
        np.testing.assert_array_equal(_to_numpy(got)[0].astype(np.uint8), expect)
        if dtype == torch.uint8:  # (the CPU path's dtype; tap sums need int32 / float64)
            continue
        # the tap sums used off the CPU give the same pixels
        taps = pillow_resize._box_pass_taps(_to_tensor(img[None]).to(dtype), size[1], new[1], -1)
        taps = pillow_resize._box_pass_taps(taps, size[0], new[0], -2)
        np.testing.assert_array_equal(_to_numpy(taps)[0].astype(np.uint8), expect)


def test_plasma_fractal_matches_cpu():
    from corruptbench.ops.kernels import plasma_fractal

    expect = plasma_fractal(64, 1.7, np.random.RandomState(4))
    rs = np.random.RandomState(4)

    def uniform(shape, lo, hi):
        return torch.as_tensor(rs.uniform(lo, hi, shape[1:]))[None]

    got = kernels.plasma_fractal(
        1, 64, 1.7, uniform, device=torch.device("cpu"), dtype=torch.float64
    )
    np.testing.assert_allclose(got[0].numpy(), expect, atol=1e-12)


def test_hsv_matches_cpu():
    from corruptbench.ops.hsv import hsv2rgb, rgb2hsv

    img = _rand_images(1, 16, 16, seed=2)[0] / 255.0
    img[0, :4] = img[0, :4, :1]  # some gray pixels
    ours = hsv.rgb2hsv(_to_tensor(img[None]))
    np.testing.assert_allclose(_to_numpy(ours)[0], rgb2hsv(img), atol=1e-12)
    back = hsv.hsv2rgb(ours)
    np.testing.assert_allclose(_to_numpy(back)[0], hsv2rgb(rgb2hsv(img)), atol=1e-12)
