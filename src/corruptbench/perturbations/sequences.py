"""The 14 ImageNet-P sequence generators.

References: the generator scripts of github.com/hendrycks/robustness (line numbers at commit
8190fe3): ImageNet-P/create_p/make_imagenet_p.py (imagenet), make_imagenet_p_inception.py,
make_tinyimagenet_p.py (tiny) and make_cifar_p.py (cifar).

Each generator receives a :class:`Source` (the validated input image and its per-profile
preprocessing), the schedule constants of :mod:`corruptbench.tables.perturbations`, the difficulty and the random
source, and returns the frames as uint8 ``(T, S, S, 3)``. Float-to-uint8 steps truncate, as the
reference's ``np.uint8(...)`` / ``tensor.mul(255).byte()`` did.

Per-profile preprocessing, as in those scripts, ``S`` = 224 / 299 / 64 / 32:

* imagenet: canvas = ``Resize(256)`` (short side), clean frame = ``CenterCrop(224)`` of it; warps
  (zoom, translate, rotate, tilt, scale, shear) act on the canvas and are then centre-cropped.
* tiny: the same with ``Resize(64)`` / ``CenterCrop(64)``; motion blur acts on the full-resolution
  input (see :func:`motion_blur`).
* cifar: the 32 x 32 image is both canvas and clean frame (crops are the identity).
* inception: canvas = the full-resolution input, clean frame = ``resized_center_crop`` (central
  87.5 %, squashed to 299 x 299); translate/rotate/tilt/shear warp the full input and then take the
  ``resized_center_crop``; zoom and scale warp the 299 clean frame (``CenterCrop(299)`` is the
  identity).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

import cv2
import numpy as np
from PIL import Image
from scipy.ndimage import gaussian_filter

from ..corruptions.weather import water_drops
from ..ops.geometry import affine, tilt_homography
from ..ops.legacy_random import PoissonPlan, legacy_normal, legacy_normal_u8
from ..ops.opencv_warp import warp_perspective_cv34
from ..ops.preprocess import center_crop, inception_crop, resize_short
from ..ops.zoom import clipped_zoom
from ..profiles import Profile
from ..registry import register_perturbation

__all__ = ["Source"]

_F32_255 = np.float32(255.0)


class Source:
    """The input image and the per-profile preprocessing the reference applies to it.

    Args:
        rgb: validated, read-only uint8 H x W x 3 input (the full source image).
        profile: the dataset profile (its name, frame size S and canvas resize).
    """

    def __init__(self, rgb: np.ndarray, profile: Profile) -> None:
        self.original = rgb
        self.profile = profile.name
        self.size = profile.size
        self._canvas_short_side = profile.resize_short

    @cached_property
    def original_pil(self) -> Image.Image:
        return Image.fromarray(np.ascontiguousarray(self.original))

    @cached_property
    def canvas(self) -> Image.Image:
        """The image the reference's warps act on (``img`` in the generator scripts)."""
        if self._canvas_short_side is not None:
            return resize_short(self.original_pil, self._canvas_short_side)
        return self.original_pil  # cifar: the 32 x 32 image; inception: the full-resolution input

    @cached_property
    def base(self) -> np.ndarray:
        """The clean frame (frame 0 of the noise sequences), uint8 S x S x 3, read-only."""
        if self.profile == "inception":
            out = np.asarray(inception_crop(self.original_pil, self.size))
        elif self.profile == "cifar":
            out = np.asarray(self.original)
        else:
            out = np.asarray(center_crop(self.canvas, self.size))
        out = np.ascontiguousarray(out, dtype=np.uint8)
        out.flags.writeable = False
        return out

    @cached_property
    def base_pil(self) -> Image.Image:
        return Image.fromarray(np.ascontiguousarray(self.base))

    def finish(self, warped: Image.Image, kind: str) -> np.ndarray:
        """Crop a warped canvas to the S x S frame (``CenterCrop`` or ``resized_center_crop``).

        Under inception, zoom and scale warp the 299 clean frame and use ``CenterCrop(299)``
        (the identity); the other warps take the ``resized_center_crop`` of the warped original.
        """
        if self.profile == "inception" and kind not in ("zoom_blur", "scale"):
            return np.asarray(inception_crop(warped, self.size))
        return np.asarray(center_crop(warped, self.size))

    def warp_canvas(self, kind: str) -> Image.Image:
        """The image a warp acts on: zoom and scale use the 299 clean frame under inception."""
        if self.profile == "inception" and kind in ("zoom_blur", "scale"):
            return self.base_pil
        return self.canvas

    def crop_array(self, arr: np.ndarray) -> np.ndarray:
        """``finish`` for an H x W x 3 array (tilt works on arrays)."""
        if self.profile == "inception":
            return np.asarray(inception_crop(Image.fromarray(arr), self.size))
        h, w = arr.shape[:2]
        s = self.size
        i = int(round((h - s) / 2.0))
        j = int(round((w - s) / 2.0))
        if 0 <= i and 0 <= j and i + s <= h and j + s <= w:
            return arr[i : i + s, j : j + s]
        return np.asarray(center_crop(Image.fromarray(arr), s))


