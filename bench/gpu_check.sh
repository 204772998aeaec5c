#!/usr/bin/env bash
# bench/gpu_check.sh OUTDIR - all the GPU work in one command, within 10 minutes
# on an H100: build (plain nvcc, sm_90), the peers (JAX, CuPy, PyTorch, Triton,
# each in its own process), the CUDA tests plainly and under compute-sanitizer
# (memcheck, racecheck, initcheck), the benchmark (suite, then the seed sweep),
# the report. Every CSV and log goes to OUTDIR; a short summary is printed last.
#
# Each step runs under `timeout` with its own budget, cut to what is left of
# the whole (GPU_CHECK_BUDGET seconds, default 560). A failing step does not
# stop the others; the exit code is 1 if any step failed or timed out.
#
# The peers run while nvcc builds (CPU work, 16 cores): the GPU is theirs
# alone then, and nothing else is timed on it at the same time.
# GPU_CHECK_STEPS (default "peers tests bench sanitize report") picks steps,
# e.g. to split the work over two calls; the builds always run.
set -u
OUT=${1:?usage: bench/gpu_check.sh OUTDIR}
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUT" build
OUT=$(cd "$OUT" && pwd)
START=$(date +%s)
BUDGET=${GPU_CHECK_BUDGET:-560}
DEADLINE=$((START + BUDGET))
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
FAILED=0
export PATH="$PATH:/usr/local/cuda/bin"
export XLA_PYTHON_CLIENT_PREALLOCATE=false
PY=${PYTHON:-python3}
STEPS=" ${GPU_CHECK_STEPS:-peers tests bench sanitize report} "
want() { case $STEPS in *" $1 "*) return 0 ;; esac; return 1; }
ARCH="-gencode arch=compute_90,code=sm_90"
NVCC="nvcc -std=c++17 -O3 -I. $ARCH"

now() { date +%s; }

# step NAME BUDGET 'shell command' : stdout+stderr to OUT/NAME.log unless the
# command redirects them itself; status line to the summary
step() {
  local name=$1 budget=$2 cmd=$3 left t0 rc dt
  left=$((DEADLINE - $(now)))
  if [ "$left" -lt 5 ]; then
    echo "$name: SKIPPED (no time left of ${BUDGET}s)" >> "$SUMMARY"
    FAILED=1
    return
  fi
  [ "$budget" -gt "$left" ] && budget=$left
  t0=$(now)
  echo "== $name (budget ${budget}s) $(date -u +%H:%M:%S)" >&2
  timeout -k 5 "$budget" bash -c "$cmd" >> "$OUT/$name.log" 2>&1
  rc=$?
  dt=$(($(now) - t0))
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "$name: TIMEOUT after ${dt}s (budget ${budget}s)" >> "$SUMMARY"
    FAILED=1
  elif [ "$rc" -ne 0 ]; then
    echo "$name: FAIL rc=$rc (${dt}s)" >> "$SUMMARY"
    FAILED=1
  else
    echo "$name: ok (${dt}s)" >> "$SUMMARY"
  fi
}

# ---- the machine ------------------------------------------------------------
{
  echo "date=$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "command=bench/gpu_check.sh $1"
  echo "git=$(git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "host=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
} > "$OUT/run_info.txt"
{
  nvidia-smi 2>&1
  nvcc --version 2>&1 | tail -2
  command -v compute-sanitizer ninja 2>&1
  $PY -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)' 2>&1
  for m in torch cupy jax triton matplotlib; do
    $PY -c "import $m; print('$m', $m.__version__)" 2>&1 | tail -1
  done
} > "$OUT/env.txt" 2>&1

# ---- phase A: builds in the background, the peers in the foreground ----------
build() { # name, then nvcc arguments; log in OUT/build_NAME.log
  local name=$1
  shift
  # shellcheck disable=SC2086 # NVCC is a command line
  timeout -k 5 300 $NVCC "$@" > "$OUT/build_$name.log" 2>&1
  echo $? > "$OUT/build_$name.rc"
}
# one nvcc per build, all at once (GPU_CHECK_SERIAL_BUILD=1: one at a time, small machines)
run_build() {
  if [ -n "${GPU_CHECK_SERIAL_BUILD:-}" ]; then build "$@"; else build "$@" & fi
}
builds() {
  run_build bench_gpu_cublas -DBMM_WITH_CUBLAS bench/bench_gpu.cu -o build/bench_gpu_cublas -lcublas
  run_build bench_gpu bench/bench_gpu.cu -o build/bench_gpu
  run_build test_cuda_cublas -Xcompiler -fopenmp -DBMM_WITH_CUBLAS tests/test_cuda.cu \
    -o build/test_cuda_cublas -lcublas -lgomp
  run_build test_cuda -Xcompiler -fopenmp tests/test_cuda.cu -o build/test_cuda -lgomp
  wait
}
builds &

