"""Batched ImageNet-C corruptions on torch tensors: :func:`corrupt_batch`.

Every corruption follows the CPU library (:mod:`corruptbench.corruptions`, which cites the reference
lines) formula by formula with the same per-severity tables
(:mod:`corruptbench.tables.corruptions`), in float32 on the tensor's device, with these deliberate
differences:

* **Randomness** comes from a ``torch.Generator`` (one independent draw per sample: noise, motion
  angle, frost texture and crop, glass offsets, plasma map, elastic fields, ...), so streams differ
  from NumPy's; the *distributions* are the reference's. :func:`cpu_draws` makes the draws the CPU
  library would make with a ``RandomState`` and :func:`corrupt_batch_with_draws` consumes them:
  then the outputs agree with :func:`corruptbench.corrupt` pixel for pixel up to float32 rounding
  (the tests require PSNR >= 40 dB; measured on real photos at 224: >= 55 dB for all 19, most
  bit-identical). ``impulse_noise`` draws *one* uniform field by default (flip where ``u < c``,
  salt where ``u < c / 2``: the reference's joint law) but takes the reference's two fields as
  draws. Model level (EfficientNet-Lite0 top-1 error, benchmarks/torch_model_agreement.py): the
  deterministic corruptions agree to within 1 image in 100, the random ones within the sampling
  noise of the CPU library itself run with other seeds.
* **Samplers**: ``shot_noise`` on uint8 input draws its Poisson counts (256 possible rates) with
  Walker alias tables from one random 63-bit word per element (:func:`corruptbench.torch.ops.poisson.poisson_u8`;
  float input: ``torch.poisson``); glass blur's offsets (2, 4 or 8 values) are cut from random
  bytes. Both are exact samplers of the reference's laws, only cheaper than torch's per-element ones.
* **Glass blur** reproduces the reference's *sequential* in-place pixel copy exactly, in parallel
  (pointer jumping over the copy chains; :func:`corruptbench.torch.ops.glass.glass_shuffle`).
* **Intermediate 8-bit steps** of the reference are emulated on both the uint8 and the float
  path: glass blur's ``uint8`` after the first Gaussian, snow's 8-bit flake layer and
  ImageMagick's 16 -> 8 bit output of its motion blur, Pillow's 8-bit passes in pixelate, spatter's
  8-bit liquid layer.
* **CPU steps, explicitly**: ``jpeg_compression`` encodes/decodes each image with Pillow on the CPU
  (the tensor goes to the CPU and back; bit-identical to the CPU library); ``spatter``'s water mode
  (severities 1-3 at 224) runs its Canny / distance transform / histogram equalisation per image
  with OpenCV on the CPU (same calls as the CPU library; the images shared among
  ``torch.get_num_threads()`` threads); everything else of both stays on the device. Motion blur
  (and snow's) sums each tap for the whole batch in one gather on non-CPU devices (``3 T`` kernel
  launches per batch instead of ``N T``; the same sums in the same order). Host-side work that is
  tiny: kernel construction (motion kernels per sample from the drawn angles, elastic affine
  matrices with ``cv2.getAffineTransform``), frost texture decoding (once per process, moved to
  each device once).
* **uint8 batches on the CPU** (``backend="auto"``, the default) run the (profile, corruption,
  severity) triples of :data:`CPU_LIBRARY_DISPATCH` with the CPU library's own compiled kernels,
  one image at a time (shared among ``torch.get_num_threads()`` threads): on a CPU those kernels
  are faster than tensor ops there (zoom blur's fused bilinear sum, ImageMagick's motion taps, the
  weather layers, the 8-bit colour tables, ...), and the result is the CPU library's, bit for bit:
  image ``i`` is ``corruptbench.corrupt(x[i], corruption, severity, rng=seed_i)`` with ``seed_i``
  drawn from ``generator`` (``torch.randint(0, 2**32, (N,))``; none for the deterministic ones).
  The rest (at 224: gaussian and speckle noise, defocus blur, shot noise 1-3, elastic 1-2,
  Gaussian blur 4-5; more at 64 and 32 px, where whole-batch tensor ops amortise their overhead)
  run as tensor ops. ``backend="tensor"`` runs tensor ops for all 19 on every device; float
  batches and every non-CPU device always do; ``backend="library"`` runs the library for all 19
  (CPU uint8 only). Nothing else changes: the same tables and algorithms, two implementations,
  both measured against the reference.
* **CPU batches are processed in chunks** of a few MB (:data:`CPU_CHUNK_BYTES`): per-sample draws
  are then taken chunk by chunk, so a seeded result depends on the device (reproducible on the
  same device, as the generator is).

Float inputs (in [0, 1]) are processed as the exact image (no quantisation), except that Pillow
steps (pixelate, jpeg) work on ``round(255 x)`` as Pillow only takes 8-bit images; float outputs
are not truncated. uint8 outputs are truncated like the reference's ``np.uint8(...)`` and motion
blur's output gets ImageMagick's quantum rounding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from ..corruptions.params import check_params, severity_params
from ..errors import Arg, ArgumentError
from ..profiles import Profile, resolve_profile
from ..registry import corruption_specs, get_corruption
from ..tables.cpu_dispatch import CPU_LIBRARY_DISPATCH
from ..validation import check_severity
from . import blur, digital, noise, weather  # noqa: F401  (importing registers the implementations)
from .context import BatchContext, BatchImpl, DeviceRandom, FrostTextures
from .library import library_per_image

__all__ = [
    "corrupt_batch",
    "corrupt_batch_with_draws",
    "apply_params",
    "cpu_draws",
    "cpu_param_draws",
    "DRAW_KEYS",
    "BACKENDS",
    "CPU_LIBRARY_DISPATCH",
]

#: names of the explicit random fields each random corruption accepts (see :func:`cpu_draws`),
#: from the registered implementations, in the reference order
DRAW_KEYS: dict[str, tuple[str, ...]] = {
    s.name: s.batch.draw_keys for s in corruption_specs() if s.batch.draw_keys
}


def _check_batch(x: Any) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor of shape (N, 3, H, W), got {type(x).__name__}")
    if x.ndim != 4 or x.shape[1] != 3:
        raise ValueError(f"x must have shape (N, 3, H, W), got {tuple(x.shape)}")
    if x.dtype != torch.uint8 and not x.is_floating_point():
        raise TypeError(f"x must be uint8 (0..255) or floating point (0..1), got {x.dtype}")


#: ``auto``: per (profile, corruption, severity) the faster of the two on CPU uint8 batches;
#: ``tensor``: tensor ops everywhere; ``library``: the CPU library for every corruption (CPU uint8
#: batches only: exact reference output with a torch API).
BACKENDS = ("auto", "tensor", "library")


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    return backend


def _use_library(
    x: torch.Tensor,
    name: str,
    severity: int,
    profile: Profile,
    backend: str,
    draws: Mapping[str, Any] | None,
) -> bool:
    if backend == "library":
        if draws is not None:
            raise ValueError('backend="library" draws its own randomness: it takes no draws')
        if x.device.type != "cpu" or x.dtype != torch.uint8:
            raise ValueError(
                'backend="library" runs the CPU library: it needs a uint8 batch on the CPU, '
                f"got {x.dtype} on {x.device}"
            )
        return True
    table = CPU_LIBRARY_DISPATCH.get(profile.name, CPU_LIBRARY_DISPATCH["imagenet"])
    return (
        backend == "auto"
        and draws is None
        and x.device.type == "cpu"
        and x.dtype == torch.uint8
        and severity in table.get(name, ())
    )


def _run(
    x: torch.Tensor,
    corruption: str,
    severity: int,
    profile: str | Profile,
    generator: torch.Generator | None,
    draws: Mapping[str, Any] | None,
    backend: str = "tensor",
) -> torch.Tensor:
    _check_batch(x)
    check_backend(backend)
    name = get_corruption(corruption).name
    sev = check_severity(severity)
    prof = resolve_profile(profile, (int(x.shape[2]), int(x.shape[3])))
    if x.shape[0] == 0:
        return x.clone()
    rnd = DeviceRandom(generator, x.device)
    spec = get_corruption(name)
    if spec.batch is None:
        return _library_fallback(x, spec, sev, prof, rnd, draws, backend)
    if _use_library(x, name, sev, prof, backend, draws):
        seeds = rnd.randint(0, 2**32, (int(x.shape[0]),)).tolist() if spec.random else None
        out = library_per_image(x.detach(), name, sev, prof, seeds)
        return out
    return _tensor_run(x, spec.batch, severity_params(name, sev, prof), rnd, draws)


def _tensor_run(
    x: torch.Tensor,
    impl: BatchImpl,
    params: Mapping[str, Any],
    rnd: DeviceRandom,
    draws: Mapping[str, Any] | None,
    frost_textures: FrostTextures | None = None,
) -> torch.Tensor:
    """``impl`` with the named ``params`` over the batch, chunk by chunk, in ``x``'s dtype."""
    n = int(x.shape[0])
    step = _chunk_size(x, impl)
    outs = []
    for s in range(0, n, step):
        part = None if draws is None else {k: v[s : s + step] for k, v in draws.items()}
        ctx = BatchContext(x[s : s + step].detach(), params, rnd, part, frost_textures)
        # float32 in the [0, 255] domain (already clipped as the reference), or final uint8 values
        y = impl.run(ctx)
        if y.dtype == torch.uint8:
            outs.append(
                y if x.dtype == torch.uint8 else y.to(torch.float32).div_(255.0).to(x.dtype)
            )
        elif x.dtype == torch.uint8:
            outs.append(y.clamp_(0, 255).to(torch.uint8))  # float -> uint8 truncates (np.uint8)
        else:
            outs.append(y.div_(255.0).to(x.dtype))
    return outs[0] if len(outs) == 1 else torch.cat(outs)


