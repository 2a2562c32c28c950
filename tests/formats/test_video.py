"""ImageNet-P MP4 writing / reading and the ImageNet-P tree (corruptbench.formats.video)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench.formats import video
from support import IMAGENET_SAMPLE, need_shared, psnr


def _photo(size: tuple[int, int] = (96, 80)) -> Image.Image:
    need_shared()
    with Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG") as im:
        return im.convert("RGB").resize(size)


def _sequence(noise: bool) -> np.ndarray:
    base = np.asarray(_photo((224, 224)))
    rng = np.random.RandomState(0)
    frames = []
    for i in range(31):
        if noise:
            f = np.clip(base / 255.0 + rng.normal(0, 0.05, base.shape), 0, 1) * 255 if i else base
        else:
            f = np.roll(base, i - 15, axis=1)
        frames.append(np.asarray(f).astype(np.uint8))
    return np.stack(frames)


@pytest.mark.parametrize("noise", [False, True])
def test_mp4_round_trip_settings_and_loss(tmp_path: Path, noise: bool) -> None:
    import av

    frames = _sequence(noise)
    path = tmp_path / "n01440764" / "x.mp4"
    video.write_mp4(path, frames, noise=noise)
    back = video.read_mp4(path)
    assert back.shape == frames.shape and back.dtype == np.uint8
    loss = psnr(back, frames)
    print(
        f"\nMP4 encoding loss ({'noise: tune=grain crf 23' if noise else 'crf 20'}, medium, yuv444p): PSNR {loss:.2f} dB"
    )
    assert loss > (30 if noise else 42)
    data = path.read_bytes()
    assert (
        (b"crf=23.0" in data) if noise else (b"crf=20.0" in data)
    )  # x264 writes its settings in an SEI
    with av.open(str(path)) as c:
        st = c.streams.video[0]
        assert st.codec_context.name == "h264" and st.codec_context.pix_fmt == "yuv444p"
        assert float(st.average_rate) == 1.0
    assert not list(path.parent.glob(".*"))  # no temporary left behind
    assert video.encode_mp4_bytes(frames, noise=noise) == data  # deterministic bytes


def test_mp4_bytes_do_not_depend_on_x264_simd(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.RandomState(1)
    base = np.asarray(_photo((64, 64)))
    frames = np.stack(
        [np.clip(base + rng.normal(0, 12, base.shape), 0, 255).astype(np.uint8) for _ in range(8)]
    )
    ours = [video.encode_mp4_bytes(frames, noise=True) for _ in range(3)]
    assert ours[0] == ours[1] == ours[2]
    monkeypatch.setattr(video, "_x264_asm", lambda: "0")  # x264's plain C code
    assert video.encode_mp4_bytes(frames, noise=True) == ours[0]


def test_mp4_argument_checks(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="uint8"):
        video.write_mp4(tmp_path / "a.mp4", np.zeros((2, 8, 8, 3), np.float32))
    with pytest.raises(ValueError, match="even"):
        video.write_mp4(tmp_path / "a.mp4", np.zeros((2, 9, 8, 3), np.uint8), pix_fmt="yuv420p")
    video.write_mp4(
        tmp_path / "odd.mp4", np.full((3, 33, 31, 3), 128, np.uint8)
    )  # 4:4:4 takes odd sizes
    assert video.read_mp4(tmp_path / "odd.mp4").shape == (3, 33, 31, 3)
    assert not (tmp_path / "a.mp4").exists() and not list(tmp_path.glob(".*"))
