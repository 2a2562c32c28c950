"""ImageNetC, CIFAR10C / CIFAR100C, ImageNetP, ImageNetCBar and CIFAR10CBar
(corruptbench.torch.datasets) on make-c / make-p builds of real photos: class indices, severity slices, frames, and the errors they raise."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

torch = pytest.importorskip("torch")

from corruptbench.builders import build  # noqa: E402
from corruptbench.errors import ArgumentError  # noqa: E402
from corruptbench.formats import wnid_to_index  # noqa: E402
from corruptbench.torch import (  # noqa: E402
    CIFAR10C,
    CIFAR100C,
    CIFAR10CBar,
    ImageNetC,
    ImageNetCBar,
    ImageNetP,
)
from photos import photo_arrays, photo_folder  # noqa: E402

CELLS = ["fog", "contrast"]


@pytest.fixture(scope="module")
def subset_c(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """make-c (JPEG) of 4 bundled photos in 4 wnid folders: a class-subset build."""
    base = tmp_path_factory.mktemp("subset")
    src = photo_folder(base / "val", 4)
    out = base / "ImageNet-C"
    build("c", src, out, profile="imagenet", fmt="jpeg", names=CELLS, levels=[1, 3], progress=False)
    return out


def write_cifar_batch(path: Path, images: np.ndarray, labels: list[int]) -> Path:
    """A CIFAR python batch file (``test_batch``'s format: channel-planar rows, ``labels``)."""
    data = images.transpose(0, 3, 1, 2).reshape(len(images), -1)
    with open(path, "wb") as fh:
        pickle.dump({b"data": data, b"labels": labels}, fh, protocol=2)
    return path


@pytest.fixture(scope="module")
def cifar_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, list[int]]:
    """make-c --profile cifar (npy) of a 6-image CIFAR batch of the bundled photos at 32 x 32:
    <corruption>.npy has 5 x 6 rows, not 5 x 10,000."""
    base = tmp_path_factory.mktemp("cifar")
    images = np.stack(
        [np.asarray(Image.fromarray(a).resize((32, 32))) for _, _, a in photo_arrays()]
    )
    labels = [3, 1, 8, 0, 9, 5]
    batch = write_cifar_batch(base / "test_batch", images, labels)
    out = base / "CIFAR-10-C"
    build(
        "c",
        batch,
        out,
        profile="cifar",
        fmt="npy",
        names=["fog"],
        levels=[1, 2, 3, 4, 5],
        progress=False,
    )
    return out, images, labels


def test_imagenet_c_labels_are_imagenet_indices_on_a_class_subset(subset_c: Path) -> None:
    ds = ImageNetC(subset_c, "Fog", 3)
    assert len(ds) == 4 and ds.corruption == "fog"
    wnids = sorted(p.name for p in (subset_c / "fog" / "3").iterdir())
    labels = [label for _, label in ds.samples]
    assert labels == [wnid_to_index(w) for w in wnids]
    # what torchvision's ImageFolder gives on the same folder: the position among the 4 present
    folders = ImageNetC(subset_c, "fog", 3, classes="folders")
    assert [label for _, label in folders.samples] == [0, 1, 2, 3] != labels
    image, label = ds[2]
    assert image.mode == "RGB" and image.size == (224, 224) and label == labels[2]
    t = ImageNetC(subset_c, "fog", 3, transform=np.asarray, target_transform=str)
    arr, lab = t[0]
    assert arr.shape == (224, 224, 3) and lab == str(labels[0])
    assert "images=4" in repr(ds)
    loader = torch.utils.data.DataLoader(
        ImageNetC(subset_c, "contrast", 1, transform=lambda im: torch.from_numpy(np.array(im))),
        batch_size=4,
    )
    x, y = next(iter(loader))
    assert x.shape == (4, 224, 224, 3) and y.tolist() == labels


