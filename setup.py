"""Build step of the optional ahead-of-time kernels; everything else is in pyproject.toml.

``corruptbench._aot_kernels`` is built by ``tools/build_aot.py`` (numba.pycc) when numba and a C
compiler are there at build time on Linux x86-64. Without them the step is skipped with one line
(shown by ``pip install -v``), the package installs all the same, and its kernels compile on first
use as always (``corruptbench warmup`` does that ahead of time). ``CORRUPTBENCH_AOT=0`` skips it.

The build takes about a minute of CPU (``tools/build_aot.py`` compiles in up to 4 processes at
once: about 35 s on 2 cores), and pip shows nothing of a build backend's output without ``-v``:
:func:`announce` says so in one line before it starts, on stderr and, when stderr is not a
terminal (pip captures it), on the controlling terminal as well.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
AOT = "corruptbench._aot_kernels"
AOT_STEM = "_aot_kernels"


#: the line printed before the ahead-of-time build starts
ANNOUNCEMENT = (
    "corruptbench: compiling its kernels ahead of time, about a minute "
    "(CORRUPTBENCH_AOT=0 skips this; they then compile on first use)"
)


def announce(stream: TextIO | None = None) -> str:
    """Print :data:`ANNOUNCEMENT` on ``stream`` (default: stderr, and the controlling terminal
    when stderr is not one, as under plain ``pip install``); returns the line."""
    out = sys.stderr if stream is None else stream
    print(ANNOUNCEMENT, file=out, flush=True)
    if stream is None and not sys.stderr.isatty():
        try:
            with open("/dev/tty", "w") as tty:  # pip hides the backend's stderr without -v
                print(ANNOUNCEMENT, file=tty, flush=True)
        except OSError:  # no controlling terminal (CI, a log file): stderr is enough
            pass
    return ANNOUNCEMENT


def _companions(module: Path) -> list[Path]:
    """What the AOT build writes beside ``module``: its parts and the JSON file (when built)."""
    parts = sorted(module.parent.glob(f"{AOT_STEM}_*{module.suffix}"))
    meta = module.with_name(f"{AOT_STEM}.json")
    return [p for p in (*parts, meta) if p.exists()]


class BuildExt(build_ext):
    def build_extension(self, ext: Extension) -> None:
        if ext.name != AOT:
            super().build_extension(ext)
            return
        target = Path(self.get_ext_fullpath(ext.name))
        if os.environ.get("CORRUPTBENCH_AOT", "1").strip() == "0":
            print("corruptbench AOT kernels: skipped (CORRUPTBENCH_AOT=0)", file=sys.stderr)
            return
        announce()
        with tempfile.TemporaryDirectory(prefix="corruptbench-aot-") as tmp:
            try:
                res = subprocess.run(
                    [sys.executable, str(HERE / "tools" / "build_aot.py"), tmp],
                    capture_output=True,
                    text=True,
                    timeout=1800,
                )
            except (OSError, subprocess.SubprocessError) as exc:
                print(f"corruptbench AOT kernels: skipped ({exc})", file=sys.stderr)
                return
            lines = [ln for ln in res.stderr.splitlines() if ln.startswith("corruptbench AOT")]
            if res.returncode != 0 or not lines:
                last = lines[-1] if lines else (res.stderr.strip().splitlines() or ["?"])[-1]
                print(f"{last} (the kernels compile on first use instead)", file=sys.stderr)
                return
            built = [p for p in Path(tmp).iterdir() if p.name.startswith("_aot_kernels")]
            target.parent.mkdir(parents=True, exist_ok=True)
            for p in built:  # the module, its parts (_aot_kernels_<k>) and the JSON
                stem = p.name.split(".", 1)[0]
                name = stem + target.name[len(AOT_STEM) :] if p.suffix == target.suffix else p.name
                shutil.copyfile(p, target.parent / name)
            print(lines[-1], file=sys.stderr)

    def get_outputs(self) -> list[str]:
        # the module and its JSON, when they were built (a skipped build leaves none)
        out = [p for p in super().get_outputs() if os.path.exists(p)]
        built = Path(self.get_ext_fullpath(AOT))
        return out + [str(p) for p in _companions(built)]

    def _built(self, ext: Extension) -> Path:
        # where build_extension wrote it: build_lib, whatever ``inplace`` says by now
        return Path(self.build_lib) / self.get_ext_filename(ext.name)

    def get_output_mapping(self) -> dict[str, str]:
        # editable installs: built file -> source tree, only for what was built (and the JSON)
        mapping = {k: v for k, v in super().get_output_mapping().items() if os.path.exists(k)}
        if self.inplace:
            for ext in self.extensions:
                for p in _companions(self._built(ext)):
                    mapping[str(p)] = str(HERE / "src" / "corruptbench" / p.name)
        return mapping

    def copy_extensions_to_source(self) -> None:
        # --inplace and editable installs: the built module and its JSON next to the sources
        # (setuptools' own copy would fail on a skipped build, which leaves nothing to copy)
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            built = self._built(ext)
            if not built.exists():
                continue
            package_dir = Path(build_py.get_package_dir(ext.name.rpartition(".")[0]))
            for p in (built, *_companions(built)):
                if p.exists():
                    shutil.copyfile(p, package_dir / p.name)


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import announce()
    setup(ext_modules=[Extension(AOT, sources=[])], cmdclass={"build_ext": BuildExt})
