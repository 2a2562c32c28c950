"""Published baseline numbers used to normalise ImageNet-C results (data only).

Everything here is a constant with its source next to it; the arithmetic lives in
:mod:`corruptbench.metrics`. All error rates are **fractions** (0.43478), never percentages.

ImageNet-C (``ALEXNET_C_ERRORS``)
    Top-1 error of torchvision's pretrained AlexNet (``alexnet-owt-4df8aa71.pth``; issue #38 of
    hendrycks/robustness confirms the AlexNet baseline *is* the torchvision model) on the released
    ImageNet-C JPEGs, per corruption and severity 1..5. Source: ``README.md`` of
    github.com/hendrycks/robustness, lines 36-60 at commits 76d9393 ... ac836a5 (table added by PR #20 on
    2019-10-10, removed in 5aa129e on 2020-05-05 in favour of a spreadsheet link); the same numbers are
    posted in issue #10. Each published "Average" equals the mean of its five severities to 1e-6,
    so only the severities are stored; ``ALEXNET_C_AVERAGES`` is derived.

ImageNet-C clean error (``ALEXNET_CLEAN_ERROR``)
    0.43478 = 1 - 0.56522, torchvision's documented ImageNet-1k top-1 accuracy of AlexNet
    (56.522 %, torchvision model documentation / ``AlexNet_Weights.IMAGENET1K_V1`` metadata). The
    repository itself never states AlexNet's clean error; the paper's table rounds it to 43.5 %.
    Only needed for *relative* mCE.

ImageNet-P
    There are deliberately **no AlexNet ImageNet-P constants** here. AlexNet's per-perturbation flip
    probabilities and top-5 distances, which the paper divides by to get mFR and mT5D, were never
    published in machine-readable form: they are not in the repository, and issue #49 only points to a
    Google spreadsheet. Rather than inventing numbers, mFR / mT5D are computed against a baseline
    the user measured (see :func:`corruptbench.metrics.load_p_baseline`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["ALEXNET_CLEAN_ERROR", "ALEXNET_C_AVERAGES", "ALEXNET_C_ERRORS"]

# --- ImageNet-C: AlexNet top-1 errors, severities 1..5 -----------------------------------------
# Source for every row: hendrycks/robustness README.md:36-60 at commits 76d9393..ac836a5 (PR #20),
# also issue #10. Non-monotone rows (snow, elastic_transform, saturate) are
# as published - do not "fix" them.
_ALEXNET_C_ERRORS: dict[str, tuple[float, float, float, float, float]] = {
    # benchmark corruptions (README PR #20 / issue #10)
    "gaussian_noise": (0.69528, 0.82542, 0.93554, 0.98138, 0.99452),  # Average 0.886428
    "shot_noise": (0.71224, 0.85108, 0.93574, 0.98182, 0.99146),  # Average 0.894468
    "impulse_noise": (0.78374, 0.89808, 0.94870, 0.98720, 0.99548),  # Average 0.922640
    "defocus_blur": (0.65624, 0.73202, 0.85036, 0.91364, 0.94714),  # Average 0.819880
    "glass_blur": (0.64308, 0.75054, 0.88806, 0.91622, 0.93344),  # Average 0.826268
    "motion_blur": (0.58430, 0.70048, 0.82108, 0.89750, 0.92638),  # Average 0.785948
    "zoom_blur": (0.70008, 0.76992, 0.80784, 0.84198, 0.87198),  # Average 0.798360
    "snow": (0.71726, 0.88392, 0.86468, 0.91870, 0.94952),  # Average 0.866816
    "frost": (0.61390, 0.79734, 0.88790, 0.89942, 0.93430),  # Average 0.826572
    "fog": (0.67474, 0.76050, 0.84378, 0.87260, 0.94500),  # Average 0.819324
    "brightness": (0.45140, 0.48502, 0.54048, 0.62166, 0.72440),  # Average 0.564592
    "contrast": (0.64548, 0.76150, 0.88874, 0.97760, 0.99270),  # Average 0.853204
    "elastic_transform": (0.52596, 0.70116, 0.55686, 0.64076, 0.80554),  # Average 0.646056
    "pixelate": (0.52218, 0.54620, 0.73728, 0.87092, 0.91262),  # Average 0.717840
    "jpeg_compression": (0.51002, 0.54718, 0.57294, 0.65458, 0.74778),  # Average 0.606500
    # extra / validation corruptions (same README table, same PR #20 / issue #10)
    "speckle_noise": (0.66192, 0.74440, 0.90246, 0.94548, 0.97268),  # Average 0.845388
    "gaussian_blur": (0.54732, 0.70444, 0.82574, 0.89864, 0.95940),  # Average 0.787108
    "spatter": (0.47196, 0.62194, 0.75052, 0.84132, 0.90182),  # Average 0.717512
    "saturate": (0.59342, 0.65514, 0.51174, 0.70834, 0.82260),  # Average 0.658248
}
ALEXNET_C_ERRORS: Mapping[str, tuple[float, float, float, float, float]] = MappingProxyType(
    _ALEXNET_C_ERRORS  # written in the reference order
)
"""AlexNet top-1 error per corruption, severities 1..5 (read-only, reference order)."""

ALEXNET_C_AVERAGES: Mapping[str, float] = MappingProxyType(
    {name: sum(errs) / 5.0 for name, errs in ALEXNET_C_ERRORS.items()}
)
"""Mean over severities = the CE denominator (published "Average" column, derived)."""

# torchvision AlexNet documented top-1 accuracy 56.522 % -> error 1 - 0.56522 (AlexNet_Weights).
ALEXNET_CLEAN_ERROR: float = 0.43478
