"""An evaluation's checkpoint: where an interrupted ``evaluate_stream`` resumes from.

One file (``torch.save``, written atomically): what identifies the run (the sequence's SHA-256,
the method and its options, the number of batches, the model's weights digest, the ECE bins),
the next batch, the counts so far (JSON text: the calibration sums are exact integers, so the
resumed numbers are those of one pass) and the adapter's state (the adapted module's and
optimiser's ``state_dict``). A checkpoint of another run is refused in one line naming what
differs, rather than mixed in, and is left where it is.
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


#: the parts of a key named in words (the rest by their argument); their values are not shown
_WORDS = {
    "sequence_sha256": "another stream",
    "settings": "other stream settings",
    "model": "other model weights",
}


def _value(v: Any) -> str:
    return "not recorded" if v is None else str(v)


def _differences(saved: dict[str, Any], key: dict[str, Any]) -> list[str | Arg]:
    """What differs between the saved key and ``key``, as message parts: each part, and each of
    the method's options when the method is the same (another method's options differ anyway)."""
    pairs = [(p, saved.get(p), key.get(p)) for p in dict.fromkeys([*key, *saved])]
    pairs = [pair for pair in pairs if pair[0] != "adapt_options"]
    if saved.get("adapt") == key.get("adapt"):
        there, here = saved.get("adapt_options") or {}, key.get("adapt_options") or {}
        pairs += [(o, there.get(o), here.get(o)) for o in dict.fromkeys([*here, *there])]
    out: list[str | Arg] = []
    for part, there, here in pairs:
        if there == here:
            continue
        out += ["; "] if out else []
        if part in _WORDS:
            out.append(_WORDS[part])
        else:
            out += [Arg(part), f" {_value(there)} there, {_value(here)} here"]
    return out


def load_checkpoint(path: str | os.PathLike[str], key: dict[str, Any]) -> dict[str, Any] | None:
    """The checkpoint at ``path`` (None when there is none). ``key``: what identifies the run
    (JSON values; the method's options under ``adapt_options``).

    Raises:
        StreamError: not a checkpoint, or one of another run (another stream, method, option,
            model, ...: named, with both values where short).
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
    saved, want = json.loads(doc["key"]), json.loads(json.dumps(key))
    if saved != want:
        raise StreamError(
            Arg("checkpoint"),
            f" {os.fspath(path)} belongs to another evaluation (",
            *_differences(saved, want),
            "); remove it or give another file",
        )
    return {**doc, "tally": json.loads(doc["tally"])}