def test_imagenet_c_errors(subset_c: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"^root: .*nowhere is not a folder"):
        ImageNetC(tmp_path / "nowhere", "fog", 3)
    with pytest.raises(
        FileNotFoundError, match=r"corruption: .*snow is missing; .* holds contrast, fog"
    ):
        ImageNetC(subset_c, "snow", 3)
    with pytest.raises(FileNotFoundError, match=r"severity: .*fog/2 is missing; .* holds 1, 3"):
        ImageNetC(subset_c, "fog", 2)
    with pytest.raises(
        ArgumentError, match=r"corruption: unknown corruption 'fgo'; did you mean 'fog'"
    ):
        ImageNetC(subset_c, "fgo", 3)
    with pytest.raises(ArgumentError, match="severity must be one of 1, 2, 3, 4, 5, got 0"):
        ImageNetC(subset_c, "fog", 0)
    with pytest.raises(ArgumentError, match="classes must be one of imagenet, folders"):
        ImageNetC(subset_c, "fog", 3, classes="sorted")
    odd = tmp_path / "odd" / "fog" / "1" / "cats"
    odd.mkdir(parents=True)
    jpeg = next(p for p in (subset_c / "fog" / "1").rglob("*") if p.is_file())
    (odd / jpeg.name).write_bytes(jpeg.read_bytes())
    with pytest.raises(ArgumentError, match="'cats' is not one of the 1000 ILSVRC-2012 wnids"):
        ImageNetC(tmp_path / "odd", "fog", 1)
    assert ImageNetC(tmp_path / "odd", "fog", 1, classes="folders").samples[0][1] == 0
    (tmp_path / "empty" / "fog" / "1").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="no image"):
        ImageNetC(tmp_path / "empty", "fog", 1)


def test_cifar10c_on_a_make_c_build(cifar_build: tuple[Path, np.ndarray, list[int]]) -> None:
    out, clean, labels = cifar_build
    arr = np.load(out / "fog.npy")
    assert arr.shape == (30, 32, 32, 3)
    for s in (1, 4, 5):
        ds = CIFAR10C(out, "fog", s)
        assert len(ds) == 6 == ds.per_severity and ds.targets == labels
        image, label = ds[2]
        assert image.mode == "RGB" and image.size == (32, 32) and label == 8
        assert np.array_equal(np.asarray(image), arr[(s - 1) * 6 + 2])
        assert not np.array_equal(np.asarray(image), clean[2])


def test_cifar10c_severity_slices_and_workers(tmp_path: Path) -> None:
    n = 7  # any N: the release has 10,000, a build of your own what you built
    rs = np.random.RandomState(0)
    images = rs.randint(0, 256, (5 * n, 32, 32, 3), dtype=np.uint8)
    labels = np.tile(rs.randint(0, 10, n).astype(np.uint8), 5)
    np.save(tmp_path / "fog.npy", images)
    np.save(tmp_path / "labels.npy", labels)
    for s in (1, 3, 5):
        ds = CIFAR10C(tmp_path, "fog", s)
        assert len(ds) == n == ds.per_severity
        got = np.stack([np.asarray(ds[i][0]) for i in range(n)])
        assert np.array_equal(got, images[(s - 1) * n : s * n])
        assert ds.targets == labels[:n].tolist()
    assert np.array_equal(np.asarray(ds[-1][0]), images[-1])
    with pytest.raises(IndexError):
        ds[n]
    loader = torch.utils.data.DataLoader(
        CIFAR10C(tmp_path, "fog", 2, transform=np.asarray),  # collated into a tensor
        batch_size=3,
        num_workers=2,
        multiprocessing_context="spawn",
    )
    x = torch.cat([b[0] for b in loader])
    assert np.array_equal(x.numpy(), images[n : 2 * n])


