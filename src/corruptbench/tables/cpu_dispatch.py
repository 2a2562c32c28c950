"""Where the torch backend runs the CPU library's compiled kernels instead of tensor ops (data).

``CPU_LIBRARY_DISPATCH[profile][corruption]`` is the severities that
:func:`corruptbench.torch.corrupt_batch` runs with the CPU library, one image at a time, for uint8
batches on the CPU (``backend="auto"``). Every other (profile, corruption, severity) runs as tensor
ops. Both sides are the same algorithm, and these outputs are the CPU library's, bit for bit, with
per-sample seeds from the generator: the table decides speed only.

How it was measured: ``python benchmarks/torch_backend.py --profile P --dispatch`` on the 2-core
dev VM (one torch thread, batches of 64 real photos at the profile's native size, images per
CPU-second of ``backend="library"`` against ``backend="tensor"``, best of 3). That command prints
the row for ``P`` in this format. A severity is listed where the library is clearly faster (by
more than 5 %, above the run-to-run noise; near-ties go to the tensor ops); ``jpeg_compression``
always runs the library (its tensor path is the same per-image Pillow code).

* 224 and 299 px: the fused kernels (zoom, motion, weather layers, 8-bit colour tables) win; the
  library's Poisson sampler is cheapest at the highest rates (shot noise 4-5); Gaussian blur and
  elastic's smoothing swap sides with sigma (the library's fused pass for small sigmas, the block /
  dense matmuls of the tensor ops for large ones).
* 64 and 32 px: whole-batch tensor ops amortise their overhead over many small images; the library
  keeps the corruptions whose kernels have no cheap tensor form.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["CPU_LIBRARY_DISPATCH"]

_ALL = (1, 2, 3, 4, 5)

_DISPATCH: dict[str, dict[str, tuple[int, ...]]] = {
    "imagenet": {
        "impulse_noise": _ALL,
        "glass_blur": _ALL,
        "motion_blur": _ALL,
        "zoom_blur": _ALL,
        "snow": _ALL,
        "frost": _ALL,
        "fog": _ALL,
        "spatter": _ALL,
        "brightness": _ALL,
        "contrast": _ALL,
        "saturate": _ALL,
        "pixelate": _ALL,
        "jpeg_compression": _ALL,
        "shot_noise": (4, 5),
        "gaussian_blur": (1, 2, 3),
        "elastic_transform": (3, 4, 5),
    },
    "inception": {
        "impulse_noise": _ALL,
        "glass_blur": _ALL,
        "motion_blur": _ALL,
        "zoom_blur": _ALL,
        "snow": _ALL,
        "frost": _ALL,
        "fog": _ALL,
        "spatter": _ALL,
        "brightness": _ALL,
        "contrast": _ALL,
        "saturate": _ALL,
        "pixelate": _ALL,
        "jpeg_compression": _ALL,
        "shot_noise": (4, 5),
        "gaussian_blur": (1, 2, 3, 4),
        "elastic_transform": (3, 4, 5),
    },
    "tiny": {
        "glass_blur": _ALL,
        "motion_blur": _ALL,
        "zoom_blur": _ALL,
        "snow": _ALL,
        "frost": _ALL,
        "fog": _ALL,
        "contrast": _ALL,
        "saturate": _ALL,
        "jpeg_compression": _ALL,
        "pixelate": (1, 2, 3, 4),
        "spatter": (4, 5),
    },
    "cifar": {
        "motion_blur": _ALL,
        "zoom_blur": _ALL,
        "snow": _ALL,
        "frost": _ALL,
        "contrast": _ALL,
        "jpeg_compression": _ALL,
    },
}

#: ``profile -> corruption -> severities`` run by the CPU library (read-only)
CPU_LIBRARY_DISPATCH: Mapping[str, Mapping[str, tuple[int, ...]]] = MappingProxyType(
    {profile: MappingProxyType(row) for profile, row in _DISPATCH.items()}
)
