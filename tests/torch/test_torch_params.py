"""corruptbench.torch.apply_params: the batch implementations with explicit parameters (the
counterpart of corruptbench.corruptions.params.apply_params), their draws and refusals."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from corruptbench.corruptions.params import apply_params as np_apply_params  # noqa: E402
from corruptbench.corruptions.params import params_of  # noqa: E402
from corruptbench.errors import ArgumentError  # noqa: E402
from corruptbench.registry import corruption_specs  # noqa: E402
from corruptbench.torch import apply_params, corrupt_batch, cpu_param_draws  # noqa: E402
from support import psnr  # noqa: E402

TENSOR = tuple(s.name for s in corruption_specs() if s.batch is not None)


def _images(n: int, h: int, w: int, seed: int = 0) -> np.ndarray:
    rs = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.stack([xx * 255.0 / w, yy * 255.0 / h, (xx + yy) * 127.0 / (h + w)], axis=2)
    return np.stack(
        [np.clip(base + rs.normal(0, 20, base.shape), 0, 255).astype(np.uint8) for _ in range(n)]
    )


def _t(images: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(np.ascontiguousarray(images)).permute(0, 3, 1, 2).contiguous()


@pytest.mark.parametrize("name", TENSOR)
def test_level_params_equal_corrupt_batch_tensor(name):
    # a level's parameters through apply_params are corrupt_batch(backend="tensor"), draw for draw
    x = _t(_images(2, 32, 32))
    for sev in (2, 5):
        want = corrupt_batch(
            x, name, sev, profile="cifar", generator=torch.Generator().manual_seed(sev),
            backend="tensor",
        )  # fmt: skip
        got = apply_params(
            x, name, params_of(name, sev, "cifar"), generator=torch.Generator().manual_seed(sev)
        )
        assert torch.equal(got, want), (name, sev)


#: parameters between and beside the published levels (CCC's continuous severities' kind)
OFF_LEVEL = {
    "gaussian_noise": {"std": 0.123},
    "shot_noise": {"photons": 17.5},
    "impulse_noise": {"amount": 0.041},
    "glass_blur": {"sigma": 0.93, "max_delta": 2, "iterations": 1},
    "motion_blur": {"radius": 7.3, "sigma": 2.2},
    "zoom_blur": {"stop": 1.17, "step": 0.02},
    "snow": {
        "mean": 0.12,
        "std": 0.31,
        "zoom": 3.4,
        "threshold": 0.6,
        "blur_radius": 9.5,
        "blur_sigma": 4.5,
        "blend": 0.77,
    },  # fmt: skip
    "frost": {"image_weight": 0.83, "frost_weight": 0.41, "texture_scale": 0.2},
    "fog": {"strength": 0.9, "decay": 2.3, "mapsize": 32},
    "brightness": {"delta": 0.27},
    "contrast": {"factor": 0.33},
    "elastic_transform": {"alpha": 20.0, "sigma": 4.1, "jitter": 1.3},
    "pixelate": {"factor": 0.55},
    "jpeg_compression": {"quality": 31},
    "defocus_blur": {"radius": 0.8, "alias_blur": 0.15},
}


@pytest.mark.parametrize("name", sorted(OFF_LEVEL))
def test_numpy_draws_reproduce_numpy_apply_params(name):
    # with the CPU library's own draws, off-level parameters give the NumPy apply_params' pixels
    imgs = list(_images(2, 32, 32, seed=1))
    params = OFF_LEVEL[name]
    ref = np.stack([np_apply_params(im, name, params, rng=k) for k, im in enumerate(imgs)])
    d = cpu_param_draws(imgs, name, params, [np.random.RandomState(k) for k in range(2)])
    got = apply_params(_t(np.stack(imgs)), name, params, draws=d).permute(0, 2, 3, 1).numpy()
    assert psnr(got, ref) >= 40.0, name


def test_frost_textures_replace_imagenet_c_ones():
    # a flat texture: c0 x + c1 * 200, truncated, whatever the crop
    flat = np.full((40, 50, 3), 200, np.uint8)

    def texture(index: int) -> np.ndarray:
        return flat

    x = _t(_images(2, 32, 32))
    params = {"image_weight": 0.5, "frost_weight": 0.5, "texture_scale": None}
    got = apply_params(x, "frost", params, frost_textures=texture)
    want = (0.5 * x.double() + 100.0).clamp(0, 255).to(torch.uint8)
    assert torch.equal(got, want)
    with pytest.raises(ValueError, match="larger than the 32 x 32"):
        apply_params(x, "frost", params, frost_textures=lambda i: flat[:30])


def test_refusals_name_the_problem():
    x = _t(_images(1, 32, 32))
    with pytest.raises(ArgumentError, match="has no tensor implementation"):
        apply_params(x, "caustic_refraction", {})
    with pytest.raises(ArgumentError, match="gaussian_noise needs std"):
        apply_params(x, "gaussian_noise", {})
    with pytest.raises(ArgumentError, match="std must be >= 0"):
        apply_params(x, "gaussian_noise", {"std": -1.0})
    with pytest.raises(ArgumentError, match="no parameter 'sdt'"):
        apply_params(x, "gaussian_noise", {"std": 0.1, "sdt": 1})
