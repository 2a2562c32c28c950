"""corruptbench.formats.images: every reader's decoding, 16-bit input in particular."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench.formats.images import (
    ImageLoadError,
    decode_image,
    load_array,
    load_image,
    load_image_native,
    to_8bit,
)
from support import IMAGENET_SAMPLE, need_shared


def _photo(size: tuple[int, int] = (96, 80)) -> Image.Image:
    need_shared()
    with Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG") as im:
        return im.convert("RGB").resize(size)


def _ramp16(h: int = 40, w: int = 64) -> np.ndarray:
    return (np.arange(h * w, dtype=np.uint32).reshape(h, w) * 25).astype(np.uint16)


@pytest.mark.parametrize("suffix", [".png", ".tif"])
def test_16_bit_grayscale_keeps_its_high_byte(tmp_path: Path, suffix: str) -> None:
    a = _ramp16()
    path = tmp_path / f"g16{suffix}"
    Image.fromarray(a).save(path)
    with Image.open(path) as im:
        assert im.mode == "I;16"
        # what Pillow alone does: every sample above 255 clipped, a (nearly) white image
        assert (np.asarray(im.convert("RGB")) == 255).mean() > 0.99
    want = (a >> 8).astype(np.uint8)
    assert decode_image(path).mode == "L"
    np.testing.assert_array_equal(load_array(path), want)
    np.testing.assert_array_equal(np.asarray(load_image(path)), np.stack([want] * 3, axis=-1))


def test_16_bit_pgm_is_mode_i(tmp_path: Path) -> None:
    a = _ramp16()
    path = tmp_path / "g16.pgm"
    path.write_bytes(b"P5\n64 40\n65535\n" + a.astype(">u2").tobytes())
    with Image.open(path) as im:
        assert im.mode == "I"
    np.testing.assert_array_equal(load_array(path), (a >> 8).astype(np.uint8))


def test_16_bit_colour_png_is_what_pillow_gives(tmp_path: Path) -> None:
    cv2 = pytest.importorskip("cv2")
    a = _ramp16()
    bgr = np.dstack([a, a // 2, a // 4])
    path = tmp_path / "c16.png"
    cv2.imwrite(str(path), bgr)
    got = load_array(path)
    assert got.dtype == np.uint8 and got.shape == (40, 64, 3)
    np.testing.assert_array_equal(got, (bgr[..., ::-1] >> 8).astype(np.uint8))


def test_refused_sample_formats(tmp_path: Path) -> None:
    f = tmp_path / "f.tif"
    Image.fromarray(np.linspace(0, 1, 40 * 64, dtype=np.float32).reshape(40, 64)).save(f)
    with pytest.raises(ImageLoadError, match="32-bit float image"):
        load_image(f)
    i = tmp_path / "i.tif"
    Image.fromarray((np.arange(40 * 64).reshape(40, 64) * 100).astype(np.int32), mode="I").save(i)
    with pytest.raises(ImageLoadError, match="values outside 0..65535"):
        load_array(i)
    with pytest.raises(ImageLoadError, match="32-bit float"):
        to_8bit(Image.new("F", (4, 4)))


def test_layouts_kept_for_the_cli(tmp_path: Path) -> None:
    rgb = np.random.RandomState(0).randint(0, 256, (20, 30, 3)).astype(np.uint8)
    rgba = np.dstack([rgb, np.full((20, 30), 77, np.uint8)])
    Image.fromarray(rgba).save(tmp_path / "a.png")
    Image.fromarray(rgb[:, :, 0]).save(tmp_path / "g.png")
    Image.fromarray(rgb).convert("P").save(tmp_path / "p.png")
    Image.fromarray(rgb[:, :, 0]).convert("LA").save(tmp_path / "la.png")
    np.testing.assert_array_equal(load_array(tmp_path / "a.png"), rgba)
    np.testing.assert_array_equal(load_array(tmp_path / "g.png"), rgb[:, :, 0])
    assert load_array(tmp_path / "p.png").shape == (20, 30, 3)
    la = load_array(tmp_path / "la.png")
    assert la.shape == (20, 30, 4) and (la[..., 3] == 255).all()


@pytest.mark.parametrize(
    ("mode", "shape"),
    [
        ("RGB", (3,)),
        ("L", ()),
        ("LA", (2,)),
        ("RGBA", (4,)),
        ("1", ()),
        ("P", (3,)),
        ("CMYK", (3,)),
    ],
)
def test_load_image_native_keeps_gray_and_alpha(tmp_path: Path, mode: str, shape: tuple) -> None:
    im = _photo().convert(mode)
    path = tmp_path / ("x.jpg" if mode == "CMYK" else "x.png")
    im.save(path)
    arr = load_image_native(path)
    assert arr.dtype == np.uint8 and arr.shape == (im.height, im.width, *shape)
    with Image.open(path) as ref:
        want = ref.convert({"1": "L", "P": "RGB", "CMYK": "RGB"}.get(mode, mode))
        assert np.array_equal(arr, np.asarray(want))
    if mode == "1":
        assert set(np.unique(arr)) <= {0, 255}


def test_load_image_native_16_bit_as_every_reader(tmp_path: Path) -> None:
    """16-bit gray becomes its high byte (the policy of every reader), a float image is refused."""
    Image.fromarray(np.full((8, 8), 40000, np.uint16)).save(tmp_path / "deep.png")
    arr = load_image_native(tmp_path / "deep.png")
    assert arr.dtype == np.uint8 and arr.shape == (8, 8) and (arr == 40000 >> 8).all()
    Image.fromarray(np.full((8, 8), 0.5, np.float32)).save(tmp_path / "float.tif")
    with pytest.raises(ImageLoadError, match="32-bit float image"):
        load_image_native(tmp_path / "float.tif")
    (tmp_path / "text.png").write_text("no")
    with pytest.raises(ImageLoadError, match="not an image"):
        load_image_native(tmp_path / "text.png")