def _library_fallback(
    x: torch.Tensor,
    spec: Any,
    severity: int,
    profile: Profile,
    rnd: DeviceRandom,
    draws: Mapping[str, Any] | None,
    backend: str,
) -> torch.Tensor:
    """A corruption without tensor ops (the ImageNet-C-bar suite): the CPU library image by
    image (:func:`corruptbench.torch.library.library_per_image`), with per-image seeds drawn from
    the generator. A float batch is quantised first (``round(255 x)``), the result scaled back
    to [0, 1]; a batch on another device goes to the CPU and back."""
    if backend == "tensor":
        raise ValueError(
            f"{spec.name!r} (suite {spec.suite!r}) has no tensor implementation: use "
            "backend='auto' or 'library' (the CPU library, image by image)"
        )
    if draws is not None:
        raise ValueError(f"{spec.name!r} takes no draws: it runs the CPU library")
    seeds = rnd.randint(0, 2**32, (int(x.shape[0]),)).tolist() if spec.random else None
    src = x.detach()
    if src.is_floating_point():
        src = src.mul(255).round_().clamp_(0, 255).to(torch.uint8)
    out = library_per_image(src.to("cpu"), spec.name, severity, profile, seeds)
    if x.is_floating_point():
        return out.to(device=x.device, dtype=torch.float32).div_(255.0).to(x.dtype)
    return out.to(x.device)


