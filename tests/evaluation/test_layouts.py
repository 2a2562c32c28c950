"""The dataset layouts: planning (cells, missing, notes, fingerprints), items and their labels,
the limit subset, detection, clean-image matching."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench import corrupt, perturb
from corruptbench.evaluation import EvalError, OnTheFly
from corruptbench.evaluation.common import CLEAN
from corruptbench.evaluation.layouts import (
    CifarCFolder,
    CifarPFolder,
    CleanImages,
    ImageIds,
    ImageNetCFolder,
    ImageNetPFolder,
    OnTheFlyC,
    OnTheFlyP,
    Selection,
    open_c_layout,
    open_p_layout,
)
from corruptbench.formats.imagenet import wnid_to_index
from corruptbench.ops.preprocess import profile_preprocess
from corruptbench.pipeline import item_seed, open_source
from evaluation.support import WNIDS, save_jpeg
from support import IMAGENET_SAMPLE


def test_labels_are_standard_imagenet_indices(small_c: Path) -> None:
    lay = ImageNetCFolder.open(small_c, Selection(["fog"], [2]), 1000, None)
    seen = [label for _reader, label, _path in lay.items(("fog", 2))]
    assert seen == [wnid_to_index(w) for w in WNIDS for _ in range(2)] and seen[-1] == 999
    assert lay.profile == "imagenet" and lay.images_per_cell == 8 and lay.cells == [("fog", 2)]
    assert "labels: standard ImageNet-1k index of each wnid (4 classes present)" in lay.notes
    other = ImageNetCFolder.open(small_c, Selection(["fog"], [2]), 4, None)
    assert [label for _r, label, _p in other.items(("fog", 2))] == [0, 0, 1, 1, 2, 2, 3, 3]
    # positions among 4 folders are not a 200-class model's classes (issue 33 item 4)
    with pytest.raises(EvalError, match="the data has 4 classes but the model outputs 200"):
        ImageNetCFolder.open(small_c, Selection(["fog"], [2]), 200, None)


def test_limit_picks_the_same_images_in_every_cell(small_c: Path) -> None:
    lay = ImageNetCFolder.open(small_c, Selection(["gaussian_noise"], [1, 2], 3, 5), 1000, None)
    names = [[Path(p).name for _r, _l, p in lay.items(("gaussian_noise", s))] for s in (1, 2)]
    assert len(names[0]) == 3 and names[0] == names[1]
    fps = lay.fingerprints
    assert set(fps) == {"gaussian_noise/1", "gaussian_noise/2"} and lay.images_per_cell == 3
    again = ImageNetCFolder.open(small_c, Selection(["gaussian_noise"], [1, 2], 3, 6), 1000, None)
    assert again.fingerprints != fps and again.fingerprint() != lay.fingerprint()


def test_detection_and_folder_errors(small_c: Path, tmp_path: Path) -> None:
    sel = Selection(["gaussian_noise", "shot_noise"], [1, 2, 3, 4, 5])
    lay = open_c_layout(small_c, sel, 1000, None)
    assert isinstance(lay, ImageNetCFolder) and lay.missing == [
        ("shot_noise", s) for s in (1, 2, 3, 4, 5)
    ]
    with pytest.raises(EvalError, match="folder not found"):
        open_c_layout(tmp_path / "nope", sel, 1000, None)
    with pytest.raises(EvalError, match="no ImageNet-C cells found"):
        open_c_layout(tmp_path, sel, 1000, None)
    cifar = tmp_path / "cifar"
    cifar.mkdir()
    np.save(cifar / "labels.npy", np.zeros(10, np.uint8))
    with pytest.raises(EvalError, match="none of the requested corruption .npy files"):
        open_c_layout(cifar, sel, 10, None)
    np.save(cifar / "gaussian_noise.npy", np.zeros((10, 32, 32, 3), np.uint8))
    c = open_c_layout(cifar, sel, 10, None)
    assert isinstance(c, CifarCFolder) and c.profile == "cifar" and len(c.cells) == 5
    assert c.items(("gaussian_noise", 2))[1][2] == (str(cifar / "gaussian_noise.npy"), 3)
    with pytest.raises(EvalError, match="labels.npy has class 0 but the model outputs 0"):
        open_c_layout(cifar, sel, 0, None)
    with pytest.raises(EvalError, match="no requested perturbation found"):
        open_p_layout(small_c, Selection(["rotate"], [1]), None)


def test_on_the_fly_pixels_equal_make_c(tmp_path: Path) -> None:
    if not IMAGENET_SAMPLE.is_dir():
        pytest.skip(f"{IMAGENET_SAMPLE} absent")
    src = tmp_path / "src"
    src.mkdir()
    names = sorted(p.name for p in IMAGENET_SAMPLE.iterdir())[:3]
    for n in names:
        (src / n).symlink_to(IMAGENET_SAMPLE / n)
    lay = open_c_layout(OnTheFly(src), Selection(["gaussian_noise"], [3], None, 7), 1000, None)
    assert isinstance(lay, OnTheFlyC) and lay.cells == [("gaussian_noise", 3)]
    assert set(lay.fingerprints) == {"gaussian_noise/3", "clean"}
    for k, (reader, label, payload) in enumerate(lay.items(("gaussian_noise", 3))):
        n = names[k]
        rel = f"{n.split('_')[0]}/{n}"
        img = profile_preprocess(Image.open(IMAGENET_SAMPLE / n), "imagenet")
        want = corrupt(
            img,
            "gaussian_noise",
            3,
            profile="imagenet",
            rng=item_seed(7, "c", "gaussian_noise", 3, rel),
        )
        assert label == wnid_to_index(n.split("_")[0])
        np.testing.assert_array_equal(reader.read(payload), want)
        clean_reader, _label, clean_payload = lay.items(CLEAN)[k]
        np.testing.assert_array_equal(clean_reader.read(clean_payload), img)
    fps = dict(lay.fingerprints)
    lay.on_device()
    assert all(lay.fingerprints[k] != fps[k] for k in fps) and "corrupt_batch" in lay.notes[-1]
    reader, _label, payload = lay.items(("gaussian_noise", 3))[0]
    assert reader.raw and reader.read(payload).shape == (224, 224, 3)


def test_p_layouts(tmp_path: Path) -> None:
    from corruptbench.formats.video import write_mp4

    rng = np.random.RandomState(0)
    imgs = [rng.randint(0, 256, (32, 32, 3), dtype=np.uint8) for _ in range(4)]
    root = tmp_path / "CIFAR-10-P"
    root.mkdir()
    np.save(
        root / "translate.npy", np.stack([perturb(im, "translate", profile="cifar") for im in imgs])
    )
    np.save(
        root / "shot_noise_2.npy",
        np.stack([perturb(im, "shot_noise", profile="cifar", difficulty=2, rng=1) for im in imgs]),
    )
    lay = open_p_layout(root, Selection(["translate", "shot_noise", "rotate"], [2], 2, 0), None)
    assert isinstance(lay, CifarPFolder) and lay.profile == "cifar"
    assert lay.cells == [("translate", 2), ("shot_noise", 2)] and lay.missing == [("rotate", 2)]
    assert set(lay.fingerprints) == {"translate", "shot_noise"} and lay.images_per_cell == 2
    reader, _label, payload = lay.items(("shot_noise", 2))[0]
    assert reader.frames and reader.read(payload).shape == (31, 32, 32, 3)
    mp4 = tmp_path / "ImageNet-P"
    frames = perturb(np.full((256, 256, 3), 90, np.uint8), "rotate", profile="imagenet")
    write_mp4(mp4 / "rotate" / "n01440764" / "a.mp4", frames, noise=False)
    p = open_p_layout(mp4, Selection(["rotate", "gaussian_noise"], [3]), None)
    assert isinstance(p, ImageNetPFolder) and p.cells == [("rotate", 3)]
    assert p.missing == [("gaussian_noise", 3)] and p.key(("rotate", 3)) == "rotate"
    src = tmp_path / "src" / "cat"
    for k in range(2):
        save_jpeg(imgs[k], src / f"{k}.jpg")
    otf = open_p_layout(
        OnTheFly(tmp_path / "src"), Selection(["rotate"], [1], None, 4), "cifar", ["x"]
    )
    assert isinstance(otf, OnTheFlyP) and otf.profile == "cifar" and otf.notes[0] == "x"
    assert otf.images_per_cell == 2 and "make-p --seed 4 --profile cifar" in otf.notes[1]
    reader, _label, payload = otf.items(("rotate", 1))[1]
    item = open_source(tmp_path / "src").items[1]
    want = perturb(
        np.asarray(Image.open(item.path).convert("RGB")),
        "rotate",
        profile="cifar",
        rng=item_seed(4, "p", "rotate", 1, item.rel),
    )
    np.testing.assert_array_equal(reader.read(payload), want)


def test_clean_images_are_matched(small_c: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    for w in WNIDS:
        for k in range(2):
            save_jpeg(np.full((300, 260, 3), 40 * k, np.uint8), clean / w / f"{w}_{k}.JPEG")
    save_jpeg(np.zeros((300, 260, 3), np.uint8), clean / WNIDS[0] / "extra.JPEG")
    lay = ImageNetCFolder.open(small_c, Selection(["fog"], [2], 4, 0), 1000, None)
    cs = CleanImages.open(clean, lay, 1000, 4, 0)
    chosen = {Path(p).name for _r, _l, p in lay.items(("fog", 2))}
    assert {it.path and Path(it.path).name for it in cs.items} == chosen
    assert cs.labels == [wnid_to_index(it.rel.split("/")[0]) for it in cs.items]
    assert any("clean error over the 4 clean images" in n for n in lay.notes)
    assert (
        lay.notes[-1]
        == f"clean error: {clean} prepared like make-c's 'imagenet' profile (Resize(256) + CenterCrop(224))"
    )
    reader, _label, item = cs.cell_items()[0]
    assert reader.read(item).shape == (224, 224, 3)
    unmatched = tmp_path / "other"
    save_jpeg(np.zeros((40, 40, 3), np.uint8), unmatched / WNIDS[1] / "x.JPEG")
    lay2 = ImageNetCFolder.open(small_c, Selection(["fog"], [2]), 1000, None)
    CleanImages.open(unmatched, lay2, 1000, None, 0)
    assert any("cannot be matched one-to-one" in n for n in lay2.notes)


def _keys(items: list) -> set[str]:
    """``<wnid>/<file>`` of the image files of a cell's items."""
    return {f"{Path(p).parent.name}/{Path(p).name}" for _r, _l, p in items}


