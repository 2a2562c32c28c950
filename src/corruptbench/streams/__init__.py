"""Test-time-adaptation streams: settings as data, sequences faithful to the reference code,
replayable manifests, and an online evaluation harness.

* :mod:`.settings` — settings, orders (canonical, ``cotta0`` .. ``cotta9``), datasets, defaults
* :mod:`.config` — :func:`resolve_config`: a stream's settings checked once
* :mod:`.sequence` — blocks, shuffling, subsampling, label and Dirichlet sorting
* :mod:`.idlists` — the ImageNet id lists (RobustBench's 5,000, the 50,000)
* :mod:`.data` — the one door to the data (folders, arrays, on-the-fly corruption)
* :mod:`.core` — :class:`Stream`, :class:`Sample`, :class:`Batch`, :func:`stream`
* :mod:`.manifest` — manifest, CSV export, :func:`replay`
* :mod:`.adapters` — ``source``, ``norm``, ``tent``
* :mod:`.harness` — :func:`evaluate_stream` (:mod:`.checkpoint`: resuming); :mod:`.results` —
  :class:`StreamResults`: the results schema's stream part (:mod:`corruptbench.results.stream_part`)
  with its model, a results file ``corruptbench report`` reads
"""

from __future__ import annotations

from .config import StreamConfig, StreamError, resolve_config
from .core import Batch, Sample, Stream, replay, stream
from .manifest import read_manifest, write_manifest
from .settings import DATASETS, ORDERS, SETTINGS

__all__ = [
    "DATASETS",
    "ORDERS",
    "SETTINGS",
    "Batch",
    "Sample",
    "Stream",
    "StreamConfig",
    "StreamError",
    "read_manifest",
    "replay",
    "resolve_config",
    "stream",
    "write_manifest",
    "evaluate_stream",
    "StreamResults",
    "markdown_table",
]


def __getattr__(name: str) -> object:
    # the harness imports torch: only on use, so ``import corruptbench.streams`` stays light
    if name in ("evaluate_stream", "StreamResults", "markdown_table"):
        from . import harness, results

        return {
            "evaluate_stream": harness.evaluate_stream,
            "StreamResults": results.StreamResults,
            "markdown_table": results.markdown_table,
        }[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