#: CPU working-set budget per chunk (bytes of one float32 batch tensor). Large tensors are
#: allocated with mmap and page-faulted afresh by every operation; chunks of a few MB stay in the
#: allocator's heap, which makes the CPU path several times faster. Other devices: one chunk.
CPU_CHUNK_BYTES = 6 * 2**20


def _chunk_size(x: torch.Tensor, impl: BatchImpl | None = None) -> int:
    n = int(x.shape[0])
    if x.device.type != "cpu":
        return max(1, n)
    per_image = 4 * int(x.shape[1]) * int(x.shape[2]) * int(x.shape[3])
    budget = CPU_CHUNK_BYTES
    if torch.get_num_threads() == 1 and impl is not None and impl.single_thread_chunk_bytes:
        budget = impl.single_thread_chunk_bytes
    return max(1, min(n, budget // max(1, per_image)))


def corrupt_batch(
    x: torch.Tensor,
    corruption: str,
    severity: int,
    *,
    profile: str | Profile = "auto",
    generator: torch.Generator | None = None,
    backend: str = "auto",
) -> torch.Tensor:
    """Apply one ImageNet-C corruption to a batch of images on any device.

    Args:
        x: ``(N, 3, H, W)`` RGB batch, ``uint8`` (0..255) or floating point (0..1), on any device.
            Never modified.
        corruption: one of the 19 names (``corruptbench.ALL_CORRUPTIONS``), or one of the 30 of
            ImageNet-C-bar (suite ``cbar``), which have no tensor implementation: they run the
            CPU library image by image on the CPU (a float batch quantised to ``round(255 x)``
            first), with per-image seeds from ``generator``, on any ``backend`` but
            ``"tensor"``.
        severity: int 1..5.
        profile: ``auto`` | ``imagenet`` | ``inception`` | ``tiny`` | ``cifar`` (parameter tables;
            ``auto`` picks by size as :func:`corruptbench.corrupt` does).
        generator: ``torch.Generator`` for the random draws (each sample gets its own); drawn on the
            generator's device and moved to ``x``'s. ``None``: torch's default generator.
        backend: ``"auto"`` (default): uint8 batches on the CPU run the (profile, corruption,
            severity) triples of :data:`CPU_LIBRARY_DISPATCH` with the CPU library's kernels (exact
            reference output, per-sample seeds from ``generator``), everything else as tensor ops;
            ``"tensor"``: tensor ops for every corruption on every device (what a GPU runs);
            ``"library"``: the CPU library for every corruption (uint8 CPU batches only).

    Returns:
        Tensor of ``x``'s dtype, shape and device. uint8 results are truncated as the reference's
        ``np.uint8``; float results are in [0, 1], not quantised.

    Shape:
        ``(N, 3, H, W)`` -> ``(N, 3, H, W)``; any H x W the profile accepts.

    Examples:
        >>> import torch
        >>> from corruptbench.torch import corrupt_batch
        >>> x = torch.full((2, 3, 32, 32), 128, dtype=torch.uint8)
        >>> g = torch.Generator().manual_seed(0)
        >>> y = corrupt_batch(x, "gaussian_noise", 3, generator=g)
        >>> y.shape, y.dtype
        (torch.Size([2, 3, 32, 32]), torch.uint8)
    """
    return _run(x, corruption, severity, profile, generator, None, backend)


def corrupt_batch_with_draws(
    x: torch.Tensor,
    corruption: str,
    severity: int,
    draws: Mapping[str, Any],
    *,
    profile: str | Profile = "auto",
) -> torch.Tensor:
    """:func:`corrupt_batch` with the random fields given explicitly (keys: :data:`DRAW_KEYS`).

    Intended for fidelity checks (with :func:`cpu_draws`) and for reproducing a corruption exactly.
    Field layouts (N = batch): ``normal`` standard normal ``(N, 3, H, W)`` (noise) or ``(N, 1, H, W)``
    (snow) or ``(N, H, W)`` (spatter); ``poisson`` counts ``(N, 3, H, W)``; ``u_flip``/``u_salt``
    uniforms ``(N, 3, H, W)``; ``offsets`` int ``(N, iterations, H - 2d, W - 2d, 2)`` of ``(dx, dy)``
    (rows/columns ascending); ``angle`` degrees ``(N,)``; ``index``/``x0``/``y0`` ints ``(N,)``;
    ``plasma`` maps ``(N, >= H, >= W)``; ``jitter`` ``(N, 3, 2)`` and ``ux``/``uy`` ``(N, H, W)`` the
    uniform values themselves. Corruptions without randomness take an empty mapping.
    """
    return _run(x, corruption, severity, profile, None, dict(draws))


def cpu_draws(
    images: Sequence[np.ndarray],
    corruption: str,
    severity: int,
    rngs: Sequence[np.random.RandomState],
    *,
    profile: str | Profile = "auto",
) -> dict[str, torch.Tensor]:
    """The random fields the CPU library draws for ``corrupt(images[i], ..., rng=rngs[i])``.

    Each ``RandomState`` is consumed exactly as :func:`corruptbench.corrupt` would consume it (same
    calls, order and shapes), and the values are returned in the layouts of
    :func:`corrupt_batch_with_draws`, stacked over the images (CPU tensors, float64 / int64).
    """
    name = get_corruption(corruption).name
    sev = check_severity(severity)
    h, w = images[0].shape[:2]
    prof = resolve_profile(profile, (h, w))
    spec = get_corruption(name)
    if spec.batch is None:
        raise ValueError(f"{name!r} (suite {spec.suite!r}) has no batch implementation to draw for")
    return _stacked_draws(images, spec.batch, severity_params(name, sev, prof), rngs)


def _stacked_draws(
    images: Sequence[np.ndarray],
    impl: BatchImpl,
    params: Mapping[str, Any],
    rngs: Sequence[np.random.RandomState],
) -> dict[str, torch.Tensor]:
    h, w = images[0].shape[:2]
    draw = impl.cpu_draws
    per: list[dict[str, Any]] = []
    for img, rng in zip(images, rngs):
        d: dict[str, Any] = {} if draw is None else draw(img, rng, params, (h, w))
        per.append(d)
    return (
        {k: torch.as_tensor(np.stack([np.asarray(d[k]) for d in per])) for k in per[0]}
        if per
        else {}
    )


def _param_impl(corruption: str, params: Mapping[str, Any]) -> tuple[BatchImpl, dict[str, Any]]:
    """The tensor implementation of ``corruption`` and its checked parameters, or one line."""
    spec = get_corruption(corruption)
    if spec.batch is None:
        raise ArgumentError(
            Arg("corruption"),
            f": {spec.name!r} (suite {spec.suite!r}) has no tensor implementation in "
            "corruptbench.torch (its corruptions: the 19 of ImageNet-C)",
        )
    return spec.batch, check_params(spec.name, params)


def apply_params(
    x: torch.Tensor,
    corruption: str,
    params: Mapping[str, Any],
    *,
    generator: torch.Generator | None = None,
    draws: Mapping[str, Any] | None = None,
    frost_textures: FrostTextures | None = None,
) -> torch.Tensor:
    """Apply ``corruption`` to a batch with the parameters ``params`` instead of a severity: the
    batch counterpart of :func:`corruptbench.corruptions.params.apply_params`.

    The tensor implementation of :func:`corrupt_batch` (``backend="tensor"``: the same code,
    given these parameters; with a level's :func:`~corruptbench.corruptions.params.params_of`
    it is ``corrupt_batch(x, corruption, severity, backend="tensor")`` for the same generator
    state), on any device.

    Args:
        x: ``(N, 3, H, W)`` RGB batch, ``uint8`` or floating point (0..1). Never modified.
        corruption: one of the 19 with a tensor implementation (others: one line).
        params: every parameter of the corruption, by name (the spec's ``params``;
            :func:`corruptbench.corruptions.params.params_of` gives the published ones), checked
            as the NumPy ``apply_params`` checks them.
        generator: the random draws' ``torch.Generator`` (None: torch's default).
        draws: the random fields given explicitly (:func:`corrupt_batch_with_draws`'s layouts;
            :func:`cpu_param_draws` makes the CPU library's); then ``generator`` is not used.
        frost_textures: frost only: ``texture(index)`` for index 0..4, RGB uint8 larger than
            the images (e.g. :func:`corruptbench.ccc.functions.ccc_frost_texture`), instead of
            ImageNet-C's scaled by ``texture_scale`` (then not used). Hashable: the device copies
            are cached per function.

    Returns:
        Tensor of ``x``'s dtype, shape and device (uint8 truncated as ``np.uint8``).

    Raises:
        ArgumentError: a corruption without tensor implementation, or a missing, unknown,
            non-finite or out-of-domain parameter (one line naming it).
    """
    _check_batch(x)
    impl, kwargs = _param_impl(corruption, params)
    if x.shape[0] == 0:
        return x.clone()
    rnd = DeviceRandom(generator, x.device)
    return _tensor_run(x, impl, kwargs, rnd, None if draws is None else dict(draws), frost_textures)


def cpu_param_draws(
    images: Sequence[np.ndarray],
    corruption: str,
    params: Mapping[str, Any],
    rngs: Sequence[np.random.RandomState],
) -> dict[str, torch.Tensor]:
    """:func:`cpu_draws` with the named parameters ``params``: the random fields
    ``corruptbench.corruptions.params.apply_params(images[i], corruption, params, rng=rngs[i])``
    draws, for :func:`apply_params`'s ``draws``."""
    impl, kwargs = _param_impl(corruption, params)
    return _stacked_draws(images, impl, kwargs, rngs)
