#!/bin/sh
# Runs a test built for CPU features the build machine may lack: when
# /proc/cpuinfo lists every flag, run BIN (log in OUT.log, stamp OUT only on
# success); otherwise the build itself was the test (compile-only) and OUT says so.
#   sh tests/run_if_cpu.sh "avx512f avx512vl" BIN OUT
flags=$1 bin=$2 out=$3
for f in $flags; do
  if ! grep -qw "$f" /proc/cpuinfo 2>/dev/null; then
    echo "compile-only: this CPU lacks $f, $bin was built but not run" | tee "$out.log"
    touch "$out"
    exit 0
  fi
done
"$bin" > "$out.log" 2>&1 && touch "$out" || { cat "$out.log"; exit 1; }