def test_robustbench_ids_select_exactly_the_listed_images_of_every_cell(
    robustbench_data: tuple[Path, Path, list[str]],
) -> None:
    from corruptbench.formats.robustbench import robustbench_image_ids

    tree, val, unlisted = robustbench_data
    ids = set(robustbench_image_ids())
    images = ImageIds(frozenset(ids), "protocol robustbench")
    sel = Selection(["gaussian_noise", "fog"], [1, 3], images=images)
    lay = ImageNetCFolder.open(tree, sel, 1000, None)
    assert lay.cells == [("gaussian_noise", 1), ("fog", 3)] and lay.images_per_cell == 5000
    assert lay.missing == [("gaussian_noise", 3), ("fog", 1)]
    for cell in lay.cells:
        items = lay.items(cell)
        assert len(items) == 5000 and _keys(items) == ids
        assert [lab for _r, lab, _p in items] == [
            wnid_to_index(Path(p).parent.name) for _r, _l, p in items
        ]
    assert lay.notes[-1] == (
        f"protocol robustbench: its 5,000 listed images of each cell ({len(unlisted)} other images "
        "of a cell not evaluated)"
    )
    # without the list: every image, the unlisted ones too; other fingerprints
    every = ImageNetCFolder.open(tree, Selection(["fog"], [3]), 1000, None)
    assert _keys(every.items(("fog", 3))) == ids | set(unlisted)
    assert every.fingerprints["fog/3"] != lay.fingerprints["fog/3"]
    # the clean folder: the listed images, whatever else it holds
    cs = CleanImages.open(val, lay, 1000, None, 0, images)
    assert {it.rel for it in cs.items} == ids and len(cs.items) == 5000
    assert f"clean error over the 5,000 images of protocol robustbench in {val} (of 5,022)" in (
        lay.notes
    )


