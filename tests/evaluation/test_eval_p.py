"""evaluate_p: CIFAR-10-P arrays, ImageNet-P videos, on the fly; baseline, resume, missing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("torch")

from corruptbench.evaluation import EvalError, OnTheFly, evaluate_p  # noqa: E402
from corruptbench.results import Results  # noqa: E402
from evaluation.support import fast_model, quiet, save_jpeg  # noqa: E402
from support import IMAGENET_SAMPLE  # noqa: E402


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
    res = evaluate_p(fast_model(10, 32), root, run=quiet(out=out, workers=0))
    assert res.p is not None
    assert set(res.p.flip_probability) == {"gaussian_noise", "translate"}
    for p in res.p.flip_probability:
        assert 0.0 <= res.p.flip_probability[p] <= 1.0 and 0.0 <= res.p.top5_distance[p] <= 15.0
        assert res.p.num_sequences[p] == 6 and res.p.zipf_distance[p] >= 0
    assert res.mfr is None and any("missing perturbations" in n for n in res.p.notes)
    # its own results as baseline -> flip rates 1
    res2 = evaluate_p(fast_model(10, 32), root, baseline=out, run=quiet(workers=0))
    assert res2.p is not None
    assert res2.p.flip_rate == pytest.approx({"gaussian_noise": 1.0, "translate": 1.0})
    assert res2.mfr == pytest.approx(1.0)
    # resume: nothing recomputed
    m = fast_model(10, 32)
    evaluate_p(m, root, run=quiet(out=out, workers=0))
    assert m.forward.seen == 0  # type: ignore[attr-defined]
    Results.from_json(out)
    with pytest.raises(EvalError, match="^baseline .*nope.csv': file not found$"):
        evaluate_p(fast_model(10, 32), root, baseline=tmp_path / "nope.csv", run=quiet())
    with pytest.raises(EvalError, match="^difficulty must be 1, 2 or 3, got 4$"):
        evaluate_p(fast_model(10, 32), root, difficulty=4, run=quiet())


def test_eval_p_imagenet_mp4(tmp_path: Path, photo224: np.ndarray) -> None:
    from corruptbench.formats.video import write_mp4
    from corruptbench.perturbations import perturb

    root = tmp_path / "ImageNet-P"
    img = np.asarray(Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG").convert("RGB"))
    for p in ("rotate", "gaussian_noise"):
        frames = perturb(img, p, profile="imagenet", rng=0)
        write_mp4(root / p / "n01440764" / "a.mp4", frames, noise="noise" in p)
        write_mp4(root / p / "n01440764" / "b.mp4", frames[:, :, ::-1], noise="noise" in p)
    res = evaluate_p(fast_model(), root, run=quiet(workers=1))
    assert res.p is not None
    assert res.dataset.layout == "imagenet-p"
    for p in ("rotate", "gaussian_noise"):
        assert 0.0 <= res.p.flip_probability[p] <= 1.0 and res.p.num_sequences[p] == 2
    res2 = evaluate_p(
        fast_model(),
        root,
        difficulty=2,
        perturbations=["rotate", "gaussian_noise"],
        run=quiet(workers=0),
    )
    assert res2.p is not None
    assert list(res2.p.flip_probability) == ["rotate"]  # no gaussian_noise_2 folder
    assert any("gaussian_noise" in n for n in res2.p.notes)


def test_eval_p_on_the_fly(tmp_path: Path) -> None:
    rng = np.random.RandomState(2)
    src = tmp_path / "src"
    for k in range(3):
        save_jpeg(rng.randint(0, 256, (32, 32, 3), dtype=np.uint8), src / "cat" / f"{k}.jpg")
    res = evaluate_p(
        fast_model(10, 32),
        OnTheFly(src),
        perturbations=["translate", "gaussian_noise"],
        profile="cifar",
        seed=3,
        run=quiet(workers=0),
    )
    assert res.p is not None
    assert res.dataset.layout == "on-the-fly" and res.p.num_sequences["translate"] == 3
    assert 0 <= res.p.flip_probability["gaussian_noise"] <= 1
    assert any("make-p --seed 3 --profile cifar" in n for n in res.dataset.notes)


def test_eval_p_of_a_module_on_in_memory_images() -> None:
    import torch

    import corruptbench

    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 10)
    )
    net.train()
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (3, 32, 32, 3), dtype=np.uint8)  # no labels needed
    res = corruptbench.evaluate_p(
        net, OnTheFly(images), perturbations=["translate"], input_size=32, progress=False
    )
    assert net.training and res.p is not None and res.p.num_sequences == {"translate": 3}
    assert res.dataset.profile == "cifar"  # chosen by the images' size
