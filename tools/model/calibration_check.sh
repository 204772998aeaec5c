#!/bin/sh
# tools/model/calibration_check.sh MODEL CSV [bmm-model options]: issue 19's
# acceptance of the bandwidth model, held by ninja test (model.ninja): on
# the measured table CSV (tools/model/calibration/probe_h100.csv, the H100
# probe), at least 80% of the rows predicted within 10 points and the
# measured best design (or one within 3 points of it) predicted best at
# >= 22 of every 26 (dtype, K) points. Fails (exit 1) when the fit degrades
# below that; a stub bmm-model (no clang or CUDA headers) is a SKIP.
model=$1
csv=$2
shift 2
out=$("$model" --calibration "$csv" "$@" 2> /dev/null)
rc=$?
case $out in SKIP*) echo "$out" | head -1; echo "0 passed, 0 failed, 1 skipped"; exit 0 ;; esac
last=$(echo "$out" | tail -1)
echo "$last"
set -- $(echo "$last" | sed -nE 's/^calibration: ([0-9]+) of ([0-9]+) rows within 10 points, best design matched at ([0-9]+) of ([0-9]+) .*/\1 \2 \3 \4/p')
if [ $rc -ne 0 ] || [ $# -ne 4 ]; then
  echo "FAIL: bmm-model --calibration gave no calibration line (rc $rc)"
  exit 1
fi
fail=0
if [ $(($1 * 100)) -lt $(($2 * 80)) ]; then
  echo "FAIL: $1 of $2 rows within 10 points, fewer than 80%"
  fail=1
fi
if [ $(($3 * 26)) -lt $(($4 * 22)) ]; then
  echo "FAIL: best design matched at $3 of $4 points, fewer than 22 of 26"
  fail=1
fi
[ $fail -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
