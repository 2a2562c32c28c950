#!/usr/bin/env bash
# Build the reference environment: a separate venv running the original ImageNet-C code
# (imagenet-c==0.0.3 + ImageMagick's MagickWand through Wand), used only by tests and
# benchmarks through tests/reference.py (runner: tools/reference/ref_runner.py).
#
# Usage: bash tools/reference/setup_refenv.sh [DIR]
#   DIR defaults to $CORRUPTBENCH_REFENV, else /work/refenv.
# Idempotent: if DIR/.ok exists and the imports work, exits 0 at once.
# Needs: python3 (3.11) with venv, network access to PyPI and Debian's archive, root for apt-get
# (only when the MagickWand library is missing). Runs with no stdin (CI).
set -euo pipefail

DIR="${1:-${CORRUPTBENCH_REFENV:-/work/refenv}}"
PY="${REFENV_BASE_PYTHON:-python3}"
export DEBIAN_FRONTEND=noninteractive
export PIP_DISABLE_PIP_VERSION_CHECK=1

START=$(date +%s)
say() { printf '[setup_refenv] %s\n' "$*"; }
fail() {
    printf '[setup_refenv] ERROR: %s\n' "$*" >&2
    exit 1
}
elapsed() { echo $(($(date +%s) - START)); }

# Held until this script exits (also when it dies): a test run that finds DIR.lock waits for
# the build to end instead of reading a half-made env (tests/reference.py; .ci/run builds the
# env while it installs the package)
mkdir -p "$(dirname "$DIR")" || fail "cannot create $(dirname "$DIR")"
[[ -L "$DIR.lock" ]] && fail "$DIR.lock is a symbolic link: remove it (the lock is a plain file)"
exec 9>>"$DIR.lock" || fail "cannot write $DIR.lock (is $(dirname "$DIR") writable?)" # (>>: never truncates)
if command -v flock >/dev/null; then flock 9; fi # (util-linux; without it nobody waits)

CHECK_IMPORTS='import numpy, cv2, skimage, scipy, PIL, wand.image, imagenet_c, imagecorruptions; print(numpy.__version__, cv2.__version__, skimage.__version__, scipy.__version__, PIL.__version__, wand.version.MAGICK_VERSION)'

if [[ -f "$DIR/.ok" && -x "$DIR/bin/python" ]]; then
    if "$DIR/bin/python" -c "$CHECK_IMPORTS" >/dev/null 2>&1; then
        say "reference env already built at $DIR (found $DIR/.ok); nothing to do"
        exit 0
    fi
    say "$DIR/.ok exists but the imports fail; rebuilding"
    rm -f "$DIR/.ok"
fi

# 1. ImageMagick's MagickWand shared library (Wand loads it with ctypes at import time).
have_magickwand() {
    local libs
    libs=$(ldconfig -p 2>/dev/null || true) # no `| grep -q`: SIGPIPE + pipefail gives false negatives
    [[ "$libs" == *libMagickWand* ]] && return 0
    dpkg -s libmagickwand-dev >/dev/null 2>&1 && return 0
    return 1
}
if have_magickwand; then
    say "MagickWand library present"
else
    say "MagickWand library missing: installing libmagickwand-dev with apt-get"
    command -v apt-get >/dev/null || fail "apt-get not found; install ImageMagick 6's MagickWand library (libmagickwand-dev) by hand"
    SUDO=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || fail "not root and no sudo: cannot apt-get install libmagickwand-dev"
        SUDO="sudo -n"
    fi
    t0=$(date +%s)
    $SUDO apt-get update -qq </dev/null || fail "apt-get update failed"
    $SUDO apt-get install -y -qq --no-install-recommends libmagickwand-dev </dev/null >/dev/null ||
        fail "apt-get install libmagickwand-dev failed"
    have_magickwand || fail "libmagickwand-dev installed but libMagickWand is still not found by ldconfig"
    say "apt-get done in $(($(date +%s) - t0)) s"
fi

# 2. The venv.
"$PY" -c 'import sys; assert sys.version_info[:2] >= (3, 9), sys.version' ||
    fail "$PY is too old or missing (need Python >= 3.9; tested with 3.11)"
if [[ ! -x "$DIR/bin/python" ]]; then
    say "creating venv $DIR with $("$PY" --version 2>&1)"
    "$PY" -m venv "$DIR" || fail "python3 -m venv $DIR failed (is the venv module installed?)"
fi
PIP=("$DIR/bin/python" -m pip -q --disable-pip-version-check --no-input)

# 3. Pinned dependencies of the original code, numpy 1.x so the 2018 code runs unchanged.
t0=$(date +%s)
say "installing pinned dependencies (pip)"
"${PIP[@]}" install \
    'numpy==1.26.4' \
    'setuptools<82' \
    'opencv-python==3.4.18.65' \
    'scikit-image==0.24.0' \
    'scipy==1.13.1' \
    'pillow==10.4.0' \
    'wand==0.6.13' </dev/null || fail "pip install of the pinned dependencies failed"
# 4. The reference code itself, without its (old, unpinned) requirements. imagecorruptions only
#    supplies the frost images (byte-identical to ImageNet-C's; imagenet-c 0.0.3's wheel lacks them).
"${PIP[@]}" install --no-deps 'imagenet-c==0.0.3' 'imagecorruptions==1.1.2' </dev/null ||
    fail "pip install --no-deps imagenet-c==0.0.3 imagecorruptions==1.1.2 failed"
say "pip done in $(($(date +%s) - t0)) s"

# 5. Check: imports, then one run of the runner's self-test (shims + MagickWand motion blur).
VERSIONS=$("$DIR/bin/python" -c "$CHECK_IMPORTS" 2>&1) || fail "imports failed in $DIR: $VERSIONS"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -f "$HERE/ref_runner.py" ]]; then
    OMP_NUM_THREADS=1 "$DIR/bin/python" "$HERE/ref_runner.py" --selftest ||
        fail "ref_runner.py --selftest failed in $DIR"
fi
# The original ImageNet-C-bar code (not in the repository: ../shared beside it, where present)
# runs on the same packages; its runner checks every transform once.
CBAR_SOURCE="$HERE/../../../shared/reference/augmentation-corruption/imagenet_c_bar"
if [[ -f "$HERE/cbar_runner.py" && -f "$CBAR_SOURCE/transform_finder.py" ]]; then
    OMP_NUM_THREADS=1 "$DIR/bin/python" "$HERE/cbar_runner.py" --selftest "$CBAR_SOURCE" ||
        fail "cbar_runner.py --selftest failed in $DIR"
fi
"$DIR/bin/python" -m pip freeze --all >"$DIR/freeze.txt" 2>/dev/null || true
echo "$VERSIONS" >"$DIR/.ok"
say "versions (numpy cv2 skimage scipy PIL ImageMagick): $VERSIONS"
say "reference env ready at $DIR in $(elapsed) s"
