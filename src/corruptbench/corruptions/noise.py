"""Noise corruptions: gaussian_noise, shot_noise, impulse_noise, speckle_noise (extra).

All four work per value in the [0, 1] domain (``x = image / 255.`` in float64) and are size
agnostic: any H x W works with every profile (only the per-severity constant comes from the
profile's table). Each draws one (or two) arrays of the image's shape from ``rng`` exactly as the
reference does (gaussian and speckle: one ``normal``; shot: one ``poisson``; impulse: two
``choice`` masks), so with ``rng = RandomState(k)`` the output equals the reference after
``np.random.seed(k)``.

References: ``imagenet_c/corruptions.py`` of the imagenet-c 0.0.3 package (PyPI) and
``ImageNet-C/create_c/make_imagenet_c.py`` of github.com/hendrycks/robustness (line numbers at
commit 8190fe3), which hold the same four functions.

With a MT19937 ``RandomState`` (the reference-compatible case) the draws and the arithmetic run
in the compiled kernels of :mod:`corruptbench.ops.legacy_random_kernels` over the generator's state: NumPy's
legacy algorithms bit for bit (``mt19937_gen`` and tempering, ``next_double``, the polar
``legacy_gauss``, ``random_poisson``'s multiplication and PTRS methods with ``random_loggam``),
leaving the ``RandomState`` exactly where NumPy's own calls would; the tests compare with NumPy's
samplers value by value. Other random sources (a ``Generator``) take the plain NumPy path with the
same formulas.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.legacy_random import PoissonPlan, choice_threshold, legacy_normal_u8, legacy_state
from ..ops.legacy_random_kernels import impulse_u8
from ..profiles import Profile
from ..registry import register_corruption
from ..tables.corruptions import get_params

__all__ = ["gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise", "choice_true_mask"]

#: (value / 255.) * 255 for every uint8 value — not always exactly ``value`` in float64, and the
#: reference truncates it: impulse noise keeps these values where it does not flip.
_UNIT_255 = (np.arange(256) / 255.0) * 255
_UNIT_255_U8 = _UNIT_255.astype(np.uint8)


def _flat(image: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(image).reshape(-1)


def _unit(image: np.ndarray) -> np.ndarray:
    """``image / 255.`` as a new float64 array (the reference's ``np.array(x) / 255.``)."""
    return image / 255.0


def choice_true_mask(rng: Any, p_true: float, shape: tuple[int, ...]) -> np.ndarray:
    """``rng.choice([True, False], size=shape, p=[p_true, 1 - p_true])``, drawn faster.

    Legacy ``RandomState.choice`` with ``p`` computes ``cdf = cumsum(p); cdf /= cdf[-1]``, draws
    ``u = random_sample(shape)`` and returns ``a[cdf.searchsorted(u, side='right')]``, i.e. ``True``
    exactly where ``u < cdf[0]``. This performs the same single draw and the same comparison, so the
    mask and the stream position are bit-identical to the ``choice`` call (asserted in the tests).
    """
    u = rng.random_sample(shape)
    return np.asarray(u) < choice_threshold(p_true)


def _normal_noise(image: np.ndarray, c: float, rng: Any, *, speckle: bool) -> np.ndarray:
    """``clip(x + n, 0, 1) * 255`` (or ``x + x * n`` with ``speckle``), ``n = rng.normal(scale=c)``."""
    out = np.empty(image.shape, np.uint8)
    if legacy_normal_u8(rng, _flat(image), float(c), speckle, out.reshape(-1)):
        return out
    x = _unit(image)
    noise = rng.normal(size=image.shape, scale=c)
    if speckle:
        noise *= x
    x += noise
    np.clip(x, 0, 1, out=x)
    x *= 255
    return x


@register_corruption("gaussian_noise", family="noise", order=0)
def gaussian_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Additive Gaussian noise: ``clip(x + N(0, c^2), 0, 1) * 255``.

    Reference: imagenet_c/corruptions.py:122-126, make_imagenet_c.py:249-253.

    ``x = image / 255.``; ``c`` is the noise standard deviation of the profile's table. Draws one
    ``rng.normal(scale=c, size=image.shape)``. Any image size (per-value operation).

    Args:
        image: read-only uint8 H x W x 3.
        severity: 1..5.
        profile: parameter table to use.
        rng: legacy-style random source (``as_rng``).

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    c = get_params("gaussian_noise", severity, profile.name)
    return _normal_noise(image, c, rng, speckle=False)


@register_corruption("shot_noise", family="noise", order=1)
def shot_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Poisson (shot) noise: ``clip(Poisson(x * c) / c, 0, 1) * 255``.

    Reference: imagenet_c/corruptions.py:129-133, make_imagenet_c.py:256-260.

    ``c`` is the "photon count" of the table (smaller = noisier). Draws one
    ``rng.poisson(x * c)`` with the per-value rate array. Any image size.

    Returns:
        uint8 H x W x 3: ``uint8(clip(Poisson(x * c) / c, 0, 1) * 255)`` (legacy ``RandomState``:
        drawn, computed and truncated in one compiled pass), or float64 H x W x 3 in [0, 255]
        before the truncation (other random sources: their ``poisson``).
    """
    c = get_params("shot_noise", severity, profile.name)
    plan = PoissonPlan.from_uint8(image, c)
    if isinstance(rng, np.random.RandomState):
        return plan.sample_unit_u8(rng, c)
    z = plan.sample(rng) / float(c)
    np.clip(z, 0, 1, out=z)
    z *= 255
    return z


@register_corruption("impulse_noise", family="noise", order=2)
def impulse_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Salt-and-pepper noise of scikit-image 0.13.1 ``random_noise(mode='s&p', amount=c)``.

    Reference: imagenet_c/corruptions.py:136-140, make_imagenet_c.py:263-267 (scikit-image 0.13.1:
    the version hendrycks/robustness ImageNet-C/imagenet_c/requirements.txt pins). Two masks of the
    image's shape, drawn like the pinned scikit-image with the legacy global RNG: ``flipped =
    choice([True, False], p=[c, 1 - c])`` then ``salted = choice([True, False], p=[0.5, 0.5])``;
    flipped & salted values become 1, flipped & not salted become 0 (per channel value, so impulses
    are coloured); then ``clip * 255``. Newer scikit-image draws from a private Generator instead,
    which ``np.random.seed`` does not control. Any image size.

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    c = get_params("impulse_noise", severity, profile.name)
    state = legacy_state(rng)
    if state is not None:
        out = np.empty(image.shape, np.uint8)
        thr_flip, thr_salt = choice_threshold(c), choice_threshold(0.5)
        impulse_u8(
            _flat(image), _UNIT_255_U8, thr_flip, thr_salt, state.key, state.ints, out.reshape(-1)
        )
        state.commit()
        return out
    flipped = choice_true_mask(rng, c, image.shape)
    salted = choice_true_mask(rng, 0.5, image.shape)
    out = _UNIT_255[image]
    out[flipped] = 0.0
    out[flipped & salted] = 255.0
    return out


@register_corruption("speckle_noise", family=None, order=15, extra=True)
def speckle_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Multiplicative (speckle) noise: ``clip(x + x * N(0, c^2), 0, 1) * 255``.

    An extra (validation) corruption, not part of mCE. Reference: imagenet_c/corruptions.py:143-147,
    make_imagenet_c.py:270-274.

    Draws one ``rng.normal(scale=c, size=image.shape)``. Any image size.

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    c = get_params("speckle_noise", severity, profile.name)
    return _normal_noise(image, c, rng, speckle=True)
