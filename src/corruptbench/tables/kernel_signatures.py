"""The compiled kernels called from Python, and the argument types of each call (data).

``KERNEL_SIGNATURES["module:function"]`` lists, in numba's notation (see
:mod:`corruptbench.ops.jit`), every argument-type signature with which the package calls that
kernel from Python: the corruptions at every profile and for every input layout (RGB, strided,
grayscale, RGBA), the perturbations, and the JPEG writer of make-c. Kernels called only from
other kernels are compiled into their callers and are not listed.

One list for everything that needs it: :func:`corruptbench.warmup` compiles exactly these into
numba's disk cache (so that nothing compiles afterwards), and ``tests/ops/test_jit.py`` fails
when a corruption, perturbation or JPEG write calls or compiles a kernel with a signature that is
missing here, or when an entry here is no longer used. When a kernel's arguments change, change
its entry; the test prints the signatures it saw.

``COMPILE_SECONDS`` is what compiling costs with an empty cache on one core (CPU seconds, the
median of 3 ``benchmarks/cold_start.py --table`` runs on the quiet 2-core development VM,
2026-12-01): the first
``corrupt()`` of each corruption in its own process, the first ``perturb()`` of each
perturbation, the first JPEG write, and the whole list (``"all"``, what ``corruptbench warmup``
compiles). The CLI's one-line notice ("compiling kernels, one time, ~N s") takes N from it. The
30 ImageNet-C-bar entries (``corruption:sparkles`` ...) were measured apart (first call minus a
warm call, CPU seconds, one process with an empty cache, on the busy shared machine: upper
bounds) and added to ``"all"``; ``benchmarks/cold_start.py --table`` covers the 19 of
ImageNet-C.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["KERNEL_SIGNATURES", "COMPILE_SECONDS", "split_signature"]

KERNEL_SIGNATURES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "corruptions.blur:_clip_scale_u8": ("float64[::1], uint8[::1]",),
        "corruptions.blur:_divide_255": ("readonly uint8[::1], float64[::1]",),
        "corruptions.blur:_glass_shuffle_kernel": (
            "uint8[:, :, ::1], int64, int64, int64[:, ::1]",
        ),
        "corruptions.digital:_channel_sums": ("readonly uint8[:, :, ::1], float64[::1]",),
        "datasets.jpeg_transcoder:_reoptimize": (
            "readonly uint8[::1], uint8[::1], int32[::1], int32[:, ::1], int64[:, ::1], int64[:, ::1], int64[:, ::1], uint8[:, ::1], int16[:, ::1]",
        ),
        "ops.cbar_kernels_noise:add_gray_field_u8": (
            "readonly uint8[:, :, ::1], float64[:, ::1], float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_color:bleach_bypass_u8": (
            "readonly uint8[:, :, ::1], float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_noise:caustic_field": ("float64, float64, float64, float64[:, ::1]",),
        "ops.cbar_kernels_distortion:caustic_refraction_f64": (
            "readonly uint8[:, :, ::1], float64[:, :, ::1], float64, float64, float64, float64[:, :, ::1]",
        ),
        "ops.cbar_kernels_obscure:checkerboard_u8": (
            "readonly uint8[:, :, ::1], float64, float64, float64, bool[:, ::1], uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_noise:cocentric_sine_u8": (
            "readonly uint8[:, :, ::1], float64, float64, float64, float64, float64, float64[::1], float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_color:color_dither_u8": (
            "readonly uint8[:, :, ::1], uint8[::1], uint8[:, :, ::1], uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_distortion:fish_eye_f32": (
            "float32[:, :, ::1], float64[:, ::1], float64, float64, float64, float64[:, :, ::1]",
        ),
        "ops.cbar_kernels_color:hue_shift_u8": (
            "readonly uint8[:, :, ::1], float32, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_distortion:pinch_and_twirl_f32": (
            "float32[:, :, ::1], int64, float64[:, ::1], float64, float64, float64[:, :, ::1]",
        ),
        "ops.cbar_kernels_noise:plasma_u8": (
            "readonly uint8[:, :, ::1], float64, int64, float64, float64, float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_color:pseudocolor_u8": (
            "readonly uint8[:, :, ::1], uint8[:, ::1], float64, float64, float64, float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_distortion:ripple_u8": (
            "readonly uint8[:, :, ::1], float64[::1], float64[::1], float64[::1], uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_blur:scatter_u8": (
            "readonly uint8[:, :, ::1], float64, float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_noise:single_frequency_u8": (
            "readonly uint8[:, :, ::1], float64, float64, float64, float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_noise:sparkles_u8": (
            "readonly uint8[:, :, ::1], float64[:, ::1], float64[::1], int64[::1], float64, bool, float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_color:technicolor_u8": (
            "readonly uint8[:, :, ::1], float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_noise:voronoi_u8": (
            "readonly uint8[:, :, ::1], float64, float64, float64, float64, float64, float64, uint8[:, :, ::1]",
        ),
        "ops.cbar_kernels_distortion:water_drop_u8": (
            "readonly uint8[:, :, ::1], float64, float64, float64, float64, float64, float64, uint8[:, :, ::1]",
        ),
        "ops.fourier_noise:pow_inplace": ("float64[::1], float64",),
        "ops.gaussian:_gauss_filter": (
            "float64[:, ::1], int64, readonly float64[::1], float64[:, ::1]",
        ),
        "ops.gaussian:_gauss_filter_u8": (
            "readonly uint8[:, ::1], int64, readonly float64[::1], bool, uint8[:, ::1]",
        ),
        "ops.hsv:_hsv_adjust_kernel": (
            "readonly uint8[:, ::1], uint8[:, ::1], float64, float64, float64, bool",
        ),
        "ops.kernels:plasma_extremes": ("float64[:, ::1]",),
        "ops.kernels:plasma_rows": ("float64[:, ::1], int64, int64, int64, float64[::1], float64",),
        "ops.legacy_random_kernels:gauss_u8": (
            "readonly uint8[::1], float64[::1], float64, bool, uint32[::1], int64[::1], float64[::1], uint8[::1], bool, float64",
            "uint8[::1], float64[::1], float64, bool, uint32[::1], int64[::1], float64[::1], float64[::1], bool, float64",
        ),
        "ops.legacy_random_kernels:glass_shuffle_mt": (
            "uint8[:, :, ::1], int64, int64, uint32[::1], int64[::1]",
        ),
        "ops.legacy_random_kernels:impulse_u8": (
            "readonly uint8[::1], uint8[::1], float64, float64, uint32[::1], int64[::1], uint8[::1]",
        ),
        "ops.legacy_random_kernels:poisson_fill": (
            "readonly uint8[::1], float64[:, ::1], float64[::1], float64, uint32[::1], int64[::1], uint8[::1]",
        ),
        "ops.legacy_random_kernels:poisson_tables": ("float64[::1]",),
        "ops.legacy_random_kernels:uniform_fill": (
            "float64, float64, uint32[::1], int64[::1], float64[::1]",
        ),
        "ops.magick:_blur_rows": (
            "float32[:, ::1], float64[::1], int64[::1], int64[::1], uint8[:, ::1]",
        ),
        "ops.magick:_pad_quanta": ("readonly uint8[:, ::1], int64, int64, int64, float32[:, ::1]",),
        "ops.opencv_warp:_perspective_maps": (
            "float64[::1], int64, int16[:, :, ::1], uint16[:, ::1]",
        ),
        "ops.opencv_warp:_warp_affine_u8_rows": (
            "readonly uint8[:, :, ::1], float32[::1], float64[:, ::1], int64, float64[:, :, ::1]",
        ),
        "ops.perlin:perlin_turbulence": (
            "int64[::1], float64[:, ::1], float64, float64, float64, float64, float64, float64, float64[:, ::1]",
        ),
        "ops.pillow_resize:_gather_pixels": (
            "uint8[:, :, ::1], readonly int64[::1], readonly int64[::1], uint8[:, :, ::1]",
        ),
        "ops.pillow_resize:_pil_resample_cols": (
            "uint8[:, :, ::1], int64[:, ::1], readonly int32[:, ::1], uint8[:, :, ::1]",
        ),
        "ops.pillow_resize:_pil_resample_rows": (
            "readonly uint8[:, :, ::1], int64, readonly int64[:, ::1], readonly int32[:, ::1], uint8[:, :, ::1]",
        ),
        "ops.pillow_transform:enhance_color_u8": (
            "readonly uint8[:, :, ::1], float32, uint8[:, :, ::1]",
        ),
        "ops.pillow_transform:transform_no_bars_u8": (
            "readonly uint8[:, :, ::1], float64[::1], bool, uint8[:, :, ::1]",
        ),
        "ops.scipy_ndimage:_correlate_reflect_cols_scaled": (
            "float64[:, ::1], float64[::1], float64, float32[:, ::1]",
        ),
        "ops.scipy_ndimage:_correlate_reflect_rows": (
            "float64[:, ::1], float64[::1], int64, float64[:, ::1]",
        ),
        "ops.scipy_ndimage:_fold_apply": (
            "readonly float64[:, ::1], readonly float64[:, ::1], readonly float64[:, ::1], float64[:, ::1], float64[:, ::1]",
        ),
        "ops.scipy_ndimage:_map_coordinates_u8_kernel": (
            "float64[:, :, ::1], int64, float32[:, ::1], float32[:, ::1], int64, uint8[:, :, ::1]",
        ),
        "ops.scipy_ndimage:_sampled_rows_kernel": ("float32[:, ::1], int64, int64",),
        "ops.scipy_spline:affine_accumulate_f32": (
            "float64[:, ::1], float64[:, ::1], float64[::1], float32, int64, float32[:, :, ::1]",
        ),
        "ops.scipy_spline:spline_taps": (
            "float64[::1], int64, int64[:, ::1], float64[:, ::1], bool[::1]",
        ),
        "ops.scipy_spline:zoom_shift_u8": (
            "readonly uint8[:, :, ::1], int64, int64[:, ::1], float64[:, ::1], bool[::1], int64[:, ::1], float64[:, ::1], bool[::1], uint8[:, :, ::1]",
        ),
        "ops.weather_stages:fog_u8": (
            "readonly uint8[:, :, ::1], float64[:, ::1], float64, float64, float64, uint8[:, :, ::1]",
        ),
        "ops.weather_stages:frost_table": ("float64, float64, uint8[::1]",),
        "ops.weather_stages:frost_u8": (
            "readonly uint8[:, :, ::1], readonly uint8[:, :, ::1], int64, int64, readonly uint8[::1], uint8[:, :, ::1]",
        ),
        "ops.weather_stages:mud_u8": (
            "readonly uint8[:, :, ::1], float64[:, ::1], float64[::1], uint8[:, :, ::1]",
        ),
        "ops.weather_stages:snow_compose_u8": (
            "float32[:, :, ::1], float32[:, ::1], uint8[:, ::1], float32, float32, uint8[:, :, ::1]",
        ),
        "ops.weather_stages:sparse_motion_blur_u8": (
            "uint8[:, ::1], float64[::1], int64[::1], int64[::1], uint8[:, ::1]",
        ),
        "ops.weather_stages:water_f32": (
            "float32[:, :, ::1], uint8[:, ::1], uint8[:, ::1], float32, float32[::1], float32[:, :, ::1]",
        ),
        "ops.weather_stages:water_u8": (
            "readonly uint8[:, :, ::1], uint8[:, ::1], uint8[:, ::1], float32, float32[::1], uint8[:, :, ::1]",
        ),
        "ops.zoom:_zoom_blur_u8": (
            "readonly uint8[:, ::1], bool, int64[:, ::1], int64[:, ::1], float64[:, ::1], float64[:, ::1], int64[:, ::1], int64[:, ::1], float64[:, ::1], float64[:, ::1], float32[::1], uint8[:, ::1]",
        ),
        "ops.zoom:_zoom_one": (
            "float64[:, :, ::1], readonly int64[::1], readonly int64[::1], readonly float64[::1], readonly float64[::1], readonly int64[::1], readonly int64[::1], readonly float64[::1], readonly float64[::1], float64[:, ::1]",
        ),
    }
)

COMPILE_SECONDS: Mapping[str, float] = MappingProxyType(
    {
        "corruption:gaussian_noise": 2.8,
        "corruption:shot_noise": 3.2,
        "corruption:impulse_noise": 2.2,
        "corruption:defocus_blur": 0.4,
        "corruption:glass_blur": 5.3,
        "corruption:motion_blur": 1.2,
        "corruption:zoom_blur": 2.3,
        "corruption:snow": 7.1,
        "corruption:frost": 0.7,
        "corruption:fog": 1.8,
        "corruption:brightness": 1.3,
        "corruption:contrast": 0.6,
        "corruption:elastic_transform": 6.1,
        "corruption:pixelate": 1.8,
        "corruption:jpeg_compression": 0.0,
        "corruption:speckle_noise": 2.9,
        "corruption:gaussian_blur": 3.5,
        "corruption:spatter": 6.8,
        "corruption:saturate": 1.4,
        "corruption:color_balance": 1.1,
        "corruption:quadrilateral_no_bars": 0.9,
        "corruption:perspective_no_bars": 0.0,
        "corruption:single_frequency_greyscale": 0.3,
        "corruption:cocentric_sine_waves": 0.6,
        "corruption:plasma_noise": 0.5,
        "corruption:voronoi_noise": 0.7,
        "corruption:caustic_noise": 1.0,
        "corruption:perlin_noise": 1.2,
        "corruption:blue_noise": 0.1,
        "corruption:brownish_noise": 0.1,
        "corruption:scatter": 0.8,
        "corruption:chromatic_abberation": 0.1,
        "corruption:transverse_chromatic_abberation": 0.0,
        "corruption:circular_motion_blur": 0.0,
        "corruption:bleach_bypass": 0.3,
        "corruption:technicolor": 0.3,
        "corruption:pseudocolor": 0.4,
        "corruption:hue_shift": 0.7,
        "corruption:color_dither": 0.5,
        "corruption:checkerboard_cutout": 0.3,
        "corruption:sparkles": 0.7,
        "corruption:inverse_sparkles": 0.0,
        "corruption:lines": 0.0,
        "corruption:blue_noise_sample": 0.0,
        "corruption:pinch_and_twirl": 1.5,
        "corruption:caustic_refraction": 2.6,
        "corruption:fish_eye": 1.5,
        "corruption:water_drop": 0.8,
        "corruption:ripple": 0.6,
        "perturbation:gaussian_noise": 2.7,
        "perturbation:shot_noise": 2.9,
        "perturbation:motion_blur": 1.1,
        "perturbation:zoom_blur": 0.0,
        "perturbation:snow": 2.6,
        "perturbation:brightness": 0.0,
        "perturbation:translate": 0.0,
        "perturbation:rotate": 0.0,
        "perturbation:tilt": 0.3,
        "perturbation:scale": 0.0,
        "perturbation:speckle_noise": 3.1,
        "perturbation:gaussian_blur": 0.0,
        "perturbation:spatter": 1.1,
        "perturbation:shear": 0.1,
        "jpeg": 9.1,
        "all": 57.3,
    }
)


def split_signature(text: str) -> list[str]:
    """The argument types of a signature in this table's notation, one string each
    (``"uint8[:, ::1], int64"`` -> ``["uint8[:, ::1]", "int64"]``: commas inside ``[]`` stay)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts
