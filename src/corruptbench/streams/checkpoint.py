"""An evaluation's checkpoint: where an interrupted ``evaluate_stream`` resumes from.

One file (``torch.save``, written atomically): what identifies the run (the sequence's SHA-256,
the method, the number of batches, the model's weights digest), the next batch, the counts so
far (JSON text: the calibration sums are exact integers, so the resumed numbers are those of one
pass) and the adapter's state (the adapted module's and optimiser's ``state_dict``). A checkpoint
of another run is refused in one line rather than mixed in.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from ..errors import Arg
from ..fileio import write_bytes
from .config import StreamError

__all__ = ["save_checkpoint", "load_checkpoint"]

FORMAT = "corruptbench-stream-checkpoint/1"


def save_checkpoint(
    path: str | os.PathLike[str],
    key: dict[str, Any],
    next_batch: int,
    tally: dict[str, Any],
    adapter: dict[str, Any],
) -> None:
    import torch

    buf = io.BytesIO()
    torch.save(
        {
            "format": FORMAT,
            "key": json.dumps(key, sort_keys=True),
            "next_batch": next_batch,
            "tally": json.dumps(tally),
            "adapter": adapter,
        },
        buf,
    )
    write_bytes(path, buf.getvalue())


def load_checkpoint(path: str | os.PathLike[str], key: dict[str, Any]) -> dict[str, Any] | None:
    """The checkpoint at ``path`` (None when there is none).

    Raises:
        StreamError: not a checkpoint, or one of another run (another stream, method, model).
    """
    if not Path(path).is_file():
        return None
    import torch

    try:
        doc = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is one refusal
        raise StreamError(Arg("checkpoint"), f" {os.fspath(path)}: not readable ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StreamError(Arg("checkpoint"), f" {os.fspath(path)}: not a stream checkpoint")
    if doc["key"] != json.dumps(key, sort_keys=True):
        raise StreamError(
            Arg("checkpoint"),
            f" {os.fspath(path)} belongs to another evaluation (another stream, method or model); "
            "remove it or give another file",
        )
    return {**doc, "tally": json.loads(doc["tally"])}