def test_listed_images_are_selected_or_refused(small_c: Path) -> None:
    listed = [f"{WNIDS[0]}/{WNIDS[0]}_1.JPEG", f"{WNIDS[3]}/{WNIDS[3]}_0.JPEG"]
    sel = Selection(["gaussian_noise"], [1, 2], images=ImageIds(frozenset(listed), "protocol x"))
    lay = ImageNetCFolder.open(small_c, sel, 1000, None)
    assert [_keys(lay.items(c)) for c in lay.cells] == [set(listed)] * 2
    assert (
        lay.images_per_cell == 2
        and "protocol x: its 2 listed images of each cell (6 other images of a cell not evaluated)"
        in lay.notes
    )
    # a clean source corrupted on the fly: the same relative keys
    src = OnTheFlyC.open(open_source(small_c / "fog" / "2"), sel, 1000, None)
    assert [payload[0].rel for _r, _l, payload in src.items(src.cells[0])] == sorted(listed)
    absent = ImageIds(frozenset([*listed, "n00000000/gone.JPEG"]), "protocol x")
    where = small_c / "gaussian_noise" / "1"
    with pytest.raises(
        EvalError,
        match=re.escape(
            f"{where}: 1 of the 3 images of protocol x are missing (e.g. n00000000/gone.JPEG); "
            "the protocol evaluates every one of them"
        ),
    ):
        ImageNetCFolder.open(small_c, Selection(["gaussian_noise"], [1], images=absent), 1000, None)
    with pytest.raises(EvalError, match="1 of the 3 images of protocol x are missing"):
        OnTheFlyC.open(
            open_source(small_c / "fog" / "2"), Selection(["fog"], [1], images=absent), 1000, None
        )


