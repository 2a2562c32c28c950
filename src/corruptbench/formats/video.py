"""ImageNet-P videos: MP4 (H.264) writer and reader (the folder layout: :mod:`corruptbench.layouts.imagenet_p`).

Encoding follows the reference (the ffmpeg calls of hendrycks/robustness
ImageNet-P/create_p/make_imagenet_p.py): 1 frame per second, libx264, ``crf 20`` for the
non-noise perturbations, ``tune=grain`` with x264's default ``crf 23`` for the noise ones
(gaussian_noise, shot_noise, speckle_noise). The reference's ffmpeg chose the pixel format itself
for RGB PNG input; for libx264 that is ``yuv444p`` (no chroma subsampling), so that is the default
here too (the libx264 inside the PyAV wheel supports it; ``yuv420p`` is available for players that
need it, but then width and height must be even).

Differences, by design:

* ``preset`` defaults to ``medium`` rather than the reference's ``veryslow``. Measured (31 frames of
  a 224 x 224 photo, one thread, SSE2): a noise sequence (sigma 0.05) takes 1.8 s with medium vs
  10 s with veryslow (files 1144 vs 994 KiB, PSNR 34.3 vs 33.7 dB); a smooth (translate) sequence
  0.27 s vs 0.67 s (34 vs 33 KiB, 48.1 vs 48.4 dB). Quality is set by the CRF; the preset mostly
  trades encode time for file size. Pass ``preset="veryslow"`` for the reference setting.
* x264 runs single-threaded (``threads=1``) with its SIMD limited to SSE2 on x86-64 (``asm=SSE2``;
  plain C elsewhere). x264's bitstream depends on its thread count, and with the newer SIMD paths
  (SSE4.2/AVX/AVX2/AVX-512) its macroblock-tree rate control gives different bytes than the C code —
  with AVX-512 even from one call to the next in the same process. Measured with the libx264 of the
  PyAV wheel: SSE2 output equals the C output and is stable; it costs about 35 % more encode time
  than AVX. So the bytes are the same on any machine with the same PyAV build. Parallelism comes
  from encoding many videos at once.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..fileio import temp_path
from ..perturbations import NOISE_PERTURBATIONS

__all__ = [
    "NOISE_PERTURBATIONS",
    "DEFAULT_PRESET",
    "DEFAULT_PIX_FMT",
    "PIX_FMTS",
    "write_mp4",
    "encode_mp4_bytes",
    "read_mp4",
]


DEFAULT_PRESET = "medium"
DEFAULT_PIX_FMT = "yuv444p"
#: the pixel formats the MP4 writer takes (yuv420p: for players that need it; even sizes only)
PIX_FMTS = ("yuv444p", "yuv420p")
_CRF_NON_NOISE = 20


def _check_frames(frames: np.ndarray) -> np.ndarray:
    arr = np.asarray(frames)
    if arr.ndim != 4 or arr.shape[-1] != 3 or arr.dtype != np.uint8 or arr.shape[0] < 1:
        raise ValueError(
            f"frames must be uint8 (T, H, W, 3) with T >= 1, got {arr.dtype} {arr.shape}"
        )
    return np.ascontiguousarray(arr)


def _x264_asm() -> str:
    """x264 CPU flags: SSE2 on x86-64, plain C elsewhere (both give the same bytes, see module doc)."""
    return (
        "SSE2" if platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86") else "0"
    )


def _yuv_frame(av: Any, rgb: np.ndarray, pix_fmt: str) -> Any:
    """RGB -> ``pix_fmt`` frame (swscale: BT.601 limited range, ffmpeg's default) whose line
    padding is zero.

    x264 reads a little past the visible width of each row; a frame handed over with uninitialised
    padding made the encoded bytes vary from run to run, so the planes are copied into a frame
    whose buffers, padding included, are fully written.
    """
    conv = av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(format=pix_fmt)
    out = av.VideoFrame(conv.width, conv.height, pix_fmt)
    for src, dst in zip(conv.planes, out.planes):
        data = np.frombuffer(memoryview(src), np.uint8).reshape(src.height, src.line_size)[
            :, : src.width
        ]
        buf = np.zeros((dst.height, dst.line_size), np.uint8)
        buf[:, : dst.width] = data
        dst.update(buf)
    out.pts = None
    return out


def _encode_into(
    target: str | os.PathLike[str],
    frames: np.ndarray,
    *,
    noise: bool,
    crf: int | None,
    preset: str,
    pix_fmt: str,
    fps: int,
) -> None:
    from ..extras import require

    av = require("av", "MP4 video")  # local: PyAV loads FFmpeg's shared libraries
    arr = _check_frames(frames)
    t, h, w, _ = arr.shape
    if pix_fmt == "yuv420p" and (h % 2 or w % 2):
        raise ValueError(f"yuv420p needs even width and height, got {w}x{h}; use yuv444p")
    options = {"preset": preset, "threads": "1", "x264-params": f"asm={_x264_asm()}"}
    if noise:
        options["tune"] = "grain"
        if crf is not None:
            options["crf"] = str(crf)
    else:
        options["crf"] = str(_CRF_NON_NOISE if crf is None else crf)
    with av.open(os.fspath(target), mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=fps, options=options)
        stream.width, stream.height, stream.pix_fmt = w, h, pix_fmt
        stream.codec_context.thread_count = 1
        for frame in arr:
            vf = _yuv_frame(av, frame, pix_fmt)
            for packet in stream.encode(vf):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def write_mp4(
    path: str | os.PathLike[str],
    frames: np.ndarray,
    *,
    noise: bool = False,
    crf: int | None = None,
    preset: str = DEFAULT_PRESET,
    pix_fmt: str = DEFAULT_PIX_FMT,
    fps: int = 1,
) -> None:
    """Encode uint8 RGB ``frames`` (T, H, W, 3) as an H.264 MP4 at ``path``, atomically.

    Args:
        path: output file (parent folders are created). Written to
            :func:`corruptbench.fileio.temp_path` in the same folder and renamed with
            :func:`os.replace`, so ``path`` is never partial.
        noise: reference settings for noise perturbations: ``tune=grain`` and x264's default CRF 23
            (unless ``crf`` is given). Otherwise CRF 20.
        crf: override the constant rate factor.
        preset: x264 preset (default ``medium``; the reference used ``veryslow``).
        pix_fmt: ``yuv444p`` (default, like the reference) or ``yuv420p``.
        fps: frames per second (the reference: 1).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # FFmpeg opens it: the permissions of any new file; a name unique across a cluster's machines
    tmp_file = Path(temp_path(path))
    try:
        _encode_into(
            tmp_file, frames, noise=noise, crf=crf, preset=preset, pix_fmt=pix_fmt, fps=fps
        )
        os.replace(tmp_file, path)
    except BaseException:
        tmp_file.unlink(missing_ok=True)
        raise


def encode_mp4_bytes(frames: np.ndarray, **kwargs: object) -> bytes:
    """Encode like :func:`write_mp4` and return the file's bytes (uses a temporary file)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="corruptbench-mp4-") as d:
        p = Path(d) / "v.mp4"
        write_mp4(p, frames, **kwargs)  # type: ignore[arg-type]
        return p.read_bytes()


def read_mp4(path: str | os.PathLike[str] | IO[bytes]) -> np.ndarray:
    """Decode every frame of a video (a file, or a binary file object) as uint8 RGB, shape
    (T, H, W, 3)."""
    from ..extras import require

    av = require("av", "MP4 video")

    frames = []
    src = path if hasattr(path, "read") else os.fspath(path)  # type: ignore[arg-type]
    with av.open(src, mode="r") as container:
        for frame in container.decode(video=0):
            frames.append(frame.to_ndarray(format="rgb24"))
    if not frames:
        raise ValueError(f"{path}: no video frames")
    return np.stack(frames)
