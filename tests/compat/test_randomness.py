"""NumPy's global random state after compat's calls: where imagecorruptions 1.1.2 leaves it, by
its code's draws (written out here); the comparison with imagecorruptions running is in
test_reference.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

import corruptbench
from corruptbench import compat
from corruptbench.compat import randomness
from corruptbench.corruptions.weather import frost_texture

NAMES = list(corruptbench.ALL_CORRUPTIONS)


def _img(h: int, w: int, seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)


def _state() -> tuple:
    st = np.random.get_state()  # noqa: NPY002 - the global state is what is compared
    return (st[1].tobytes(), *st[2:])


def _state_of(rs: np.random.RandomState) -> tuple:
    st = rs.get_state()
    return (st[1].tobytes(), *st[2:])


def _frost_draws(rs: np.random.RandomState, h: int, w: int) -> None:
    """imagecorruptions 1.1.2's frost draws: randint(5), then the crop of its texture scaled by
    the side ratio where the texture is short, times 1.1."""
    idx = rs.randint(5)
    th, tw = frost_texture(int(idx)).shape[:2]
    s = 1.0
    if th < h and tw >= w:
        s = h / th
    elif th >= h and tw < w:
        s = w / tw
    elif th < h and tw < w:
        s = max(h / th, w / tw)
    s *= 1.1
    rs.randint(0, math.ceil(th * s) - h)
    rs.randint(0, math.ceil(tw * s) - w)


@pytest.mark.parametrize("shape", [(224, 224), (60, 90)])
def test_impulse_noise_leaves_the_global_state_alone(shape: tuple[int, int]) -> None:
    x = _img(*shape, seed=1)
    for sev in (1, 5):
        np.random.seed(sev)  # noqa: NPY002
        before = _state()
        got = compat.corrupt(x, sev, "impulse_noise")
        assert _state() == before
        # the pixels of that seed (imagenet-c 0.0.3 / scikit-image 0.13.1's draws)
        want = corruptbench.corrupt(x, "impulse_noise", sev, profile="imagenet", rng=sev)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.uint8(compat.impulse_noise(x, sev)), want)  # type: ignore[attr-defined]
        compat.impulse_noise(Image.fromarray(x).convert("L"), sev)  # type: ignore[attr-defined]
        assert _state() == before


def test_frost_and_elastic_at_224_move_the_state_as_imagecorruptions() -> None:
    """Their pixels are imagenet-c's draws, the state after them imagecorruptions' draws."""
    x = _img(224, 224, seed=2)
    for sev in range(1, 6):
        np.random.seed(10 + sev)  # noqa: NPY002
        compat.corrupt(x, sev, "frost")
        rs = np.random.RandomState(10 + sev)
        _frost_draws(rs, 224, 224)
        assert _state() == _state_of(rs), sev
        np.random.seed(20 + sev)  # noqa: NPY002
        compat.elastic_transform(x, sev)  # type: ignore[attr-defined]
        rs = np.random.RandomState(20 + sev)
        rs.uniform(-1.12, 1.12, size=(224, 224))  # max_dx = 0.005 * H
        rs.uniform(-1.12, 1.12, size=(224, 224))
        assert _state() == _state_of(rs), sev


def _plasma_draws(rs: np.random.RandomState, mapsize: int) -> None:
    # per level (step = mapsize, mapsize / 2, ..., 2): squares, then two sets of diamonds
    step = mapsize
    while step >= 2:
        for _ in range(3):
            rs.uniform(size=(mapsize // step, mapsize // step))
        step //= 2


# what imagecorruptions 1.1.2 draws at severity 3 (shapes and order; nothing for the rest)
DRAWS = {
    "gaussian_noise": lambda rs, x: rs.normal(size=x.shape),
    "speckle_noise": lambda rs, x: rs.normal(size=x.shape),
    "shot_noise": lambda rs, x: rs.poisson(x / 255.0 * 12),
    "glass_blur": lambda rs, x: rs.randint(
        -2, 2, size=(3 * (x.shape[0] - 4) * (x.shape[1] - 4), 2)
    ),
    "motion_blur": lambda rs, x: rs.uniform(-45, 45),
    "snow": lambda rs, x: (rs.normal(size=x.shape[:2]), rs.uniform(-135, -45)),
    "frost": lambda rs, x: _frost_draws(rs, *x.shape[:2]),
    "fog": lambda rs, x: _plasma_draws(rs, 1 << (max(x.shape) - 1).bit_length()),
    "elastic_transform": lambda rs, x: rs.uniform(size=(2, *x.shape[:2])),
    "spatter": lambda rs, x: rs.normal(size=x.shape[:2]),
}


@pytest.mark.parametrize("shape", [(224, 224), (96, 128), (301, 200)])
def test_draws_per_corruption(shape: tuple[int, int]) -> None:
    """Every corruption's state after a call (RGB and grayscale), by imagecorruptions' draws."""
    x = _img(*shape, seed=3)
    for name in NAMES:
        for image in (x, x[:, :, 0]):
            np.random.seed(7)  # noqa: NPY002
            compat.corruption_dict[name](image, 3)
            rs = np.random.RandomState(7)
            if name in DRAWS:
                DRAWS[name](rs, image)
            assert _state() == _state_of(rs), (name, image.ndim)
            if image.ndim == 3:
                np.random.seed(7)  # noqa: NPY002
                compat.corrupt(image, 3, name)
                assert _state() == _state_of(rs), (name, "corrupt")


def test_copy_of_global_is_a_copy() -> None:
    np.random.seed(3)  # noqa: NPY002
    rs = randomness.copy_of_global()
    a = rs.random_sample(4)
    assert rs is not randomness.global_state()
    np.testing.assert_array_equal(a, np.random.random_sample(4))  # noqa: NPY002
    randomness.advance_uniform(rs, 10)
    b = np.random.RandomState(3)
    b.random_sample(14)
    assert _state_of(rs) == _state_of(b)
