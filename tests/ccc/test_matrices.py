"""Matrices files: what load_matrices reads, and one line for every file it cannot (told by the
file's first bytes, not its name: no file that is not a pickle is unpickled)."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

from corruptbench.ccc.matrices import load_matrices, save_matrices
from corruptbench.errors import ArgumentError

GOOD = {"n1_fog_n2_snow": np.linspace(0, 80, 441).reshape(21, 21)}


def _npz_bytes(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def test_reads_an_npz_under_any_name_and_a_pickle(tmp_path):
    save_matrices(tmp_path / "m.npz", GOOD)
    (tmp_path / "M.NPZ").write_bytes((tmp_path / "m.npz").read_bytes())
    (tmp_path / "m.pickle").write_bytes(pickle.dumps(GOOD))
    for name in ("m.npz", "M.NPZ", "m.pickle"):
        got = load_matrices(tmp_path / name)
        assert list(got) == list(GOOD) and np.array_equal(
            got["n1_fog_n2_snow"], GOOD["n1_fog_n2_snow"]
        )


BAD = {
    "truncated.npz": lambda: _npz_bytes(**GOOD)[:300],
    "empty.npz": lambda: b"",
    "text.npz": lambda: b"accuracies, one per line\n",
    "objects.npz": lambda: _npz_bytes(n1_fog_n2_snow=np.array([{"a": 1}], dtype=object)),
    "single.npy": lambda: _npy_bytes(),
    "truncated.pickle": lambda: pickle.dumps(GOOD)[:40],
    "text.pickle": lambda: b"not a pickle\n",
}


def _npy_bytes() -> bytes:
    buf = io.BytesIO()
    np.save(buf, GOOD["n1_fog_n2_snow"])
    return buf.getvalue()


@pytest.mark.parametrize("name", sorted(BAD))
def test_an_unreadable_file_is_one_line_naming_it(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(BAD[name]())
    with pytest.raises(ArgumentError) as info:
        load_matrices(path)
    msg = str(info.value)
    assert "\n" not in msg and str(path) in msg and msg.startswith("matrix ")


def test_a_folder_and_a_missing_file(tmp_path):
    with pytest.raises(ArgumentError, match="is a folder, not a matrices file"):
        load_matrices(tmp_path)
    with pytest.raises(ArgumentError, match="not found"):
        load_matrices(tmp_path / "none.npz")
