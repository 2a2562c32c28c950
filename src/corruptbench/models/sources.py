"""The registry of model sources (``--model`` strings) and :func:`load_model`."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import parse_qsl

from ..errors import Arg
from .errors import ModelSourceError, require_modules
from .loaded import LoadedModel

__all__ = [
    "ModelSource",
    "register_model_source",
    "list_model_sources",
    "load_model",
    "sha256_file",
    "size_option",
]


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


def sha256_file(path: Path) -> str:
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


def size_option(options: dict[str, str], default: int) -> int:
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
        raise ModelSourceError(
            Arg("spec"), " is empty; see `corruptbench eval-c --help` for sources"
        )
    require_modules("evaluation needs PyTorch", "torch")
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
    if probe:
        model.require_num_classes()
    return model
