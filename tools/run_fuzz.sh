#!/bin/sh
# run_fuzz.sh BINARY SEED_DIR NAME: run one libFuzzer harness for FUZZ_SECONDS
# (default 60). New inputs go to build/fuzz/NAME/corpus (the checked-in seeds
# are only read), crashes to build/fuzz/NAME/. Fails on any crash, leak,
# timeout, out-of-memory or sanitizer report (libFuzzer's exit status).
# FUZZ_SEED (default 1) makes a run from the checked-in seeds repeatable, so a
# CI run that passes passes again; FUZZ_SEED=0 lets libFuzzer pick a seed (use
# it for long local runs that hunt for new inputs).
set -u
bin=$1 seeds=$2 name=$3
secs=${FUZZ_SECONDS:-60}
seed=${FUZZ_SEED:-1}
work=build/fuzz/$name
mkdir -p "$work/corpus"
start=$(date +%s)
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$bin" -max_total_time="$secs" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$seeds" >"$work/log" 2>&1
rc=$?
took=$(($(date +%s) - start))
if [ $rc -ne 0 ]; then
  tail -n 40 "$work/log"
  echo "FUZZ $name: FAILED (exit $rc) after $took s; full log $work/log;" \
    "reproduce with: $bin $work/crash-* (or leak-*, timeout-*, oom-*)"
  exit 1
fi
runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/log")
echo "FUZZ $name: ${runs:-?} inputs in $took s, no crash, leak or sanitizer report"
