"""What a results file records about the run: library versions, the time it was written, and
which model it is (:func:`model_key`)."""

from __future__ import annotations

import datetime as _dt
import platform
import sys
from collections.abc import Mapping
from typing import Any

from ..version import __version__

__all__ = ["library_versions", "now", "model_key"]

#: imported module -> the name it is recorded under
_RECORDED = {
    "numpy": "numpy",
    "torch": "torch",
    "scipy": "scipy",
    "cv2": "opencv",
    "PIL": "pillow",
    "skimage": "scikit-image",
    "av": "av",
    "onnxruntime": "onnxruntime",
    "torchvision": "torchvision",
    "timm": "timm",
}
#: recorded even when nothing imported them yet
_ALWAYS = ("numpy", "torch", "scipy", "cv2", "PIL")


def library_versions() -> dict[str, str]:
    """Versions of everything that can change a number: corruptbench, Python, numpy, torch, ..."""
    out = {"corruptbench": __version__, "python": platform.python_version()}
    for mod, label in _RECORDED.items():
        m = sys.modules.get(mod)
        if m is None and mod in _ALWAYS:
            try:
                m = __import__(mod)
            except ImportError:  # pragma: no cover
                m = None
        if m is not None and getattr(m, "__version__", None):
            out[label] = str(m.__version__)
    return out


def model_key(info: Mapping[str, Any]) -> list[Any]:
    """What must match for two results (their ``model`` objects) to be of the same model: id,
    preprocessing, weights hash, number of classes and what the outputs are (probabilities, a
    class map). An eval-c results file is resumed only by
    the same model; the report shows the ImageNet-C and ImageNet-P results of one model in one
    row."""
    return [
        info.get("id"),
        info.get("preprocessing"),
        info.get("weights_sha256"),
        info.get("num_classes"),
        info.get("outputs"),
    ]


def now() -> str:
    """The current UTC time, ISO 8601 to the second (the ``created`` field)."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
