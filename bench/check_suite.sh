#!/bin/sh
# bench/check_suite.sh - fails if a row of the public suite (../shared/bench_suite.csv)
# is missing from bench/suite.csv. Passes, saying so, where ../shared does not exist.
# Rows compare as text after dropping carriage returns and surrounding blanks.
cd "$(dirname "$0")/.." || exit 1
shared=../shared/bench_suite.csv
if [ ! -d ../shared ]; then
  echo "check_suite: ../shared absent: nothing to compare"
  exit 0
fi
if [ ! -f "$shared" ]; then
  echo "check_suite: FAIL: $shared missing"
  exit 1
fi
if [ ! -f bench/suite.csv ]; then
  echo "check_suite: FAIL: bench/suite.csv missing"
  exit 1
fi
awk '
  { sub(/\r$/, ""); gsub(/^[ \t]+|[ \t]+$/, "") }
  NR == FNR { have[$0] = 1; next }
  $0 == "" || /^#/ { next }
  !($0 in have) { print "check_suite: missing from bench/suite.csv: " $0; bad = 1 }
  END { exit bad }
' bench/suite.csv "$shared" || exit 1
echo "check_suite: every row of $shared is in bench/suite.csv"
