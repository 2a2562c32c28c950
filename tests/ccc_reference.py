"""The original CCC code (``../shared/reference/ccc/``, github.com/oripress/CCC, MIT) as tests use it.

Nothing of it is in this repository: these helpers read it from ``../shared`` at test time.

- :func:`load_functions` executes only the named top-level ``def``\\ s of one of its files (found
  with :mod:`ast`), in a namespace of builtins: ``generate.py``'s ``find_path`` and
  ``traverse_graph`` use nothing but ``abs``, ``len`` and ``range`` (:func:`free_names` shows it),
  so leaving out its heavy imports (torch, torchvision, webdataset, pandas, requests) changes
  nothing in them.
- The corruptions of ``make_imagenet_c.py`` need its libraries: they run in the reference env
  (``tools/reference/ccc_runner.py``, started by :func:`run_ccc`).
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path
from typing import Any

import numpy as np

from reference import _run, reference_available
from support import SHARED

CCC_DIR = SHARED / "reference" / "ccc"
CCC_MISSING = f"the original CCC code is not at {CCC_DIR} (../shared/reference/ccc)"
RUNNER = Path(__file__).resolve().parents[1] / "tools" / "reference" / "ccc_runner.py"


def ccc_available() -> bool:
    return (CCC_DIR / "generate.py").is_file() and (CCC_DIR / "make_imagenet_c.py").is_file()


def _defs(path: Path, names: list[str]) -> list[ast.FunctionDef | ast.ClassDef]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = [
        n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in names
    ]
    missing = set(names) - {n.name for n in found}
    if missing:
        raise LookupError(f"{path} has no top-level def {sorted(missing)}")
    return found


def free_names(path: Path, names: list[str]) -> set[str]:
    """Names the given functions read that they do not bind themselves (globals they need)."""
    loaded: set[str] = set()
    bound: set[str] = set(names)
    for fn in _defs(path, names):
        bound.update(a.arg for a in fn.args.args)
        for node in ast.walk(fn):
            if isinstance(node, ast.Name):
                (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
    return loaded - bound


def load_functions(
    path: Path, names: list[str], modules: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The named top-level functions (or classes) of ``path``, executed alone (decorators
    included) in a namespace of builtins plus ``modules`` (e.g. ``{"np": numpy, "numba": numba}``)."""
    module = ast.Module(body=list(_defs(path, names)), type_ignores=[])
    namespace: dict[str, Any] = {"__builtins__": builtins, **(modules or {})}
    exec(compile(module, str(path), "exec"), namespace)  # noqa: S102 - the reference's own code
    return {n: namespace[n] for n in names}


def run_ccc(
    ops: list[dict], arrays: dict[str, np.ndarray], timeout: float = 300
) -> tuple[dict, dict]:
    """Run ``ops`` in the reference env's ``ccc_runner.py`` (see its docstring)."""
    return _run(ops, arrays, timeout, runner=RUNNER, request={"source": str(CCC_DIR)})


def ccc_reference_available() -> bool:
    return ccc_available() and reference_available()
