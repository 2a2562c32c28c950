"""CCC's data: corruption names, the corruptions per baseline, its severity-0 rows and run constants.

Source: github.com/oripress/CCC (MIT; Press et al., "RDumb", NeurIPS 2023), ``make_imagenet_c.py``
(the ``interp1d`` tables of each corruption: a row for severity 0 before ImageNet-C's five) and
``generate.py`` (``GenerateDataset``: the lists of corruptions per baseline, ``IMGS_PER``,
``cutoff``; ``__main__``: speeds and seeds). Severities 1..5 are ImageNet-C's 224-px table
(:data:`corruptbench.tables.corruptions.TABLES` ``["imagenet"]``), written once there.
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = [
    "CCC_NAMES",
    "ZERO_ROWS",
    "BASELINE_CORRUPTIONS",
    "IMAGES_PER_SHARD",
    "IMAGES_PER_RUN",
    "SPEEDS",
    "SEEDS",
    "BASELINES",
]

#: CCC's corruption name (``noise_dict()`` keys) -> the registry's name; in ``noise_dict()``'s order
CCC_NAMES = MappingProxyType(
    {
        "gaussian_noise": "gaussian_noise",
        "shot_noise": "shot_noise",
        "impulse_noise": "impulse_noise",
        "defocus_blur": "defocus_blur",
        "glass_blur": "glass_blur",
        "motion_blur": "motion_blur",
        "zoom_blur": "zoom_blur",
        "snow": "snow",
        "frost": "frost",
        "fog": "fog",
        "brightness": "brightness",
        "contrast": "contrast",
        "elastic": "elastic_transform",
        "pixelate": "pixelate",
        "jpeg": "jpeg_compression",
    }
)

#: the severity-0 row of each ``interp1d`` table (make_imagenet_c.py), in the table's own terms:
#: shot noise interpolates ``1 / photons`` (then ``c = 1 / f(s)``), zoom blur ``(start, stop,
#: step)`` of ``np.arange`` (ImageNet-C's rows start at 1); elastic's ``(0, 999, 0)`` is
#: ``(alpha, sigma, jitter)`` unscaled
ZERO_ROWS = MappingProxyType(
    {
        "gaussian_noise": 0.0,
        "shot_noise": 0,
        "impulse_noise": 0,
        "defocus_blur": (0.0, 0.0),
        "glass_blur": (0.0, 0.0, 0.0),
        "motion_blur": (0.0, 0.0),
        "zoom_blur": (1.0, 1.0, 0.01),
        "snow": (0.1, 0.3, 3, 1.0, 10, 4, 1.0),
        "frost": (1.0, 0.0),
        "fog": (0.0, 2.0),
        "brightness": 0.0,
        "contrast": 1.0,
        "elastic": (0, 999, 0),
        "pixelate": 1.0,
        "jpeg": 85,
    }
)

#: the corruptions a run draws from, by the lowest baseline (percent) they serve
#: (generate.py: ``baseline >= 40``, ``>= 20``, else); brightness is never used
BASELINE_CORRUPTIONS = (
    (
        40,
        (
            "gaussian_noise", "shot_noise", "impulse_noise", "defocus_blur", "glass_blur",
            "motion_blur", "zoom_blur", "snow", "frost", "fog", "contrast", "elastic",
            "pixelate", "jpeg",
        ),
    ),
    (
        20,
        (
            "gaussian_noise", "shot_noise", "impulse_noise", "defocus_blur", "glass_blur",
            "motion_blur", "zoom_blur", "snow", "frost", "fog", "contrast", "elastic",
            "pixelate",
        ),
    ),
    (float("-inf"), ("gaussian_noise", "shot_noise", "impulse_noise", "contrast")),
)  # fmt: skip

#: images per shard before the shard is closed at a step boundary (generate.py ``IMGS_PER``)
IMAGES_PER_SHARD = 25000
#: a run stops once this many images are written (generate.py ``cutoff``)
IMAGES_PER_RUN = 7_500_000
#: the transition speeds (images per walk step) and seeds of the paper's runs
SPEEDS = (1000, 2000, 5000)
SEEDS = (43, 44, 45)
#: CCC-Easy, -Medium, -Hard
BASELINES = MappingProxyType({"easy": 40, "medium": 20, "hard": 0})
