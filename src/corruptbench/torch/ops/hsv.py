"""scikit-image's HSV conversions (``rgb2hsv`` / ``hsv2rgb``) on ``(N, 3, H, W)`` batches."""

from __future__ import annotations

import torch

__all__ = ["rgb2hsv", "hsv2rgb"]


def rgb2hsv(rgb: torch.Tensor) -> torch.Tensor:
    """``skimage.color.rgb2hsv`` for ``(N, 3, H, W)`` in [0, 1] (ties: blue > green > red)."""
    r, g, b = rgb.unbind(1)
    v = torch.maximum(torch.maximum(r, g), b)
    delta = v - torch.minimum(torch.minimum(r, g), b)
    zero = delta == 0
    safe = delta.masked_fill(zero, 1.0)
    s = (delta / v.masked_fill(zero, 1.0)).masked_fill_(zero, 0.0)
    h6 = torch.where(
        b == v,
        (r - g).div_(safe).add_(4.0),
        torch.where(g == v, (b - r).div_(safe).add_(2.0), (g - b).div_(safe)),
    )
    h = torch.remainder(h6.div_(6.0), 1.0).masked_fill_(zero, 0.0)
    return torch.stack((h, s, v), 1)


def hsv2rgb(hsv: torch.Tensor) -> torch.Tensor:
    """``skimage.color.hsv2rgb`` for ``(N, 3, H, W)`` (same formulas: sextant ``floor(6 h) mod 6``,
    ``p = v (1 - s)``, ``q = v (1 - f s)``, ``t = v (1 - (1 - f) s)``)."""
    h, s, v = hsv.unbind(1)
    h6 = h * 6
    hi = torch.floor(h6)
    f = h6.sub_(hi)
    p = v * (1 - s)
    q = v * (1 - f * s)
    t = v * (1 - (1 - f) * s)
    i = torch.remainder(hi, 6)
    i0, i1, i2, i3, i4 = (i == 0), (i == 1), (i == 2), (i == 3), (i == 4)
    r = torch.where(i0 | (i == 5), v, torch.where(i1, q, torch.where(i4, t, p)))
    g = torch.where(i0, t, torch.where(i1 | i2, v, torch.where(i3, q, p)))
    b = torch.where(i0 | i1, p, torch.where(i2, t, torch.where(i3 | i4, v, q)))
    return torch.stack((r, g, b), 1)
