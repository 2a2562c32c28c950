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
from .params import NONNEGATIVE, POSITIVE, UNIT, severity_params

__all__ = [
    "gaussian_noise",
    "shot_noise",
    "impulse_noise",
    "speckle_noise",
    "gaussian_noise_p",
    "shot_noise_p",
    "impulse_noise_p",
    "speckle_noise_p",
    "choice_true_mask",
]

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


def gaussian_noise_p(image: np.ndarray, *, std: float, rng: Any) -> np.ndarray:
    """Additive Gaussian noise of standard deviation ``std``: ``clip(x + N(0, std^2), 0, 1) * 255``.

    Reference: imagenet_c/corruptions.py:122-126, make_imagenet_c.py:249-253.

    ``x = image / 255.``. Draws one ``rng.normal(scale=std, size=image.shape)``. Any image size
    (per-value operation).

    Args:
        image: read-only uint8 H x W x 3.
        std: the noise's standard deviation, in units of the full range (x in [0, 1]); >= 0
            (0: no noise). Published: 0.08 .. 0.38 (imagenet), 0.04 .. 0.10 (cifar).
        rng: legacy-style random source (``as_rng``).

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    return _normal_noise(image, std, rng, speckle=False)


@register_corruption(
    "gaussian_noise",
    family="noise",
    order=0,
    params=("std",),
    apply=gaussian_noise_p,
    bounds={"std": NONNEGATIVE},
)
def gaussian_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Additive Gaussian noise: ``clip(x + N(0, c^2), 0, 1) * 255``.

    :func:`gaussian_noise_p` with ``std = c``, the profile's table entry at ``severity``.
    """
    return gaussian_noise_p(image, **severity_params("gaussian_noise", severity, profile), rng=rng)


def shot_noise_p(image: np.ndarray, *, photons: float, rng: Any) -> np.ndarray:
    """Poisson (shot) noise: ``clip(Poisson(x * photons) / photons, 0, 1) * 255``.

    Reference: imagenet_c/corruptions.py:129-133, make_imagenet_c.py:256-260.

    Draws one ``rng.poisson(x * photons)`` with the per-value rate array. Any image size.

    Args:
        image: read-only uint8 H x W x 3.
        photons: the photon count of a full-scale value (x = 1); > 0, smaller is noisier (the
            noise's relative standard deviation at x is ``1 / sqrt(x * photons)``). Published:
            60 .. 3 (imagenet), 500 .. 50 (cifar).
        rng: legacy-style random source.

    Returns:
        uint8 H x W x 3: ``uint8(clip(Poisson(x * c) / c, 0, 1) * 255)`` (legacy ``RandomState``:
        drawn, computed and truncated in one compiled pass), or float64 H x W x 3 in [0, 255]
        before the truncation (other random sources: their ``poisson``).
    """
    c = photons
    plan = PoissonPlan.from_uint8(image, c)
    if isinstance(rng, np.random.RandomState):
        return plan.sample_unit_u8(rng, c)
    z = plan.sample(rng) / float(c)
    np.clip(z, 0, 1, out=z)
    z *= 255
    return z


@register_corruption(
    "shot_noise",
    family="noise",
    order=1,
    params=("photons",),
    apply=shot_noise_p,
    bounds={"photons": POSITIVE},
)
def shot_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Poisson (shot) noise: ``clip(Poisson(x * c) / c, 0, 1) * 255``.

    :func:`shot_noise_p` with ``photons = c``, the profile's table entry at ``severity``.
    """
    return shot_noise_p(image, **severity_params("shot_noise", severity, profile), rng=rng)


def impulse_noise_p(image: np.ndarray, *, amount: float, rng: Any) -> np.ndarray:
    """Salt-and-pepper noise of scikit-image 0.13.1 ``random_noise(mode='s&p', amount=c)``.

    Reference: imagenet_c/corruptions.py:136-140, make_imagenet_c.py:263-267 (scikit-image 0.13.1:
    the version hendrycks/robustness ImageNet-C/imagenet_c/requirements.txt pins). Two masks of the
    image's shape, drawn like the pinned scikit-image with the legacy global RNG: ``flipped =
    choice([True, False], p=[c, 1 - c])`` then ``salted = choice([True, False], p=[0.5, 0.5])``;
    flipped & salted values become 1, flipped & not salted become 0 (per channel value, so impulses
    are coloured); then ``clip * 255``. Newer scikit-image draws from a private Generator instead,
    which ``np.random.seed`` does not control. Any image size.

    Args:
        image: read-only uint8 H x W x 3.
        amount: ``c``, the probability that a value is replaced (half by 0, half by 255), in
            [0, 1]. Published: 0.03 .. 0.27 (imagenet), 0.01 .. 0.07 (cifar).
        rng: legacy-style random source.

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    c = amount
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


@register_corruption(
    "impulse_noise",
    family="noise",
    order=2,
    params=("amount",),
    apply=impulse_noise_p,
    bounds={"amount": UNIT},
)
def impulse_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Salt-and-pepper noise of scikit-image 0.13.1 ``random_noise(mode='s&p', amount=c)``.

    :func:`impulse_noise_p` with ``amount = c``, the profile's table entry at ``severity``.
    """
    return impulse_noise_p(image, **severity_params("impulse_noise", severity, profile), rng=rng)


def speckle_noise_p(image: np.ndarray, *, std: float, rng: Any) -> np.ndarray:
    """Multiplicative (speckle) noise: ``clip(x + x * N(0, std^2), 0, 1) * 255``.

    Reference: imagenet_c/corruptions.py:143-147, make_imagenet_c.py:270-274.

    Draws one ``rng.normal(scale=std, size=image.shape)``. Any image size.

    Args:
        image: read-only uint8 H x W x 3.
        std: the standard deviation of the relative noise (a value x becomes ``x (1 + n)``);
            >= 0. Published: 0.15 .. 0.6 (imagenet), 0.06 .. 0.2 (cifar).
        rng: legacy-style random source.

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    return _normal_noise(image, std, rng, speckle=True)


@register_corruption(
    "speckle_noise",
    family=None,
    order=15,
    extra=True,
    params=("std",),
    apply=speckle_noise_p,
    bounds={"std": NONNEGATIVE},
)
def speckle_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Multiplicative (speckle) noise: ``clip(x + x * N(0, c^2), 0, 1) * 255``.

    An extra (validation) corruption, not part of mCE. :func:`speckle_noise_p` with ``std = c``,
    the profile's table entry at ``severity``.
    """
    return speckle_noise_p(image, **severity_params("speckle_noise", severity, profile), rng=rng)
