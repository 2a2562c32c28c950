"""Optional dependencies: without PyAV and matplotlib the core commands work, and every command
that needs one of them says what to install in one line (exit status 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from corruptbench.extras import EXTRAS, MissingDependency, require
from support import IMAGENET_SAMPLE, REPO, need_shared

# Runs corruptbench's main() on each argv with the modules in argv[1] unimportable (as in an
# install without those extras) and prints [exit status, stderr] per call.
_RUNNER = r"""
import contextlib, importlib.abc, io, json, sys
blocked = set(sys.argv[1].split(","))

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
for m in [m for m in sys.modules if m.split(".")[0] in blocked]:
    del sys.modules[m]
from corruptbench.cli import main

if __name__ == "__main__":
    out = []
    for argv in json.loads(sys.argv[2]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = main(argv)
        out.append([rc, err.getvalue()])
    print(json.dumps(out))
"""


def _run_without(tmp_path: Path, blocked: str, argvs: list[list[str]]) -> list[tuple[int, str]]:
    script = tmp_path / "without.py"
    script.write_text(_RUNNER)
    proc = subprocess.run(
        [sys.executable, str(script), blocked, json.dumps(argvs)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [(rc, err) for rc, err in json.loads(proc.stdout.strip().splitlines()[-1])]


def test_require() -> None:
    assert require("json", "x") is json  # any importable module
    EXTRAS["corruptbench_no_such_module"] = ("no-such-package", "nothing")
    try:
        with pytest.raises(MissingDependency) as exc:
            require("corruptbench_no_such_module", "the thing")
    finally:
        del EXTRAS["corruptbench_no_such_module"]
    assert str(exc.value) == (
        "the thing needs no-such-package, which is not installed: "
        "pip install 'corruptbench[nothing]'"
    )
    assert isinstance(exc.value, ImportError)


def test_commands_without_video_and_plotting(tmp_path: Path) -> None:
    need_shared()
    from results.support import make_results, write

    photo = IMAGENET_SAMPLE / "n01440764_tench.JPEG"
    src = tmp_path / "src" / "n01440764"
    src.mkdir(parents=True)
    (src / "a.JPEG").write_bytes(photo.read_bytes())
    inp = tmp_path / "ImageNet-P" / "translate" / "n01440764"
    inp.mkdir(parents=True)
    (inp / "a.mp4").write_bytes(b"\x00" * 64)
    res = write(tmp_path, "r.json", make_results("m", 0.8, 0.25, seed=1))
    from results.test_score_table import table_rows, write_table

    table = str(write_table(tmp_path / "scores.csv", table_rows()))
    t = str(tmp_path)
    needs = {
        "video": [
            ["make-p", f"{t}/src", f"{t}/p1", "--perturbations", "translate", "--no-progress"],
            [
                "make-p",
                f"{t}/src",
                f"{t}/p2",
                "--perturbations",
                "translate",
                "--format",
                "webdataset",
            ],
            ["perturb", str(photo), f"{t}/pp", "--perturbation", "translate", "--format", "mp4"],
            ["eval-p", "--model", "efficientnet_lite0", "--data", f"{t}/ImageNet-P", "--quiet"],
            ["verify", f"{t}/ImageNet-P", "--decode", "--no-progress"],
        ],
        "report": [
            ["report", str(res), "--out", f"{t}/r.html"],
            ["score", table, "--report", f"{t}/s.html", "--out-dir", f"{t}/s"],
            [
                "eval-stream",
                "--order",
                "fog",
                "--num-examples",
                "4",
                "--model",
                "efficientnet_lite0",
                "--figure",
                f"{t}/tta.png",
                "--out",
                f"{t}/tta.json",
            ],
        ],
        "eval": [["demo", "--out", f"{t}/demo", "--no-progress"]],  # the demo needs all of [eval]
    }
    core = [
        ["list"],
        ["corrupt", str(photo), f"{t}/fog.png", "--corruption", "fog", "--severity", "2"],
        ["make-c", f"{t}/src", f"{t}/c1", "--corruptions", "fog", "--severities", "1", "--workers", "1", "--no-progress"],
        ["make-c", f"{t}/src", f"{t}/c2", "--corruptions", "fog", "--severities", "1", "--workers", "1", "--format", "webdataset", "--no-progress"],
        ["convert", f"{t}/c1", f"{t}/c3", "--no-progress"],
        ["perturb", str(photo), f"{t}/pp", "--perturbation", "translate", "--format", "npy"],
        ["report", str(res), "--out", f"{t}/r.md"],
        ["score", table, "--report", f"{t}/s.md"],
        ["verify", f"{t}/c1", "--no-progress"],
        ["stream", "--order", "fog", "--num-examples", "10", "--csv", f"{t}/tta.csv"],
    ]  # fmt: skip
    argvs = [*needs["video"], *needs["report"], *needs["eval"], *core]
    got = _run_without(tmp_path, "av,matplotlib", argvs)
    for (rc, err), argv in zip(got, argvs):
        extra = next((e for e, cmds in needs.items() if argv in cmds), None)
        if extra is None:
            assert rc == 0, (argv, err)
            continue
        assert rc == 2, (argv, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"corruptbench {argv[0]}: error: "), err
        assert lines[0].endswith(f"pip install 'corruptbench[{extra}]'"), err
    assert (tmp_path / "c2" / "fog-1-000000.tar").is_file() and (tmp_path / "r.md").is_file()
    assert not (tmp_path / "p1" / "translate").exists()  # refused before any work
    assert (tmp_path / "s.md").is_file() and not (tmp_path / "s").exists()  # nothing half-done
    assert (tmp_path / "tta.csv").is_file() and not (tmp_path / "tta.json").exists()


def test_extras_are_declared() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    extras = project["optional-dependencies"]
    for module, (package, extra) in EXTRAS.items():
        assert package not in core, module
        assert any(req.startswith(package) for req in extras[extra]), (module, extra)
        assert any(req.startswith(package) for req in extras["dev"]), module  # tests use them all
    # the README's first command (.[eval]) runs the demo: it needs the plots and the videos
    assert {"matplotlib>=3.7", "av>=12"} <= set(extras["eval"])