def test_cifar_c_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"^root: .* is not a folder"):
        CIFAR10C(tmp_path / "nope", "fog", 1)
    tmp_path.joinpath("x").mkdir()
    with pytest.raises(FileNotFoundError, match="labels.npy is missing"):
        CIFAR10C(tmp_path / "x", "fog", 1)
    np.save(tmp_path / "labels.npy", np.zeros(50, np.uint8))
    np.save(tmp_path / "snow.npy", np.zeros((50, 32, 32, 3), np.uint8))
    with pytest.raises(FileNotFoundError, match=r"corruption: .*fog.npy is missing; present: snow"):
        CIFAR10C(tmp_path, "fog", 1)
    # a truncated file (RobustBench's loader would read what is there and assume 10,000 per severity)
    np.save(tmp_path / "fog.npy", np.zeros((45, 32, 32, 3), np.uint8))
    with pytest.raises(
        ArgumentError, match=r"45 images, but labels.npy has 50 labels \(5 severities x 10\)"
    ):
        CIFAR10C(tmp_path, "fog", 1)
    np.save(tmp_path / "fog.npy", np.zeros((50, 32, 32), np.uint8))
    with pytest.raises(ArgumentError, match=r"expected uint8 \(5N, H, W, 3\)"):
        CIFAR10C(tmp_path, "fog", 1)
    np.save(tmp_path / "labels.npy", np.zeros(48, np.uint8))
    with pytest.raises(ArgumentError, match="expected 5 x N labels"):
        CIFAR10C(tmp_path, "snow", 1)
    np.save(tmp_path / "labels.npy", np.full(50, 57, np.uint8))
    with pytest.raises(
        ArgumentError, match=r"labels 57\.\.57 are not CIFAR10C classes .*CIFAR100C"
    ):
        CIFAR10C(tmp_path, "snow", 1)
    assert CIFAR100C(tmp_path, "snow", 2)[0][1] == 57
    with pytest.raises(ArgumentError, match="severity must be one of"):
        CIFAR10C(tmp_path, "snow", 6)