@pytest.mark.parametrize(("bad", "why"), [(8.5, "is not a whole number"), (-2, "is negative")])
def test_cifar_c_labels_that_are_not_class_indices(tmp_path: Path, bad: float, why: str) -> None:
    # issue 22 item 3: eval-c on a CIFAR-C folder counted 8.5 as class 8 and -2 as a miss
    np.save(tmp_path / "fog.npy", np.zeros((10, 32, 32, 3), np.uint8))
    labels = np.tile(np.arange(2, dtype=np.float64), 5)
    labels[3] = bad
    np.save(tmp_path / "labels.npy", labels)
    with pytest.raises(EvalError, match=f"labels.npy: label .* at row 3 {why}"):
        open_c_layout(tmp_path, Selection(["fog"], [1]), 10, None)


def test_links_that_lead_nowhere_are_noted_on_the_fly(tmp_path: Path) -> None:
    """A symlink loop in a clean folder stopped eval-c (rc 2); now it is left out and said so."""
    if not IMAGENET_SAMPLE.is_dir():
        pytest.skip(f"{IMAGENET_SAMPLE} absent")
    src = tmp_path / "src"
    src.mkdir()
    name = sorted(p.name for p in IMAGENET_SAMPLE.iterdir())[0]
    (src / name).symlink_to(IMAGENET_SAMPLE / name)
    (src / "loop.jpg").symlink_to("loop.jpg")
    lay = open_c_layout(OnTheFly(src), Selection(["fog"], [1], None, 0), 1000, None)
    assert isinstance(lay, OnTheFlyC) and lay.images_per_cell == 1
    assert any(
        n.startswith(f"1 symbolic link(s) under {src} lead nowhere and were left out: loop.jpg (")
        for n in lay.notes
    )


@pytest.mark.parametrize(("side", "profile"), [(32, "cifar"), (64, "tiny"), (299, "inception")])
def test_a_folder_of_one_size_gets_that_sizes_profile_on_the_fly(tmp_path, side, profile):
    # as in-memory images of one size do; photos of mixed sizes stay imagenet
    from PIL import Image

    from corruptbench.evaluation.layouts import OnTheFly, default_profile

    for k in range(3):
        (tmp_path / "a").mkdir(exist_ok=True)
        Image.new("RGB", (side, side), (k, 0, 0)).save(tmp_path / "a" / f"{k}.png")
    assert default_profile(OnTheFly(str(tmp_path)).open()) == profile
    Image.new("RGB", (side + 1, side), (9, 0, 0)).save(tmp_path / "a" / "odd.png")
    assert default_profile(OnTheFly(str(tmp_path)).open()) == "imagenet"
