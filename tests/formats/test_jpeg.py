"""corruptbench.formats.jpeg.encode_jpeg: byte-identical to Pillow's ``save(..., optimize=True)``."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from corruptbench import ALL_CORRUPTIONS, corrupt
from corruptbench.formats import jpeg as _jpeg
from corruptbench.formats import jpeg_transcoder
from corruptbench.formats.jpeg import encode_jpeg


def pillow(arr: np.ndarray, quality: int = 85, **kw: object) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=quality, optimize=True, **kw)
    return buf.getvalue()


def assert_same(arr: np.ndarray, quality: int = 85) -> None:
    """Pillow's bytes, and through the transcoder (not a fallback to Pillow)."""
    ref = pillow(arr, quality)
    assert encode_jpeg(arr, quality) == ref
    base = _jpeg._BASES[_jpeg._choose_base(quality)]
    assert jpeg_transcoder.transcode(base(np.ascontiguousarray(arr), quality)) == ref


def noise(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


def test_photos_all_profiles(photos224: list[np.ndarray]) -> None:
    from corruptbench.ops.preprocess import profile_preprocess
    from support import PHOTO_NAMES, load_photo

    for a in photos224:
        assert_same(a)
        assert_same(np.ascontiguousarray(a[:, :, 1]))  # 2-D grayscale
    im = load_photo(PHOTO_NAMES[1])
    for profile in ("inception", "tiny"):
        assert_same(profile_preprocess(im, profile))
    assert_same(np.asarray(im.resize((32, 32), Image.Resampling.BILINEAR)))  # CIFAR-sized


def test_all_corruptions(photo224: np.ndarray) -> None:
    # every corruption at its mildest and strongest severity; noise gives long codes
    for name in ALL_CORRUPTIONS:
        for sev in (1, 5):
            assert_same(np.ascontiguousarray(corrupt(photo224, name, sev, rng=7)))


@pytest.mark.parametrize(
    "shape",
    [(1, 1), (2, 3), (8, 300), (300, 8), (33, 47), (15, 16), (16, 17), (17, 9), (224, 224)],
)
def test_odd_sizes_colour_and_gray(shape: tuple[int, int]) -> None:
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w]
    ramp = np.stack([xx * 7 % 256, yy * 5 % 256, (xx * yy) % 256], axis=2).astype(np.uint8)
    assert_same(ramp)
    assert_same(np.ascontiguousarray(ramp[:, :, 2]))
    assert_same(noise((h, w, 3), seed=h * 1000 + w))
    assert_same(noise((h, w), seed=h * 1000 + w))


@pytest.mark.parametrize("value", [0, 1, 128, 254, 255])
def test_flat_images(value: int) -> None:
    for shape in ((224, 224, 3), (224, 224), (5, 7, 3)):
        assert_same(np.full(shape, value, dtype=np.uint8))


def test_worst_case_noise() -> None:
    # random noise and saturated black/white: symbol counts that need the 16-bit limit
    assert_same(noise((299, 299, 3), seed=1))
    assert_same(noise((224, 224), seed=2))
    bw = noise((224, 224, 3), seed=3) // 128 * 255
    assert_same(bw.astype(np.uint8))


@pytest.mark.parametrize("quality", [1, 10, 50, 75, 95, 100])
def test_other_qualities(quality: int, synthetic_image: np.ndarray) -> None:
    assert_same(synthetic_image, quality)
    assert_same(noise((40, 56, 3), seed=quality), quality)
    assert_same(noise((24, 40), seed=quality), quality)


def test_non_contiguous_input() -> None:
    a = noise((64, 96, 3))
    assert encode_jpeg(a[::2, ::3], 85) == pillow(np.ascontiguousarray(a[::2, ::3]))


def test_unsupported_inputs_go_to_pillow() -> None:
    rgba = noise((16, 16, 4))
    with pytest.raises(OSError):
        pillow(rgba)
    with pytest.raises(OSError):
        encode_jpeg(rgba, 85)
    too_tall = np.zeros((65501, 2, 3), dtype=np.uint8)
    with pytest.raises(OSError):
        pillow(too_tall)
    with pytest.raises(OSError):
        encode_jpeg(too_tall, 85)
    # quality 0 and non-int qualities are Pillow's business
    a = noise((16, 24, 3))
    assert encode_jpeg(a, 0) == pillow(a, 0)
    with pytest.raises(ValueError):
        pillow(a, np.int64(90))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        encode_jpeg(a, np.int64(90))  # type: ignore[arg-type]


