"""Weather corruptions: snow, frost, fog and spatter (extra).

Each function follows the reference (``imagenet_c/corruptions.py`` of the imagenet-c 0.0.3 package
and ``ImageNet-C/create_c/make_imagenet_c.py`` of github.com/hendrycks/robustness, line numbers at
commit 8190fe3) formula by formula, with the reference's dtypes (float32 where it uses float32,
float64 elsewhere) and its random draws in the same order and shapes, so that with
``rng=np.random.RandomState(k)`` the result equals the reference after ``np.random.seed(k)``.
The elementwise chains run compiled and fused (:mod:`corruptbench.ops.weather_stages`) with the
same float operations in the same order, and the functions return the uint8 image directly (the
reference's float result truncated, as ``corrupt`` does for float results).

The frost textures (``corruptbench/data/frost/``, Apache-2.0, see NOTICE) are decoded once per
process and cached, together with their per-profile rescaled versions.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache
from importlib import resources

import cv2
import numpy as np

from ..ops import weather_stages as wk
from ..ops.gaussian import gaussian_filter_nearest
from ..ops.kernels import next_pow2, plasma_fractal, plasma_raw_map
from ..ops.legacy_random import legacy_normal
from ..ops.zoom import clipped_zoom
from ..profiles import Profile
from ..registry import register_corruption
from ..tables.corruptions import SPATTER_COLOURS
from .params import NONNEGATIVE, POSITIVE, UNIT, severity_params, whole_param

__all__ = [
    "snow",
    "frost",
    "fog",
    "spatter",
    "snow_p",
    "frost_p",
    "fog_p",
    "spatter_p",
    "snow_layer_u8",
    "snow_gray",
    "snow_compose_u8",
    "motion_blur_layer",
    "frost_texture",
    "frost_lookup_table",
    "FROST_FILES",
    "scaled_frost_texture",
    "water_drops",
    "water_distance",
    "WATER_COLOUR",
    "MUD_COLOUR",
]

#: The six frost textures of the reference, in its list order. ``frost`` only ever picks the
#: first five (``idx = np.random.randint(5)``, imagenet_c/corruptions.py:250); frost6 ships for
#: completeness.
FROST_FILES: tuple[str, ...] = (
    "frost1.png",
    "frost2.png",
    "frost3.png",
    "frost4.jpg",
    "frost5.jpg",
    "frost6.jpg",
)


# ---------------------------------------------------------------------------------------------
# Frost textures
# ---------------------------------------------------------------------------------------------


@cache
def _frost_decoded(index: int) -> np.ndarray:
    """Texture ``index`` (0-based) as RGB uint8, decoded like ``cv2.imread`` (IMREAD_COLOR)."""
    data = (resources.files("corruptbench") / "data" / "frost" / FROST_FILES[index]).read_bytes()
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if bgr is None:  # pragma: no cover - a damaged installation
        raise RuntimeError(f"could not decode the frost texture {FROST_FILES[index]}")
    rgb = np.ascontiguousarray(bgr[:, :, ::-1])
    rgb.flags.writeable = False
    return rgb


@cache
def _frost_profile(index: int, scale: float | None) -> np.ndarray:
    """Texture ``index`` rescaled as the profile's script does (``cv2.resize(fx=fy=scale)``)."""
    tex = _frost_decoded(index)
    if scale is None:
        return tex
    # Resizing RGB or BGR is the same per-channel operation, so the channel order does not matter.
    out = cv2.resize(tex, (0, 0), fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=32)
