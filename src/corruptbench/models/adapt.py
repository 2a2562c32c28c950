"""Any model a Python caller holds, as a :class:`LoadedModel`, and the evaluation mode around a run.

* :func:`wrap_model` — a ``torch.nn.Module`` or any callable from a normalised float batch
  ``(N, 3, S, S)`` to logits ``(N, classes)``, with its :class:`Preprocessing`.
* :func:`resolve_model` — what ``corruptbench.evaluate_c`` / ``evaluate_p`` accept as ``model``: a
  model source string (``"efficientnet_lite0"``, ``"timm:resnet50"``, ...), a :class:`LoadedModel`,
  or a module / callable (wrapped).
* :func:`evaluation_mode` — ``model.eval()`` and the chosen device for the duration of a run; the
  module's training flags (of every sub-module) and its device are restored afterwards, also when
  the run raises.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ..errors import Arg
from .errors import ModelSourceError
from .loaded import LoadedModel, torch_forward
from .preprocessing import IMAGENET_MEAN, IMAGENET_STD, Preprocessing

__all__ = [
    "ModelLike",
    "wrap_model",
    "resolve_model",
    "evaluation_mode",
    "module_device",
    "state_digest",
]

#: What ``evaluate_c`` / ``evaluate_p`` take as ``model``: a source string, a LoadedModel, a
#: ``torch.nn.Module`` or any callable from a normalised batch to logits.
ModelLike = str | LoadedModel | Callable[..., Any]


def _is_module(obj: Any) -> bool:
    try:
        import torch
    except ImportError:  # pragma: no cover - a module needs torch
        return False
    return isinstance(obj, torch.nn.Module)


def module_device(module: Any) -> str | None:
    """The device of a module's first parameter (else first buffer); None when it has neither."""
    for tensors in (module.parameters(), module.buffers()):
        for t in tensors:
            return str(t.device)
    return None


