"""Reference adaptation methods a user can check a set-up with: ``source``, ``norm``, ``tent``.

Clean-room re-implementations of qinenergy/cotta commit c212a20 ``imagenet/norm.py`` and
``imagenet/tent.py`` (TENT: Wang et al., "Tent: Fully Test-Time Adaptation by Entropy
Minimization", ICLR 2021), with the optimiser settings of mariodoebler/test-time-adaptation
commit 8b2ed63 ``classification/cfgs/{cifar10_c,cifar100_c,imagenet_c}/tent.yaml`` (CIFAR: Adam,
lr 1e-3, betas (0.9, 0.999); ImageNet: SGD, lr 2.5e-4, momentum 0.9, nesterov) and
``imagenetc.py`` ``setup_optimizer``. An adapter has ``step(x) -> logits`` (one test batch, the
normalised float tensor) and ``reset()`` (back to the state it started from).

* :class:`SourceAdapter`: no adaptation, the model in eval mode.
* :class:`NormAdapter`: every ``BatchNorm2d`` normalises with the test batch's statistics
  (train mode, eps 1e-5, momentum 0.1: its running statistics keep a moving average that the
  forward does not use); the rest in eval mode.
* :class:`TentAdapter`: ``BatchNorm2d`` layers use batch statistics only (no running
  statistics); their affine weight and bias, alone, are updated to minimise the mean entropy
  ``H(p) = -sum_k p_k log p_k`` of the batch's softmax, ``steps`` updates per batch; the
  logits returned are those of the last forward, before its update. The BatchNorm layers alone
  are in train mode, the rest in eval mode. (``tent.py`` calls ``model.train()`` on the whole
  model, which also switches on dropout and stochastic depth: on the reference's ResNets and
  WideResNets, which have none, that is the same; on a model with them, e.g. EfficientNet, it
  makes every batch's prediction random and the results irreproducible, so we keep them off.)
"""

from __future__ import annotations

import copy
import inspect
import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..errors import Arg
from .config import StreamError
from .settings import DATASETS

__all__ = [
    "Adapter",
    "SourceAdapter",
    "NormAdapter",
    "TentAdapter",
    "ADAPTERS",
    "TENT_OPTIMIZERS",
    "make_adapter",
    "adapter_options",
    "check_method",
    "softmax_entropy",
]

#: the reference's TENT optimiser per dataset family (cfgs/*/tent.yaml)
TENT_OPTIMIZERS: dict[str, dict[str, Any]] = {
    "cifar": {"method": "adam", "lr": 1e-3},
    "imagenet": {"method": "sgd", "lr": 2.5e-4},
}


class Adapter(Protocol):
    def step(self, x: Any) -> Any: ...

    def reset(self) -> None: ...


def _batchnorms(module: Any) -> list[Any]:
    import torch

    return [m for m in module.modules() if isinstance(m, torch.nn.BatchNorm2d)]


def _need_batchnorm(module: Any, method: str) -> list[Any]:
    import torch

    if not isinstance(module, torch.nn.Module):
        raise StreamError(
            Arg("adapt"), f"={method!r} needs a torch.nn.Module model, got {type(module).__name__}"
        )
    layers = _batchnorms(module)
    if not layers:
        raise StreamError(
            Arg("adapt"), f"={method!r} needs BatchNorm2d layers; {type(module).__name__} has none"
        )
    return layers


def _real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def softmax_entropy(logits: Any) -> Any:
    """Entropy of the softmax of each row, ``-sum_k p_k log p_k`` (a log-softmax, no overflow)."""
    return -(logits.softmax(1) * logits.log_softmax(1)).sum(1)


class SourceAdapter:
    """No adaptation: the model in eval mode, without gradients."""

    name = "source"

    def __init__(self, module: Callable[[Any], Any]) -> None:
        self.module = module
        if hasattr(module, "eval"):
            module.eval()

    def step(self, x: Any) -> Any:
        import torch

        with torch.no_grad():
            return self.module(x)

    def reset(self) -> None:
        pass

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass


