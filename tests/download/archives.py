"""Small real archives shaped like the released ones, built in the test, and a test-only table."""

from __future__ import annotations

import hashlib
import io
import tarfile

import numpy as np
from PIL import Image

from corruptbench.tables.released import Checksum, ReleasedDataset, ReleasedFile

WNIDS = ("n01440764", "n01443537")


def jpeg_bytes(seed: int, size: int = 16) -> bytes:
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (size, size, 3), dtype=np.uint8)).save(
        buf, "JPEG", quality=85
    )
    return buf.getvalue()


def npy_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def tar_bytes(members: list[tuple[str, bytes | None, str | None]], *, gz: bool = False) -> bytes:
    """A tar of ``(name, data, None)`` files, ``(name, None, None)`` folders and
    ``(name, None, link target)`` symbolic links, in the order given."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w", format=tarfile.PAX_FORMAT) as tf:
        for name, data, link in members:
            info = tarfile.TarInfo(name)
            if link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tf.addfile(info)
            elif data is None:
                info.type = tarfile.DIRTYPE
                tf.addfile(info)
            else:
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def imagenet_c_part(corruptions: tuple[str, ...], severities: tuple[int, ...] = (1, 2)) -> bytes:
    """``<corruption>/<severity>/<wnid>/ILSVRC2012_val_<n>.JPEG``, two classes of two images."""
    members: list[tuple[str, bytes | None, str | None]] = []
    n = 0
    for c in corruptions:
        for s in severities:
            for w in WNIDS:
                members.append((f"{c}/{s}/{w}", None, None))
                for _ in range(2):
                    n += 1
                    members.append(
                        (f"{c}/{s}/{w}/ILSVRC2012_val_{n:08d}.JPEG", jpeg_bytes(n), None)
                    )
    return tar_bytes(members)


def cifar_c_tar(n: int = 4) -> bytes:
    rng = np.random.default_rng(0)
    arr = rng.integers(0, 256, (5 * n, 32, 32, 3), dtype=np.uint8)
    labels = np.tile(np.arange(n, dtype=np.uint8), 5)
    return tar_bytes(
        [
            ("CIFAR-10-C", None, None),
            ("CIFAR-10-C/fog.npy", npy_bytes(arr), None),
            ("CIFAR-10-C/labels.npy", npy_bytes(labels), None),
        ]
    )


def md5(data: bytes) -> Checksum:
    return Checksum("md5", hashlib.md5(data).hexdigest(), "the test")


def sha256(data: bytes) -> Checksum:
    return Checksum("sha256", hashlib.sha256(data).hexdigest(), "the test")


def dataset(
    name: str, files: list[ReleasedFile], layout: str = "imagenet-c"
) -> dict[str, ReleasedDataset]:
    """A one-dataset table for :func:`corruptbench.download.download`."""
    return {
        name: ReleasedDataset(name, f"{name} (test)", "http://127.0.0.1/", tuple(files), layout)
    }


def sparse_tar(logical_size: int) -> bytes:
    """A 10 kB tar whose member ``s/big.bin`` is a GNU sparse file (PAX format 1.0: the map in
    the member's data, ``GNU.sparse.realsize`` its size) of ``logical_size`` bytes, all a hole,
    after a small ``s/ok.txt``."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        ok = tarfile.TarInfo("s/ok.txt")
        ok.size = 2
        tf.addfile(ok, io.BytesIO(b"ok"))
        info = tarfile.TarInfo("s/GNUSparseFile.0/big.bin")
        info.pax_headers = {
            "GNU.sparse.major": "1",
            "GNU.sparse.minor": "0",
            "GNU.sparse.name": "s/big.bin",
            "GNU.sparse.realsize": str(logical_size),
        }
        sparse_map = b"1\n0\n0\n".ljust(tarfile.BLOCKSIZE, b"\0")  # one empty data run
        info.size = len(sparse_map)
        tf.addfile(info, io.BytesIO(sparse_map))
    return buf.getvalue()
