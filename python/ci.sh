#!/usr/bin/env bash
# The Python/JAX/CMake step of CI (.ci/run calls it; runnable by hand):
# a fresh venv, the README's pip command, pytest, the seed example on a small
# batch, the C/C++ consumer projects, and (where nvcc is) the CUDA build of the
# package compiled once. Needs PyPI (pip); `ninja test` does not.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${BMM_VENV:-build/venv}
t0=$(date +%s)
say() { echo "--- $* ($(( $(date +%s) - t0 )) s)"; }

say "venv $venv: numpy jax pytest matplotlib"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check numpy 'jax>=0.10' pytest matplotlib

say "pip install ./python (the README's command)"
"$venv/bin/pip" install -q --disable-pip-version-check ./python
"$venv/bin/python" -c "import bmm, bmm.jax; print('bmm', bmm.__version__, 'dtypes', bmm.dtypes, 'jax platforms', bmm.jax.platforms)"

say "pytest python/tests"
rc=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests || rc=$?
if [ $rc -eq 5 ]; then echo "pytest collected no tests: the setup is broken"; exit 1; fi
[ $rc -eq 0 ] || exit $rc

say "examples/seed_jax.py --quick"
"$venv/bin/python" examples/seed_jax.py --quick --out build/seed_jax_quick
test -s build/seed_jax_quick/seed_jax.csv && test -s build/seed_jax_quick/seed_jax.png

say "CMake / pkg-config consumers"
sh tests/consumers/run.sh build/consumers

if command -v nvcc >/dev/null 2>&1; then
  say "the package's CUDA build compiles (sm_90 only; no GPU needed to compile)"
  rm -rf build/cuda_wheel
  BMM_CUDA=1 BMM_JAX=1 BMM_CUDA_GENCODE="-gencode arch=compute_90,code=sm_90" \
    "$venv/bin/pip" wheel -q --no-deps ./python -w build/cuda_wheel
  ls build/cuda_wheel/*.whl
else
  echo "nvcc not found: the package's CUDA build is not compiled"
fi
say "python step done"