def _stack(frames: list[np.ndarray]) -> np.ndarray:
    return np.ascontiguousarray(np.stack(frames), dtype=np.uint8)


# --------------------------------------------------------------------------- noise


@register_perturbation("gaussian_noise", order=0, noise=True)
def gaussian_noise(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame 0 clean; frame i >= 1: ``byte(clamp(x + σ n_i, 0, 1) * 255)`` in float32.

    ``x = crop / 255`` (float32, torchvision ``ToTensor``), ``n_i`` an independent standard-normal
    draw of shape S x S x 3. The reference drew ``n_i`` with ``torch.randn_like`` (unseeded, CHW
    order); we draw ``rng.normal(size=(S, S, 3))`` (float64, rounded to float32) so that the
    sequence is reproducible from ``rng`` — same distribution, not the same stream. σ = the
    profile's level for ``difficulty`` (imagenet 0.03 / 0.05 / 0.08). The multiply by 255 and the
    truncating byte cast follow torchvision's ``ToPILImage`` (``mul(255).byte()``).
    """
    sigma = np.float32(p["levels"][difficulty - 1])
    base = src.base
    x = base.astype(np.float32) / _F32_255
    frames = [base]
    for _ in range(1, p["frames"]):
        # rng.normal(size=x.shape): for a RandomState the compiled legacy sampler (same values
        # and generator state, about 3x faster than NumPy's)
        z = legacy_normal(rng, 0.0, 1.0, x.shape).astype(np.float32)
        z *= sigma
        z += x
        np.clip(z, 0, 1, out=z)
        z *= _F32_255
        frames.append(z.astype(np.uint8))
    return _stack(frames)


@register_perturbation("shot_noise", order=1, noise=True)
def shot_noise(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame 0 clean; frame i >= 1: ``uint8(255 * clip(Poisson(x λ) / λ, 0, 1))``, ``x = crop / 255``.

    float64 as the reference (``np.random.poisson`` per frame, same draw order); λ = the profile's
    level for ``difficulty`` (imagenet 300 / 120 / 60). For a ``RandomState`` the draws come from
    :class:`corruptbench.ops.legacy_random.PoissonPlan`, the compiled copy of NumPy's legacy sampler
    that gives the same numbers and generator state as ``rng.poisson`` (the shot_noise corruption's
    formula and kernel: ``uint8(clip(Poisson(x λ) / λ, 0, 1) * 255)`` in one pass).
    """
    lam = p["levels"][difficulty - 1]
    base = src.base
    plan = PoissonPlan.from_uint8(
        base, lam
    )  # rates (base / 255.) * lam, the reference's ``z * 300``
    frames = [base]
    for _ in range(1, p["frames"]):
        frames.append(plan.sample_unit_u8(rng, lam))  # == uint8(255 * clip(poisson / lam, 0, 1))
    return _stack(frames)


@register_perturbation("speckle_noise", order=10, validation=True, noise=True)
def speckle_noise(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame 0 clean; frame i >= 1: ``uint8(255 * clip(x + x N(0, σ²), 0, 1))``, ``x = crop / 255``.

    float64, one ``normal(size=(S, S, 3), scale=σ)`` draw per frame as the reference; σ = the
    profile's level for ``difficulty`` (imagenet 0.05 / 0.10 / 0.15).
    """
    sigma = p["levels"][difficulty - 1]
    base = src.base
    flat = base.reshape(-1)
    x = base / 255.0
    frames = [base]
    for _ in range(1, p["frames"]):
        # a RandomState: the speckle_noise corruption's compiled kernel, the same float64
        # operations (x * n + x == x + x * n, n = 0.0 + σ g) fused with the draw
        out = np.empty(base.shape, np.uint8)
        if not legacy_normal_u8(rng, flat, float(sigma), True, out.reshape(-1)):
            z = x * rng.normal(size=x.shape, scale=sigma)
            z += x
            np.clip(z, 0, 1, out=z)
            out = (255 * z).astype(np.uint8)
        frames.append(out)
    return _stack(frames)


# --------------------------------------------------------------------------- blur


def _magick_motion_blur(image: np.ndarray, radius: float, sigma: float, angle: float) -> np.ndarray:
    from ..ops.magick import magick_motion_blur  # lazy: numba compilation on first use

    return magick_motion_blur(image, radius, sigma, angle)


@register_perturbation("motion_blur", order=2)
def motion_blur(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame i = ImageMagick motion blur (radius, σ) at angle ``(i - offset) * step`` (frame 0 too).

    imagenet: radius 10, σ 3, angles -120..0 on the 224 crop; cifar: 21 frames, radius 6, σ 1.8,
    angles -180..0; inception: radius 13 on the 299 crop.

    tiny: the reference blurs the **full-resolution** input (radius 14, σ 3, angles -150..0) and
    then applies ``Resize(64)`` without a crop (make_tinyimagenet_p.py), so its frames are 64 x 64
    only for square inputs. We follow it and then apply ``CenterCrop(64)`` so every frame is 64 x 64
    like the other tiny sequences (a no-op for square inputs).

    A gray input (R == G == B) comes back gray from ImageMagick and is replicated to RGB, as the
    reference's grayscale-PNG branch does.
    """
    radius, sigma = p["radius"], p["sigma"]
    if p["source"] == "original":
        image = np.ascontiguousarray(src.original)
    else:
        image = src.base
    frames = []
    for i in range(p["frames"]):
        z = _magick_motion_blur(image, radius, sigma, (i - p["angle_offset"]) * p["angle_step"])
        if p["source"] == "original":
            z = np.asarray(center_crop(resize_short(Image.fromarray(z), src.size), src.size))
        frames.append(z)
    return _stack(frames)


@register_perturbation("zoom_blur", order=3)
def zoom_blur(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Running average of zooms: frame i = ``byte(Σ_{k<=i} z_k / (i + 1) * 255)`` in float32.

    ``z_0`` = the clean crop / 255; ``z_k`` = ``CenterCrop(affine(canvas, scale=1 + 0.004 k,
    bilinear)) / 255`` (torchvision 0.2.1 affine, PIL resampling). Accumulated in float32 in frame
    order like the reference's ``avg += ToTensor(z)``; ``ToPILImage`` truncates.
    """
    canvas = src.warp_canvas("zoom_blur")
    base = src.base
    avg = base.astype(np.float32) / _F32_255
    frames = [base]
    for i in range(1, p["frames"]):
        zoomed = affine(canvas, scale=1 + p["scale_step"] * i, resample=Image.Resampling.BILINEAR)
        z = src.finish(zoomed, "zoom_blur")
        avg += z.astype(np.float32) / _F32_255
        frames.append(((avg / np.float32(i + 1)) * _F32_255).astype(np.uint8))
    return _stack(frames)


@register_perturbation("gaussian_blur", order=11, validation=True)
def gaussian_blur(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame i = ``uint8(255 * gaussian(crop / 255, σ_i, truncate))``, ``σ_i = base + step * i``.

    scikit-image's ``gaussian(multichannel=True)`` = a per-channel separable Gaussian, mode
    'nearest', float64 (imagenet: σ 0.25..1.30, truncate 6.0; tiny/cifar truncate 7.0).
    """
    x = src.base / 255.0
    frames = []
    for i in range(p["frames"]):
        sigma = p["base"] + p["step"] * i
        z = gaussian_filter(x, (sigma, sigma, 0), mode="nearest", truncate=p["truncate"])
        frames.append((255 * z).astype(np.uint8))
    return _stack(frames)


# --------------------------------------------------------------------------- weather


@register_perturbation("snow", order=4)
def snow(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """One snow layer, blown by a rotating motion blur.

    Reference: make_imagenet_p.py:201-245.

    ``L = normal((S, S), loc, scale)`` (the only draw) → ``clipped_zoom(zoom)`` → ``L < thr`` set 0 →
    ``uint8(clip(L, 0, 1) * 255)``; frame i: ``B = motion_blur(L, radius, σ, angle=4 i - 150) / 255``;
    ``z = 0.85 x + 0.15 max(x, gray(x) * 1.5 + 0.5)`` (``x = crop / 255``, gray by OpenCV on
    float32) and ``frame = uint8(clip(z + B + rot180(B), 0, 1) * 255)``.
    """
    s = src.size
    x = src.base / 255.0
    layer = rng.normal(size=(s, s), loc=p["loc"], scale=p["scale"])
    layer = clipped_zoom(layer[..., np.newaxis], p["zoom"])
    layer[layer < p["threshold"]] = 0
    layer8 = (np.clip(layer.squeeze(), 0, 1) * 255).astype(np.uint8)
    blend = p["blend"]
    gray = cv2.cvtColor(x.astype(np.float32), cv2.COLOR_RGB2GRAY).reshape(s, s, 1) * 1.5 + 0.5
    z = blend * x + (1 - blend) * np.maximum(x, gray)
    frames = []
    for i in range(p["frames"]):
        blown = _magick_motion_blur(layer8, p["radius"], p["sigma"], i * 4 - 150) / 255.0
        blown = blown[..., np.newaxis]
        out = z + blown
        out += np.rot90(blown, k=2)
        np.clip(out, 0, 1, out=out)
        out *= 255
        frames.append(out.astype(np.uint8))
    return _stack(frames)


def _water(x: np.ndarray, liquid: np.ndarray, intensity: float) -> np.ndarray:
    """The spatter corruption's water frame (mode 0, imagenet_c/corruptions.py:305-328 of
    imagenet-c 0.0.3) on ``x`` (float32 [0, 1]) -> uint8."""
    out = water_drops(x, liquid, intensity)  # the spatter corruption's water formula
    np.clip(out, 0, 1, out=out)
    out *= _F32_255
    return out.astype(np.uint8)


def _drip(liquid: np.ndarray, kernel: tuple[float, ...]) -> np.ndarray:
    """Every column convolved with ``kernel`` (``np.convolve(col, kernel, mode='same')``).

    'same' keeps rows ``(n - 1) // 2 .. (n - 1) // 2 + H - 1`` of the full convolution (zero padding),
    so liquid moves down the image. Sums run in increasing row order like NumPy's inner loop:
    bit-identical to ``np.convolve`` in the interior rows, within 1 ulp in the first/last rows.
    """
    k = np.asarray(kernel, dtype=np.float64)
    n = len(k)
    h = liquid.shape[0]
    off = (n - 1) // 2
    padded = np.zeros((h + 2 * n,) + liquid.shape[1:], dtype=np.float64)
    padded[n : n + h] = liquid
    out = None
    for j in range(n - 1, -1, -1):  # ascending source row: a[r + off - j]
        start = n + off - j
        term = k[j] * padded[start : start + h]
        out = term if out is None else out + term
    assert out is not None
    return out


@register_perturbation("spatter", order=12, validation=True)
def spatter(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Water spatter whose drops run down the lens.

    Reference: make_imagenet_p.py:451-505.

    ``L = gaussian(normal((S, S), loc, scale), σ)`` (the only draw; mode 'nearest', truncate 4,
    float64), ``L < thr`` set 0. Frame i = the water formula (:func:`_water`, intensity 0.6) on the
    clean crop; then every column of ``L`` is convolved with the drip kernel (imagenet
    ``[0.05, 0.1, 0.15, 0.7]``, tiny/cifar ``[0.2, 0.8]``).
    """
    s = src.size
    x = src.base.astype(np.float32) / np.float32(255.0)
    liquid = rng.normal(size=(s, s), loc=p["loc"], scale=p["scale"])
    liquid = gaussian_filter(liquid, p["sigma"], mode="nearest", truncate=4.0)
    liquid[liquid < p["threshold"]] = 0
    frames = []
    for _ in range(p["frames"]):
        frames.append(_water(x, liquid, p["intensity"]))
        liquid = _drip(liquid, p["drip"])
    return _stack(frames)


# --------------------------------------------------------------------------- digital


def _hsv_factors(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(V, F)`` with ``hsv2rgb(h, s, v') == v' * F`` for the hue/saturation of ``x`` (H x W x 3).

    Numerics of scikit-image ``rgb2hsv``/``hsv2rgb`` (float64): ``V = max``, ``S = ptp / V``
    (0 where ptp == 0), ``H = (h6 / 6) % 1`` with the blue > green > red precedence, and the six
    ``hsv2rgb`` sectors built from ``p = v (1 - s)``, ``q = v (1 - f s)``, ``t = v (1 - (1 - f) s)``.
    Only V changes in the brightness sequence, so ``F`` (the bracketed factors) is computed once.
    """
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = x.max(-1)
    delta = np.ptp(x, axis=-1)
    nz = delta != 0
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(nz, delta / v, 0.0)
        h = np.zeros_like(v)
        idx = r == v
        h[idx] = ((g - b) / delta)[idx]
        idx = g == v
        h[idx] = (2.0 + (b - r) / delta)[idx]
        idx = b == v
        h[idx] = (4.0 + (r - g) / delta)[idx]
    h = (h / 6.0) % 1.0
    h[~nz] = 0.0
    h[np.isnan(h)] = 0
    s[np.isnan(s)] = 0
    hi6 = np.floor(h * 6)
    f = h * 6 - hi6
    one = np.ones_like(v)
    fp = 1 - s
    fq = 1 - f * s
    ft = 1 - (1 - f) * s
    sectors = np.stack(
        [
            np.stack((one, ft, fp), axis=-1),
            np.stack((fq, one, fp), axis=-1),
            np.stack((fp, one, ft), axis=-1),
            np.stack((fp, fq, one), axis=-1),
            np.stack((ft, fp, one), axis=-1),
            np.stack((one, fp, fq), axis=-1),
        ]
    )
    hi = hi6.astype(np.uint8) % 6
    factors = np.take_along_axis(sectors, hi[None, ..., None].repeat(3, axis=-1), axis=0)[0]
    return v, factors


@register_perturbation("brightness", order=5)
def brightness(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame i: HSV ``V = clip(V + c_i, 0, 1)``, ``c_i = (i - 15) * step / 100.`` (±0.30; CIFAR ±0.225).

    scikit-image ``rgb2hsv``/``hsv2rgb`` numerics on ``crop / 255`` (float64), then
    ``uint8(rgb * 255)`` (truncation). Frame 15 is the clean crop up to the HSV round trip (±1).
    """
    v, factors = _hsv_factors(src.base / 255.0)
    frames = []
    for i in range(p["frames"]):
        c = (i - 15) * p["step"] / 100.0
        vi = np.clip(v + c, 0, 1)
        frames.append((vi[..., None] * factors * 255).astype(np.uint8))
    return _stack(frames)


@register_perturbation("translate", order=6)
def translate(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame i: ``affine(canvas, translate=(i - offset, 0))`` (NEAREST, black fill), then cropped.

    imagenet: 41 frames, shifts -20..20 px on the Resize(256) canvas; tiny 31 frames, -15..15;
    cifar 16 frames, -7..8 px on the 32 x 32 image (no crop).
    """
    canvas = src.warp_canvas("translate")
    return _stack(
        [
            src.finish(affine(canvas, translate=(i - p["offset"], 0)), "translate")
            for i in range(p["frames"])
        ]
    )


@register_perturbation("rotate", order=7)
def rotate(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame i: ``affine(canvas, angle=i - 15, bilinear)`` then cropped (-15..15 degrees)."""
    canvas = src.warp_canvas("rotate")
    return _stack(
        [
            src.finish(
                affine(canvas, angle=i - p["offset"], resample=Image.Resampling.BILINEAR), "rotate"
            )
            for i in range(p["frames"])
        ]
    )


@register_perturbation("shear", order=13, validation=True)
def shear(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame i: ``affine(canvas, shear=i - 15, bilinear)`` then cropped (-15..15 degrees)."""
    canvas = src.warp_canvas("shear")
    return _stack(
        [
            src.finish(
                affine(canvas, shear=i - p["offset"], resample=Image.Resampling.BILINEAR), "shear"
            )
            for i in range(p["frames"])
        ]
    )


@register_perturbation("scale", order=9)
def scale(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame i: ``affine(canvas, scale=(i * step + offset) / 100., bilinear)`` then cropped.

    imagenet/tiny: 0.40..1.15 (black surround below 224/256); cifar: ``(2 i + 70) / 100`` = 0.70..1.30.
    """
    canvas = src.warp_canvas("scale")
    return _stack(
        [
            src.finish(
                affine(
                    canvas,
                    scale=(i * p["step"] + p["offset"]) / 100.0,
                    resample=Image.Resampling.BILINEAR,
                ),
                "scale",
            )
            for i in range(p["frames"])
        ]
    )


@register_perturbation("tilt", order=8)
def tilt(src: Source, p: Mapping[str, Any], difficulty: int, rng: Any) -> np.ndarray:
    """Frame i: ``cv2.warpPerspective(canvas, P2·T·Rx(θ)·Ry(φ)·P1, (w, h))`` then cropped.

    ``φ = θ = deg2rad(i - 15)`` (cifar: ``deg2rad(0.75 * (i - 15))``); bilinear, black border; the
    warp acts on the whole canvas (Resize(256) image for imagenet) before the centre crop. The warp
    is :func:`corruptbench.ops.opencv_warp.warp_perspective_cv34`, OpenCV 3.4's numerics (current OpenCV differs by up to 4
    levels on ~10 % of the values).
    """
    x = np.asarray(src.warp_canvas("tilt"))
    h, w = x.shape[:2]
    frames = []
    for i in range(p["frames"]):
        deg = i - p["offset"] if p["factor"] is None else p["factor"] * (i - p["offset"])
        phi = theta = np.deg2rad(deg)
        mat = tilt_homography(w, h, phi, theta)
        frames.append(src.crop_array(warp_perspective_cv34(x, mat, (w, h))))
    return _stack(frames)