class NormAdapter:
    """Test-batch BatchNorm statistics (module docstring); :meth:`reset` restores the running
    statistics saved at the start."""

    name = "norm"

    def __init__(self, module: Any, *, eps: float = 1e-5, momentum: float = 0.1) -> None:
        layers = _need_batchnorm(module, "norm")
        self.checked_options(eps=eps, momentum=momentum)
        module.eval()
        for m in layers:
            m.train()
            m.eps, m.momentum = eps, momentum
        self.module = module
        self._state = copy.deepcopy(module.state_dict())

    @staticmethod
    def checked_options(*, eps: Any, momentum: Any) -> dict[str, Any]:
        """The options as plain values, or one line: ``eps`` a finite number > 0, ``momentum``
        a number in [0, 1] (``BatchNorm2d``'s ranges)."""
        if not (_real(eps) and math.isfinite(eps) and eps > 0):
            raise StreamError(Arg("eps"), f" must be a finite number > 0, got {eps!r}")
        if not (_real(momentum) and 0 <= momentum <= 1):
            raise StreamError(Arg("momentum"), f" must be a number in [0, 1], got {momentum!r}")
        return {"eps": float(eps), "momentum": float(momentum)}

    def step(self, x: Any) -> Any:
        import torch

        with torch.no_grad():
            return self.module(x)

    def reset(self) -> None:
        self.module.load_state_dict(self._state, strict=True)

    def state_dict(self) -> dict[str, Any]:
        """The adapted state (what a resumed evaluation continues from)."""
        return {"module": self.module.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.module.load_state_dict(state["module"], strict=True)


class TentAdapter:
    """Entropy minimisation of the BatchNorm affine parameters (module docstring).

    Args:
        module: the model (configured in place: train mode, BatchNorm on batch statistics).
        method: ``adam`` (betas (0.9, 0.999)) or ``sgd`` (momentum 0.9, dampening 0, nesterov).
        lr: learning rate.
        steps: updates per batch.
    """

    name = "tent"

    def __init__(
        self, module: Any, *, method: str = "adam", lr: float = 1e-3, steps: int = 1
    ) -> None:
        import torch

        layers = _need_batchnorm(module, "tent")
        self.checked_options(method=method, lr=lr, steps=steps)
        module.eval()  # dropout and stochastic depth off (module docstring)
        module.requires_grad_(False)
        params = []
        for m in layers:
            m.train()
            m.requires_grad_(True)
            m.track_running_stats = False
            m.running_mean = None
            m.running_var = None
            params += [p for n, p in m.named_parameters() if n in ("weight", "bias")]
        if method == "adam":  # else "sgd": checked_options lets no other through
            opt: Any = torch.optim.Adam(params, lr=lr, betas=(0.9, 0.999), weight_decay=0.0)
        else:
            opt = torch.optim.SGD(
                params, lr=lr, momentum=0.9, dampening=0, weight_decay=0.0, nesterov=True
            )
        self.module, self.optimizer, self.steps = module, opt, steps
        self._state = (copy.deepcopy(module.state_dict()), copy.deepcopy(opt.state_dict()))

    @staticmethod
    def checked_options(*, method: Any, lr: Any, steps: Any) -> dict[str, Any]:
        """The options as plain values (what a checkpoint and the results record), or one line
        for what torch would take badly: an unknown optimiser, a learning rate that is not a
        finite number > 0 (torch raises on a negative one, runs on NaN), steps not an integer
        >= 1."""
        if method not in ("adam", "sgd"):
            raise StreamError(Arg("method"), f" must be 'adam' or 'sgd', got {method!r}")
        if not (_real(lr) and math.isfinite(lr) and lr > 0):
            raise StreamError(Arg("lr"), f" must be a finite number > 0, got {lr!r}")
        if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
            raise StreamError(Arg("steps"), f" must be an integer >= 1, got {steps!r}")
        return {"method": method, "lr": float(lr), "steps": int(steps)}

    def step(self, x: Any) -> Any:
        import torch

        with torch.enable_grad():
            for _ in range(self.steps):
                out = self.module(x)
                softmax_entropy(out).mean(0).backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
        return out.detach()

    def reset(self) -> None:
        self.module.load_state_dict(self._state[0], strict=True)
        self.optimizer.load_state_dict(self._state[1])

    def state_dict(self) -> dict[str, Any]:
        """The adapted state: the module's and the optimiser's."""
        return {"module": self.module.state_dict(), "optimizer": self.optimizer.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.module.load_state_dict(state["module"], strict=True)
        self.optimizer.load_state_dict(state["optimizer"])


#: the built-in adapters by name
ADAPTERS = {"source": SourceAdapter, "norm": NormAdapter, "tent": TentAdapter}


def check_method(name: str) -> str:
    """``name`` if it is a built-in method, else a :class:`StreamError` naming the closest."""
    from ..registry import suggest

    if name not in ADAPTERS:
        raise StreamError(
            Arg("adapt"),
            f": unknown method {name!r}{suggest(name, list(ADAPTERS))} (built in: "
            f"{', '.join(ADAPTERS)}; or pass an object with step(x) and reset())",
        )
    return name


def _defaults(method: str) -> dict[str, Any]:
    """The options a built-in method takes (its keyword-only arguments) and their defaults."""
    params = inspect.signature(ADAPTERS[method]).parameters.values()
    return {p.name: p.default for p in params if p.kind is p.KEYWORD_ONLY}


def _option(key: str) -> Arg:
    # the CLI names it by its flag (--lr, --optimizer), Python by the key of adapt_options
    return Arg(key, python=f"adapt_options[{key!r}]")


def _not_taken(key: str, method: str) -> StreamError:
    takers = [m for m in ADAPTERS if key in _defaults(m)]
    if takers:
        return StreamError(
            _option(key), " applies to ", Arg("adapt"), f" {' / '.join(takers)}, not {method}"
        )
    known = ", ".join(_defaults(method)) or "none"
    return StreamError(
        _option(key), " is not an option of ", Arg("adapt"), f" {method} (its options: {known})"
    )


def adapter_options(
    method: str, dataset: str, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The options the built-in ``method`` runs with on ``dataset``: its defaults (``tent``: the
    reference's optimiser for the dataset's family, :data:`TENT_OPTIMIZERS`), then ``options``;
    what a checkpoint must match and the results record.

    Raises:
        StreamError: an unknown method, an option it does not take (``lr`` given to ``norm``),
            a bad value (``lr`` -1): one line each.
    """
    check_method(method)
    resolved = _defaults(method)
    for key in options or {}:
        if key not in resolved:
            raise _not_taken(key, method)
    if method == "tent":
        resolved.update(TENT_OPTIMIZERS[DATASETS[dataset].family])
    resolved.update(options or {})
    checked = getattr(ADAPTERS[method], "checked_options", None)
    return checked(**resolved) if checked is not None else resolved


def make_adapter(adapt: Any, module: Any, dataset: str, **options: Any) -> Any:
    """The adapter ``adapt`` names (on a copy of ``module``, so the caller's model is left as
    it was), or ``adapt`` itself: an object with ``step(x)`` and ``reset()``, or a plain
    callable used as ``step`` (never reset).

    ``options``: ``tent``'s ``method`` / ``lr`` / ``steps`` (default: the reference's for the
    dataset's family), ``norm``'s ``eps`` / ``momentum`` (:func:`adapter_options`); none for
    an adapter of yours, which takes its own when you make it.
    """
    if isinstance(adapt, str):
        resolved = adapter_options(adapt, dataset, options)
        if module is None:
            raise StreamError(Arg("adapt"), f"={adapt!r} needs a torch model, not a callable")
        return ADAPTERS[adapt](copy.deepcopy(module), **resolved)
    if options:
        raise StreamError(
            Arg("adapt_options", python="adapt_options"),
            f" apply to the built-in methods ({', '.join(ADAPTERS)}), not to an adapter of "
            f"yours ({type(adapt).__name__}): give it its options when you make it",
        )
    if hasattr(adapt, "step") and hasattr(adapt, "reset"):
        return adapt
    if callable(adapt):
        return _CallableAdapter(adapt)
    raise StreamError(
        Arg("adapt"),
        f" must be 'source', 'norm', 'tent' or an object with step(x) and reset(); "
        f"got {type(adapt).__name__}",
    )


class _CallableAdapter:
    name = "callable"

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.step = fn

    def reset(self) -> None:
        pass

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass
