"""The terminal summary (report.print_summary): every number it prints, for a results dict and a
Results, and one line instead of a traceback for a malformed object.

The numbers are known by construction: with the ``uniform`` baseline CE is the mean error over
the severities and relative CE is CE minus the clean error."""

from __future__ import annotations

import io

from rich.console import Console

from corruptbench.report import print_summary
from corruptbench.results import Results

RESULTS = {
    "schema": "corruptbench.results/1",
    "kind": "demo",
    "model": {"id": "tiny-net"},
    "dataset": {
        "layout": "imagenet-c",
        "profile": "imagenet",
        "num_images": 50,
        "path": "/data/IN-C",
        "notes": ["a dataset note"],
    },
    # derived numbers absent: the reader computes them (mean errors 30, 40 and 5 %)
    "errors": {
        "fog": [0.1, 0.2, 0.3, 0.4, 0.5],
        "snow": [0.2, 0.3, 0.4, 0.5, 0.6],
        "saturate": [0.05] * 5,
    },
    "clean_error": 0.12,
    "baseline": "uniform",
    "p": {
        "difficulty": 2,
        "flip_probability": {"gaussian_noise": 0.01, "rotate": 0.05},
        "top5_distance": {"gaussian_noise": 1.5, "rotate": 2.5},
        "zipf_distance": {"gaussian_noise": 0.1, "rotate": 0.2},
        "num_sequences": {"gaussian_noise": 7, "rotate": 9},
        "baseline": None,
        "flip_rate": None,
        "t5d_ratio": None,
        "mfr": None,
        "mt5d": None,
        "notes": ["no ImageNet-P baseline"],
    },
}


def printed(results: object) -> list[str]:
    console = Console(file=io.StringIO(), width=200)
    print_summary(results, console=console)  # type: ignore[arg-type]
    return [line.rstrip() for line in console.file.getvalue().splitlines()]  # type: ignore[attr-defined]


def row(lines: list[str], label: str) -> list[str]:
    """The cells after ``label`` on the one line that starts with it."""
    found = [line.strip()[len(label) :].split() for line in lines if line.strip().startswith(label)]
    assert len(found) == 1, (label, found)
    return found[0]


def test_print_summary_prints_the_numbers() -> None:
    lines = printed(RESULTS)
    assert lines[1] == "tiny-net"
    assert row(lines, "Clean error") == ["12.0%"]
    # two of the 15: a partial mean, never shown as the mCE (issue 22 item 13)
    assert row(lines, "Partial mCE (baseline: uniform) [2 of 15 corruptions; not the mCE]") == [
        "35.0%"
    ]  # (30 + 40) / 2
    assert row(lines, "Partial relative mCE [2 of 15 corruptions]") == ["23.0%"]  # (18 + 28) / 2
    assert row(lines, "Mean error, 2 of 15 corruptions") == ["35.0%"]
    assert not [line for line in lines if line.strip().startswith(("mCE", "Relative mCE"))]
    assert row(lines, "Mean error, 4 extra corruptions") == ["5.0%"]
    assert row(lines, "Mean flip probability (unnormalised)") == ["3.00%"]  # (1 + 5) / 2
    assert row(lines, "Mean top-5 distance (unnormalised)") == ["2.000"]
    assert "data: imagenet-c, imagenet, 50 images, /data/IN-C" in lines
    # ImageNet-C table: sev1..sev5, mean, CE, rel.CE in %; the extra corruption after a rule
    assert row(lines, "ImageNet-C, all numbers in %") == ["(CE", "baseline:", "uniform)"]
    assert row(lines, "Corruption") == "sev1 sev2 sev3 sev4 sev5 mean CE rel.CE".split()
    assert row(lines, "Snow") == "20.0 30.0 40.0 50.0 60.0 40.0 40.0 28.0".split()
    assert row(lines, "Fog") == "10.0 20.0 30.0 40.0 50.0 30.0 30.0 18.0".split()
    assert row(lines, "Saturate *") == "5.0 5.0 5.0 5.0 5.0 5.0 5.0 -7.0".split()
    at = {
        name: next(i for i, x in enumerate(lines) if x.strip().startswith(name))
        for name in ("Snow", "Fog", "Saturate")
    }
    assert at["Snow"] + 1 == at["Fog"]  # the reference order: snow before fog
    assert at["Fog"] + 2 == at["Saturate"] and not lines[at["Fog"] + 1].strip()  # a section
    # ImageNet-P table
    assert row(lines, "ImageNet-P (difficulty 2)") == []
    assert row(lines, "Gaussian noise") == ["1.00%", "1.500", "—", "7"]
    assert row(lines, "Rotate") == ["5.00%", "2.500", "—", "9"]
    notes = [line for line in lines if line.startswith("note: ")]
    assert notes[0].startswith("note: mCE is partial; not evaluated: gaussian_noise, shot_noise")
    assert notes[-2:] == ["note: no ImageNet-P baseline", "note: a dataset note"]


def test_print_summary_of_a_results_object_prints_the_same() -> None:
    assert printed(Results.from_dict(RESULTS, "r.json")) == printed(RESULTS)


def test_print_summary_malformed_does_not_raise() -> None:
    lines = printed({"schema": "corruptbench.results/1", "kind": "c"})
    assert [line for line in lines if line] == [
        "cannot summarise the results: results: missing key 'model' (an object)"
    ]