if want peers; then
  for fw in torch cupy triton jax; do
    case $fw in torch | cupy | triton) b=55 ;; jax) b=100 ;; esac
    step "peers_$fw" "$b" "$PY bench/peers.py --framework $fw --sweep > '$OUT/peers_$fw.csv'"
  done
fi

wait
for name in bench_gpu_cublas bench_gpu test_cuda_cublas test_cuda; do
  rc=$(cat "$OUT/build_$name.rc" 2>/dev/null || echo missing)
  if [ "$rc" = 0 ]; then
    echo "build $name: ok" >> "$SUMMARY"
  else
    echo "build $name: FAIL rc=$rc (see build_$name.log)" >> "$SUMMARY"
    FAILED=1
  fi
done

# ---- phase B: tests, benchmark, sanitizers, one at a time on the GPU ----------
if want tests && [ -x build/test_cuda_cublas ]; then
  step test_cuda_cublas 50 "build/test_cuda_cublas"
fi
BENCH=build/bench_gpu_cublas
[ -x "$BENCH" ] || BENCH=build/bench_gpu
if want bench && [ -x "$BENCH" ]; then
  step bench_gpu 60 "$BENCH --require-gpu --meta '$OUT/bench_meta.txt' > '$OUT/bench_gpu.csv'"
  step bench_sweep 55 "$BENCH --require-gpu --sweep --no-suite --meta '$OUT/bench_meta_sweep.txt' > '$OUT/bench_sweep.csv'"
fi
# compute-sanitizer over bench_gpu --sanitize (every suite row x every claiming
# strategy, small batches, each result checked) and, where test_cuda has its
# --quick mode (every group but the 2^31-element, 2^24-batch and suite ones,
# minutes under instrumentation; bench_gpu --sanitize covers the suite rows),
# over the test runner too
if want sanitize; then
  SAN_TARGETS=""
  [ -x build/bench_gpu ] && SAN_TARGETS="build/bench_gpu --sanitize --require-gpu"
  if [ -x build/test_cuda ] && grep -q -- '"--quick"' tests/test_cuda.cu; then
    SAN_TARGETS="$SAN_TARGETS;build/test_cuda --quick"
  fi
  if [ -z "$SAN_TARGETS" ] || ! command -v compute-sanitizer > /dev/null; then
    echo "sanitizers: SKIPPED (no build/bench_gpu nor build/test_cuda, or no compute-sanitizer)" >> "$SUMMARY"
    FAILED=1
  else
    export SAN_TARGETS
    for tool in memcheck racecheck initcheck; do
      case $tool in memcheck) b=40 extra="--leak-check full" ;; racecheck) b=40 extra="" ;; initcheck) b=30 extra="" ;; esac
      cmd="rc=0; IFS=';'; for t in \$SAN_TARGETS; do IFS=' '; [ -n \"\$t\" ] || continue; echo \"## \$t\"; compute-sanitizer --tool $tool $extra --error-exitcode 1 \$t || rc=1; done; exit \$rc"
      step "$tool" "$b" "$cmd"
    done
  fi
fi

# ---- the report (no GPU needed; runs again anywhere from these files) --------
want report && step report 20 "$PY bench/report.py --results '$OUT' --out '$OUT/RESULTS_generated.md'"

# ---- summary, last ------------------------------------------------------------
{
  echo "======== gpu_check summary ($(($(now) - START))s of ${BUDGET}s; all files in $OUT)"
  grep -m1 . "$OUT/run_info.txt" | sed 's/^/  /'
  sed 's/^/  /' "$SUMMARY"
  for f in "$OUT"/*.csv; do
    [ -s "$f" ] && printf '  %s: %d rows\n' "$(basename "$f")" $(($(wc -l < "$f") - 1))
  done
  grep -h -E '^roofline:|^launch cost' "$OUT/bench_gpu.log" 2>/dev/null | sed 's/^/  /'
  grep -h -c '^FAIL' "$OUT/bench_gpu.log" "$OUT/bench_sweep.log" 2>/dev/null |
    paste -sd+ | sed 's/^/  bench FAIL lines: /'
  grep -h -E '^ERROR ' "$OUT"/peers_*.log 2>/dev/null | head -5 | sed 's/^/  /'
  grep -h -E 'passed, .* failed' "$OUT/test_cuda_cublas.log" 2>/dev/null | tail -1 | sed 's/^/  test_cuda_cublas: /'
  for t in memcheck racecheck initcheck; do
    grep -h -E '^## |ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$t.log" 2>/dev/null | sed "s/^/  $t: /"
  done
  grep -h -E 'checks, ' "$OUT/RESULTS_generated.md" 2>/dev/null | sed 's/<[^>]*>//g; s/^/  targets: /'
  echo "  exit: $([ $FAILED -eq 0 ] && echo 0 || echo 1)"
} | tee "$OUT/summary_final.txt"
exit $FAILED