@pytest.fixture(scope="module")
def imagenet_p(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """make-p (MP4, tiny profile) of 2 bundled photos: brightness, and gaussian_noise at
    difficulties 1 and 2."""
    base = tmp_path_factory.mktemp("p")
    src = photo_folder(base / "val", 2, max_side=96)
    out = base / "ImageNet-P"
    build(
        "p",
        src,
        out,
        profile="tiny",
        fmt="mp4",
        names=["gaussian_noise", "brightness"],
        levels=[1, 2],
        progress=False,
    )
    return out


def test_imagenet_p_frames_labels_and_difficulty(imagenet_p: Path) -> None:
    from corruptbench.formats import read_mp4

    ds = ImageNetP(imagenet_p, "brightness")
    assert len(ds) == 2 and "sequences=2" in repr(ds)
    frames, label = ds[0]
    path = ds.samples[0][0]
    assert label == wnid_to_index(path.parent.name)
    raw = read_mp4(path)
    assert frames.dtype == torch.uint8 and frames.shape == (raw.shape[0], 3, 64, 64)
    assert np.array_equal(frames.permute(0, 2, 3, 1).numpy(), raw)
    # non-noise perturbations: one folder, the difficulty is the metrics' stride
    assert ImageNetP(imagenet_p, "brightness", 3).samples == ds.samples
    noisy2 = ImageNetP(imagenet_p, "gaussian-noise", 2)
    assert noisy2.samples[0][0].parent.parent.name == "gaussian_noise_2"
    listed = ImageNetP(imagenet_p, "gaussian_noise", 1, transform=lambda im: im.size)
    seq, _ = listed[1]
    assert isinstance(seq, list) and seq[0] == (64, 64)
    stacked, _ = ImageNetP(
        imagenet_p, "brightness", transform=lambda im: torch.from_numpy(np.array(im))
    )[1]
    assert stacked.shape == (raw.shape[0], 64, 64, 3)


def test_imagenet_p_errors(imagenet_p: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"^root: "):
        ImageNetP(tmp_path / "nope", "rotate")
    with pytest.raises(
        FileNotFoundError, match=r"perturbation: .*rotate is missing; .* holds brightness"
    ):
        ImageNetP(imagenet_p, "rotate")
    with pytest.raises(FileNotFoundError, match="gaussian_noise_3 is missing"):
        ImageNetP(imagenet_p, "gaussian_noise", 3)
    with pytest.raises(ArgumentError, match="difficulty must be one of 1, 2, 3"):
        ImageNetP(imagenet_p, "brightness", 4)
    with pytest.raises(ArgumentError, match="unknown perturbation 'brightnes'"):
        ImageNetP(imagenet_p, "brightnes")


@pytest.fixture(scope="module")
def cbar_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """make-c --suite cbar of 3 bundled photos (sparkles, severities 1 and 3): level folders
    named by value (``1.50``, as make_imagenet_c_bar.py) and by severity (the release's)."""
    base = tmp_path_factory.mktemp("cbar")
    src = photo_folder(base / "val", 3)
    kw = dict(profile="imagenet", fmt="jpeg", names=["sparkles"], levels=[1, 3], suite="cbar")
    build("c", src, base / "value", level_names="value", progress=False, **kw)
    build("c", src, base / "severity", progress=False, **kw)
    return {"value": base / "value", "severity": base / "severity"}


def test_imagenet_c_bar_reads_both_level_namings(cbar_builds: dict[str, Path]) -> None:
    """Severity 3 of sparkles is the folder ``3`` or ``3.00`` (imagenet_c_bar.csv's level): the
    same files, the same ImageNet class indices; the paper's spellings resolve."""
    by_value = ImageNetCBar(cbar_builds["value"], "sparkles", 3)
    by_severity = ImageNetCBar(cbar_builds["severity"], "Sparkles", 3)
    assert by_value.cell.name == "3.00" and by_severity.cell.name == "3"
    assert len(by_value) == len(by_severity) == 3 and by_value.corruption == "sparkles"
    assert [lab for _, lab in by_value.samples] == [lab for _, lab in by_severity.samples]
    for (a, _), (b, _) in zip(by_value.samples, by_severity.samples):
        assert a.read_bytes() == b.read_bytes()
    image, label = by_value[0]
    assert image.size == (224, 224) and label == by_value.samples[0][1]
    with pytest.raises(
        FileNotFoundError, match=r"corruption: .*single_frequency_greyscale is miss"
    ):
        ImageNetCBar(cbar_builds["value"], "single_frequency_grayscale", 1)  # the paper's spelling


def test_imagenet_c_bar_errors(cbar_builds: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match="^corruption: .*'fog'"):
        ImageNetCBar(cbar_builds["value"], "fog", 1)  # ImageNet-C's, not of suite cbar
    with pytest.raises(ArgumentError, match="^corruption: unknown corruption 'sparkles'"):
        ImageNetC(cbar_builds["value"], "sparkles", 1)  # and the other way round
    with pytest.raises(FileNotFoundError, match=r"severity: no folder of severity 2 in .*sparkles"):
        ImageNetCBar(cbar_builds["value"], "sparkles", 2)
    bad = tmp_path / "sparkles" / "2.50" / "n01440764"
    bad.mkdir(parents=True)
    with pytest.raises(ArgumentError, match="sparkles/2.50: not a level of sparkles"):
        ImageNetCBar(tmp_path, "sparkles", 1)


def test_cifar10_c_bar_on_a_make_c_build(tmp_path: Path) -> None:
    """make-c --suite cbar --profile cifar: CIFAR10CBar reads severity s's N rows of
    ``<corruption>.npy`` with labels.npy's classes."""
    images = np.stack(
        [np.asarray(Image.fromarray(a).resize((32, 32))) for _, _, a in photo_arrays()]
    )
    labels = [3, 1, 8, 0, 9, 5][: len(images)]
    batch = write_cifar_batch(tmp_path / "test_batch", images, labels)
    build("c", batch, tmp_path / "c10cb", profile="cifar", fmt="npy", names=["ripple"],
          levels=[1, 2, 3, 4, 5], suite="cbar", progress=False)  # fmt: skip
    arr = np.load(tmp_path / "c10cb" / "ripple.npy")
    n = len(images)
    ds = CIFAR10CBar(tmp_path / "c10cb", "ripple", 4)
    assert len(ds) == n and ds.targets == labels
    assert np.array_equal(np.asarray(ds[1][0]), arr[3 * n + 1])
    with pytest.raises(ArgumentError, match="^corruption: .*'fog'"):
        CIFAR10CBar(tmp_path / "c10cb", "fog", 1)
