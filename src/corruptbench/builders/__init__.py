"""The dataset builders behind ``corruptbench make-c`` and ``make-p``.

Guarantees (each one has a test in ``tests/builders/``):

* **Reproducible bytes.** Every output item draws from its own ``np.random.RandomState`` seeded with
  :func:`~corruptbench.pipeline.item_seed` — a BLAKE2b hash of ``(seed, kind,
  corruption/perturbation, severity/difficulty, item's relative path)`` cut to 32 bits — so the
  bytes do not depend on the worker count, the order of work, resuming, Ray vs local processes, or
  the machine (given the same library versions).
* **Crash-safe and resumable.** Each output file is written to ``.<name>.<host>.<pid>.<random>.cbtmp``
  in its target folder (unique across the machines of a Ray cluster sharing OUT) and renamed with
  :func:`os.replace`; a re-run skips outputs that exist and does no work when all are there.
  Temporary files left by a killed run, or by a shard whose Ray node died, are removed when the
  next run starts and again when a run ends (only those whose writer no longer runs), and by a
  run stopped by an interrupt or a full disk on its way out. A retried shard re-makes only the
  outputs that do not exist yet.
* **One build per OUT.** A build holds a lock on OUT (:mod:`~corruptbench.builders.lock`); a
  second one stops at once and names the first.
  For ``npy`` outputs, shards of items are computed into ``OUT/.corruptbench/work/`` (also
  atomically) and the final arrays are assembled at the end, each through a temporary file +
  rename. ``webdataset`` shards are streamed into temporary files and fsynced and renamed when
  their block of items is done, so a ``.tar`` under its final name is always complete. A run
  killed with SIGKILL at any moment and re-run gives exactly the bytes of an uninterrupted run.
* **One parameter set per OUT.** ``OUT/manifest.json`` records the parameters, the seed, the
  corruptbench version and a fingerprint of the source (relative paths and sizes, or the batch
  file's hash). A run with different parameters on the same OUT is refused. The manifest holds no
  timestamps, so it is itself reproducible; timing goes to the printed summary only.
* **Bad input does not stop a run.** Unreadable, truncated and non-image files are skipped and listed
  with the reason in ``OUT/skipped.csv`` (also items whose corruption raised: ``failed``);
  ``strict=True`` turns any skip into a non-zero exit status.

Layouts: the released ones (``jpeg`` ``<corruption>/<severity>/<class>/<file>``, ``npy`` arrays,
make-p ``mp4``) after the profile's resize + crop, and ``tree`` (:func:`build_tree`, make-c
``--layout tree``): any dataset folder at native size, each file in its own format.

Modules: :mod:`~corruptbench.builders.builder` (:func:`build`, :func:`build_tree`: parameters, plan,
run, finish),
:mod:`~corruptbench.builders.engine` (in-process, process-pool and Ray executors of shards),
:mod:`~corruptbench.builders.writers` (one :class:`~corruptbench.builders.writers.Writer` per output
format: JPEG tree, MP4 tree, npy arrays), :mod:`~corruptbench.builders.tree` (the native-size tree
layout), :mod:`~corruptbench.builders.shards` (WebDataset tar shards),
:mod:`~corruptbench.builders.outputs` (atomic writes, manifest, ``skipped.csv``),
:mod:`~corruptbench.builders.spec` (what a worker receives), :mod:`~corruptbench.builders.convert`
(``corruptbench convert``: an existing ImageNet-C / CIFAR-10-C folder to shards).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .formats import FORMATS, OutputFormat

# the rest is imported on first use: the command line builds its parser (the --format choices)
# from FORMATS without importing the writers, the pipeline and scipy
_LAZY = {
    "build": "builder",
    "build_tree": "builder",
    "format_summary": "builder",
    "BuildSummary": "builder",
    "TMP_SUFFIX": "outputs",
    "BuildError": "spec",
    "BuildSpec": "spec",
    "ItemResult": "spec",
    "ShardPlan": "spec",
    "Writer": "spec",
    "TreeWriter": "tree",
    "tree_output_name": "tree",
    "FileTreeWriter": "writers",
    "JpegTreeWriter": "writers",
    "Mp4TreeWriter": "writers",
    "NpyCWriter": "writers",
    "NpyPWriter": "writers",
    "NpyWriter": "writers",
    "output_name": "writers",
}

__all__ = [
    "FORMATS",
    "OutputFormat",
    "build",
    "build_tree",
    "format_summary",
    "BuildSummary",
    "TMP_SUFFIX",
    "BuildError",
    "BuildSpec",
    "ItemResult",
    "ShardPlan",
    "Writer",
    "TreeWriter",
    "tree_output_name",
    "FileTreeWriter",
    "JpegTreeWriter",
    "Mp4TreeWriter",
    "NpyCWriter",
    "NpyPWriter",
    "NpyWriter",
    "output_name",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


if TYPE_CHECKING:
    from .builder import BuildSummary, build, build_tree, format_summary
    from .outputs import TMP_SUFFIX
    from .spec import BuildError, BuildSpec, ItemResult, ShardPlan, Writer
    from .tree import TreeWriter, tree_output_name
    from .writers import (
        FileTreeWriter,
        JpegTreeWriter,
        Mp4TreeWriter,
        NpyCWriter,
        NpyPWriter,
        NpyWriter,
        output_name,
    )
