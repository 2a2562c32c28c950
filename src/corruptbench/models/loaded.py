"""A loaded model: forward function, preprocessing, device, and what a results file says about it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import Arg
from .errors import ModelSourceError
from .preprocessing import Preprocessing

__all__ = ["LoadedModel", "torch_forward"]


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
    #: what the outputs are when not plain logits of every class: ``{"kind": "probabilities"}``
    #: and / or ``{"class_map": [...]}`` (:func:`corruptbench.evaluation.outputs.adapt_outputs`)
    outputs: dict[str, Any] | None = None

    def to(self, device: str) -> LoadedModel:
        """Move to ``device`` ("cpu", "cuda", "cuda:1")."""
        import torch

        dev = torch.device(device)
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise ModelSourceError(
                Arg("device"), " cuda requested but torch.cuda.is_available() is False"
            )
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

    def require_num_classes(self) -> int:
        """:attr:`num_classes`, learned with :meth:`probe` when unknown.

        Raises:
            ModelSourceError: the model fails on the test input or does not return logits (the
                message names the model, the input size and the error).
        """
        if self.num_classes is not None:
            return self.num_classes
        try:
            return self.probe()
        except ModelSourceError:
            raise
        except Exception as exc:  # noqa: BLE001 - report any failure of the user's model clearly
            raise ModelSourceError(
                f"model {self.id} failed on a {self.preprocessing.input_size} px test input: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

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
            **({} if self.outputs is None else {"outputs": self.outputs}),
        }


def torch_forward(module: Any) -> Callable[[Any], Any]:
    return lambda x: module(x)
