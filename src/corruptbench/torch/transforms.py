"""``nn.Module`` wrappers of :func:`corruptbench.torch.corrupt_batch` (torchvision-style transforms)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..api import get_corruption_names
from ..grid import SEVERITIES
from ..profiles import Profile
from ..registry import get_corruption
from ..validation import check_severity
from .functional import check_backend, corrupt_batch

__all__ = ["Corrupt", "RandomCorruption"]


def _batched(x: torch.Tensor) -> tuple[torch.Tensor, bool]:
    if not isinstance(x, torch.Tensor):
        raise TypeError(
            f"expected a torch.Tensor (3, H, W) or (N, 3, H, W), got {type(x).__name__}"
        )
    if x.ndim == 3:
        return x.unsqueeze(0), True
    if x.ndim == 4:
        return x, False
    raise ValueError(f"expected a tensor of shape (3, H, W) or (N, 3, H, W), got {tuple(x.shape)}")


class Corrupt(nn.Module):
    """Apply one corruption at one severity (thin wrapper of :func:`corrupt_batch`).

    Args:
        corruption: one of the 19 names, or one of the 30 of ImageNet-C-bar (``cbar``; these
            run the CPU library image by image, see :func:`corrupt_batch`).
        severity: 1..5.
        profile: parameter table (``auto`` picks by image size).
        generator: ``torch.Generator`` for the random draws (``None``: torch's default generator,
            which DataLoader workers seed individually). In a DataLoader with workers prefer
            ``None``: every worker receives a *copy* of a given generator, so the workers would
            repeat each other's noise.
        backend: ``"auto"`` or ``"tensor"``, as in :func:`corrupt_batch` (``auto``: uint8 batches
            on the CPU use the CPU library's compiled kernels where they are faster).

    Shape:
        ``(3, H, W)`` or ``(N, 3, H, W)``, uint8 (0..255) or float (0..1) -> same shape, dtype, device.

    Examples:
        >>> import torch
        >>> from corruptbench.torch import Corrupt
        >>> t = Corrupt("contrast", 3)
        >>> t
        Corrupt(corruption='contrast', severity=3, profile='auto')
        >>> t(torch.zeros(3, 32, 32, dtype=torch.uint8)).shape
        torch.Size([3, 32, 32])
    """

    def __init__(
        self,
        corruption: str,
        severity: int,
        profile: str | Profile = "auto",
        generator: torch.Generator | None = None,
        backend: str = "auto",
    ) -> None:
        super().__init__()
        spec = get_corruption(corruption)
        self.corruption = spec.name
        self.severity = check_severity(severity)
        self.profile = profile
        self.generator = generator
        self.backend = check_backend(backend)
        if spec.batch is None and self.backend == "tensor":
            raise ValueError(
                f"{spec.name!r} (suite {spec.suite!r}) has no tensor implementation: use "
                "backend='auto' (the CPU library, image by image)"
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xb, single = _batched(x)
        out = corrupt_batch(
            xb,
            self.corruption,
            self.severity,
            profile=self.profile,
            generator=self.generator,
            backend=self.backend,
        )
        return out[0] if single else out

    def extra_repr(self) -> str:
        prof = self.profile.name if isinstance(self.profile, Profile) else self.profile
        extra = "" if self.backend == "auto" else f", backend={self.backend!r}"
        return f"corruption={self.corruption!r}, severity={self.severity}, profile={prof!r}{extra}"


class RandomCorruption(nn.Module):
    """With probability ``p``, apply a corruption and severity drawn uniformly per call.

    Args:
        corruptions: a subset name of :func:`corruptbench.get_corruption_names` (``benchmark``,
            ``extra``, ``all``, a family) or a sequence of corruption names.
        severities: severities to draw from.
        p: probability of corrupting at all (per call).
        generator: ``torch.Generator`` for every draw (the choice and the corruption's own).
        backend: ``"auto"`` or ``"tensor"``, as in :func:`corrupt_batch`.

    Every call draws once for the whole input: a batch gets one corruption and severity (each
    image still gets its own random fields).

    Shape:
        ``(3, H, W)`` or ``(N, 3, H, W)`` -> same.

    Examples:
        >>> import torch
        >>> from corruptbench.torch import RandomCorruption
        >>> aug = RandomCorruption("noise", severities=(1, 2), generator=torch.Generator().manual_seed(0))
        >>> aug(torch.zeros(2, 3, 32, 32)).shape
        torch.Size([2, 3, 32, 32])
    """

    def __init__(
        self,
        corruptions: str | Sequence[str] = "benchmark",
        severities: Sequence[int] = SEVERITIES,
        p: float = 1.0,
        profile: str | Profile = "auto",
        generator: torch.Generator | None = None,
        backend: str = "auto",
    ) -> None:
        super().__init__()
        if isinstance(corruptions, str):
            names = get_corruption_names(corruptions)
        else:
            names = [get_corruption(c).name for c in corruptions]
        if not names:
            raise ValueError("corruptions is empty")
        sevs = [check_severity(s) for s in severities]
        if not sevs:
            raise ValueError("severities is empty")
        if not 0.0 <= float(p) <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.corruptions = tuple(names)
        self.severities = tuple(sevs)
        self.p = float(p)
        self.profile = profile
        self.generator = generator
        self.backend = check_backend(backend)
        self.last: tuple[str, int] | None = None  #: the (corruption, severity) of the last call

    def _randint(self, high: int) -> int:
        dev = self.generator.device if self.generator is not None else "cpu"
        return int(torch.randint(high, (1,), generator=self.generator, device=dev).item())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xb, single = _batched(x)
        dev = self.generator.device if self.generator is not None else "cpu"
        if (
            self.p < 1.0
            and float(torch.rand((1,), generator=self.generator, device=dev).item()) >= self.p
        ):
            self.last = None
            return x.clone()
        name = self.corruptions[self._randint(len(self.corruptions))]
        sev = self.severities[self._randint(len(self.severities))]
        self.last = (name, sev)
        out = corrupt_batch(
            xb, name, sev, profile=self.profile, generator=self.generator, backend=self.backend
        )
        return out[0] if single else out

    def extra_repr(self) -> str:
        prof = self.profile.name if isinstance(self.profile, Profile) else self.profile
        cs = ", ".join(self.corruptions)
        extra = "" if self.backend == "auto" else f", backend={self.backend!r}"
        return (
            f"corruptions=({cs}), severities={self.severities}, p={self.p:g}, "
            f"profile={prof!r}{extra}"
        )