def test_streams_the_transcoder_does_not_handle() -> None:
    a = noise((32, 32, 3))
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format="JPEG", quality=85, progressive=True)
    assert jpeg_transcoder.transcode(buf.getvalue()) is None
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format="JPEG", quality=85, restart_marker_blocks=1)
    assert jpeg_transcoder.transcode(buf.getvalue()) is None
    good = _jpeg._opencv_bytes(a, 85)
    for bad in (good[:-40] + b"\xff\xd9", good[:200], good[:2] + good[30:], b"", b"\xff\xd8"):
        assert jpeg_transcoder.transcode(bad) is None
    # flipping bits of the entropy data never crashes; the result is None or a stream
    rng = np.random.default_rng(0)
    data = bytearray(good)
    for _ in range(50):
        corrupted = bytearray(data)
        pos = int(rng.integers(len(good) - 400, len(good) - 2))
        corrupted[pos] ^= 1 << int(rng.integers(0, 8))
        out = jpeg_transcoder.transcode(bytes(corrupted))
        assert out is None or out[:2] == b"\xff\xd8"


def libjpeg_optimal_table(freq_in: np.ndarray) -> tuple[list[int], list[int]]:
    """Straight transcription of T.81 K.2/K.3 with libjpeg's tie order (linear scans)."""
    freq = [int(f) for f in freq_in[:256]] + [1]
    codesize = [0] * 257
    others = [-1] * 257
    while True:
        c1 = c2 = -1
        v = 10**18
        for i in range(257):
            if freq[i] and freq[i] <= v:
                v, c1 = freq[i], i
        v = 10**18
        for i in range(257):
            if freq[i] and freq[i] <= v and i != c1:
                v, c2 = freq[i], i
        if c2 < 0:
            break
        freq[c1] += freq[c2]
        freq[c2] = 0
        codesize[c1] += 1
        while others[c1] >= 0:
            c1 = others[c1]
            codesize[c1] += 1
        others[c1] = c2
        codesize[c2] += 1
        while others[c2] >= 0:
            c2 = others[c2]
            codesize[c2] += 1
    bits = [0] * 33
    for i in range(257):
        if codesize[i]:
            bits[codesize[i]] += 1
    for i in range(32, 16, -1):
        while bits[i] > 0:
            j = i - 2
            while bits[j] == 0:
                j -= 1
            bits[i] -= 2
            bits[i - 1] += 1
            bits[j + 1] += 2
            bits[j] -= 1
    i = 16
    while bits[i] == 0:
        i -= 1
    bits[i] -= 1
    vals = [j for length in range(1, 33) for j in range(256) if codesize[j] == length]
    return bits[1:17], vals


def test_optimal_tables_match_libjpeg_procedure() -> None:
    rng = np.random.default_rng(5)
    fib = [1, 1]
    while len(fib) < 30:
        fib.append(fib[-1] + fib[-2])
    cases = [np.zeros(256, dtype=np.int64) for _ in range(6)]
    cases[0][0] = 5  # one symbol
    cases[1][[3, 200]] = 7  # two, tied
    cases[2][:30] = fib  # code lengths far past 16 before limiting
    cases[3][::3] = 4  # many ties
    cases[4][rng.choice(256, 162, replace=False)] = rng.integers(1, 5, 162)
    cases[5][:] = rng.integers(1, 1_000_000, 256)
    for _ in range(20):
        f = np.zeros(256, dtype=np.int64)
        n = int(rng.integers(1, 257))
        f[rng.choice(256, n, replace=False)] = rng.geometric(rng.uniform(0.01, 0.9), n)
        cases.append(f)
    for f in cases:
        bits = np.zeros(17, dtype=np.int64)
        vals = np.zeros(256, dtype=np.int64)
        n = jpeg_transcoder._optimal_lengths(f, bits, vals)
        ref_bits, ref_vals = libjpeg_optimal_table(f)
        assert list(bits[1:]) == ref_bits
        assert list(vals[:n]) == ref_vals
        assert max(np.nonzero(bits)[0]) <= 16


def test_transcoding_is_idempotent_and_tables_are_rebuilt(photo224: np.ndarray) -> None:
    # an optimised stream (other DHT contents) re-optimises to itself; switching between it
    # and standard-table streams must rebuild the cached decoding tables each time
    gray = np.ascontiguousarray(photo224[:, :, 0])
    for arr in (photo224, gray, photo224, noise((40, 40, 3)), gray):
        ref = pillow(arr)
        assert jpeg_transcoder.transcode(ref) == ref
        assert jpeg_transcoder.transcode(_jpeg._opencv_bytes(arr, 85)) == ref


def test_jpeg_quality_reads_libjpeg_scaled_tables(photo224: np.ndarray) -> None:
    from corruptbench.formats.jpeg import jpeg_quality

    for q in range(1, 101):
        with Image.open(io.BytesIO(encode_jpeg(photo224, q))) as im:
            assert jpeg_quality(im) == q
        with Image.open(io.BytesIO(encode_jpeg(photo224[:, :, 0].copy(), q))) as im:
            assert jpeg_quality(im) == q  # gray: one table
    buf = io.BytesIO()
    Image.fromarray(photo224).save(buf, "JPEG", qtables=[[2] * 64, [4] * 64])
    with Image.open(buf) as im:
        assert jpeg_quality(im) is None  # another encoder's tables
    buf = io.BytesIO()
    Image.fromarray(photo224).save(buf, "PNG")
    with Image.open(buf) as im:
        assert jpeg_quality(im) is None
