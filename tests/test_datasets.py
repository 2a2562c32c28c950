"""Readers/writers of the released layouts: wnids, image folders, ImageNet-C trees, CIFAR-C/-P
arrays and python batches, ImageNet-P MP4 videos."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from conftest import CIFAR_TEST, IMAGENET_SAMPLE, need_shared, psnr
from corruptbench.datasets import cifar, imagenet, imagenet_c, video
from corruptbench.datasets.imagenet import ImageLoadError, load_image, scan_image_folder


def _photo(size: tuple[int, int] = (96, 80)) -> Image.Image:
    need_shared()
    with Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG") as im:
        return im.convert("RGB").resize(size)


# ---------------------------------------------------------------- ImageNet class index


def test_wnids_are_the_1000_sorted_and_cover_the_sample() -> None:
    wnids = imagenet.imagenet_wnids()
    assert len(wnids) == 1000 and list(wnids) == sorted(set(wnids))
    assert wnids[0] == "n01440764" and wnids[-1] == "n15075141"
    assert imagenet.wnid_to_index("n01440764") == 0 and imagenet.index_to_wnid(999) == "n15075141"
    assert imagenet.class_name("n01440764") == "tench" and imagenet.class_name(1) == "goldfish"
    with pytest.raises(ValueError, match="not one of the 1000"):
        imagenet.wnid_to_index("n99999999")
    need_shared()
    sample = {imagenet.wnid_from_name(p.name) for p in IMAGENET_SAMPLE.iterdir()}
    assert len(sample) == 500 and sample <= set(wnids)


# ---------------------------------------------------------------- image folders and loading


def test_scan_flat_folder_with_wnid_prefixes() -> None:
    need_shared()
    scan = scan_image_folder(IMAGENET_SAMPLE)
    assert scan.layout == "flat" and len(scan.items) == 500 and len(scan.classes) == 500
    first = scan.items[0]
    assert first.rel == "n01440764/n01440764_tench.JPEG" and first.label == "n01440764"
    assert [it.rel for it in scan.items] == sorted(it.rel for it in scan.items)


def test_scan_class_folders_sorted_hidden_and_non_images(tmp_path: Path) -> None:
    for cls in ("b", "a"):
        (tmp_path / cls).mkdir()
        for name in ("z.JPEG", "m.png", "notes.txt", ".hidden.jpg"):
            (tmp_path / cls / name).write_bytes(b"x")
    (tmp_path / ".cache").mkdir()
    (tmp_path / "top.jpg").write_bytes(b"x")
    scan = scan_image_folder(tmp_path)
    assert scan.layout == "classes" and scan.classes == ["a", "b"]
    assert [it.rel for it in scan.items] == ["a/m.png", "a/z.JPEG", "b/m.png", "b/z.JPEG"]
    assert sorted(p.name for p in scan.ignored) == ["notes.txt", "notes.txt", "top.jpg"]


def test_scan_flat_without_wnids(tmp_path: Path) -> None:
    for name in ("b.jpg", "a.png", "n01440764_x.jpg"):
        (tmp_path / name).write_bytes(b"x")
    scan = scan_image_folder(tmp_path)
    assert [(it.rel, it.label) for it in scan.items] == [
        ("a.png", None),
        ("b.jpg", None),
        ("n01440764_x.jpg", None),
    ]
    with pytest.raises(FileNotFoundError):
        scan_image_folder(tmp_path / "missing")


@pytest.mark.parametrize("mode", ["L", "CMYK", "P", "RGBA", "I;16", "LA", "1"])
def test_load_image_converts_modes_like_the_reference(tmp_path: Path, mode: str) -> None:
    im = _photo()
    src = (
        im.convert(mode)
        if mode != "I;16"
        else Image.fromarray(np.asarray(im.convert("L")).astype(np.uint16) * 200)
    )
    path = tmp_path / ("x.tif" if mode in ("I;16", "CMYK") else "x.png")
    src.save(path)
    got = load_image(path)
    assert got.mode == "RGB" and got.size == im.size
    with Image.open(path) as ref:
        assert np.array_equal(np.asarray(got), np.asarray(ref.convert("RGB")))


def test_load_image_errors(tmp_path: Path) -> None:
    need_shared()
    data = (IMAGENET_SAMPLE / "n01440764_tench.JPEG").read_bytes()
    (tmp_path / "trunc.jpg").write_bytes(data[: len(data) // 3])
    (tmp_path / "text.jpg").write_text("not an image")
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(ImageLoadError, match="truncated"):
        load_image(tmp_path / "trunc.jpg")
    with pytest.raises(ImageLoadError, match="not an image"):
        load_image(tmp_path / "text.jpg")
    with pytest.raises(ImageLoadError, match="not an image"):
        load_image(tmp_path / "empty.png")
    with pytest.raises(ImageLoadError, match="not found"):
        load_image(tmp_path / "nope.jpg")


# ---------------------------------------------------------------- ImageNet-C tree


def test_scan_imagenet_c_subset_and_missing(tmp_path: Path) -> None:
    for c, sevs in (("gaussian_noise", (1, 2, 3, 4, 5)), ("fog", (2,)), ("my_corruption", (1,))):
        for s in sevs:
            for w in ("n01440764", "n01443537"):
                d = tmp_path / c / str(s) / w
                d.mkdir(parents=True)
                (d / "b.JPEG").write_bytes(b"x")
                (d / "a.JPEG").write_bytes(b"x")
    (tmp_path / "fog" / "3").mkdir()  # empty cell counts as missing
    (tmp_path / "gaussian_noise" / "1" / "flat.jpg").write_bytes(b"x")
    (tmp_path / "docs").mkdir()
    idx = imagenet_c.scan_imagenet_c(tmp_path)
    assert idx.corruptions == ["gaussian_noise", "fog", "my_corruption"]
    assert idx.extra_dirs == ["docs"]
    cell = idx.cells[("gaussian_noise", 1)]
    assert [(p.relative_to(tmp_path).as_posix(), w) for p, w in cell] == [
        ("gaussian_noise/1/flat.jpg", None),
        ("gaussian_noise/1/n01440764/a.JPEG", "n01440764"),
        ("gaussian_noise/1/n01440764/b.JPEG", "n01440764"),
        ("gaussian_noise/1/n01443537/a.JPEG", "n01443537"),
        ("gaussian_noise/1/n01443537/b.JPEG", "n01443537"),
    ]
    assert idx.severities("fog") == [2] and ("fog", 3) in idx.missing and ("snow", 5) in idx.missing
    assert (
        len(idx.missing) == (19 + 1) * 5 - 7
    )  # 19 known + 1 other corruption, minus 7 present cells
    assert "fog: severity 1,3,4,5 missing" in idx.describe_missing()
    assert "snow: all severities missing" in idx.describe_missing()
    assert idx.classes == ["n01440764", "n01443537"]
    only = imagenet_c.scan_imagenet_c(tmp_path, ["fog"], severities=[2, 3])
    assert list(only.cells) == [("fog", 2)] and only.missing == [("fog", 3)]
    cells = list(imagenet_c.iter_imagenet_c(tmp_path, ["gaussian_noise"], [5]))
    assert len(cells) == 1 and cells[0][:2] == ("gaussian_noise", 5) and len(cells[0][2]) == 4


# ---------------------------------------------------------------- CIFAR


def _cifar_images(n: int) -> tuple[np.ndarray, np.ndarray]:
    if not CIFAR_TEST.is_dir():
        pytest.skip(f"CIFAR-10 test images not available: {CIFAR_TEST} is absent")
    classes = sorted(p.name for p in CIFAR_TEST.iterdir())
    imgs, labels = [], []
    for i in range(n):
        cls = classes[i % len(classes)]
        f = sorted((CIFAR_TEST / cls).iterdir())[i // len(classes)]
        with Image.open(f) as im:
            imgs.append(np.asarray(im.convert("RGB")))
        labels.append(i % len(classes))
    return np.stack(imgs), np.asarray(labels)


def write_cifar_batch(
    path: Path, images: np.ndarray, labels: np.ndarray, key: bytes = b"labels"
) -> None:
    """A CIFAR python batch file like the official ``test_batch`` (channel-planar rows)."""
    data = images.transpose(0, 3, 1, 2).reshape(len(images), -1)
    with open(path, "wb") as fh:
        pickle.dump(
            {
                b"batch_label": b"testing batch 1 of 1",
                key: list(map(int, labels)),
                b"data": data,
                b"filenames": [],
            },
            fh,
            protocol=2,
        )


def test_read_cifar_batch_round_trip(tmp_path: Path) -> None:
    images, labels = _cifar_images(12)
    write_cifar_batch(tmp_path / "test_batch", images, labels)
    got_i, got_l = cifar.read_cifar_batch(tmp_path / "test_batch")
    assert (
        got_i.dtype == np.uint8 and got_i.shape == (12, 32, 32, 3) and np.array_equal(got_i, images)
    )
    assert np.array_equal(got_l, labels) and cifar.is_cifar_batch(tmp_path / "test_batch")
    write_cifar_batch(tmp_path / "test", images, labels, key=b"fine_labels")  # CIFAR-100
    assert np.array_equal(cifar.read_cifar_batch(tmp_path / "test")[1], labels)
    (tmp_path / "junk").write_bytes(b"\x80\x02junk")
    with pytest.raises(ValueError, match="not a CIFAR"):
        cifar.read_cifar_batch(tmp_path / "junk")


def test_cifar_c_layout(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    n = 7
    for name in ("fog", "brightness"):
        np.save(tmp_path / f"{name}.npy", rng.integers(0, 256, (5 * n, 32, 32, 3), dtype=np.uint8))
    np.save(tmp_path / "labels.npy", np.tile(np.arange(n, dtype=np.uint8), 5))
    idx = cifar.scan_cifar_c(tmp_path)
    assert list(idx.files) == ["fog", "brightness"] and idx.n == n and "snow" in idx.missing
    full = np.load(tmp_path / "fog.npy")
    assert np.array_equal(cifar.load_cifar_c(tmp_path, "fog", 3), full[2 * n : 3 * n])
    assert np.array_equal(cifar.load_cifar_c_labels(tmp_path, 5), np.arange(n))
    np.save(tmp_path / "snow.npy", np.zeros((5 * n + 1, 32, 32, 3), np.uint8))
    with pytest.raises(ValueError, match="5N"):
        cifar.scan_cifar_c(tmp_path)


def test_cifar_p_layout(tmp_path: Path) -> None:
    np.save(tmp_path / "translate.npy", np.zeros((3, 16, 32, 32, 3), np.uint8))
    np.save(tmp_path / "gaussian_noise_2.npy", np.zeros((3, 31, 32, 32, 3), np.uint8))
    assert sorted(cifar.scan_cifar_p(tmp_path)) == ["gaussian_noise_2", "translate"]
    assert cifar.load_cifar_p(tmp_path, "translate").shape == (3, 16, 32, 32, 3)


# ---------------------------------------------------------------- MP4 / ImageNet-P


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


def test_imagenet_p_layout(tmp_path: Path) -> None:
    assert video.perturbation_dirname("shot_noise", 3) == "shot_noise_3"
    assert video.perturbation_dirname("translate", 1) == "translate"
    with pytest.raises(ValueError):
        video.perturbation_dirname("translate", 2)
    assert video.parse_perturbation_dirname("speckle_noise_2") == ("speckle_noise", 2)
    assert video.parse_perturbation_dirname("translate") == ("translate", 1)
    for d in ("gaussian_noise", "gaussian_noise_2", "translate"):
        (tmp_path / d / "n01440764").mkdir(parents=True)
        (tmp_path / d / "n01440764" / "b.mp4").write_bytes(b"x")
        (tmp_path / d / "n01440764" / "a.mp4").write_bytes(b"x")
    idx = video.scan_imagenet_p(tmp_path, difficulties=(1, 2, 3))
    assert sorted(idx.cells) == [("gaussian_noise", 1), ("gaussian_noise", 2), ("translate", 1)]
    assert [p.name for p, _ in idx.cells[("translate", 1)]] == ["a.mp4", "b.mp4"]
    assert ("gaussian_noise", 3) in idx.missing and ("rotate", 1) in idx.missing
    assert ("rotate", 2) not in idx.missing and len(idx) == 6