def _frost_covering(index: int, scale: float | None, height: int, width: int) -> np.ndarray:
    """The profile texture scaled up uniformly so that it is >= (height + 1) x (width + 1)."""
    tex = _frost_profile(index, scale)
    th, tw = tex.shape[:2]
    factor = max((height + 1) / th, (width + 1) / tw)
    new_h = max(height + 1, math.ceil(th * factor - 1e-9))
    new_w = max(width + 1, math.ceil(tw * factor - 1e-9))
    out = cv2.resize(tex, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    out.flags.writeable = False
    return out


def frost_texture(
    index: int, profile: Profile | None = None, shape: tuple[int, int] | None = None
) -> np.ndarray:
    """The frost texture that :func:`frost` crops from (read-only RGB uint8, cached).

    Args:
        index: 0..5 for frost1..frost6 (the corruption only uses 0..4).
        profile: rescale as the profile's reference script does (tiny x0.3, cifar x0.2); None: as
            decoded.
        shape: ``(H, W)`` of the image to cover. When the texture is not strictly larger than the
            image in both dimensions it is scaled up uniformly (INTER_LINEAR) by the smallest factor
            that makes it at least ``(H + 1) x (W + 1)``, so that the reference's crop draw
            ``randint(0, Hf - H)`` is defined. At every profile's native size no scaling happens.
    """
    if not 0 <= index < len(FROST_FILES):
        raise ValueError(f"index must be in 0..{len(FROST_FILES) - 1}, got {index}")
    return scaled_frost_texture(index, None if profile is None else profile.frost_scale, shape)


def scaled_frost_texture(
    index: int, scale: float | None, shape: tuple[int, int] | None
) -> np.ndarray:
    """:func:`frost_texture` with the rescale factor ``scale`` (frost's ``texture_scale``
    parameter, a profile's ``frost_scale``; None: none). The torch backend uses it too."""
    tex = _frost_profile(index, scale)
    if shape is not None:
        h, w = int(shape[0]), int(shape[1])
        if tex.shape[0] <= h or tex.shape[1] <= w:
            tex = _frost_covering(index, scale, h, w)
    return tex


# ---------------------------------------------------------------------------------------------
# Corruptions
# ---------------------------------------------------------------------------------------------


def snow_layer_u8(
    shape: tuple[int, int],
    loc: float,
    scale: float,
    zoom: float,
    threshold: float,
    rng,
    *,
    trim: bool = True,
) -> np.ndarray:
    """Snow's flake layer before its motion blur: ``L = N(loc, scale)`` of ``shape`` (float64),
    ``L = clipped_zoom(L, zoom)``, ``L[L < threshold] = 0``, ``uint8(clip(L, 0, 1) * 255)``
    (truncation). Draws ``normal(size=shape)``. ``trim=False`` keeps the whole zoomed crop (up to
    ``zoom`` rows and columns more than ``shape``; imagecorruptions 1.1.2 cuts it after the blur).
    """
    layer = legacy_normal(rng, loc, scale, shape)  # rng.normal(size=shape, loc, scale)
    # A 2-D zoom is bit-identical to the reference's (H, W, 1) zoom with factor 1 on the last axis.
    layer = clipped_zoom(layer, zoom, trim=trim)
    # L[L < t] = 0; uint8(clip(L, 0, 1) * 255), truncating (float64, as the reference)
    layer[layer < float(threshold)] = 0.0  # in place: one float64 layer less at the peak
    np.clip(layer, 0.0, 1.0, out=layer)
    layer *= 255.0
    return layer.astype(np.uint8)


def snow_compose_u8(
    image: np.ndarray, gray: np.ndarray, flakes: np.ndarray, blend: float
) -> np.ndarray:
    """Snow's last steps, fused (:func:`corruptbench.ops.weather_stages.snow_compose_u8`): with
    ``x = image / 255`` (float32) and the blurred uint8 ``flakes`` (H x W),
    ``x = blend x + (1 - blend) max(x, 1.5 gray + 0.5)``, ``uint8(clip(x + F + rot180(F), 0, 1)
    * 255)`` with ``F = flakes / 255``. ``gray``: float32 H x W (the reference: OpenCV's RGB2GRAY
    of ``x``)."""
    x = np.array(image, dtype=np.float32)  # always a copy: divided in place below
    x /= np.float32(255.0)  # in place: one float32 image less at the peak
    out = np.empty(x.shape, dtype=np.uint8)
    # blend and 1 - blend are Python floats: float32 scalars next to the float32 image (NEP 50).
    wk.snow_compose_u8(x, gray, flakes, np.float32(blend), np.float32(1 - blend), out)
    return out


def snow_gray(image: np.ndarray) -> np.ndarray:
    """``cv2.cvtColor(image / 255 (float32), COLOR_RGB2GRAY)``: the gray image snow brightens."""
    return cv2.cvtColor(np.asarray(image, dtype=np.float32) / np.float32(255.0), cv2.COLOR_RGB2GRAY)


def motion_blur_layer(layer: np.ndarray, radius: float, sigma: float, angle: float) -> np.ndarray:
    """``magick_motion_blur`` of a C-contiguous uint8 H x W layer.

    A layer with at most 10 % non-zero pixels (every snow layer we have seen: 0.5-8 %) goes
    through the scatter form of the same sums, which visits only those pixels; the results are
    identical (tests/ops/test_weather_stages.py compares them).
    """
    from ..ops.magick import magick_motion_blur, motion_kernel  # imported lazily (numba)

    if np.count_nonzero(layer) * 10 <= layer.size:
        weights, offsets_x, offsets_y = motion_kernel(radius, sigma, angle)
        out = np.empty_like(layer)
        wk.sparse_motion_blur_u8(layer, weights, offsets_x, offsets_y, out)
        return out
    return magick_motion_blur(layer, radius, sigma, angle)


def snow_p(
    image: np.ndarray,
    *,
    mean: float,
    std: float,
    zoom: float,
    threshold: float,
    blur_radius: float,
    blur_sigma: float,
    blend: float,
    rng,
) -> np.ndarray:
    """Snow: a zoomed, thresholded, motion-blurred noise layer over a brightened image.

    Reference: imagenet_c/corruptions.py:265-290, make_imagenet_c.py:406-431.

    With ``(loc, scale, zoom, threshold, radius, sigma, blend) = (mean, std, zoom, threshold,
    blur_radius, blur_sigma, blend)`` and ``x = image / 255`` (float32):

    1. ``L = N(loc, scale)`` of shape (H, W) (float64); ``L = clipped_zoom(L, zoom)``;
       ``L[L < threshold] = 0``; ``L8 = uint8(clip(L, 0, 1) * 255)`` (truncation);
    2. ``L = motion_blur(L8, radius, sigma, angle) / 255`` with ``angle = U(-135, -45)`` — the
       ImageMagick ``MotionBlurImage`` emulation of :mod:`corruptbench.ops.magick`;
    3. ``x = blend x + (1 - blend) max(x, 1.5 gray(x) + 0.5)`` (float32, OpenCV RGB2GRAY);
    4. ``out = clip(x + L + rot180(L), 0, 1) * 255`` (float64).

    Draws: ``normal(size=(H, W))`` then ``uniform(-135, -45)``. Non-native sizes: the layer,
    zoom and rotation follow the actual H x W (rows and columns zoomed independently).

    Args:
        image: read-only uint8 H x W x 3.
        mean: the flake layer's normal mean (``loc``; values of the full range). Published:
            0.1 .. 0.55.
        std: its standard deviation (``scale``), >= 0. Published: 0.2 .. 0.3.
        zoom: its zoom factor about the centre (``clipped_zoom``), >= 1 (bigger flakes).
            Published: 1 .. 4.5.
        threshold: layer values below it become 0 (fewer flakes when higher). Published:
            0.5 .. 0.9.
        blur_radius: the flakes' motion blur radius in pixels (ImageMagick's, as
            :func:`corruptbench.corruptions.blur.motion_blur_p`). Published: 8 .. 14.
        blur_sigma: its standard deviation in pixels, > 0. Published: 3 .. 12.
        blend: the weight of the image against its brightened version, in [0, 1] (1: no
            brightening). Published: 0.55 .. 0.95.
        rng: legacy random source.

    Returns:
        uint8 H x W x 3: the reference's float64 result, truncated (steps 3-4 and the truncation
        run fused, :func:`corruptbench.ops.weather_stages.snow_compose_u8`).
    """
    layer8 = snow_layer_u8(image.shape[:2], mean, std, zoom, threshold, rng)
    angle = rng.uniform(-135, -45)
    blurred = motion_blur_layer(layer8, blur_radius, blur_sigma, angle)
    del layer8  # the image's float32 copies are made after the layer is gone
    return snow_compose_u8(image, snow_gray(image), blurred, blend)


@register_corruption(
    "snow",
    family="weather",
    order=7,
    params=("mean", "std", "zoom", "threshold", "blur_radius", "blur_sigma", "blend"),
    apply=snow_p,
    bounds={
        "std": NONNEGATIVE,
        "zoom": (1.0, None, False),
        "blur_radius": NONNEGATIVE,
        "blur_sigma": POSITIVE,
        "blend": UNIT,
    },
)
def snow(image: np.ndarray, severity: int, *, profile: Profile, rng) -> np.ndarray:
    """Snow: a zoomed, thresholded, motion-blurred noise layer over a brightened image.

    :func:`snow_p` with the profile's table entry at ``severity``.
    """
    return snow_p(image, **severity_params("snow", severity, profile), rng=rng)


def frost_p(
    image: np.ndarray,
    *,
    image_weight: float,
    frost_weight: float,
    texture_scale: float | None = None,
    rng,
) -> np.ndarray:
    """Frost: a random crop of a frost texture blended in.

    Reference: imagenet_c/corruptions.py:244-262, make_imagenet_c.py:390-403.

    With ``c = (image_weight, frost_weight)``: ``idx = randint(5)`` (frost1..frost5 — never frost6,
    a reference quirk); the texture is rescaled by ``texture_scale`` (the profile's: tiny x0.3,
    cifar x0.2);
    ``x0 = randint(0, Hf - H)``, ``y0 = randint(0, Wf - W)`` (exclusive upper bounds);
    ``out = clip(c0 * image + c1 * crop, 0, 255)`` in float64, crop in RGB.

    Draws: ``randint(5)``, ``randint(0, Hf - H)``, ``randint(0, Wf - W)``. Non-native sizes: when
    the image is not smaller than the texture in both dimensions, the texture is scaled up
    uniformly (INTER_LINEAR) to the smallest size covering ``(H + 1) x (W + 1)``.

    Args:
        image: read-only uint8 H x W x 3.
        image_weight: ``c0``, the image's weight, >= 0. Published: 1 .. 0.6.
        frost_weight: ``c1``, the texture's weight, >= 0. Published: 0.2 .. 0.75.
        texture_scale: the ``cv2.resize`` factor of the textures (the profile's
            ``frost_scale``), > 0; None: as decoded (imagenet, inception).
        rng: legacy random source.

    Returns:
        uint8 H x W x 3: the float64 result, truncated (a lookup in a per-parameter table of the
        formula's 65536 possible results).
    """
    c0, c1 = image_weight, frost_weight
    h, w = image.shape[:2]
    idx = int(rng.randint(5))
    tex = scaled_frost_texture(idx, texture_scale, (h, w))
    x_start = int(rng.randint(0, tex.shape[0] - h))
    y_start = int(rng.randint(0, tex.shape[1] - w))
    # out = clip(c0 * image + c1 * tex[x_start : x_start + h, y_start : y_start + w], 0, 255)
    out = np.empty(image.shape, dtype=np.uint8)
    table = frost_lookup_table(float(c0), float(c1))
    wk.frost_u8(
        np.ascontiguousarray(image), np.ascontiguousarray(tex), x_start, y_start, table, out
    )
    return out


@register_corruption(
    "frost",
    family="weather",
    order=8,
    params=("image_weight", "frost_weight", "texture_scale"),
    apply=frost_p,
    bounds={"image_weight": NONNEGATIVE, "frost_weight": NONNEGATIVE, "texture_scale": POSITIVE},
)
def frost(image: np.ndarray, severity: int, *, profile: Profile, rng) -> np.ndarray:
    """Frost: a random crop of a frost texture blended in.

    :func:`frost_p` with the profile's table entry at ``severity`` and its texture scale.
    """
    return frost_p(image, **severity_params("frost", severity, profile), rng=rng)


@lru_cache(maxsize=64)
def frost_lookup_table(c0: float, c1: float) -> np.ndarray:
    """Frost's formula for every (image ``a``, texture ``b``) uint8 pair at index ``a * 256 + b``
    (:func:`corruptbench.ops.weather_stages.frost_table`; read-only, cached). The torch backend
    uses it too."""
    table = np.empty(1 << 16, dtype=np.uint8)
    wk.frost_table(c0, c1, table)
    table.flags.writeable = False
    return table


def fog_p(
    image: np.ndarray, *, strength: float, decay: float, mapsize: int = 256, rng
) -> np.ndarray:
    """Fog: a plasma-fractal haze added and the range compressed.

    Reference: imagenet_c/corruptions.py:235-241, make_imagenet_c.py:381-387.

    With ``x = image / 255`` (float64) and ``m = max(x)`` (all channels, before the fog):
    ``x += strength * plasma_fractal(mapsize, decay)[:H, :W]`` (``decay`` is the reference's
    ``wibbledecay``); ``out = clip(x * m / (m + strength), 0, 1) * 255``.

    Draws: the plasma fractal's uniforms (see :func:`corruptbench.ops.kernels.plasma_fractal`).
    Non-native sizes: the map is ``max(mapsize, next_pow2(max(H, W)))`` square (the profile's map
    at its native size), cropped to H x W.

    Args:
        image: read-only uint8 H x W x 3.
        strength: the haze's weight (values of the full range), >= 0 (0: only the range
            compression ``x m / m``). Published: 1.5 .. 3 (imagenet), 0.2 .. 1.5 (cifar).
        decay: the plasma's ``wibbledecay``, > 0: how fast the random amplitude falls from one
            scale to the next (higher: smoother haze). Published: 1.4 .. 2 (imagenet), 1.75 .. 3
            (cifar).
        mapsize: the smallest plasma map side, a power of two (the profile's ``fog_mapsize``:
            256, 512, 64, 32); the map, hence the draws, follow it.
        rng: legacy random source.

    Returns:
        uint8 H x W x 3: the float64 result, truncated (one fused pass after the plasma).
    """
    h, w = image.shape[:2]
    mapsize = max(whole_param(mapsize, "fog's mapsize", 1), next_pow2(max(h, w)))
    haze, lo, span = _plasma(mapsize, decay, rng)
    out = np.empty(image.shape, dtype=np.uint8)
    wk.fog_u8(np.ascontiguousarray(image), haze, lo, span, float(strength), out)
    return out


@register_corruption(
    "fog",
    family="weather",
    order=9,
    params=("strength", "decay", "mapsize"),
    apply=fog_p,
    bounds={"strength": NONNEGATIVE, "decay": POSITIVE},
)
def fog(image: np.ndarray, severity: int, *, profile: Profile, rng) -> np.ndarray:
    """Fog: a plasma-fractal haze added and the range compressed.

    :func:`fog_p` with the profile's table entry at ``severity`` and its map size.
    """
    return fog_p(image, **severity_params("fog", severity, profile), rng=rng)


def _plasma(mapsize: int, decay: float, rng) -> tuple[np.ndarray, float, float]:
    """:func:`corruptbench.ops.kernels.plasma_fractal` as ``(P, lo, span)``, normalised ``(P - lo) / span``.

    For a ``RandomState`` the map is built by :func:`corruptbench.ops.kernels.plasma_raw_map`
    (the same draws, one ``random_sample`` call, and the same sums) and left unnormalised: the
    fog kernel normalises the H x W it uses. Other sources: the normalised map, ``lo, span = 0, 1``.
    """
    if not isinstance(rng, np.random.RandomState):
        return plasma_fractal(mapsize, decay, rng), 0.0, 1.0
    m, lo, hi = plasma_raw_map(mapsize, decay, rng)
    span = hi - lo  # = max(P - lo): the subtraction is monotonic
    if not span > 0:  # pragma: no cover - every draw would have to cancel
        m -= lo
        with np.errstate(invalid="ignore"):
            return m / m.max(), 0.0, 1.0
    return m, float(lo), float(span)


_WATER_KERNEL = np.array([[-2, -1, 0], [-1, 1, 1], [0, 1, 2]], dtype=np.float32)
#: spatter's water colour ``(175, 238, 238) / 255`` as the reference's float32 array
WATER_COLOUR = np.array([v / 255.0 for v in SPATTER_COLOURS["water"]], dtype=np.float32)
#: spatter's mud colour ``(63, 42, 20) / 255`` as the reference's float32 array
MUD_COLOUR = np.array([v / 255.0 for v in SPATTER_COLOURS["mud"]], dtype=np.float32)
# The reference's in-place float32 *= float64 mixes the float32 colour in float64.
_MUD_COLOUR_F64 = MUD_COLOUR.astype(np.float64)


def _gaussian(a: np.ndarray, sigma: float) -> np.ndarray:
    # skimage.filters.gaussian defaults (mode 'nearest', truncate 4) on float64, as the reference;
    # the compiled filter is bit-identical to scipy.ndimage.gaussian_filter there.
    return gaussian_filter_nearest(a, sigma, truncate=4.0)


def water_distance(liquid8: np.ndarray) -> np.ndarray:
    """The uint8 ``d`` of :func:`spatter`'s water branch from the uint8 liquid layer ``L8`` (OpenCV
    steps; the torch backend runs them too)."""
    dist = 255 - cv2.Canny(liquid8, 50, 150)
    dist = cv2.distanceTransform(dist, cv2.DIST_L2, 5)
    _, dist = cv2.threshold(dist, 20, 20, cv2.THRESH_TRUNC)
    dist = cv2.blur(dist, (3, 3)).astype(np.uint8)
    dist = cv2.equalizeHist(dist)
    dist = cv2.filter2D(dist, cv2.CV_8U, _WATER_KERNEL)
    return cv2.blur(dist, (3, 3))


def _liquid_u8(liquid: np.ndarray, threshold: float) -> np.ndarray:
    """``L[L < threshold] = 0; (L * 255).astype(int64).astype(uint8)`` for float64 ``L`` (a new
    array; values are >= 0 there, and the int64 -> uint8 cast wraps modulo 256 like the
    reference's). Elementwise, in blocks of rows: the temporaries stay small."""
    out = np.empty(liquid.shape, dtype=np.uint8)
    for r0 in range(0, liquid.shape[0], _BLOCK_ROWS):
        block = liquid[r0 : r0 + _BLOCK_ROWS]
        scaled = np.where(block < float(threshold), 0.0, block) * 255.0
        out[r0 : r0 + _BLOCK_ROWS] = scaled.astype(np.int64).astype(np.uint8)
    return out


#: rows per block of the elementwise steps done in blocks
_BLOCK_ROWS = 64


def water_drops(x: np.ndarray, liquid: np.ndarray, intensity: float) -> np.ndarray:
    """The water branch of spatter, before clipping: ``x + m * (175, 238, 238) / 255`` (float32).

    ``x``: float32 H x W x 3 in [0, 1]; ``liquid``: float64 H x W, already thresholded. ``m`` as in
    :func:`spatter`'s docstring; no water when ``max(L8 * d) == 0`` (the reference: NaN). Shared
    with the ImageNet-P spatter sequence, which applies it to every frame.
    """
    if x.dtype != np.float32 or liquid.dtype != np.float64 or x.shape[2:] != (3,):
        return _water_drops_numpy(x, liquid, intensity)
    liquid8 = _liquid_u8(liquid, -np.inf)
    dist = water_distance(liquid8)
    out = np.empty(x.shape, dtype=np.float32)
    wk.water_f32(np.ascontiguousarray(x), liquid8, dist, np.float32(intensity), WATER_COLOUR, out)
    return out


def _water_drops_numpy(x: np.ndarray, liquid: np.ndarray, intensity: float) -> np.ndarray:
    # water_drops for other dtypes, in NumPy (the compiled path's definition).
    # Values are >= 0 here; int64 -> uint8 wraps modulo 256 like the reference's cast.
    liquid8 = (liquid * 255).astype(np.int64).astype(np.uint8)
    m: np.ndarray = liquid8 * water_distance(liquid8).astype(np.float32)  # exact (< 2**24)
    peak = m.max()
    if peak > 0:  # the reference divides 0 by 0 (NaN) when no liquid survives: we add no water
        m /= peak
        m *= np.float32(intensity)
    out = m[:, :, None] * WATER_COLOUR
    out += x  # float32 addition is commutative: identical to x + m * colour
    return out


def spatter_p(
    image: np.ndarray,
    *,
    mean: float,
    std: float,
    sigma: float,
    threshold: float,
    intensity: float,
    mode: int,
    rng,
) -> np.ndarray:
    """Spatter: water drops (mode 0) or mud (mode 1) on the lens.

    Reference: imagenet_c/corruptions.py:293-342, make_imagenet_c.py:434-486.

    With ``(loc, scale) = (mean, std)``, ``x = image / 255`` (float32),
    ``L = gaussian(N(loc, scale) of shape (H, W), sigma)`` (float64, mode 'nearest'),
    ``L[L < threshold] = 0``:

    * water: ``L8 = uint8(L * 255)``; ``d`` = distance to the Canny(50, 150) edges of ``L8``,
      truncated at 20, 3x3 box blur, uint8, equalised, filtered with
      ``[[-2,-1,0],[-1,1,1],[0,1,2]]`` (saturating uint8), 3x3 box blur;
      ``m = intensity * L8 * d / max(L8 * d)`` (float32);
      ``out = clip(x + m * (175, 238, 238) / 255, 0, 1) * 255``.
    * mud: ``m = gaussian(L > threshold, intensity)``, ``m[m < 0.8] = 0``;
      ``out = clip(x (1 - m) + m (63, 42, 20) / 255, 0, 1) * 255``.

    Edge cases decided deliberately: ``L * 255`` above 255 wraps modulo 256 as the reference's
    float-to-uint8 cast (``(liquid_layer * 255).astype(np.uint8)``, imagenet_c/corruptions.py:306)
    did on the platforms that produced the data (possible only with small sigma); when no pixel
    survives (``max(L8 * d) == 0``) the reference divides 0 by 0 (``m /= np.max(m, axis=(0, 1))``,
    imagenet_c/corruptions.py:317) and returns NaN — here the water layer is zero instead (the
    image is returned unchanged).

    Draws: ``normal(size=(H, W))``. Non-native sizes: nothing size-specific.

    Args:
        image: read-only uint8 H x W x 3.
        mean: the liquid layer's normal mean (``loc``). Published: 0.62 .. 0.67.
        std: its standard deviation (``scale``), >= 0. Published: 0.1 .. 0.4.
        sigma: the layer's Gaussian blur in pixels, >= 0 (bigger blobs). Published: 0.5 .. 4.
        threshold: layer values below it are dry. Published: 0.65 .. 0.7.
        intensity: water: the drops' brightness (``m``'s peak), >= 0; mud: the standard
            deviation in pixels of the mask's blur, >= 0. Published: 0.5 .. 1.8.
        mode: 0 water, 1 mud (:data:`corruptbench.tables.corruptions.SPATTER_COLOURS`).
        rng: legacy random source.

    Returns:
        uint8 H x W x 3: the float32 result, truncated (the elementwise steps run fused,
        :mod:`corruptbench.ops.weather_stages`).
    """
    mode = whole_param(mode, "spatter's mode (0 water, 1 mud)", 0, 1)
    loc, scale = mean, std
    h, w = image.shape[:2]
    liquid = _gaussian(
        legacy_normal(rng, loc, scale, (h, w)), sigma
    )  # rng.normal(size=(h, w), ...)
    out = np.empty(image.shape, dtype=np.uint8)
    if mode == 0:
        liquid8 = _liquid_u8(liquid, threshold)
        del liquid  # (one float64 layer less while the distances are made)
        dist = water_distance(liquid8)
        wk.water_u8(
            np.ascontiguousarray(image), liquid8, dist, np.float32(intensity), WATER_COLOUR, out
        )
    else:
        # L[L < t] = 0 leaves L > t unchanged (t > 0): the mask is taken from the smoothed layer.
        above = liquid > threshold
        del liquid  # (not needed any more: one float64 layer less at the filter's peak)
        mask = _gaussian(above.astype(np.float64), intensity)
        wk.mud_u8(np.ascontiguousarray(image), mask, _MUD_COLOUR_F64, out)
    return out


@register_corruption(
    "spatter",
    family=None,
    order=17,
    extra=True,
    params=("mean", "std", "sigma", "threshold", "intensity", "mode"),
    apply=spatter_p,
    bounds={"std": NONNEGATIVE, "sigma": NONNEGATIVE, "intensity": NONNEGATIVE},
)
def spatter(image: np.ndarray, severity: int, *, profile: Profile, rng) -> np.ndarray:
    """Spatter: water drops (mode 0) or mud (mode 1) on the lens.

    An extra (validation) corruption, not part of mCE. :func:`spatter_p` with the profile's table
    entry at ``severity``.
    """
    return spatter_p(image, **severity_params("spatter", severity, profile), rng=rng)