def state_digest(module: Any) -> str | None:
    """SHA-256 of a module's ``state_dict`` (names, dtypes, shapes and bytes, in order), or None
    when a tensor has no data (the ``meta`` device)."""
    import torch

    h = hashlib.sha256()
    for name, t in module.state_dict().items():
        if not isinstance(t, torch.Tensor):
            continue
        if t.device.type == "meta":
            return None
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        h.update(t.detach().to("cpu").contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def wrap_model(
    model: Any,
    *,
    preprocessing: Preprocessing | None = None,
    name: str | None = None,
    device: str | None = None,
) -> LoadedModel:
    """A module or callable as a :class:`LoadedModel` (not moved, not probed).

    Args:
        model: A ``torch.nn.Module`` or any callable mapping the normalised float32 batch
            ``(N, 3, S, S)`` (a ``torch.Tensor`` on the model's device) to logits ``(N, classes)``
            (a tensor or array; a tuple/list gives its first element, a dict its ``logits``).
        preprocessing: How images become its input (default: 224 px, ImageNet mean / std).
        name: The id in results files and reports (default: the class or function name).
        device: Where its input goes (default: a module's parameter device, else ``"cpu"``).

    Returns:
        The model; ``weights_sha256`` is the :func:`state_digest` of a module, so resuming a
        results file checks that the weights are the same.

    Examples:
        >>> import torch
        >>> net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.LazyLinear(10))
        >>> wrap_model(net, name="tiny").id
        'tiny'
    """
    if not callable(model):
        raise ModelSourceError(
            Arg("model"),
            f" must be a torch.nn.Module, a callable, a model source string or a LoadedModel; "
            f"got {type(model).__name__}",
        )
    is_module = _is_module(model)
    label = name or getattr(model, "__qualname__", None) or type(model).__name__
    cls = type(model)
    what = "torch.nn.Module" if is_module else "callable"
    return LoadedModel(
        id=str(label),
        source=f"python object: {what} {cls.__module__}.{cls.__qualname__}",
        preprocessing=preprocessing or Preprocessing(),
        forward=torch_forward(model),
        module=model if is_module else None,
        weights="state_dict of the module" if is_module else "defined by the caller",
        weights_sha256=state_digest(model) if is_module else None,
        device=device or (module_device(model) if is_module else None) or "cpu",
    )


def resolve_model(
    model: Any,
    *,
    mean: Sequence[float] = IMAGENET_MEAN,
    std: Sequence[float] = IMAGENET_STD,
    input_size: int = 224,
    device: str | None = None,
    name: str | None = None,
) -> LoadedModel:
    """``model`` as evaluate_c / evaluate_p take it, as a :class:`LoadedModel` (not probed).

    Args:
        model: A model source string (loaded with :func:`~corruptbench.models.load_model` on
            ``device``, default ``"cpu"``), a :class:`LoadedModel` (used as it is), or a module /
            callable (:func:`wrap_model` with ``Preprocessing(input_size, mean, std)``).
        mean, std, input_size: The preprocessing of a module / callable. A source string or a
            :class:`LoadedModel` brings its own: other values are refused rather than ignored.
        device: Only for a source string (where to load it); the run's device is set by
            :func:`evaluation_mode`.
        name: The model's id in results files (default: a module's class name, a callable's
            name, a source's own id); a LoadedModel given with a name is copied, not changed.

    Raises:
        ModelSourceError: an unknown source, a value that is not a model, or preprocessing
            arguments given with a model that brings its own.
    """
    own = (tuple(mean), tuple(std), int(input_size)) != (IMAGENET_MEAN, IMAGENET_STD, 224)
    if isinstance(model, (str, LoadedModel)):
        if own:
            raise ModelSourceError(
                Arg("mean"),
                ", ",
                Arg("std"),
                " and ",
                Arg("input_size"),
                " describe a module or callable; a model source or a LoadedModel brings its own "
                "preprocessing (build a LoadedModel with corruptbench.models.wrap_model to set it)",
            )
        if isinstance(model, str):
            from .sources import load_model

            model = load_model(model, device=device or "cpu", probe=False)
        return model if name is None else replace(model, id=name)
    pre = Preprocessing(input_size=input_size, mean=tuple(mean), std=tuple(std))  # type: ignore[arg-type]
    return wrap_model(model, preprocessing=pre, name=name)


@contextmanager
def evaluation_mode(model: LoadedModel, device: str | None = None) -> Iterator[LoadedModel]:
    """Run ``model`` in evaluation mode on ``device`` for the duration of the context.

    ``model.module.eval()`` (every sub-module), and, when ``device`` differs from
    :attr:`LoadedModel.device`, the module's parameters, buffers and gradients on ``device``. On
    exit (also on an exception) each sub-module gets back its own ``training`` flag and each
    tensor its original data (the same storage, so nothing is copied back). Gradients are not
    computed inside: the evaluation runs under ``torch.inference_mode()``.

    Args:
        model: The model; :attr:`LoadedModel.device` is the device during the context.
        device: ``None`` keeps the model's device.

    Returns:
        A context manager yielding ``model``.
    """
    module = model.module
    is_module = _is_module(module)
    modes = [(m, m.training) for m in module.modules()] if is_module else []
    old_device = model.device
    params: list[tuple[Any, str, Any, Any, Any]] = []
    buffers: list[tuple[Any, str, Any]] = []
    try:
        if is_module:
            module.eval()
        if device is not None and str(device) != old_device:
            import torch

            dev = torch.device(device)
            if dev.type == "cuda" and not torch.cuda.is_available():
                raise ModelSourceError(
                    Arg("device"), f" {device!r}: torch.cuda.is_available() is False"
                )
            if is_module:
                # Module.to() moves parameters in place (or replaces them) and replaces buffers:
                # keep the originals to put back, with their own storage
                for m, _ in modes:
                    for n, p in m.named_parameters(recurse=False):
                        params.append((m, n, p, p.data, p.grad))
                    buffers += [(m, n, b) for n, b in m.named_buffers(recurse=False)]
                module.to(dev)
            model.device = str(dev)
        yield model
    finally:
        for m, n, p, data, grad in params:
            if getattr(m, n) is not p:
                setattr(m, n, p)
            p.data = data
            p.grad = grad
        for m, n, b in buffers:
            setattr(m, n, b)
        model.device = old_device
        for m, flag in modes:
            m.training = flag
