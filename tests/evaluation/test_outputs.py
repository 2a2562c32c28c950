"""What a model's outputs are (corruptbench.evaluation.outputs): probabilities refused as logits
and used as such when said (issue 33 item 3), and a class map for data of another label space
(issue 33 item 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from corruptbench.cli import main
from corruptbench.evaluation import EvalError, evaluate_c
from corruptbench.evaluation.outputs import looks_like_probabilities, read_class_map
from corruptbench.models import LoadedModel

from .support import Counting, fast_model, quiet

torch = pytest.importorskip("torch")


class Softmax(Counting):
    """The fast model returning ``softmax(logits)``, as many hub models do."""

    def __call__(self, x: Any) -> Any:
        return torch.softmax(super().__call__(x), dim=1)


def softmax_model(classes: int = 1000) -> LoadedModel:
    m = fast_model(classes, name="softmax")
    m.forward = Softmax(classes)
    return m


def test_rows_that_sum_to_one_are_probabilities() -> None:
    z = torch.randn(8, 10)
    assert looks_like_probabilities(torch.softmax(z, 1)) and not looks_like_probabilities(z)
    assert not looks_like_probabilities(torch.softmax(z, 1) * 1.01)
    assert not looks_like_probabilities(torch.ones(4, 1))  # one output: nothing to tell


def test_probabilities_are_refused_as_logits(small_c: Path) -> None:
    with pytest.raises(EvalError, match='returns probabilities .* pass outputs="probabilities"'):
        evaluate_c(softmax_model(), small_c, corruptions=["fog"], run=quiet(workers=0))
    with pytest.raises(EvalError, match='^outputs="probabilities" but model counting returned'):
        evaluate_c(fast_model(), small_c, corruptions=["fog"], outputs="probabilities", run=quiet())
    with pytest.raises(EvalError, match="^outputs must be logits or probabilities"):
        evaluate_c(fast_model(), small_c, outputs="softmax", run=quiet())


def test_probabilities_said_so_give_the_calibration_of_the_logits(small_c: Path) -> None:
    kw: dict[str, Any] = dict(corruptions=["fog", "gaussian_noise"], run=quiet(workers=0))
    ref = evaluate_c(fast_model(), small_c, **kw)
    got = evaluate_c(softmax_model(), small_c, outputs="probabilities", **kw)
    assert got.c is not None and ref.c is not None and got.c.errors == ref.c.errors
    assert got.calibration is not None and ref.calibration is not None
    for key, stats in ref.calibration.stats.items():
        assert got.calibration.stats[key].ece() == pytest.approx(stats.ece(), abs=1e-6)
        assert got.calibration.stats[key].nll == pytest.approx(stats.nll, rel=1e-5)
    assert got.model["outputs"] == {"kind": "probabilities"} and "outputs" not in ref.model


def _cifar_like(root: Path, classes: int = 10, per_class: int = 2) -> Path:
    """A CIFAR-10-C-style folder: fog.npy (5 severities) and labels.npy of every class."""
    rng = np.random.RandomState(0)
    n = classes * per_class
    root.mkdir()
    np.save(
        root / "labels.npy", np.tile(np.repeat(np.arange(classes, dtype=np.uint8), per_class), 5)
    )
    np.save(root / "fog.npy", rng.randint(0, 256, (5 * n, 32, 32, 3), dtype=np.uint8))
    return root


def test_cifar_labels_on_an_imagenet_model_are_refused(tmp_path: Path) -> None:
    # issue 33 item 4: 1000 outputs, labels 0..9: ran and reported ~100 % error
    data = _cifar_like(tmp_path / "c10")
    model = fast_model(1000, size=32)
    with pytest.raises(
        EvalError, match="^labels.npy has classes 0..9 but the model outputs 1000 logits.*class_map"
    ):
        evaluate_c(model, data, run=quiet(workers=0))
    # a class map makes ten of the outputs the data's classes
    mapping = [404, 436, 94, 281, 351, 207, 30, 339, 510, 867]
    res = evaluate_c(model, data, class_map=mapping, run=quiet(workers=0))
    assert res.c is not None and res.c.counts["fog"] == [20] * 5
    assert res.model["num_classes"] == 10 and res.model["outputs"] == {
        "kind": "logits",
        "class_map": mapping,
    }
    assert "labels: labels.npy (classes 0..9)" in res.dataset.notes
    # the same scores as the model's logits restricted by hand
    ten = fast_model(10, size=32)
    ten.forward = lambda x: model.forward(x)[:, mapping]
    by_hand = evaluate_c(ten, data, run=quiet(workers=0))
    assert by_hand.c is not None and by_hand.c.errors == res.c.errors


def test_sparse_labels_are_named_by_their_classes(tmp_path: Path) -> None:
    data = _cifar_like(tmp_path / "c", classes=4)
    labels = np.load(data / "labels.npy")
    np.save(data / "labels.npy", np.where(labels == 1, 0, labels))  # classes 0, 2, 3
    res = evaluate_c(fast_model(10, size=32), data, run=quiet(workers=0))
    assert "labels: labels.npy (classes {0, 2, 3})" in res.dataset.notes


def test_class_maps_are_checked(tmp_path: Path) -> None:
    assert read_class_map([3, 1], 10) == (3, 1)
    f = tmp_path / "map.txt"
    f.write_text("3, 1\n7\n")
    assert read_class_map(f, 10) == (3, 1, 7)
    f.write_text(json.dumps([2, 5]))
    assert read_class_map(str(f), 10) == (2, 5)
    for bad, why in (
        ([3, 10], "has output 10, but the model outputs 10 logits"),
        ([3, 3], "maps two classes to output 3"),
        ([1.5, 2], "must be a list of model output indices"),
        ([4], "at least 2 classes"),
        ("nope.json", "cannot read nope.json"),
    ):
        with pytest.raises(EvalError, match=f"^class_map.*{why}"):
            read_class_map(bad, 10)


def test_cli_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _cifar_like(tmp_path / "c10")
    factory = tmp_path / "net.py"
    factory.write_text(
        "import torch\n"
        "def make():\n"
        "    torch.manual_seed(0)\n"
        "    return torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(),\n"
        "                               torch.nn.Linear(12, 1000), torch.nn.Softmax(1))\n"
    )
    args = ["eval-c", "--model", f"python:{factory}:make", "--data", str(data), "--quiet"]
    args += ["--workers", "0", "--preprocess", "none"]
    assert main(args) == 2
    assert "error: labels.npy has classes 0..9 but the model outputs 1000 logits" in (
        capsys.readouterr().err
    )
    (tmp_path / "map.json").write_text(json.dumps(list(range(0, 1000, 100))))
    args += ["--class-map", str(tmp_path / "map.json")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "returns probabilities" in err and "pass --outputs probabilities" in err
    out = tmp_path / "r.json"
    assert main([*args, "--outputs", "probabilities", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["model"]["outputs"]["kind"] == "probabilities"


def test_eval_p_checks_the_outputs_too() -> None:
    from corruptbench.evaluation import OnTheFly, evaluate_p

    images = np.random.RandomState(0).randint(0, 256, (2, 32, 32, 3), dtype=np.uint8)
    kw: dict[str, Any] = dict(perturbations=["brightness"], profile="cifar", progress=False)
    data = OnTheFly(images)
    with pytest.raises(EvalError, match="returns probabilities"):
        evaluate_p(softmax_model(10), data, run=quiet(workers=0), **kw)
    ref = evaluate_p(fast_model(10, size=32), data, run=quiet(workers=0), **kw)
    got = evaluate_p(softmax_model(10), data, outputs="probabilities", run=quiet(workers=0), **kw)
    assert ref.p is not None and got.p is not None
    assert got.p.flip_probability == ref.p.flip_probability
